"""Leaderboards for every game, from stored standings (never from events).

A row is the generic part (agent, matches, seats, rating with its 95% interval, and per
role: matches and rating with its interval) followed by the game's own columns, computed
by the game's `row` from the agent's summed per-seat records.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .games import GameSpec, MetricColumn, get_game
from .games.records import AgentTotals, Tally, totals_from
from .rating import SIDE, Skill
from .standings import EXPERIMENT_PREFIXES, Standings, derive, from_row, pool_for, split_subject
from .store import Store


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
    for role in spec.record_roles:
        generic.append(MetricColumn(f"rating_{role}_ci", f"rating as {role} ±95%",
                                    f"the agent's rating in {role} seats: μ ± half its 95% interval", text=True))
        generic.append(MetricColumn(f"matches_{role}", f"matches as {role}", f"matches played as {role}"))
    return (*generic, *spec.metric_columns)


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
        for role in spec.record_roles:
            per_role = _interval(role_skills.get((agent, role)))
            row[f"matches_{role}"] = t.role(role).matches
            row[f"rating_{role}"] = per_role["mu"]
            row[f"rating_{role}_low"] = per_role["low"]
            row[f"rating_{role}_high"] = per_role["high"]
            row[f"rating_{role}_ci"] = (f"{per_role['mu']:.1f}±{per_role['mu'] - per_role['low']:.1f}"
                                        if per_role["mu"] is not None else None)
        row.update(spec.row(t))
        rows.append(row)
    key = spec.sort_by
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


def board(store: Store, game: str, *, include_studies: bool = True, tag: str | None = None,
          min_matches: int = 0) -> list[dict[str, Any]]:
    """The leaderboard of a game: a whole pool from its running totals (a few rows read,
    whatever the number of matches), or one tag's matches from their stored records."""
    spec = get_game(game)
    if tag is not None:
        standings = Standings(pools=(pool_for(True),))
        current: tuple[str, list] | None = None
        for row in store.records(game, tag=tag):
            if current is None or current[0] != row["match_id"]:
                if current is not None:
                    standings.add(tag, current[1])
                current = (row["match_id"], [])
            current[1].append(from_row(row))
        if current is not None:
            standings.add(tag, current[1])
        return rows_of(spec, standings, pool_for(True), min_matches)
    pool = pool_for(include_studies)
    tallies = {(a, r): Tally.from_dict(t) for a, r, t in store.totals(game, pool)}
    agent_skills = _skills(store.skills(game, pool, "agent").items())
    role_skills = {split_subject(s): k for s, k in _skills(store.skills(game, pool, "role").items()).items()}
    return rows_from(spec, totals_from(tallies), agent_skills, role_skills, min_matches)


def from_matches(game: str, matches: Iterable[dict[str, Any]], *, include_studies: bool = True,
                 min_matches: int = 0) -> list[dict[str, Any]]:
    """The same leaderboard recomputed from matches' events (a check on the stored one)."""
    spec = get_game(game)
    pool = pool_for(include_studies)
    standings = Standings(pools=(pool,))
    for m in matches:
        if m["status"] != "finished" or (not include_studies and (m["tag"] or "").startswith(EXPERIMENT_PREFIXES)):
            continue
        standings.add(m["tag"] or "", derive(m))
    return rows_of(spec, standings, pool, min_matches)


__all__ = ["board", "columns", "from_matches", "rows_from", "rows_of"]
