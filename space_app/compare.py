"""Duplicate mode: two agents compared on the same deals against the same opponents.

As in duplicate bridge, each deal (a seed: every seat's role, and whatever else the game
draws from it, e.g. spy's word pair and opener) is played twice: once with agent A in one
seat and once with agent B in that seat, every other seat held by the same opponent in
both. The difference of A's and B's outcome in that seat, deal by deal, leaves out the
luck of the deal and of the opponents; what is left is the two agents' difference.

- The seat: on each deal, a seat holding the role covered least so far (ties: the game's
  role order), and among those the seat position used least so far. When every deal holds
  every role (all shipped games), the roles are covered equally often (to within one).
- The outcome: `win` (1 if the seat's side won, else 0; the default) or `score` (the
  seat's game score), both from the match's stored per-seat record.
- The figures: the mean paired difference A − B, a 95% percentile bootstrap interval of it
  (10,000 resamples, seeded), an exact two-sided sign test on the untied deals, and the
  number of deals where A did better, worse and the same. A deal whose two matches did not
  both finish is dropped and counted.

With a stopping rule (`space_app.sequential`) the deals asked for are a budget: the deals
are played in batches, and after each batch an anytime-valid interval decides whether the
answer is known (the interval excludes 0, or is as narrow as asked); the comparison stops
there, or at its budget, and says which. Stopping early never costs the interval its 95%
coverage.

Matches are stored with the tag `compare:<A>-vs-<B>:<seed>`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .accounting import spent
from .batch import planned, run_planned
from .core import get_game
from .engines import Tracker
from .prices import Price
from .seating import SEED_RANGE
from .sequential import METHOD, Look, StopRule, affordable, expected_half_width, look_at, verdict
from .sequential import TEST as SEQUENTIAL_TEST
from .service import Arena, MatchPlan
from .stats import mean_interval, sign_test

MEASURES = ("win", "score")
RESAMPLES = 10_000
TEST = "exact two-sided sign test (ties left out)"
INTERVAL = f"95% percentile bootstrap of the mean ({RESAMPLES:,} resamples, seeded)"


@dataclass(frozen=True)
class Deal:
    """One deal: its seed, the seat A and B take in turn, and the seats of both matches."""

    index: int
    seed: int
    seat: str
    role: str
    seats_a: list[str]
    seats_b: list[str]


def compare_tag(a: str, b: str, seed: int) -> str:
    return f"compare:{a}-vs-{b}:{seed}"


def default_opponents(game: str) -> list[str]:
    """The game's first house agent that fills seats (spy: house:random)."""
    spec = get_game(game)
    return [next(name for name, agent in spec.house.agents.items() if agent.random_fill)]


def plan_deals(a: str, b: str, opponents: Sequence[str], seat_names: Sequence[str], deals: int, seed: int,
               deal_roles: Callable[[int], list[str]], role_order: Sequence[str]) -> list[Deal]:
    """The deals and their seats; `deal_roles(seed)` gives each seat's role (GameSpec.deal_roles)."""
    if not opponents:
        raise ValueError("compare needs at least one opponent")
    rng = random.Random(seed)
    order = {r: i for i, r in enumerate(role_order)}
    by_role: Counter[str] = Counter()
    by_seat: Counter[int] = Counter()
    out = []
    for d in range(deals):
        deal_seed = rng.randrange(SEED_RANGE)
        roles = deal_roles(deal_seed)
        role = min(set(roles), key=lambda r: (by_role[r], order.get(r, len(order)), r))
        seat = min((i for i, r in enumerate(roles) if r == role), key=lambda i: (by_seat[i], i))
        by_role[role] += 1
        by_seat[seat] += 1
        # the same opponents in the same seats for A and for B; turned one seat per deal
        others = [i for i in range(len(roles)) if i != seat]
        fill = {i: opponents[(j + d) % len(opponents)] for j, i in enumerate(others)}
        seats_a = [a if i == seat else fill[i] for i in range(len(roles))]
        seats_b = [b if i == seat else fill[i] for i in range(len(roles))]
        out.append(Deal(d, deal_seed, seat_names[seat], role, seats_a, seats_b))
    return out


