"""Per-seat records: what a finished match says about each seat, derived once from its
events by the game's metrics (`Metrics.records`) and stored beside it (rebuildable with
`rescore`), and their sums (`Tally`, `AgentTotals`) from which a game computes its
leaderboard row (`Metrics.row`) without reading any event.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..stats import Mean, Rate


class SeatRecord(BaseModel):
    """One seat of one finished match, as the game's metrics see it. `stats` are numbers
    that add up across matches (turns, fouls, votes for the spy, latency sums, ...): a
    leaderboard row is computed from their sums."""

    model_config = ConfigDict(extra="forbid")

    seat: str
    agent_id: str
    role: str
    team: str = Field(description="the side rated as one team (seats sharing it won or lost together)")
    won: bool
    score: float = 0.0
    stats: dict[str, float] = Field(default_factory=dict)


SCORE = "score"  # the key of the game score's sum of squares in `Tally.squares`


@dataclass
class Tally:
    """Sums over the records of one agent (in one role, or in every role)."""

    matches: int = 0  # distinct matches
    seats: int = 0
    wins: int = 0  # seats won
    score: float = 0.0
    stats: dict[str, float] = field(default_factory=dict)
    # per-seat sums of squares of the score (key SCORE) and of each stat, for the intervals of
    # per-seat means; None in totals written by an older version (no interval then)
    squares: dict[str, float] | None = field(default_factory=dict)

    def add(self, records: list[SeatRecord]) -> None:
        """Add one match's records of this agent (one or more seats)."""
        self.matches += 1
        for r in records:
            self.seats += 1
            self.wins += int(r.won)
            self.score += r.score
            self._square(SCORE, r.score)
            for key, value in r.stats.items():
                self.stats[key] = self.stats.get(key, 0.0) + float(value)
                self._square(key, float(value))

    def _square(self, key: str, value: float) -> None:
        if self.squares is not None:
            self.squares[key] = self.squares.get(key, 0.0) + value * value

    def merge(self, other: Tally) -> None:
        self.matches += other.matches
        self.seats += other.seats
        self.wins += other.wins
        self.score += other.score
        for key, value in other.stats.items():
            self.stats[key] = self.stats.get(key, 0.0) + value
        if self.squares is None or other.squares is None:
            self.squares = None
        else:
            for key, value in other.squares.items():
                self.squares[key] = self.squares.get(key, 0.0) + value

    def get(self, key: str) -> float:
        return self.stats.get(key, 0.0)

    def mean(self, key: str) -> float | None:
        """A stat's mean per seat (None when there is no seat)."""
        return self.get(key) / self.seats if self.seats else None

    def ratio(self, num: str, den: str) -> float | None:
        d = self.get(den)
        return self.get(num) / d if d else None

    # the same figures with their sample size and 95% interval, for leaderboard rows
    def rate(self, num: str, den: str) -> Rate:
        """Events counted in stat `num` out of those in stat `den` (Wilson interval)."""
        return Rate(self.get(num), self.get(den))

    def share(self, key: str) -> Rate:
        """Seats whose 0/1 stat `key` is 1, out of all seats (Wilson interval)."""
        return Rate(self.get(key), self.seats)

    def wins_rate(self) -> Rate:
        return Rate(self.wins, self.seats)

    def per_seat(self, key: str) -> Mean:
        """A stat's mean per seat (`SCORE`: the game score's)."""
        total = self.score if key == SCORE else self.get(key)
        squares = None if self.squares is None else self.squares.get(key, 0.0 if not total else None)
        return Mean(total, squares, self.seats)

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.seats if self.seats else None

    @property
    def avg_score(self) -> float | None:
        return self.score / self.seats if self.seats else None

    def to_dict(self) -> dict[str, Any]:
        return {"matches": self.matches, "seats": self.seats, "wins": self.wins, "score": self.score,
                "stats": dict(self.stats), "squares": None if self.squares is None else dict(self.squares)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Tally:
        squares = d.get("squares")
        return cls(int(d.get("matches", 0)), int(d.get("seats", 0)), int(d.get("wins", 0)),
                   float(d.get("score", 0.0)), {k: float(v) for k, v in (d.get("stats") or {}).items()},
                   None if squares is None else {k: float(v) for k, v in squares.items()})


EVERY_ROLE = ""  # the tally key for an agent's records in every role


@dataclass
class AgentTotals:
    """One agent's tallies: in every role (`every`) and per role (`by_role`)."""

    agent: str
    every: Tally = field(default_factory=Tally)
    by_role: dict[str, Tally] = field(default_factory=dict)

    def role(self, role: str) -> Tally:
        return self.by_role.get(role) or Tally()


def tallies_of_match(records: Iterable[SeatRecord]) -> dict[tuple[str, str], Tally]:
    """One match's contribution: (agent, role or EVERY_ROLE) -> tally."""
    by_key: dict[tuple[str, str], list[SeatRecord]] = {}
    for r in records:
        by_key.setdefault((r.agent_id, EVERY_ROLE), []).append(r)
        by_key.setdefault((r.agent_id, r.role), []).append(r)
    out = {}
    for key, recs in by_key.items():
        tally = Tally()
        tally.add(recs)
        out[key] = tally
    return out


def running_win_rate(agent: str, played: Iterable[SeatRecord]) -> list[dict[str, Any]]:
    """The agent's win rate after each of its seats, in the order played (a leaderboard plot)."""
    wins = 0
    out = []
    for n, r in enumerate(played, start=1):
        wins += int(r.won)
        out.append({"agent": agent, "game": n, "win_rate": wins / n})
    return out


def totals_from(tallies: dict[tuple[str, str], Tally]) -> dict[str, AgentTotals]:
    """(agent, role) tallies -> one AgentTotals per agent."""
    agents: dict[str, AgentTotals] = {}
    for (agent, role), tally in tallies.items():
        totals = agents.setdefault(agent, AgentTotals(agent))
        if role == EVERY_ROLE:
            totals.every = tally
        else:
            totals.by_role[role] = tally
    return agents


__all__ = ["EVERY_ROLE", "SCORE", "AgentTotals", "SeatRecord", "Tally", "running_win_rate", "tallies_of_match",
           "totals_from"]
