"""Tournaments that stop when the answer is known: a target (two agents separated, or every
agent's win rate known to a half-width), a budget (matches, tokens, US dollars), looks after
every batch of deals, and the next deals placed where the uncertainty that matters is widest.

The unit is the block: one deal (a seed) played once per rotation of a line-up over the
seats (`seating.rotation`), so inside a block every agent of the line-up sits in every seat,
hence takes every dealt role, equally often. Blocks are played in batches of `every`; after
each batch the rule looks at the stored outcomes and either stops or chooses the next
batch's line-ups from them alone (never from anything but what the store holds), so the
same command and seed plays the same matches, and every match keeps a plan-derived id
(`batch.plan_id`): a run again plays only what did not finish and counts nothing twice.

- **Separating A and B** (`separate`): every block seats A and B together, the other
  agents filling the other seats (turned over blocks), and is played twice on one deal:
  line-up [A, B, others] and the same with A and B swapped (once, when the swap is only a
  rotation of it). A block's value is A's mean win over its seats minus B's over theirs.
  Swapping the labels maps the block's matches onto each other, so if A and B are
  interchangeable the value is as likely positive as negative, whatever was played before
  and however the line-up was chosen: the untied blocks' signs are fair coins, and the
  sequential sign test of `space_app.sequential` (Ville's inequality) claims a false
  separation with chance at most α, at whatever look it stops.
- **An interval on every agent** (`half_width`): a block's value for an agent is its mean
  win over its seats in that block, in [0, 1]; each agent's interval is the anytime-valid
  one of `space_app.sequential` over its blocks, at the tournament's look number, so it
  keeps its 95% coverage at a data-dependent stop. The leaderboard's OpenSkill interval is
  a Bayesian posterior's, with no such guarantee, so the rule does not stop on it. With
  more agents than seats a block seats the agents whose intervals are widest (the least
  played first among ties); with no more agents than seats every block seats them all.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .accounting import spent
from .batch import planned, run_planned
from .core import get_game
from .engines import Tracker
from .prices import Price
from .seating import SEED_RANGE, SeatingCounts, Slot, count_seating, rotation
from .sequential import ALPHA, METHOD, TEST, Look, StopRule, affordable, expected_half_width, look_at, verdict
from .service import Arena, MatchOutcome, MatchPlan

PLACE = "tournament"  # the first part of a match's place in its plan id


@dataclass(frozen=True)
class TournamentRule:
    """What a tournament stops on: `separate` (A, B) or every agent's `half_width`, and its
    budgets: `max_games` matches (never exceeded: a block that does not fit is not started),
    `max_tokens`, `max_cost` (checked after each batch); it looks after every `every` deals."""

    max_games: int
    separate: tuple[str, str] | None = None
    half_width: float | None = None
    every: int = 10
    max_tokens: float | None = None
    max_cost: float | None = None

    def __post_init__(self) -> None:
        if self.separate is None and self.half_width is None:
            raise ValueError("a tournament's stopping rule needs a target: --until-separated A B or "
                             "--until-interval HALF_WIDTH (without one, --games says how many matches)")
        if self.separate is not None and (len(self.separate) != 2 or self.separate[0] == self.separate[1]):
            raise ValueError("--until-separated takes two different agents")
        if self.max_games < 1:
            raise ValueError(f"the match budget must be at least 1, got {self.max_games}")
        # the checks of a comparison's rule (half-width, token and cost budgets, looks)
        self.stop_rule()

    def stop_rule(self) -> StopRule:
        return StopRule(separated=self.separate is not None, half_width=self.half_width, every=self.every,
                        max_tokens=self.max_tokens, max_cost=self.max_cost)

    def describe(self) -> str:
        target = (f"stop when the sequential sign test separates {self.separate[0]} and {self.separate[1]}"
                  if self.separate else f"stop when every agent's win-rate interval has half-width at most "
                  f"{self.half_width:g}")
        budgets = [f"{self.max_games} matches"] + ([f"{self.max_tokens:g} tokens"] if self.max_tokens else []) + \
                  ([f"{self.max_cost:g} USD"] if self.max_cost else [])
        return f"{target}; budget {' and '.join(budgets)}; looking after every {self.every} deals"


@dataclass(frozen=True)
class Block:
    """One deal and the line-ups it is played with (two when separating A and B)."""

    index: int
    seed: int
    lineups: tuple[tuple[str, ...], ...]
    n: int

    def slots(self) -> list[tuple[tuple[Any, ...], Slot]]:
        """Its matches: (place, slot); the first line-up keeps the plain schedule's places."""
        out = []
        for j, lineup in enumerate(self.lineups):
            for r in range(len(lineup)):
                place = (PLACE, self.index, r) if j == 0 else (PLACE, self.index, "swapped", r)
                out.append((place, Slot(self.index, r, self.seed, rotation(lineup, self.n, r))))
        return out

    @property
    def matches(self) -> int:
        return sum(len(lineup) for lineup in self.lineups)


