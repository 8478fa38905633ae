"""The `wis` report: the WiS platform's leaderboard and its two study tables from stored Who is
the Spy matches, agents (or study conditions) as rows.

The leaderboard reads every finished spy match that is not a study match (or every match of
`--tag`): per agent its ranking score (WiS's 100 + the sum of its game scores − seats played),
seats, win rates overall and per role, mean score per seat overall and per role, the civilians'
vote accuracy and the foul rate, each with its 95% interval and n. The study tables are the
newest stored run of `experiment attack` and `experiment reasoning`, one row per condition.
Matches of different settings or rules versions are refused or split; the word pair is what a
deal draws, so matches are pooled over it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ...core.records import SeatRecord
from ...core.report import Cell, Report, ReportQuery, Table, choose, groups, label, mean_cell, rate_cell
from .metrics import records
from .rules import CIVILIAN, SPY
from .studies import newest_attack, newest_reasoning

__all__ = ["REPORT", "build", "leaderboard_table", "study_table"]

POOLED = ("pair", "pairs")  # the word pair is the deal, not a rule


def _matches(store: Any, tag: str | None) -> list[dict[str, Any]]:
    found = store.iter_matches("spy", status="finished", tag=tag)
    return [m for m in found if tag is not None or not (m.get("tag") or "").startswith("study:")]


def leaderboard_table(matches: list[dict[str, Any]], agents: list[str] | None, caption: str) -> Table:
    seats: dict[str, list[SeatRecord]] = defaultdict(list)
    for match in matches:
        for r in records(match):
            seats[r.agent_id].append(r)
    names = agents or sorted(seats, key=lambda a: -(100 + sum(r.score for r in seats[a]) - len(seats[a])))
    table = Table(key="wis-leaderboard", title="WiS leaderboard", caption=caption, columns=[
        "agent", "Ranking score", "Win rate %", "Win rate spy %", "Win rate civilian %", "Avg score",
        "Avg score spy", "Avg score civilian", "Vote accuracy %", "Foul rate %"])
    for agent in names:
        mine = seats.get(agent, [])
        spy = [r for r in mine if r.role == SPY]
        civ = [r for r in mine if r.role == CIVILIAN]
        ranking = Cell(value=100 + sum(r.score for r in mine) - len(mine), n=len(mine), digits=0)
        table.add([
            label(agent), ranking,
            rate_cell(sum(r.won for r in mine), len(mine)),
            rate_cell(sum(r.won for r in spy), len(spy)),
            rate_cell(sum(r.won for r in civ), len(civ)),
            mean_cell([r.score for r in mine]), mean_cell([r.score for r in spy]), mean_cell([r.score for r in civ]),
            rate_cell(sum(r.stats.get("votes_for_spy", 0.0) for r in civ), sum(r.stats.get("votes_cast", 0.0)
                                                                                for r in civ)),
            rate_cell(sum(r.stats.get("fouls", 0.0) for r in mine), sum(r.stats.get("turns", 0.0) for r in mine)),
        ])
    table.footnotes = [
        "Ranking score: WiS's 100 + the sum of the agent's game scores − its seats (n seats); it grows with the "
        "seats played, so compare agents by the mean score per seat beside it (seeded bootstrap interval, n seats).",
        "Rates with a 95% Wilson interval: win rates over seats, vote accuracy over the civilians' votes cast, the "
        "foul rate over turns to speak.",
    ]
    return table


def study_table(key: str, title: str, rows: list[dict[str, Any]], how: str) -> Table:
    table = Table(key=key, title=title, columns=[
        "condition", "Games", "Vote accuracy %", "Foul rate %", "Avg score civilian", "Avg score spy",
        "Civilian win rate %"],
        caption=(f"The newest stored run: tags {', '.join(r['tag'] for r in rows)}." if rows else
                 f"Never run on this store: {how}."))

    def figure(row: dict[str, Any], key: str, percent: bool) -> Cell:
        return Cell(value=row.get(key), low=row.get(f"{key}_low"), high=row.get(f"{key}_high"),
                    n=row.get(f"{key}_n"), percent=percent, digits=1 if percent else 2)

    for r in rows:
        table.add([label(r["condition"]), Cell(value=r["games"], digits=0),
                   figure(r, "vote_accuracy", True), figure(r, "foul_rate", True),
                   figure(r, "avg_score_civilian", False), figure(r, "avg_score_spy", False),
                   figure(r, "civilian_win_rate", True)])
    table.footnotes = [f"{r['condition']}: {r['what']}" for r in rows] + [
        "Every condition plays the same seeds with the same base agent; rates with Wilson intervals, mean scores "
        "with a seeded bootstrap over seats."]
    return table


def build(store: Any, query: ReportQuery) -> list[Table]:
    matches = _matches(store, query.tag)
    what = f"the spy matches tagged {query.tag!r}" if query.tag is not None else "the finished spy matches"
    tables: list[Table] = []
    chosen = choose(groups(matches, POOLED), query, what) if matches else [("no matches", [])]
    source = f"tagged {query.tag}" if query.tag is not None else "every finished match but study matches"
    for described, runs in chosen:
        tables.append(leaderboard_table(runs, list(query.agents) if query.agents else None,
                                        f"{len(runs)} Who is the Spy matches ({source}); {described}."))
    tables.append(study_table("wis-attack", "WiS prompt-injection attack and defence study", newest_attack(store),
                              "python -m space_app experiment attack --game spy --games 50"))
    tables.append(study_table("wis-reasoning", "WiS reasoning study", newest_reasoning(store),
                              "python -m space_app experiment reasoning --game spy --games 50"))
    return tables

REPORT = Report(title="WiS (leaderboard and the attack/defence and reasoning studies)",
                describe="the Who is the Spy leaderboard per agent and the newest run of each study",
                build=build)
