"""How well agents know the hidden truth, from the belief probes of stored matches (`core/probes.py`):
each probe's reply, read when it was asked, scored against the match's truth (the game's
`ProbeRules.truth` of its result) with `core/belief_scores.py`, then grouped by agent, role,
moment and question: the mean Brier score and log loss (95% normal interval over probes), the
top-guess accuracy (Wilson) and n; unreadable replies are counted apart, never scored. The
reliability diagram groups the same probes' (p, y) pairs by agent."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .core.belief_scores import BeliefScore, Bin, reliability, score_belief
from .core.events import Probe
from .core.registry import get_game
from .stats import Mean, Rate

GROUPS = ("agent", "role", "moment", "question")


@dataclass(frozen=True)
class ScoredProbe:
    """One probe of a stored match: who was asked what and when, and its scores (None when its
    reply was unreadable, or when its candidates hold none of the truth)."""

    match_id: str
    seat: str
    agent: str
    role: str
    moment: str
    question: str
    unreadable: bool
    score: BeliefScore | None

    def key(self, by: Sequence[str]) -> tuple[str, ...]:
        return tuple(str(getattr(self, name)) for name in by)


def scored_probes(match: Mapping[str, Any]) -> list[ScoredProbe]:
    """Every probe of one finished match (as `Store.get_match` returns it), scored."""
    spec = get_game(str(match["game"]))
    rules = spec.rules.probes
    result = match.get("result") or {}
    if rules is None or match.get("status", "finished") != "finished" or not result:
        return []
    truth = {q: set(seats) for q, seats in rules.truth(result).items()}
    agents = {s["seat"]: str(s.get("agent_name") or s.get("agent_id") or s["seat"]) for s in match.get("seats", [])}
    roles = result.get("roles") or {}
    out = []
    for event in spec.rules.events.parse_all(match.get("events") or []):
        if not isinstance(event, Probe):
            continue
        score = score_belief(event.belief, truth.get(event.question, ())) if event.belief is not None else None
        out.append(ScoredProbe(match_id=str(match["id"]), seat=event.actor, agent=agents.get(event.actor, event.actor),
                               role=str(roles.get(event.actor, "")), moment=event.moment, question=event.question,
                               unreadable=event.belief is None, score=score))
    return out


def _mean(values: list[float]) -> Mean:
    return Mean(total=sum(values), squares=sum(v * v for v in values), n=len(values))


def summarise(probes: Iterable[ScoredProbe], by: Sequence[str] = GROUPS) -> list[dict[str, Any]]:
    """One row per group: its keys, then brier, log_loss and top1 (each with _low, _high, _n),
    the probes asked and the unreadable ones."""
    unknown = [name for name in by if name not in GROUPS]
    if unknown:
        raise ValueError(f"cannot group probes by {', '.join(unknown)}; choose from {', '.join(GROUPS)}")
    groups: dict[tuple[str, ...], list[ScoredProbe]] = {}
    for probe in probes:
        groups.setdefault(probe.key(by), []).append(probe)
    rows = []
    for key, members in sorted(groups.items()):
        scores = [p.score for p in members if p.score is not None]
        row: dict[str, Any] = dict(zip(by, key, strict=True))
        row.update(_mean([s.brier for s in scores]).to_dict("brier"))
        row.update(_mean([s.log_loss for s in scores]).to_dict("log_loss"))
        row.update(Rate(k=sum(s.top1 for s in scores), n=len(scores)).to_dict("top1"))
        row["asked"] = len(members)
        row["unreadable"] = sum(p.unreadable for p in members)
        rows.append(row)
    return rows


def calibration(probes: Iterable[ScoredProbe], by: Sequence[str] = ("agent",)) -> dict[tuple[str, ...], list[Bin]]:
    """The reliability diagram of each group: its probes' (p, y) pairs binned by p."""
    pairs: dict[tuple[str, ...], list[tuple[float, int]]] = {}
    for probe in probes:
        if probe.score is not None:
            pairs.setdefault(probe.key(by), []).extend(probe.score.pairs)
    return {key: reliability(found) for key, found in sorted(pairs.items())}


__all__ = ["GROUPS", "ScoredProbe", "calibration", "scored_probes", "summarise"]