@dataclass(frozen=True)
class TournamentLook:
    """The tournament at one look: deals and matches so far, the A − B look when separating,
    and every agent's win-rate look."""

    look: int
    deals: int
    matches: int
    pair: Look | None
    agents: dict[str, Look]

    def widest(self, specs: Sequence[str]) -> tuple[str, float]:
        """The agent whose interval is widest (unplayed agents: the whole range)."""
        return max(((s, self.agents[s].half_width if s in self.agents else 0.5) for s in specs),
                   key=lambda x: x[1])

    def to_dict(self) -> dict[str, Any]:
        pair = None if self.pair is None else {
            "mean": self.pair.mean, "low": self.pair.low, "high": self.pair.high, "a_better": self.pair.a_better,
            "b_better": self.pair.b_better, "evidence": self.pair.evidence}
        return {"look": self.look, "deals": self.deals, "matches": self.matches, "pair": pair,
                "agents": {a: {"deals": k.deals, "mean": k.mean, "low": k.low, "high": k.high}
                           for a, k in self.agents.items()}}


@dataclass
class StoppedTournament:
    rule: TournamentRule
    specs: list[str]
    blocks: list[Block] = field(default_factory=list)
    outcomes: list[MatchOutcome] = field(default_factory=list)
    looks: list[TournamentLook] = field(default_factory=list)
    values: dict[str, list[float]] = field(default_factory=dict)  # per agent, a value per block it sat in
    diffs: list[float] = field(default_factory=list)  # A − B per block, when separating
    stopped: str = ""
    expected: float | None = None  # the half-width expected at the budget, from the pilot
    expected_deals: int | None = None
    spent: dict[str, Any] | None = None
    seating: SeatingCounts | None = None

    @property
    def matches(self) -> int:
        return sum(b.matches for b in self.blocks)

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule.describe(), "method": METHOD, "test": TEST if self.rule.separate else None,
                "budget_matches": self.rule.max_games, "deals": len(self.blocks), "matches": self.matches,
                "expected_half_width_at_budget": self.expected, "expected_deals": self.expected_deals,
                "looks": [k.to_dict() for k in self.looks], "stopped": self.stopped, "spent": self.spent,
                "lineups": [list(map(list, b.lineups)) for b in self.blocks]}


def separation_lineups(a: str, b: str, others: Sequence[str], n: int, index: int) -> tuple[tuple[str, ...], ...]:
    """[A, B, others] (at most n long, the others turned one per block) and, unless it is
    only a rotation of it, the same with A and B swapped."""
    fill = list(others)
    if fill:
        turn = index % len(fill)
        fill = (fill[turn:] + fill[:turn])[:max(0, n - 2)]
    first = (a, b, *fill)
    swapped = (b, a, *fill)
    shifts = {first[i:] + first[:i] for i in range(len(first))}
    return (first,) if swapped in shifts else (first, swapped)


def interval_lineup(specs: Sequence[str], n: int, widths: dict[str, float], played: dict[str, int]) -> tuple[str, ...]:
    """The min(k, n) agents whose intervals are widest (the least played among ties), in the
    given order; all of them when there are no more agents than seats."""
    if len(specs) <= n:
        return tuple(specs)
    order = {s: i for i, s in enumerate(specs)}
    chosen = set(sorted(specs, key=lambda s: (-widths.get(s, math.inf), played.get(s, 0), order[s]))[:n])
    return tuple(s for s in specs if s in chosen)


