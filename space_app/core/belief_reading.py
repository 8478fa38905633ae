"""A belief probe's reply read tolerantly into probabilities over the question's candidates: a
JSON object (`{"P2": 0.6, "P3": 0.4}`), pairs in text (`P2: 60%, P3 = 0.4`), or names alone
(one name: all the mass on it; several: shared equally). Names that are not candidates are
dropped and reported; a reply with no candidate in it is unreadable (recorded, never scored).

Normalising: a question of shape `one` (exactly one candidate is it: the spy, the murderer,
Merlin) has its weights scaled to sum to 1. A question of shape `each` (each candidate may be
it: evil, a wolf) is read as marginal probabilities whose sum is the number of candidates known
to be it (`count`, public in the game): the weights are scaled to that sum, no value may exceed
1, and what a capped value loses is shared over the others by their weights (equally when they
have none). Pure: no I/O."""

from __future__ import annotations

import json
import math
import re
from typing import Literal

from pydantic import BaseModel, Field

Shape = Literal["one", "each"]
_NUMBER = r"(\d+(?:\.\d+)?|\.\d+)\s*([%％])?"
# a name-like token followed by ':' or '=' and a number, to report names that are no candidate
_PAIR = re.compile(r"([^\s,;:：，、={}\[\]\"'()]+)\s*[:=：]\s*" + _NUMBER)


class BeliefReading(BaseModel):
    """What was read of one reply: the normalised belief, or why there is none."""

    belief: dict[str, float] | None = Field(default=None, description="candidate -> probability, normalised")
    dropped: list[str] = Field(default_factory=list, description="names in the reply that are no candidate")
    unreadable: str = Field(default="", description="why no belief could be read ('' when one was)")


def _name_pattern(name: str) -> str:
    # a name not inside a longer one: P1 is not read in P10; Chinese writes no spaces between
    # words, so a name in Chinese characters is read wherever it stands
    if not name.isascii():
        return re.escape(name)
    return r"(?<![\w])" + re.escape(name) + r"(?![\w])"


def _weight(number: str, percent: str | None) -> float:
    value = float(number)
    return value / 100 if percent else value


def _from_json(text: str, candidates: list[str]) -> tuple[dict[str, float], list[str]] | None:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start:end + 1])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    by_fold = {c.casefold(): c for c in candidates}
    weights: dict[str, float] = {}
    dropped: list[str] = []
    for key, raw in data.items():
        name = by_fold.get(str(key).strip().casefold())
        value = _json_number(raw)
        if name is None:
            dropped.append(str(key)[:40])
        elif value is not None:
            weights[name] = weights.get(name, 0.0) + value
    return weights, dropped


def _json_number(raw: object) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        return float(raw) if math.isfinite(raw) else None
    if isinstance(raw, str):
        found = re.fullmatch(r"\s*" + _NUMBER + r"\s*", raw)
        return _weight(found.group(1), found.group(2)) if found else None
    return None


def _from_text(text: str, candidates: list[str]) -> tuple[dict[str, float], list[str]]:
    weights: dict[str, float] = {}
    for name in candidates:
        found = re.search(_name_pattern(name) + r"\s*(?:[:=：]|is|是|-)?\s*" + _NUMBER, text, re.IGNORECASE)
        if found:
            weights[name] = _weight(found.group(1), found.group(2))
    folded = {c.casefold() for c in candidates}
    dropped = [m.group(1)[:40] for m in _PAIR.finditer(text) if m.group(1).casefold() not in folded
               and not any(re.search(_name_pattern(c), m.group(1), re.IGNORECASE) for c in candidates)]
    if weights:
        return weights, dropped
    named = [c for c in candidates if re.search(_name_pattern(c), text, re.IGNORECASE)]
    return {c: 1.0 for c in named}, dropped  # names alone: the mass shared among them


def normalise(weights: dict[str, float], candidates: list[str], shape: Shape, count: int = 1) -> dict[str, float]:
    """`weights` (non-negative, some positive) as probabilities over every candidate (see the
    module's docstring for the two shapes)."""
    total = math.fsum(weights.get(c, 0.0) for c in candidates)
    if shape == "one":
        return {c: weights.get(c, 0.0) / total for c in candidates}
    target = float(min(max(count, 0), len(candidates)))
    probs = {c: weights.get(c, 0.0) * target / total for c in candidates}
    # water-filling: cap at 1 and hand what was cut to the uncapped candidates
    for _ in range(len(candidates)):
        capped = [c for c in candidates if probs[c] >= 1.0]
        excess = math.fsum(probs[c] - 1.0 for c in capped)
        for c in capped:
            probs[c] = 1.0
        free = [c for c in candidates if probs[c] < 1.0]
        if excess <= 1e-12 or not free:
            break
        mass = math.fsum(probs[c] for c in free)
        for c in free:
            probs[c] += excess * (probs[c] / mass if mass > 0 else 1.0 / len(free))
    return probs


def read_belief(text: str | None, candidates: list[str], shape: Shape = "one", count: int = 1) -> BeliefReading:
    """One reply read into a belief over `candidates`, or why it could not be."""
    if not candidates:
        return BeliefReading(unreadable="the question has no candidates")
    if text is None or not text.strip():
        return BeliefReading(unreadable="no reply")
    found = _from_json(text, candidates)
    weights, dropped = found if found is not None and found[0] else _from_text(text, candidates)
    if found is not None and not found[0]:
        dropped = found[1] + dropped
    weights = {c: w for c, w in weights.items() if w > 0 and math.isfinite(w)}
    if not weights:
        why = "no candidate named with a positive weight"
        return BeliefReading(dropped=dropped, unreadable=why + (f" (names not asked about: {', '.join(dropped)})"
                                                                if dropped else ""))
    return BeliefReading(belief=normalise(weights, candidates, shape, count), dropped=dropped)


def uniform(candidates: list[str], shape: Shape = "one", count: int = 1) -> dict[str, float]:
    """The belief of a seat that knows nothing: every candidate alike."""
    return normalise({c: 1.0 for c in candidates}, candidates, shape, count)


def as_reply(belief: dict[str, float]) -> str:
    """A belief written as a reply the reader takes back exactly (JSON, rounded to 4 places)."""
    return json.dumps({name: round(p, 4) for name, p in belief.items()})


__all__ = ["BeliefReading", "Shape", "as_reply", "normalise", "read_belief", "uniform"]
