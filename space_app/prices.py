"""The price table behind cost estimates: ARENA_PRICES, a JSON object mapping a model name (as
agents report it in their version, `sdk/versions.py`) to US dollars per million input and output
tokens, e.g. `{"gpt-4o-mini": {"input": 0.15, "output": 0.6}}` (or `[0.15, 0.6]`). A bad table
is refused at start with a message naming the problem."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Price(BaseModel):
    """US dollars per million tokens."""

    model_config = ConfigDict(extra="forbid")
    input: float = Field(ge=0, le=10_000)
    output: float = Field(ge=0, le=10_000)

    def cost(self, prompt_tokens: float, completion_tokens: float) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1_000_000


class PriceError(ValueError):
    pass


def parse_prices(text: str | None) -> dict[str, Price]:
    """The table ARENA_PRICES holds ({} when unset)."""
    if not (text or "").strip():
        return {}
    try:
        raw: Any = json.loads(str(text))
    except ValueError as exc:
        raise PriceError(f"ARENA_PRICES is not JSON ({exc}); give e.g. "
                         '{"gpt-4o-mini": {"input": 0.15, "output": 0.6}}') from None
    if not isinstance(raw, dict):
        raise PriceError("ARENA_PRICES must be a JSON object mapping model names to prices")
    out: dict[str, Price] = {}
    for model, value in raw.items():
        if isinstance(value, list) and len(value) == 2:
            value = {"input": value[0], "output": value[1]}
        try:
            out[str(model).strip()] = Price.model_validate(value)
        except ValidationError as exc:
            problem = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'price'}: {e['msg']}" for e in exc.errors()[:3])
            raise PriceError(f"ARENA_PRICES[{model!r}]: {problem} (give {{\"input\": USD per 1M input tokens, "
                             "\"output\": USD per 1M output tokens}})") from None
    return out


def price_for(prices: dict[str, Price], model: str) -> Price | None:
    """The price of a model: its exact name, else the same name in any letter case."""
    if not model:
        return None
    found = prices.get(model)
    if found is None:
        folded = model.casefold()
        found = next((p for name, p in prices.items() if name.casefold() == folded), None)
    return found


__all__ = ["Price", "PriceError", "parse_prices", "price_for"]