def block_values(block: Block, records: dict[str, list[dict[str, Any]]], ids: Sequence[str]) -> dict[str, float] | None:
    """Each seated agent's mean win over its seats in the block, or None when a match of it
    did not finish (the block is then left out, as a comparison drops a deal)."""
    won: dict[str, list[float]] = {}
    for match_id in ids:
        rows = records.get(match_id)
        if not rows:
            return None
        for row in rows:
            won.setdefault(row["agent_id"], []).append(float(bool(row["won"])))
    return {agent: math.fsum(v) / len(v) for agent, v in won.items()}


async def stopping_tournament(arena: Arena, game: str, specs: Sequence[str], rule: TournamentRule, seed: int = 0,
                              concurrency: int = 8, settings: dict[str, Any] | None = None, tag: str = "",
                              players: int | None = None, role_specs: dict[str, str] | None = None,
                              tracker: Tracker | None = None, deals: Sequence[dict[str, Any]] | None = None,
                              prices: dict[str, Price] | None = None,
                              on_look: Callable[[StoppedTournament], None] | None = None) -> StoppedTournament:
    """Play blocks in batches of `rule.every` until the target is met or a budget is spent;
    `on_look` gets the result after every look (the first one also carries the pilot's
    expectation)."""
    spec = get_game(game)
    specs = list(dict.fromkeys(specs))
    if rule.separate is not None:
        missing = [s for s in rule.separate if s not in specs]
        if missing:
            raise ValueError(f"--until-separated: {', '.join(missing)} must be among the tournament's agents (--seats)")
    counts = {int(d["players"]) for d in deals or () if "players" in d}
    if len(counts) > 1:
        raise ValueError("the deals are for different player counts; a tournament plays one table size")
    n = players or (counts.pop() if counts else spec.facts.players_by_default(settings))
    arena.check_seats(game, [*specs, *(role_specs or {}).values()])

    def settings_of(deal: int) -> dict[str, Any] | None:
        return {**(settings or {}), **deals[deal % len(deals)], "players": n} if deals else settings

    result = StoppedTournament(rule, specs)
    rng = random.Random(seed)  # the plain schedule's deal seeds, block by block
    widths: dict[str, float] = {}
    played_blocks: dict[str, int] = {}
    own: set[str] = set()
    stop = rule.stop_rule()
    budgeted = rule.max_tokens is not None or rule.max_cost is not None

    def next_block() -> Block:
        index = len(result.blocks)
        deal_seed = rng.randrange(SEED_RANGE)
        if rule.separate is not None:
            a, b = rule.separate
            lineups = separation_lineups(a, b, [s for s in specs if s not in (a, b)], n, index)
        else:
            lineups = (interval_lineup(specs, n, widths, played_blocks),)
        for lineup in lineups[:1]:
            for s in set(lineup):
                played_blocks[s] = played_blocks.get(s, 0) + 1
        return Block(index, deal_seed, lineups, n)

    pending: Block | None = None
    while True:
        batch: list[Block] = []
        used = result.matches
        while len(batch) < rule.every:
            block = pending or next_block()
            pending = None
            if used + block.matches > rule.max_games:
                pending = block
                break
            batch.append(block)
            used += block.matches
        if not batch:
            need = pending.matches if pending else 0
            result.stopped = (f"match budget spent: {result.matches} of {rule.max_games} matches (the next deal "
                              f"needs {need})" + _nothing_claimed(rule))
            break
        plans, ids = [], []
        for block in batch:
            block_ids = []
            for place, slot in block.slots():
                plan = planned(MatchPlan(game, slot.seats, seed=slot.seed, settings=settings_of(block.index), tag=tag,
                                         role_specs=role_specs), place)
                plans.append(plan)
                block_ids.append(plan.match_id)
            ids.append(block_ids)
        outcomes = await run_planned(arena, plans, engine=arena.engine, concurrency=concurrency, tracker=tracker)
        result.outcomes += outcomes
        result.blocks += batch
        own.update(o.match_id for o in outcomes)
        finished = {o.match_id for o in outcomes if o.status == "finished"}
        records: dict[str, list[dict[str, Any]]] = {}
        for row in arena.store.records(game, tag=tag):
            if row["match_id"] in finished:
                records.setdefault(row["match_id"], []).append(row)
        for block, block_ids in zip(batch, ids, strict=True):
            values = block_values(block, records, block_ids)
            if values is None:
                continue
            for agent, v in values.items():
                if agent in specs:
                    result.values.setdefault(agent, []).append(v)
            if rule.separate is not None and all(s in values for s in rule.separate):
                a, b = rule.separate  # (a role agent given with --role may take every seat of one)
                result.diffs.append(values[a] - values[b])
        look = len(result.looks) + 1
        agents = {a: look_at(v, look, 0.0, 1.0) for a, v in result.values.items() if v}
        pair = look_at(result.diffs, look, -1.0, 1.0) if result.diffs else None
        seen = TournamentLook(look, len(result.blocks), result.matches, pair, agents)
        result.looks.append(seen)
        widths = {a: k.half_width for a, k in agents.items()}
        if budgeted:
            result.spent = spent(arena.store, game, tag, prices or {}, own)
        if result.expected is None:  # the first look is the pilot
            _expect(result, rule, stop)
        if on_look is not None:
            on_look(result)
        why = _verdict(seen, rule, stop, specs)
        if why:
            result.stopped = why
            break
        over = stop.over_budget(result.spent["tokens"], result.spent["cost_usd"]) if budgeted else None
        if over:
            result.stopped = over + _nothing_claimed(rule)
            break
    slots = [slot for block in result.blocks for _, slot in block.slots()]
    deal_of = {slot.seed: slot.deal for slot in slots}
    result.seating = count_seating(slots, lambda s: spec.deal_roles(n, s, settings_of(deal_of[s])), spec.facts.roles,
                                   spec.facts.seat_names(n, {**(settings_of(0) or {}), "players": n}), role_specs)
    result.seating.adaptive_blocks = len(result.blocks)
    return result