@dataclass
class Paired:
    """One played deal: A's and B's outcome in the seat, and the two matches."""

    deal: Deal
    a: float
    b: float
    match_a: str
    match_b: str

    @property
    def diff(self) -> float:
        return self.a - self.b


@dataclass
class Comparison:
    a: str
    b: str
    game: str
    measure: str
    seed: int
    players: int
    opponents: list[str]
    tag: str
    pairs: list[Paired] = field(default_factory=list)
    dropped: int = 0  # deals whose two matches did not both finish
    stop: StopRule | None = None
    budget: int = 0  # deals asked for
    looks: list[Look] = field(default_factory=list)
    stopped: str = ""  # why a comparison with a stopping rule ended
    expected: float | None = None  # the half-width expected at the budget, from the first look
    affordable: int | None = None  # the deals the budget is expected to pay for, from the first look
    spent: dict[str, Any] | None = None  # tokens and cost of its matches so far (with a token or cost budget)

    @property
    def diffs(self) -> list[float]:
        return [p.diff for p in self.pairs]

    def summary(self, pairs: Sequence[Paired] | None = None) -> dict[str, Any]:
        pairs = self.pairs if pairs is None else pairs
        diffs = [p.diff for p in pairs]
        better = sum(d > 0 for d in diffs)
        worse = sum(d < 0 for d in diffs)
        centre, low, high = mean_interval(diffs, RESAMPLES, self.seed) or (None, None, None)
        return {"deals": len(diffs), "mean": centre, "low": low, "high": high,
                "a_better": better, "b_better": worse, "same": len(diffs) - better - worse,
                "p_value": sign_test(better, worse),
                "mean_a": sum(p.a for p in pairs) / len(pairs) if pairs else None,
                "mean_b": sum(p.b for p in pairs) / len(pairs) if pairs else None}

    def by_role(self) -> dict[str, dict[str, Any]]:
        roles: dict[str, list[Paired]] = {}
        for p in self.pairs:
            roles.setdefault(p.deal.role, []).append(p)
        return {role: self.summary(pairs) for role, pairs in roles.items()}

    def sequential(self) -> dict[str, Any] | None:
        """The stopping rule's account: its looks, why it stopped, and its (anytime-valid)
        interval, the one to read after a data-dependent stop."""
        if self.stop is None:
            return None
        last = self.looks[-1] if self.looks else None
        return {"rule": self.stop.describe(), "method": METHOD, "test": SEQUENTIAL_TEST, "budget_deals": self.budget,
                "deals": last.deals if last else 0, "stopped": self.stopped,
                "expected_half_width_at_budget": self.expected, "expected_deals": self.affordable,
                "spent": self.spent,
                "low": last.low if last else None, "high": last.high if last else None,
                "evidence": last.evidence if last else None,
                "looks": [{"look": k.look, "deals": k.deals, "mean": k.mean, "low": k.low, "high": k.high,
                           "a_better": k.a_better, "b_better": k.b_better, "evidence": k.evidence}
                          for k in self.looks]}

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "game": self.game, "measure": self.measure, "seed": self.seed,
                "players": self.players, "opponents": list(self.opponents), "tag": self.tag,
                "dropped": self.dropped, "interval": INTERVAL, "test": TEST, **self.summary(),
                "sequential": self.sequential(),
                "by_role": self.by_role(),
                "seats": dict(Counter(p.deal.seat for p in self.pairs)),
                "per_deal": [{"deal": p.deal.index, "seed": p.deal.seed, "seat": p.deal.seat, "role": p.deal.role,
                              "a": p.a, "b": p.b, "diff": p.diff, "match_a": p.match_a, "match_b": p.match_b}
                             for p in self.pairs]}


