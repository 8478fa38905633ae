"""The embedded SmolLM2-135M model behind `local_caller`: real generation on both backends
(llama.cpp by default, transformers on request), usage, the chat template, the turn's
deadline, one model per process (also under concurrent first loads), and no network at all."""

from __future__ import annotations

import importlib
import ipaddress
import os
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from sdk import LLMText, Usage, local_caller
from sdk.deadline import turn

# the module behind sdk.local_caller (its model cache is what these tests inspect)
lc = importlib.import_module("sdk.callers.local")
deadline = importlib.import_module("sdk.deadline")

pytestmark = pytest.mark.model

MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant. Answer in one short sentence."},
    {"role": "user", "content": "What colour is the sky on a clear day?"},
]
# a prompt the model answers at length (it does not stop before 40 tokens)
LONG_ANSWER = [{"role": "user", "content": "Write a long story about a dragon who learns to bake bread."}]


def _is_loopback(host: Any) -> bool:
    if not isinstance(host, str):
        return False
    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def no_network(monkeypatch) -> Iterator[list[str]]:
    """Any connection (or name lookup) to a non-loopback address raises, and is recorded
    so that a library swallowing the error still fails the test."""
    assert os.environ.get("HF_HUB_OFFLINE") == "1"  # set by conftest
    blocked: list[str] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def check(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):
            blocked.append(f"connect {address!r}")
            raise OSError(f"network use blocked in this test: {address!r}")

    def connect(self: socket.socket, address: Any) -> None:
        check(self, address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(self, address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any):
        if host is not None and not _is_loopback(host if isinstance(host, str) else host.decode()):
            blocked.append(f"getaddrinfo {host!r}")
            raise socket.gaierror(f"name lookup blocked in this test: {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield blocked
    assert blocked == [], f"the local model tried to use the network: {blocked}"


class TickingClock:
    """A clock that moves only when read: every reading is 0.1 s after the previous one. Under
    it a turn of N seconds lasts exactly 10*N readings, whatever the machine's speed."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        self.now += 0.1
        return self.now


def test_guard_blocks_the_network(no_network):
    with pytest.raises(OSError, match="blocked"):
        socket.create_connection(("192.0.2.1", 443), timeout=1)  # TEST-NET-1, never routed
    assert no_network
    no_network.clear()


def test_the_backend_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("ARENA_LOCAL_BACKEND", raising=False)
    assert lc.local_backend() == "llama" == local_caller().backend
    monkeypatch.setenv("ARENA_LOCAL_BACKEND", "transformers")
    assert local_caller().backend == "transformers"
    assert local_caller(backend="llama").backend == "llama"  # an explicit choice wins
    monkeypatch.setenv("ARENA_LOCAL_BACKEND", "vllm")
    with pytest.raises(ValueError, match="unknown local model backend 'vllm'"):
        local_caller()
    monkeypatch.setenv("ARENA_LOCAL_THREADS", "0")
    with pytest.raises(ValueError, match="ARENA_LOCAL_THREADS"):
        lc.local_threads()


def test_two_threads_loading_at_once_get_one_model(monkeypatch):
    # start from an unloaded model even if another test file loaded it already
    monkeypatch.delitem(lc._models, "llama", raising=False)
    loads: list[int] = []
    real_model_dir = lc.model_dir

    def counting_model_dir():  # called once per real load, inside the lock
        loads.append(1)
        return real_model_dir()

    monkeypatch.setattr(lc, "model_dir", counting_model_dir)
    counted = lc.local_model_loads().get("llama", 0)
    barrier = threading.Barrier(2)
    results: list[Any] = [None, None]
    errors: list[BaseException] = []

    def load(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = lc.load_local_model("llama")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=load, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == []
    assert results[0] is not None and results[0] is results[1]
    assert results[0] is lc._models["llama"]
    assert len(loads) == 1
    assert lc.local_model_loads()["llama"] == counted + 1  # the loader's own count, as a batch worker reports it


def test_generates_deterministic_text_with_usage_and_loads_once():
    caller = local_caller(max_new_tokens=24)
    first = caller(MESSAGES)
    assert isinstance(first, LLMText)
    assert first.strip()
    assert isinstance(first.usage, Usage)
    assert 0 < first.usage.completion_tokens <= 24
    assert first.usage.prompt_tokens > 10
    model = lc._models["llama"]

    second = caller([*MESSAGES[:1], {"role": "user", "content": "Name one fruit."}])
    assert second.strip() and second.usage.completion_tokens > 0
    assert lc.load_local_model() is model  # the same object: loaded once

    # greedy by default: the same prompt gives the same text (also after another prompt
    # went through the model's cache in between)
    again = caller(MESSAGES)
    assert again == first and again.usage == first.usage


def test_the_prompt_is_the_models_chat_template_and_is_cut_in_the_middle(monkeypatch):
    model = lc.load_local_model("llama")
    text = model.render(lc._text_only(MESSAGES))
    assert text == ("<|im_start|>system\nYou are a helpful assistant. Answer in one short sentence.<|im_end|>\n"
                    "<|im_start|>user\nWhat colour is the sky on a clear day?<|im_end|>\n<|im_start|>assistant\n")
    ids = model.encode_prompt(text)
    assert ids[0] == model.llm.token_bos()  # <|im_start|> read as one control token, no extra BOS
    long = [{"role": "system", "content": "Rules."}, {"role": "user", "content": "word " * 3000 + "Say OK."}]
    ids = model.encode_prompt(model.render(long))
    fitted = lc._fit(ids)
    assert len(fitted) == lc.MAX_PROMPT_TOKENS
    assert fitted[:lc.KEEP_HEAD_TOKENS] == ids[:lc.KEEP_HEAD_TOKENS] and fitted[-20:] == ids[-20:]
    # through the caller, with a small cap (reading 1,536 tokens takes seconds)
    monkeypatch.setattr(lc, "MAX_PROMPT_TOKENS", 48)
    monkeypatch.setattr(lc, "KEEP_HEAD_TOKENS", 16)
    reply = local_caller(max_new_tokens=4)(long)
    assert reply.usage.prompt_tokens == 48


def test_a_seats_next_turn_reads_only_what_is_new_and_replies_as_from_scratch():
    """Seats take turns: seat A's next prompt repeats its previous one up to the new events,
    though seat B's prompt went through the model in between. The llama.cpp backend restores
    A's snapshot and reads only the rest; the reply is the one a fresh context gives."""
    model = lc.load_local_model("llama")
    caller = local_caller(max_new_tokens=12)
    history = [f"Round {i // 3 + 1}: P{i % 3 + 1} said: it is sweet, round, and grows on tree number {i}."
               for i in range(18)]

    def prompt(seat: str, events: int) -> list[dict[str, str]]:
        return [{"role": "system", "content": "You are playing Who is the Spy. Describe your word, never say it."},
                {"role": "user", "content": f"You are {seat}. Your word: apple.\n\nWhat happened so far:\n"
                 + "\n".join(history[:events]) + "\n\nDescribe your word in one sentence."}]

    caller(prompt("P1", 12))
    caller(prompt("P2", 13))
    before = model.tokens_evaluated
    later = caller(prompt("P1", 18))
    evaluated = model.tokens_evaluated - before
    first_ids = model.encode_prompt(model.render(prompt("P1", 12)))
    later_ids = model.encode_prompt(model.render(prompt("P1", 18)))
    shared = next(i for i, (a, b) in enumerate(zip(first_ids, later_ids, strict=False)) if a != b)
    assert len(first_ids) >= 256 and shared > 250  # the part of P1's prompt that it does not read again
    new_part = len(later_ids) - shared
    # read: the new part, then one token per generated token but the last
    assert evaluated <= new_part + later.usage.completion_tokens

    model._forget_from(0)
    model._snapshots.clear()
    assert caller(prompt("P1", 24)) == later


def test_image_parts_are_dropped_and_prepare_is_exposed():
    caller = local_caller(max_new_tokens=8)
    caller.prepare()  # loads the model and runs one generation, outside any turn
    assert "llama" in lc._models and "llama" in lc._warm
    reply = caller([{"role": "user", "content": [
        {"type": "text", "text": "Say hello."},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]}])
    assert reply.usage.completion_tokens > 0


def test_a_turn_that_cannot_get_the_model_in_time_gives_up_instead_of_queueing():
    """The model is shared: a seat whose turn ends while another seat's generation holds
    it fails at its deadline, rather than holding the model later for a reply nobody waits for."""
    caller = local_caller(max_new_tokens=8)
    caller.prepare()
    assert lc._model_lock.acquire(timeout=30)
    try:
        with turn(0.2), pytest.raises(TimeoutError, match="busy"):
            caller([{"role": "user", "content": "Say hello."}])
    finally:
        lc._model_lock.release()
    with turn(-1.0), pytest.raises(TimeoutError, match="turn ended"):  # free, but nobody waits any more
        caller([{"role": "user", "content": "Say hello."}])
    with turn(30):
        assert caller([{"role": "user", "content": "Say hello."}]).usage.completion_tokens > 0


@pytest.mark.parametrize("backend", ["llama", "transformers"])
def test_generation_stops_when_the_turn_is_about_to_end(monkeypatch, backend):
    caller = local_caller(max_new_tokens=40, backend=backend)
    unhurried = caller(LONG_ANSWER)
    assert unhurried.usage.completion_tokens == 40  # outside a turn: the full reply

    # a 1.5-second turn on a clock that advances 0.1 s per reading: the caller reads it once
    # before each new token, so it can make at most 15 tokens however fast the machine is
    monkeypatch.setattr(deadline, "time", TickingClock())
    with turn(1.5):
        hurried = caller(LONG_ANSWER)
    assert 1 <= hurried.usage.completion_tokens <= 15
    assert unhurried.startswith(hurried)  # the same greedy reply, cut short


def test_the_transformers_backend_is_still_selectable_and_reads_the_same_prompt(monkeypatch):
    monkeypatch.setenv("ARENA_LOCAL_BACKEND", "transformers")
    caller = local_caller(max_new_tokens=16)
    assert caller.backend == "transformers" and "transformers" in caller.model
    reply = caller(MESSAGES)
    assert reply.strip() and 0 < reply.usage.completion_tokens <= 16
    assert caller(MESSAGES) == reply  # greedy: deterministic here too

    # the llama.cpp backend renders the GGUF's chat template itself: same text, same tokens
    # as the transformers tokenizer's apply_chat_template, also for tricky text
    hf, cpp = lc.load_local_model("transformers"), lc.load_local_model("llama")
    tricky = [{"role": "user", "content": "Ünïcödé 你好 <b>tags</b>\n\n  spaces  and <|im_end|> spelt out"}]
    for messages in (MESSAGES, tricky, [{"role": "system", "content": "Be brief."}, *tricky]):
        plain = lc._text_only(messages)
        assert cpp.render(plain) == hf.tokenizer.apply_chat_template(plain, add_generation_prompt=True,
                                                                     tokenize=False)
        assert cpp.encode_prompt(cpp.render(plain)) == hf.encode_prompt(hf.render(plain))
    assert reply.usage.prompt_tokens == len(cpp.encode_prompt(cpp.render(MESSAGES)))