def _nothing_claimed(rule: TournamentRule) -> str:
    if rule.separate is not None:
        return "; no difference claimed (the sign test did not separate them)"
    return "; the widest interval is still wider than asked"


def _verdict(seen: TournamentLook, rule: TournamentRule, stop: StopRule, specs: Sequence[str]) -> str | None:
    if rule.separate is not None:
        if seen.pair is None:
            return None
        why = verdict(seen.pair, stop)
        if why and why.startswith("separated"):
            a, b = rule.separate
            return f"separated: {a if seen.pair.a_better > seen.pair.b_better else b} better"
        return None
    agent, width = seen.widest(specs)
    if len(seen.agents) == len(specs) and rule.half_width is not None and width <= rule.half_width:
        return f"every interval's half-width ≤ {rule.half_width:g} (widest: {agent}, {width:.3f})"
    return None


def _expect(result: StoppedTournament, rule: TournamentRule, stop: StopRule) -> None:
    """The deals the budget is expected to pay for and the half-width expected there, if
    the deals to come are like the pilot's (its spend per match, its values repeated)."""
    done_deals, done_matches = len(result.blocks), result.matches
    if not done_deals or not done_matches:
        return
    matches = affordable(rule.max_games, done_matches, stop, result.spent)
    deals = max(done_deals, matches * done_deals // done_matches)
    result.expected_deals = deals
    if rule.separate is not None:
        if result.diffs:
            result.expected = expected_half_width(result.diffs, deals, stop, -1.0, 1.0, ALPHA)
        return
    # each agent at its pilot share of the deals; the widest of them
    widest = [expected_half_width(v, max(1, deals * len(v) // done_deals), stop, 0.0, 1.0, ALPHA)
              for a, v in result.values.items() if v and a in result.specs]
    result.expected = max(widest) if widest else None


__all__ = ["PLACE", "Block", "StoppedTournament", "TournamentLook", "TournamentRule", "block_values",
           "interval_lineup", "separation_lineups", "stopping_tournament"]
