"""Standings: per-seat records, running totals and ratings, kept up to date as matches
end and rebuildable from the stored events.

- `keep(store, match_id)`: when a match ends, the game's metrics derive its per-seat
  records once; they are stored with the match and added to every pool's totals and
  ratings in one transaction.
- `rescore(store, game)`: derive every finished match's records again from its events,
  say whether they agree with the stored ones, and rebuild totals and ratings.
- `Standings`: the same arithmetic in memory, for rebuilds and for leaderboards over an
  arbitrary subset (one tournament's tag).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .core import SeatRecord, Tally, get_game, tallies_of_match
from .core.events import GENERIC, Call
from .core.facts import GENERIC_STATS, INFRA_FAILURES, seat_facts
from .rating import SIDE, Skill, TeamRating, placings
from .sources import DEFAULT_KINDS, EVERY_KIND, kind_of
from .store import Store

log = logging.getLogger(__name__)

# A pool is a set of matches whose standings are kept running, so its leaderboard is read,
# not computed: every match, or the default sources' (see `sources`). Any other filter is
# computed from the stored records.
ALL = "all"
DEFAULT = "default"
POOLS = (ALL, DEFAULT)
POOL_KINDS = {ALL: EVERY_KIND, DEFAULT: DEFAULT_KINDS}


def pools_of(tag: str) -> tuple[str, ...]:
    """The pools a match with this tag counts in."""
    return tuple(pool for pool, kinds in POOL_KINDS.items() if kind_of(tag) in kinds)


def pool_for(kinds: frozenset[str]) -> str | None:
    """The kept pool that is exactly this filter, if there is one."""
    return next((pool for pool, members in POOL_KINDS.items() if members == kinds), None)



SYSTEMS = ("agent", "role")  # one rating per agent; one per agent in each role
ROLE_SEP = "\t"  # subject of the 'role' system: agent<TAB>role


def subject(system: str, record: SeatRecord) -> str:
    return record.agent_id if system == "agent" else f"{record.agent_id}{ROLE_SEP}{record.role}"


def split_subject(text: str) -> tuple[str, str]:
    agent, _, role = text.partition(ROLE_SEP)
    return agent, role


def derive(match: dict[str, Any]) -> list[SeatRecord]:
    """A finished match's per-seat records, from its events: the game's own stats by its
    metrics, and the facts every game has (calls, latency, tokens, invalid actions,
    unreachable calls: `core.facts`) counted here, once for every game."""
    spec = get_game(match["game"])
    # the events read once, as models: the game's metrics take them as they are
    match = {**match, "events": spec.rules.events.parse_all(match.get("events") or [])}
    records = [r if isinstance(r, SeatRecord) else SeatRecord.model_validate(r) for r in spec.metrics.records(match)]
    facts = seat_facts(match["events"], [r.seat for r in records])
    for r in records:
        r.stats.update(facts[r.seat])
    return records


def unreachable_calls(match: dict[str, Any]) -> dict[str, int]:
    """Per seat, the calls whose agent could not be reached at all (connection refused, DNS,
    a Space that never woke) or that were skipped because the seat was marked failing: what
    may be the network's fault rather than the agent's play (`Call.infrastructure`)."""
    out: dict[str, int] = {}
    for e in GENERIC.parse_all(match.get("events") or []):
        if isinstance(e, Call) and e.infrastructure:
            out[e.actor] = out.get(e.actor, 0) + 1
    return out


def infra_hit(records: list[SeatRecord]) -> bool:
    """Whether a match lost a call to infrastructure (see `unreachable_calls`)."""
    return any(r.stats.get(INFRA_FAILURES, 0) > 0 for r in records)


def record_row(r: SeatRecord) -> dict[str, Any]:
    return {"seat": r.seat, "agent_id": r.agent_id, "role": r.role, "team": r.team, "won": int(r.won),
            "score": r.score, "stats": dict(r.stats)}


def from_row(row: dict[str, Any]) -> SeatRecord:
    return SeatRecord(seat=row["seat"], agent_id=row["agent_id"], role=row["role"], team=row["team"],
                      won=bool(row["won"]), score=float(row["score"]), stats=row.get("stats") or {})


@dataclass
class Standings:
    """Totals and ratings of some pools, in memory."""

    pools: tuple[str, ...] = POOLS
    tallies: dict[str, dict[tuple[str, str], Tally]] = field(default_factory=dict)
    ratings: dict[tuple[str, str], TeamRating] = field(default_factory=dict)

    def rating(self, pool: str, system: str) -> TeamRating:
        return self.ratings.setdefault((pool, system), TeamRating())

    def add(self, tag: str, records: list[SeatRecord]) -> dict[tuple[str, str], set[str]]:
        """Add one match; returns the rating subjects it changed per (pool, system)."""
        changed: dict[tuple[str, str], set[str]] = {}
        contribution = tallies_of_match(records)
        for pool in pools_of(tag):
            if pool not in self.pools:
                continue
            table = self.tallies.setdefault(pool, {})
            for key, tally in contribution.items():
                table.setdefault(key, Tally()).merge(tally)
            for system in SYSTEMS:
                seats = [(subject(system, r), r.team, r.won) for r in records]
                changed[(pool, system)] = self.rating(pool, system).rate(placings(seats))
        return changed


def keep(store: Store, match_id: str) -> bool:
    """Derive and store a finished match's records and add them to the standings.
    False (and the match marked, so it is not retried) when its game cannot derive them.

    Idempotent, across processes too: the arena, a tournament, `compare` and a `catch_up`
    may all reach the same match at once (a process catching up sees a match another has
    just finished). The records are written under the store's lock for derived data, and
    only while the match is still unrated, so the first writer keeps it and every other one
    finds it kept and returns False."""
    match = store.get_match(match_id)
    if match is None or match["status"] != "finished":
        return False
    try:
        records = derive(match)
    except Exception:  # noqa: BLE001 - a metrics bug must not lose the match itself
        log.exception("could not derive per-seat records of %s", match_id)
        with store.deriving() as tx:
            if tx.unrated(match_id):
                tx.mark(match_id, -1)
        return False
    game, tag = match["game"], match["tag"] or ""
    contribution = tallies_of_match(records)
    with store.deriving() as tx:
        if not tx.unrated(match_id):  # another process kept it since it was read
            return False
        tx.put_records(match_id, game, tag, tx.next_order(), [record_row(r) for r in records])
        for pool in pools_of(tag):
            current = tx.tallies(game, pool, contribution)
            merged = {}
            for key, tally in contribution.items():
                total = Tally.from_dict(current[key]) if key in current else Tally()
                total.merge(tally)
                merged[key] = total.to_dict()
            tx.put_tallies(game, pool, merged)
            for system in SYSTEMS:
                seats = [(subject(system, r), r.team, r.won) for r in records]
                wanted = {s for s, _, _ in seats} | {SIDE + t for _, t, _ in seats}
                rating = TeamRating({s: Skill(*v) for s, v in tx.skills(game, pool, system, wanted).items()})
                moved = rating.rate(placings(seats))
                tx.put_skills(game, pool, system, {s: (rating.skills[s].mu, rating.skills[s].sigma,
                                                       rating.skills[s].matches) for s in moved})
    return True


def catch_up(store: Store, game: str | None = None) -> int:
    """Derive the records of finished matches that have none yet (restored from a dataset,
    or stored by an older version), in the order they finished. Returns how many."""
    done = 0
    for match_id in store.unrated(game):
        done += int(keep(store, match_id))
    return done


def write_standings(store: Store, game: str, rows: list[tuple[str, str, int, list[SeatRecord]]],
                    standings: Standings, unusable: Iterable[str] = ()) -> None:
    """Replace a game's derived data: records (match_id, tag, order, records), totals, ratings.
    One transaction under the lock for derived data: every match of the game is unrated
    first, so a match another process kept while `rows` were being computed is left unrated
    (`catch_up` keeps it next), never half counted and never written twice."""
    with store.deriving() as tx:
        tx.clear(game)
        tx.put_many_records(game, [(m, tag, order, [record_row(r) for r in records])
                                   for m, tag, order, records in rows])
        for match_id in unusable:
            tx.mark(match_id, -1)
        for pool, table in standings.tallies.items():
            tx.put_tallies(game, pool, {key: t.to_dict() for key, t in table.items()})
        for (pool, system), rating in standings.ratings.items():
            tx.put_skills(game, pool, system, {s: (k.mu, k.sigma, k.matches) for s, k in rating.skills.items()})


def rebuild(store: Store, game: str) -> int:
    """Totals and ratings again from the stored records (no events read). Returns matches."""
    by_match: dict[str, tuple[str, int, list[SeatRecord]]] = {}
    for row in store.records(game):
        tag, order, recs = by_match.setdefault(row["match_id"], (row["tag"], row["rated"], []))
        recs.append(from_row(row))
    standings = Standings()
    ordered = sorted(by_match.items(), key=lambda item: item[1][1])
    for _, (tag, _, recs) in ordered:
        standings.add(tag, recs)
    write_standings(store, game, [(m, tag, order, recs) for m, (tag, order, recs) in ordered], standings)
    return len(ordered)


@dataclass
class RescoreReport:
    game: str
    matches: int = 0  # finished matches whose records were derived
    agreed: int = 0  # ... and equal to the stored ones
    new: int = 0  # ... that had none stored
    # ... equal to the stored ones in every stat the stored ones have, with generic facts added
    # (records kept before the standings counted calls, tokens and invalid actions for every game)
    gained: int = 0
    differed: list[str] = field(default_factory=list)  # match ids whose stored records differed
    failed: dict[str, str] = field(default_factory=dict)  # match id -> why its records could not be derived
    skipped: dict[str, str] = field(default_factory=dict)  # match id -> status (aborted, error, running)

    def lines(self) -> list[str]:
        out = [f"{self.game}: {self.matches} finished matches rescored from their events: {self.agreed} agree "
               f"with the stored records, {len(self.differed)} differed (replaced), {self.new} had none"
               + (f", {self.gained} agree and gained generic facts ({', '.join(GENERIC_STATS)})"
                  if self.gained else "")]
        if self.differed:
            out.append("  differed: " + ", ".join(self.differed[:20]) + (" ..." if len(self.differed) > 20 else ""))
        for match_id, why in list(self.failed.items())[:20]:
            out.append(f"  {match_id}: records could not be derived: {why}")
        if self.skipped:
            counts: dict[str, int] = {}
            for status in self.skipped.values():
                counts[status] = counts.get(status, 0) + 1
            out.append("  skipped (not finished, no records): "
                       + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
                       + ": " + ", ".join(list(self.skipped)[:10]) + (" ..." if len(self.skipped) > 10 else ""))
        return out


def _comparable(records: list[SeatRecord], drop: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """Records as compared: by seat, a stat of 0 the same as an absent one (both add nothing)."""
    out = []
    for r in sorted(records, key=lambda r: r.seat):
        row = r.model_dump()
        row["stats"] = {k: v for k, v in r.stats.items() if v != 0 and k not in drop}
        out.append(row)
    return out


def _same(stored: list[SeatRecord], derived: list[SeatRecord]) -> bool:
    return _comparable(stored) == _comparable(derived)


def _gained(stored: list[SeatRecord], derived: list[SeatRecord]) -> bool:
    """Equal but for generic facts the stored records do not have at all."""
    missing = frozenset(GENERIC_STATS) - {k for r in stored for k in r.stats}
    return bool(missing) and _comparable(stored, missing) == _comparable(derived, missing)


def rescore(store: Store, game: str) -> RescoreReport:
    """Derive every stored match's records from its events again (in the order they were
    first applied), compare them with the stored ones, and rebuild the game's standings."""
    report = RescoreReport(game)
    stored: dict[str, list[SeatRecord]] = {}
    for row in store.records(game):
        stored.setdefault(row["match_id"], []).append(from_row(row))
    standings = Standings()
    rows: list[tuple[str, str, int, list[SeatRecord]]] = []
    for match in store.iter_matches(game, status=None, order="rated"):
        if match["status"] != "finished":
            report.skipped[match["id"]] = match["status"]
            continue
        try:
            records = derive(match)
        except Exception as exc:  # noqa: BLE001 - named in the report, the rest goes on
            report.failed[match["id"]] = f"{type(exc).__name__}: {exc}"
            continue
        report.matches += 1
        before = stored.get(match["id"])
        if before is None:
            report.new += 1
        elif _same(before, records):
            report.agreed += 1
        elif _gained(before, records):
            report.gained += 1
        else:
            report.differed.append(match["id"])
        tag = match["tag"] or ""
        standings.add(tag, records)
        rows.append((match["id"], tag, len(rows) + 1, records))
    write_standings(store, game, rows, standings, unusable=report.failed)
    return report


__all__ = ["ALL", "DEFAULT", "INFRA_FAILURES", "POOLS", "POOL_KINDS", "ROLE_SEP", "SYSTEMS", "RescoreReport",
           "Standings", "catch_up", "derive", "infra_hit", "keep", "pool_for", "pools_of", "rebuild", "rescore",
           "split_subject", "subject", "unreachable_calls"]