async def compare(arena: Arena, a: str, b: str, game: str = "spy", deals: int = 100,
                  opponents: Sequence[str] | None = None, seed: int = 0, players: int | None = None,
                  settings: dict[str, Any] | None = None, measure: str = "win", concurrency: int = 8,
                  tag: str = "", progress: Callable[[Any], None] | None = None,
                  tracker: Tracker | None = None, stop: StopRule | None = None,
                  prices: dict[str, Price] | None = None) -> Comparison:
    """Play every deal twice (A, then B, in the same seat against the same opponents) and
    return the paired comparison; with `stop`, in batches until its target is met or the
    deals run out. `prices` (model name -> price) price a cost budget."""
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {', '.join(MEASURES)}, got {measure!r}")
    if stop is not None and measure != "win":
        raise ValueError("stopping early needs an outcome of known range: use the win measure (a difference "
                         "in [-1, 1]); a game score has no bound the interval could rest on")
    if deals < 1:
        raise ValueError("compare needs at least one deal")
    spec = get_game(game)
    n = players or spec.facts.default_players
    if not spec.facts.min_players <= n <= spec.facts.max_players:
        raise ValueError(f"{game} takes {spec.facts.min_players} to {spec.facts.max_players} players, got {n}")
    opponents = list(opponents or default_opponents(game))
    for agent_spec in {a, b, *opponents}:  # an unknown spec fails before any match is stored
        arena.catalogue.resolve(agent_spec)
        arena.catalogue.check_plays(agent_spec, game)
    values = {**(settings or {}), "players": n}
    names = spec.facts.seat_names(n, values)
    deals_planned = plan_deals(a, b, opponents, names, deals, seed, lambda s: spec.deal_roles(n, s, values),
                               spec.facts.roles)
    result = Comparison(a, b, game, measure, seed, n, opponents, tag or compare_tag(a, b, seed), stop=stop,
                        budget=deals)

    async def play(batch: Sequence[Deal]) -> None:
        # each match's id comes from its deal and side: a comparison run again plays only
        # what did not finish, on the arena's engine (in process unless it has one)
        plans = [planned(MatchPlan(game, seats, d.seed, settings=values, tag=result.tag), ("compare", d.index, side))
                 for d in batch for side, seats in (("a", d.seats_a), ("b", d.seats_b))]
        outcomes = await run_planned(arena, plans, engine=arena.engine, concurrency=concurrency,
                                     progress=progress, tracker=tracker)
        wanted = {o.match_id for o in outcomes if o.status == "finished"}
        played.update(o.match_id for o in outcomes)
        records = {(r["match_id"], r["seat"]): r for r in arena.store.records(game, tag=result.tag)
                   if r["match_id"] in wanted}
        for deal, (oa, ob) in zip(batch, zip(outcomes[::2], outcomes[1::2], strict=True), strict=True):
            ra, rb = records.get((oa.match_id, deal.seat)), records.get((ob.match_id, deal.seat))
            if ra is None or rb is None:
                result.dropped += 1
                continue
            result.pairs.append(Paired(deal, _value(ra, measure), _value(rb, measure), oa.match_id, ob.match_id))

    played: set[str] = set()  # the comparison's own matches so far (what its budget pays for)
    if stop is None:
        await play(deals_planned)
        return result
    budgeted = stop.max_tokens is not None or stop.max_cost is not None
    for start in range(0, deals, stop.every):
        await play(deals_planned[start:start + stop.every])
        done = min(deals, start + stop.every)
        if budgeted:
            result.spent = spent(arena.store, game, result.tag, prices or {}, played)
        if result.pairs:
            seen = look_at(result.diffs, len(result.looks) + 1, -1.0, 1.0)
            result.looks.append(seen)
            if result.expected is None:  # the first look is the pilot
                result.affordable = affordable(deals, done, stop, result.spent)
                result.expected = expected_half_width(result.diffs, result.affordable, stop, -1.0, 1.0)
            why = verdict(seen, stop)
            if why:
                result.stopped = why
                return result
        over = stop.over_budget(result.spent["tokens"], result.spent["cost_usd"]) if budgeted else None
        if over:
            result.stopped = over + ("; no difference claimed" if stop.separated else "")
            return result
    if stop.separated:
        result.stopped = "budget spent: no difference claimed (the sign test did not separate A and B)"
    elif stop.half_width is not None:
        result.stopped = "budget spent: the interval is still wider than asked"
    else:
        result.stopped = "budget spent: every deal played"
    return result


def _value(record: dict[str, Any], measure: str) -> float:
    return float(bool(record["won"])) if measure == "win" else float(record["score"])


__all__ = ["INTERVAL", "MEASURES", "RESAMPLES", "TEST", "Comparison", "Deal", "Paired", "compare", "compare_tag",
           "default_opponents", "plan_deals"]
