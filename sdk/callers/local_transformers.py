"""The transformers backend of the embedded model: the GGUF file dequantised into a float32
PyTorch model (~20 s to load on 2 cores, ~20 tokens/s), kept selectable with
ARENA_LOCAL_BACKEND=transformers. Its prompt reading is faster than llama.cpp's Q4_1 path on
this hardware (fp32 GEMM), and it is the reference the llama.cpp backend was checked against.

Not thread-safe by itself either: `local.py` holds one lock around every use.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPEAT_PENALTY = 1.2
TOP_P = 0.9


class TransformersModel:
    name = "transformers"
    label = "transformers"

    def __init__(self, gguf: Path, threads: int) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        # process-wide: torch has one intra-op pool (the default is the number of cores)
        torch.set_num_threads(threads)
        folder = str(gguf.parent)
        self.tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=gguf.name)
        self.model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf.name)
        self.model.eval()

    def render(self, messages: list[dict[str, str]]) -> str:
        return self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def encode_prompt(self, text: str) -> list[int]:
        # the chat template already holds every control token: add none
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def encode_text(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"] if text else []

    def decode(self, tokens: list[int]) -> str:
        return self.tokenizer.decode(tokens, skip_special_tokens=True)

    def generate(self, prompt: list[int], *, max_new_tokens: int, temperature: float, seed: int | None,
                 over: Callable[[], bool], stop: Callable[[], bool]) -> tuple[str, int]:
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList

        class EndOfTurn(StoppingCriteria):
            # checked after every generated token (the prompt's forward pass cannot be stopped)
            def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
                return torch.full((input_ids.shape[0],), bool(stop()), dtype=torch.bool)

        input_ids = torch.tensor([prompt])
        kwargs: dict[str, Any] = {"max_new_tokens": max_new_tokens, "repetition_penalty": REPEAT_PENALTY,
                                  "pad_token_id": self.tokenizer.eos_token_id,
                                  "stopping_criteria": StoppingCriteriaList([EndOfTurn()])}
        if temperature > 0:
            kwargs.update(do_sample=True, temperature=temperature, top_p=TOP_P)
        else:
            kwargs.update(do_sample=False)
        with torch.inference_mode():
            if seed is not None:
                torch.manual_seed(seed)
            out = self.model.generate(input_ids, attention_mask=torch.ones_like(input_ids), **kwargs)
        new_tokens = out[0, len(prompt):].tolist()
        # the end-of-turn token, when generated, is not part of the reply
        if new_tokens and new_tokens[-1] == self.tokenizer.eos_token_id:
            new_tokens = new_tokens[:-1]
        return self.decode(new_tokens).strip(), len(new_tokens)

    def score(self, prefix: list[int], continuations: list[list[int]], *, reuse: bool,
              over: Callable[[], bool]) -> list[list[float]]:
        """Per-token log-probabilities of each continuation after `prefix`. reuse=True: one
        forward pass over the prefix, its KV cache reused (and cropped back) for each
        continuation; reuse=False: one pass over prefix + continuation each."""
        import torch

        if not prefix:
            raise ValueError("the prefix must have at least one token")
        results: list[list[float]] = []
        with torch.inference_mode():
            if reuse:
                out = self.model(input_ids=torch.tensor([prefix]), use_cache=True)
                cache, last = out.past_key_values, out.logits[0, -1:]
                for cont in continuations:
                    if over():
                        raise TimeoutError("the turn ended while the embedded model was scoring")
                    if not cont:
                        results.append([])
                        continue
                    step = self.model(input_ids=torch.tensor([cont]), past_key_values=cache, use_cache=True)
                    cache.crop(-len(cont))  # back to the prefix alone
                    logits = torch.cat([last, step.logits[0, :-1]])
                    results.append(_pick(logits, cont))
                return results
            for cont in continuations:
                if over():
                    raise TimeoutError("the turn ended while the embedded model was scoring")
                out = self.model(input_ids=torch.tensor([prefix + cont]))
                results.append(_pick(out.logits[0, len(prefix) - 1:-1], cont))
        return results


def _pick(logits: Any, tokens: list[int]) -> list[float]:
    import torch

    logprobs = torch.log_softmax(logits.double(), dim=-1)
    return logprobs[torch.arange(len(tokens)), torch.tensor(tokens)].tolist()
