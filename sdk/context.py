"""A prompt that fits the model's context window: a token estimate, and the history trimmed
against the context length the author sets (`LLMAgent(context_tokens=...)`), the newest
items kept. Counting items alone lets a long match overflow a small window (an Avalon
seat's prompt grew from 447 to 2,094 tokens), and a model endpoint then refuses the call or
silently drops the start of the prompt, which holds the rules.

The estimate needs no tokenizer, so it works for every model: about four characters of
Latin text per token, and one token per other character (Chinese, Japanese, emoji...), on
the generous side so that the prompt fits rather than comes close. Pictures are not counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable

DEFAULT_REPLY_TOKENS = 512  # kept free for the reply when the caller does not say its max_tokens
LEFT_OUT = "({n} earlier event(s) left out to fit the model's context)"


def estimate_tokens(text: str) -> int:
    """About how many tokens `text` is: ASCII characters count a quarter, others one each."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


def reply_reserve(llm_caller: object) -> int:
    """Tokens to keep free for the reply: the caller's own `max_tokens` when it exposes its
    settings (`openai_caller` does), else DEFAULT_REPLY_TOKENS."""
    settings = getattr(llm_caller, "settings", None)
    asked = settings.get("max_tokens") if isinstance(settings, dict) else None
    return asked if isinstance(asked, int) and asked > 0 else DEFAULT_REPLY_TOKENS


def newest_that_fit(available: int, most: int, size_with: Callable[[int], int]) -> int:
    """The largest n <= `most` (newest history items kept) whose prompt size `size_with(n)`
    is at most `available` tokens; 0 when even the prompt without history is too long.
    The size grows with n, so a binary search asks for a few prompts, not one per item."""
    if size_with(most) <= available:
        return most
    low, high = 0, most  # size_with(high) is too large; find the last n that fits
    while low < high:
        mid = (low + high + 1) // 2
        if size_with(mid) <= available:
            low = mid
        else:
            high = mid - 1
    return low


__all__ = ["DEFAULT_REPLY_TOKENS", "LEFT_OUT", "estimate_tokens", "newest_that_fit", "reply_reserve"]
