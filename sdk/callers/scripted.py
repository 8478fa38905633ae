"""A deterministic llm_caller for tests and benchmarks: replies come from a script."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

from ..prompts import Message
from ..usage import LLMText, Usage


def scripted_caller(
    replies: Iterable[str] | Callable[[list[Message]], str],
    delay: float = 0.0,
    cycle: bool = True,
) -> Callable[[list[Message]], str]:
    """Return replies in order (cycling when `cycle`), or compute them with a function.

    Usage is counted as whitespace-separated words, so token accounting is testable.
    `caller.calls` records every message list received.
    """
    script = replies if callable(replies) else list(replies)
    lock = threading.Lock()
    state = {"i": 0}
    calls: list[list[Message]] = []

    def llm_caller(messages: list[Message]) -> str:
        if delay:
            time.sleep(delay)
        with lock:
            calls.append(messages)
            if callable(script):
                text = script(messages)
            else:
                if not script:
                    raise RuntimeError("scripted_caller has no replies")
                if state["i"] >= len(script) and not cycle:
                    raise RuntimeError("scripted_caller ran out of replies")
                text = script[state["i"] % len(script)]
                state["i"] += 1
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in messages)
        return LLMText(text, Usage(prompt_tokens=prompt_words, completion_tokens=len(text.split())))

    llm_caller.calls = calls  # type: ignore[attr-defined]
    llm_caller.model = "scripted"  # type: ignore[attr-defined]
    return llm_caller
