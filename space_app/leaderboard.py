"""Leaderboards for every game, from stored standings (never from events).

A row is the generic part (agent, matches, seats, rating with its 95% interval, and per
role: matches and rating with its interval) followed by the game's own columns, computed
by the game's `row` from the agent's summed per-seat records.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .core import AgentTotals, GameSpec, MetricColumn, SeatRecord, Tally, get_game, totals_from
from .core.facts import CALLS, INFRA_FAILURES, INVALID_ACTIONS, LATENCY_MS, TOKENS
from .rating import SIDE, Skill
from .seat_versions import label
from .sources import DEFAULT_KINDS, EVERY_KIND, kind_of
from .standings import ALL, Standings, derive, from_row, infra_hit, pool_for, split_subject
from .stats import Mean, Rate
from .store import Store
from .tables import figure


def columns(spec: GameSpec) -> tuple[MetricColumn, ...]:
    """Every column of the game's leaderboard, generic ones first."""
    generic = [
        MetricColumn("agent", "agent", "the agent's id"),
        MetricColumn("matches", "matches", "matches played (an agent in two seats of one match counts once)"),
        MetricColumn("seats", "seats", "seats played (an agent in two seats of one match counts twice)"),
        MetricColumn("rating", "rating μ", "OpenSkill (Plackett–Luce) skill over the game's teams: a team's strength "
                     "is its members' mean plus its side's own learned strength, so uneven sides do not bias it"),
        MetricColumn("rating_low", "μ 95% low", "lower end of the rating's 95% interval (μ − 1.96σ)"),
        MetricColumn("rating_high", "μ 95% high", "upper end of the rating's 95% interval (μ + 1.96σ)"),
    ]
    for role in spec.facts.record_roles:
        generic.append(MetricColumn(f"rating_{role}_ci", f"rating as {role} ±95%",
                                    f"the agent's rating in {role} seats: μ ± half its 95% interval", text=True))
        generic.append(MetricColumn(f"matches_{role}", f"matches as {role}", f"matches played as {role}"))
    generic.append(MetricColumn("win_rate", "win %", "seats won, on any side", percent=True))
    generic += [MetricColumn(f"win_rate_{role}", f"win % {role}", f"seats won as {role}", percent=True)
                for role in spec.facts.record_roles]
    return (*generic, *spec.metrics.columns, *FACT_COLUMNS)


HEADLINE_KEYS = ("agent", "matches", "seats", "rating", "rating_low", "rating_high", "win_rate")


def headline_columns(spec: GameSpec) -> tuple[MetricColumn, ...]:
    """The compact board a terminal shows: who, how much they played, the rating with its 95%
    interval, the win rate, and the game's first own column (its headline metric)."""
    chosen = [c for c in columns(spec) if c.key in HEADLINE_KEYS]
    return (*chosen, *spec.metrics.columns[:1])


# the facts every game has (`core.facts`), after the game's own columns
FACT_COLUMNS = (
    MetricColumn("invalid_rate", "invalid %", "invalid actions the game refused (a move against the rules, no "
                 "usable reply) ÷ calls", percent=True),
    MetricColumn("avg_latency_ms", "latency ms", "mean reply time"),
    MetricColumn("tokens", "tokens", "prompt and completion tokens the agent reported, over all its calls"),
    MetricColumn("infra_rate", "unreachable %", "calls that could not reach the agent (connection refused, DNS, a "
                 "Space that never woke), and turns skipped after its seat was marked failing, ÷ calls",
                 percent=True),
)


def generic_row(spec: GameSpec, t: AgentTotals) -> dict[str, Any]:
    """The columns every game has, from the agent's summed records."""
    every = t.every
    row: dict[str, Any] = {"win_rate": every.wins_rate()}
    for role in spec.facts.record_roles:
        row[f"win_rate_{role}"] = t.role(role).wins_rate()
    row["invalid_rate"] = every.rate(INVALID_ACTIONS, CALLS)
    row["avg_latency_ms"] = every.ratio(LATENCY_MS, CALLS)
    row["tokens"] = int(every.get(TOKENS))
    row["infra_rate"] = every.rate(INFRA_FAILURES, CALLS)
    return row


