"""Balanced seating for tournaments: a cyclic (Latin-square) schedule.

Each deal (a seed, which fixes the role of every seat) is played k times in a row, k being
the number of agents given, with the line-up turned one seat each time: in rotation r,
seat i gets agent (i + r) mod k. Over those k matches (a block) every agent sits exactly
once in every seat, so it takes every role of that deal exactly as often as the deal
holds it. The same holds whether there are fewer agents than seats (an agent fills
several seats of a match) or more (some sit a match out).

What is guaranteed, for any number of agents k and seats n:

- when the number of matches is a multiple of k, every agent sits in every seat position
  the same number of times (matches / k) and takes every role the same number of times;
- otherwise the last R = matches mod k matches play rotations 0..R-1 of one more deal, in
  which an agent sits at most once in a seat: agents' counts in one seat position differ
  by at most one, and their counts of one role by at most the number of seats that role
  has in a deal (one for a spy, a murderer or Merlin);
- a seat dealt a role given to a fixed agent (`--role ROLE=AGENT`) is taken by that
  agent; every rotating agent loses the same seats, so the rest stays balanced.

A spec listed twice is two rotating entries whose counts add up.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SEED_RANGE = 2**31


@dataclass(frozen=True)
class Slot:
    """One scheduled match: its deal's seed and its agents in seat order."""

    deal: int  # the deal's index (its block)
    rotation: int
    seed: int
    seats: list[str]


def rotation(agents: Sequence[str], n: int, r: int) -> list[str]:
    """Rotation r of the line-up over n seats: seat i gets agent (i + r) mod k."""
    k = len(agents)
    return [agents[(i + r) % k] for i in range(n)]


def schedule(agents: Sequence[str], n: int, matches: int, seed: int) -> list[Slot]:
    """`matches` matches in blocks of len(agents): one deal per block, every rotation of it."""
    if not agents:
        raise ValueError("a tournament needs at least one agent")
    rng = random.Random(seed)
    k = len(agents)
    slots: list[Slot] = []
    deal_seed = 0
    for g in range(matches):
        deal, r = divmod(g, k)
        if r == 0:
            deal_seed = rng.randrange(SEED_RANGE)
        slots.append(Slot(deal, r, deal_seed, rotation(agents, n, r)))
    return slots


def with_role_agents(seats: Sequence[str], roles: Sequence[str],
                     role_specs: Mapping[str, str] | None) -> list[str]:
    """The seats after fixed role agents take the seats dealt their role."""
    if not role_specs:
        return list(seats)
    return [role_specs.get(role, spec) for spec, role in zip(seats, roles, strict=True)]


@dataclass
class SeatingCounts:
    """How often each agent sat in each seat position and took each role."""

    roles: tuple[str, ...]  # columns, in the game's order
    seat_names: tuple[str, ...]
    by_role: dict[str, Counter[str]] = field(default_factory=dict)
    by_seat: dict[str, Counter[str]] = field(default_factory=dict)
    block: int = 1  # matches per deal
    matches: int = 0
    adaptive_blocks: int = 0  # a stopping tournament's deals, each a block of its own line-up

    def add(self, seats: Sequence[str], roles: Sequence[str]) -> None:
        self.matches += 1
        for name, spec, role in zip(self.seat_names, seats, roles, strict=True):
            self.by_role.setdefault(spec, Counter())[role] += 1
            self.by_seat.setdefault(spec, Counter())[name] += 1

    @property
    def exact(self) -> bool:
        """Whether every block is whole (the counts are then equal by construction)."""
        return self.matches % self.block == 0

    def role_rows(self) -> list[dict[str, Any]]:
        return [{"agent": a, **{r: c[r] for r in self.roles}} for a, c in self.by_role.items()]

    def seat_rows(self) -> list[dict[str, Any]]:
        return [{"agent": a, **{s: c[s] for s in self.seat_names}} for a, c in self.by_seat.items()]

    def note(self) -> str:
        """One line: the design and what it guarantees for this number of matches."""
        if self.adaptive_blocks:
            return (f"balanced seating: {self.matches} matches in {self.adaptive_blocks} blocks, each one deal and "
                    "every rotation of its line-up: inside a block every agent of it sits in every seat equally often")
        head = f"balanced seating: {self.matches} matches in blocks of {self.block} (one deal, every rotation)"
        if self.exact:
            return head + "; whole blocks: equal counts by construction"
        return (head + f"; the last block has {self.matches % self.block} of {self.block} matches: seat counts "
                "differ by at most one, role counts by at most a role's seats per deal "
                f"(use a multiple of {self.block} for equal counts)")

    def to_dict(self) -> dict[str, Any]:
        return {"block": self.block, "matches": self.matches, "exact": self.exact,
                **({"adaptive_blocks": self.adaptive_blocks} if self.adaptive_blocks else {}),
                "roles": list(self.roles), "seats": list(self.seat_names),
                "by_role": {a: dict(c) for a, c in self.by_role.items()},
                "by_seat": {a: dict(c) for a, c in self.by_seat.items()}}


def count_seating(slots: Sequence[Slot], deal: Callable[[int], list[str]], roles: Sequence[str],
                  seat_names: Sequence[str], role_specs: Mapping[str, str] | None = None,
                  block: int = 1) -> SeatingCounts:
    """The counts of a schedule; `deal(seed)` gives each seat's role (GameSpec.deal_roles)."""
    counts = SeatingCounts(tuple(roles), tuple(seat_names), block=max(1, block))
    dealt: dict[int, list[str]] = {}
    for slot in slots:
        if slot.seed not in dealt:
            dealt[slot.seed] = deal(slot.seed)
        counts.add(with_role_agents(slot.seats, dealt[slot.seed], role_specs), dealt[slot.seed])
    seen = {r for c in counts.by_role.values() for r in c}
    # the columns: the roles that were dealt (a 6-player Avalon has no minion), the game's order
    counts.roles = tuple(r for r in roles if r in seen) + tuple(sorted(seen - set(roles)))
    return counts


class TournamentOutcomes(list):  # type: ignore[type-arg]
    """A tournament's match outcomes (a list, as before) with its seating counts."""

    def __init__(self, outcomes: Sequence[Any], seating: SeatingCounts) -> None:
        super().__init__(outcomes)
        self.seating = seating


__all__ = ["SEED_RANGE", "SeatingCounts", "Slot", "TournamentOutcomes", "count_seating", "rotation", "schedule",
           "with_role_agents"]
