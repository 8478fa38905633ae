"""The embedded SmolLM2-135M model behind `local_caller`: real generation, usage, one
model per process (also under concurrent first loads), and no network at all."""

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

# the module behind sdk.local_caller (its model cache is what these tests inspect)
lc = importlib.import_module("sdk.callers.local")

pytestmark = pytest.mark.model

MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant. Answer in one short sentence."},
    {"role": "user", "content": "What colour is the sky on a clear day?"},
]


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


def test_guard_blocks_the_network(no_network):
    with pytest.raises(OSError, match="blocked"):
        socket.create_connection(("192.0.2.1", 443), timeout=1)  # TEST-NET-1, never routed
    assert no_network
    no_network.clear()


def test_two_threads_loading_at_once_get_one_model(monkeypatch):
    # start from an unloaded model even if another test file loaded it already
    lc._model = None
    loads: list[int] = []
    real_model_dir = lc.model_dir

    def counting_model_dir():  # called once per real load, inside the lock
        loads.append(1)
        return real_model_dir()

    monkeypatch.setattr(lc, "model_dir", counting_model_dir)
    barrier = threading.Barrier(2)
    results: list[Any] = [None, None]
    errors: list[BaseException] = []

    def load(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = lc.load_local_model()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=load, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == []
    assert results[0] is not None and results[0] is results[1]
    assert results[0] is lc._model
    assert len(loads) == 1
    tokenizer, model = results[0]
    assert not model.training


def test_generates_text_with_usage_and_loads_once():
    caller = local_caller(max_new_tokens=24)
    first = caller(MESSAGES)
    assert isinstance(first, LLMText)
    assert first.strip()
    assert isinstance(first.usage, Usage)
    assert first.usage.completion_tokens > 0
    assert first.usage.completion_tokens <= 24
    assert first.usage.prompt_tokens > 10
    model = lc._model
    assert model is not None

    second = caller([*MESSAGES[:1], {"role": "user", "content": "Name one fruit."}])
    assert second.strip() and second.usage.completion_tokens > 0
    assert lc._model is model  # the same (tokenizer, model) object: loaded once
    assert lc.load_local_model() is model

    # greedy by default: the same prompt gives the same text
    assert caller(MESSAGES) == first


def test_image_parts_are_dropped_and_prepare_is_exposed():
    caller = local_caller(max_new_tokens=8)
    caller.prepare()  # loads the model and runs one generation, outside any turn
    assert lc._model is not None and lc._warm
    reply = caller([{"role": "user", "content": [
        {"type": "text", "text": "Say hello."},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]}])
    assert reply.usage.completion_tokens > 0


def test_a_turn_that_cannot_get_the_model_in_time_gives_up_instead_of_queueing():
    """The model is shared: a seat whose turn ends while another seat's generation holds
    it fails at its deadline, rather than holding the model later for a reply nobody waits for."""
    from sdk.deadline import turn

    caller = local_caller(max_new_tokens=8)
    caller.prepare()
    assert lc._generate_lock.acquire(timeout=30)
    try:
        with turn(0.2), pytest.raises(TimeoutError, match="busy"):
            caller([{"role": "user", "content": "Say hello."}])
    finally:
        lc._generate_lock.release()
    with turn(30):
        assert caller([{"role": "user", "content": "Say hello."}]).usage.completion_tokens > 0