def cell(column: MetricColumn, row: dict[str, Any]) -> str:
    """One leaderboard cell as shown (UI and CLI alike): a figure with an interval reads
    '61.0 [55.2, 66.4] n=200' (percent columns ×100); '-' when there is nothing to show."""
    if column.text and row.get(column.key) is not None:
        return str(row[column.key])
    return figure(row, column.key, 100.0 if column.percent else 1.0, 1 if column.percent else 3)


def _interval(skill: Skill | None) -> dict[str, float | None]:
    if skill is None:
        return {"mu": None, "low": None, "high": None}
    return {"mu": round(skill.mu, 3), "low": round(skill.low, 3), "high": round(skill.high, 3)}


def rows_from(spec: GameSpec, totals: dict[str, AgentTotals], agent_skills: dict[str, Skill],
              role_skills: dict[tuple[str, str], Skill], min_matches: int = 0) -> list[dict[str, Any]]:
    rows = []
    for agent, t in totals.items():
        if agent.startswith(SIDE) or t.every.matches < max(0, min_matches):
            continue
        overall = _interval(agent_skills.get(agent))
        row: dict[str, Any] = {"agent": agent, "matches": t.every.matches, "seats": t.every.seats,
                               "rating": overall["mu"], "rating_low": overall["low"], "rating_high": overall["high"]}
        for role in spec.facts.record_roles:
            per_role = _interval(role_skills.get((agent, role)))
            row[f"matches_{role}"] = t.role(role).matches
            row[f"rating_{role}"] = per_role["mu"]
            row[f"rating_{role}_low"] = per_role["low"]
            row[f"rating_{role}_high"] = per_role["high"]
            row[f"rating_{role}_ci"] = (f"{per_role['mu']:.1f}±{per_role['mu'] - per_role['low']:.1f}"
                                        if per_role["mu"] is not None else None)
        for key, value in {**generic_row(spec, t), **spec.metrics.row(t)}.items():
            # a rate or a mean comes with its 95% interval and sample size: key_low, key_high, key_n
            row.update(value.to_dict(key) if isinstance(value, (Rate, Mean)) else {key: value})
        rows.append(row)
    key = spec.metrics.sort_by
    rows.sort(key=lambda r: (r.get(key) is None, -(r.get(key) or 0.0), r["agent"]))
    return rows


def _skills(pairs: Iterable[tuple[str, tuple[float, float, int]]]) -> dict[str, Skill]:
    return {s: Skill(mu, sigma, n) for s, (mu, sigma, n) in pairs}


def rows_of(spec: GameSpec, standings: Standings, pool: str, min_matches: int = 0) -> list[dict[str, Any]]:
    """Rows of one pool of in-memory standings."""
    tallies = standings.tallies.get(pool, {})
    agent_skills = dict(standings.rating(pool, "agent").skills)
    role_skills = {split_subject(s): k for s, k in standings.rating(pool, "role").skills.items()}
    return rows_from(spec, totals_from(tallies), agent_skills, role_skills, min_matches)


def board(store: Store, game: str, *, sources: Iterable[str] | None = None, tag: str | None = None,
          min_matches: int = 0, void_infra: bool = False, by_version: bool = False,
          version: str | None = None) -> list[dict[str, Any]]:
    """The leaderboard of a game over the matches of some source kinds (default: visitor,
    human and tournament; see `sources`), optionally of one tag. A kept pool is read from
    its running totals (a few rows, whatever the number of matches); any other filter is
    computed from the stored per-seat records. Asking for a tag without sources gives
    every match of that tag, whatever its kind. `void_infra`: leave out matches in which a
    call could not reach its agent (see `standings.unreachable_calls`). `by_version`: one row
    per agent and version (`seat_versions.label`: model, revision, SDK), rated apart, so an
    agent before and after its author changed the model are two rows; `version`: only the rows
    whose version label contains that text (implies `by_version`)."""
    spec = get_game(game)
    kinds = kinds_for(sources, tag)
    split = by_version or bool(version)
    pool = pool_for(kinds) if tag is None and not void_infra and not split else None
    if pool is None:
        rows = store.records(game, tag=tag)
        if split:
            rows = versioned(rows, store.seat_versions(game))
        standings = Standings(pools=(ALL,))
        for match_tag, records in matches_of(rows):
            if kind_of(match_tag) in kinds and not (void_infra and infra_hit(records)):
                standings.add(match_tag, records)
        board_rows = rows_of(spec, standings, ALL, min_matches)
        if split:
            board_rows = [_split_row(r) for r in board_rows]
            wanted = (version or "").casefold()
            board_rows = [r for r in board_rows if wanted in r["version"].casefold()]
        return board_rows
    tallies = {(a, r): Tally.from_dict(t) for a, r, t in store.totals(game, pool)}
    agent_skills = _skills(store.skills(game, pool, "agent").items())
    role_skills = {split_subject(s): k for s, k in _skills(store.skills(game, pool, "role").items()).items()}
    return rows_from(spec, totals_from(tallies), agent_skills, role_skills, min_matches)


VERSION_SEP = " @ "


def versioned(rows: Iterable[dict[str, Any]], versions: dict[tuple[str, str], dict[str, str]]
              ) -> Iterator[dict[str, Any]]:
    """Stored record rows with each agent id made '<id> @ <version label>' from its seat's version."""
    for row in rows:
        mark = label(versions.get((row["match_id"], row["seat"])))
        yield {**row, "agent_id": f"{row['agent_id']}{VERSION_SEP}{mark}"}


def _split_row(row: dict[str, Any]) -> dict[str, Any]:
    agent_id, _, mark = row["agent"].partition(VERSION_SEP)
    return {**row, "agent_id": agent_id, "version": mark}


def rank_ranges(rows: list[dict[str, Any]], low: str = "rating_low", high: str = "rating_high"
                ) -> list[tuple[int, int, int]]:
    """(rank, best, worst) for rows in their ranked order: the rank is the row's place; the
    range is the places the row could hold given the rating intervals: ahead of it only the
    agents whose interval lies wholly above its own, behind it every agent whose interval lies
    wholly below. A row without an interval could be anywhere. The range always holds the rank."""
    n = len(rows)
    out = []
    for place, row in enumerate(rows, 1):
        mine_low, mine_high = row.get(low), row.get(high)
        if mine_low is None or mine_high is None:
            out.append((place, 1, n))
            continue
        above = sum(1 for other in rows if other is not row and other.get(low) is not None
                    and other[low] > mine_high)
        below = sum(1 for other in rows if other is not row and other.get(high) is not None
                    and other[high] < mine_low)
        out.append((place, min(place, 1 + above), max(place, n - below)))
    return out


def kinds_for(sources: Iterable[str] | None, tag: str | None = None) -> frozenset[str]:
    """The source kinds a leaderboard request means (a tag alone: all of that tag's matches)."""
    if sources is not None:
        return frozenset(sources)
    return EVERY_KIND if tag is not None else DEFAULT_KINDS


def matches_of(rows: Iterable[dict[str, Any]]) -> Iterator[tuple[str, list[SeatRecord]]]:
    """Stored record rows (in applied order) grouped into (tag, records) per match."""
    current: tuple[str, str, list[SeatRecord]] | None = None
    for row in rows:
        if current is None or current[0] != row["match_id"]:
            if current is not None:
                yield current[1], current[2]
            current = (row["match_id"], row["tag"] or "", [])
        current[2].append(from_row(row))
    if current is not None:
        yield current[1], current[2]


def from_matches(game: str, matches: Iterable[dict[str, Any]], *, sources: Iterable[str] | None = None,
                 min_matches: int = 0, void_infra: bool = False) -> list[dict[str, Any]]:
    """The same leaderboard recomputed from matches' events (a check on the stored one)."""
    spec = get_game(game)
    kinds = DEFAULT_KINDS if sources is None else frozenset(sources)
    standings = Standings(pools=(ALL,))
    for m in matches:
        if m["status"] == "finished" and kind_of(m["tag"]) in kinds:
            records = derive(m)
            if not (void_infra and infra_hit(records)):
                standings.add(m["tag"] or "", records)
    return rows_of(spec, standings, ALL, min_matches)


__all__ = ["VERSION_SEP", "board", "cell", "columns", "from_matches", "kinds_for", "matches_of", "rank_ranges",
           "rows_from", "rows_of", "versioned"]
