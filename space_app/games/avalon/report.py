"""The `interintent` report: InterIntent's game-metrics table per side (Loyal, Evil) and its
intention tables (summarisation, guessing as a guesser × game-source matrix and per round,
following with THINK and SPEAK apart as a score distribution, selection as % judged
reasonable), agents as rows, from stored Avalon matches (every finished one, or `--tag`).

Everything is read from what the matches store: the events (quests, proposals, revisions,
quest cards, assassinations), the intention notes of intention-guided seats and their
end-of-game quiz answers. The judged columns use the offline heuristic judge (`judge.py`);
where the arena's definition differs from the paper's the table says so in a footnote.
Matches of different settings or rules versions (player count, variants) are refused or split.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from ...core.report import Cell, Report, ReportQuery, Table, choose, groups, label, mean_cell, rate_cell
from .events import KINDS, AvalonSetup, GameOver, QuestResult, VoteResult
from .intentions import load_catalogue
from .judge import heuristic_following_parts, heuristic_reasonableness, intention_statements
from .metrics import quiz_results, records
from .table import EVIL, GOOD, fails_needed

__all__ = ["REPORT", "build", "game_tables", "intention_tables"]

LISTED = 100_000
QUESTS = (1, 2, 3, 4, 5)
REASONABLE = 4.0  # a selection scoring at least this (1-5) counts as judged reasonable
SIDES = ((GOOD, "Loyal"), (EVIL, "Evil"))


def _matches(store: Any, tag: str | None) -> list[dict[str, Any]]:
    return list(store.iter_matches("avalon", status="finished", tag=tag))


def _agents(matches: Iterable[dict[str, Any]], query: ReportQuery) -> list[str]:
    if query.agents:
        return list(query.agents)
    return sorted({s["agent_id"] for m in matches for s in m["seats"]})


def _led(match: dict[str, Any]) -> list[tuple[str, bool]]:
    """(leader seat, whether its team served its side) for every quest that went: the quest's
    leader is the one whose proposal was approved (or sent without a vote)."""
    events = KINDS.parse_all(match["events"])
    sides = next(e for e in events if isinstance(e, AvalonSetup)).sides
    players = len(match["seats"])
    leaders = {e.quest: e.leader for e in events if isinstance(e, VoteResult) and (e.approved or e.auto)}
    out = []
    for e in events:
        if isinstance(e, QuestResult):
            leader = e.leader or leaders.get(e.quest, "")
            if leader in sides:
                evil = sum(sides.get(m) == EVIL for m in e.team)
                serves = evil == 0 if sides[leader] == GOOD else evil >= fails_needed(players, e.quest)
                out.append((leader, serves))
    return out


def game_tables(matches: list[dict[str, Any]], agents: list[str], caption: str) -> list[Table]:
    # (agent, side) -> summed stats; per quest led kept apart
    sums: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for match in matches:
        agent_of = {s["seat"]: s["agent_id"] for s in match["seats"]}
        side_of = {}
        for r in records(match):
            side_of[r.seat] = r.role
            c = sums[(r.agent_id, r.role)]
            c["seats"] += 1
            c["won"] += int(r.won)
            for key, value in r.stats.items():
                c[key] += value
        for leader, serves in _led(match):
            c = sums[(agent_of[leader], side_of[leader])]
            c["quests_led"] += 1
            c["quests_led_serving"] += int(serves)
    tables = []
    for side, name in SIDES:
        evil = side == EVIL
        columns = ["agent", "Win rate", "Quest win rate", "Quest engagement", "Team selection accuracy",
                   *(["Failure vote rate"] if evil else []), "Proposal change rate",
                   "Assassination hit rate" if evil else "Merlin assassinated"]
        table = Table(key=f"interintent-game-{name.lower()}", title=f"InterIntent game metrics, {name} side (%)",
                      columns=columns, caption=caption)
        for agent in agents:
            c = sums.get((agent, side), Counter())
            row: list[Cell] = [label(agent), rate_cell(c["won"], c["seats"]),
                               rate_cell(c["quests_won"], c["quests_played"]),
                               rate_cell(c["on_team"], c["quests_played"]),
                               rate_cell(c["quests_led_serving"], c["quests_led"], note="a")]
            if evil:
                row.append(rate_cell(c["fails_played"], c["evil_plays"]))
            row.append(rate_cell(c["revisions"], c["revision_chances"]))
            row.append(rate_cell(c["assassin_hits"], c["assassin_shots"]) if evil
                       else rate_cell(c["merlin_assassinated"], c["merlin_faced"]))
            table.add(row)
        table.footnotes = [
            "Rates with a 95% Wilson interval; n counts seats (win rate), quests played (quest win rate, "
            "engagement), quests led, Fail-card chances, proposals that could be revised, and assassinations.",
            "a: Team selection accuracy per quest led, as the paper counts it: of the quests whose team this seat "
            "proposed (the approved proposal), those whose team served its side (Loyal: no evil member; Evil: at "
            "least as many evil members as the Fail cards the quest needs). The arena's leaderboard column counts "
            "every proposal instead.",
        ]
        tables.append(table)
    return tables


def _f1_row(agent: str, scores: dict[int | None, list[float]]) -> list[Cell]:
    every = [v for values in scores.values() for v in values]
    return [label(agent), mean_cell(every, digits=3), *(mean_cell(scores.get(q, []), digits=3) for q in QUESTS)]


def intention_tables(matches: list[dict[str, Any]], agents: list[str], caption: str) -> list[Table]:
    catalogue = load_catalogue()
    summary: dict[str, dict[int | None, list[float]]] = defaultdict(lambda: defaultdict(list))
    guess: dict[str, dict[int | None, list[float]]] = defaultdict(lambda: defaultdict(list))
    guess_by_source: dict[tuple[str, str], list[float]] = defaultdict(list)
    think: dict[str, Counter[int]] = defaultdict(Counter)
    speak: dict[str, Counter[int]] = defaultdict(Counter)
    think_values: dict[str, list[float]] = defaultdict(list)
    speak_values: dict[str, list[float]] = defaultdict(list)
    reasonable: dict[str, list[int]] = defaultdict(list)
    for match in matches:
        agent_of = {s["seat"]: s["agent_id"] for s in match["seats"]}
        events = KINDS.parse_all(match["events"])
        if not any(isinstance(e, GameOver) for e in events):
            continue
        read = {**match, "events": events}
        for q in quiz_results(read, catalogue):
            agent = agent_of.get(q.seat, "")
            if q.quiz == "summarise":
                summary[agent][q.quest].append(q.score)
            elif q.quiz == "guess":
                guess[agent][q.quest].append(q.score)
                guess_by_source[(agent, agent_of.get(q.about or "", ""))].append(q.score)
        for s in intention_statements(read, catalogue):
            agent = agent_of.get(s.seat, "")
            t, p = heuristic_following_parts(s, catalogue)
            think[agent][round(t)] += 1
            speak[agent][round(p)] += 1
            think_values[agent].append(t)
            speak_values[agent].append(p)
            reasonable[agent].append(int(heuristic_reasonableness(s, catalogue) >= REASONABLE))
    rounds = [f"Round {q}" for q in QUESTS]
    f1_note = ("F1 of the intentions picked against those the seat selected, the mean over the questions asked "
               "with a seeded bootstrap interval and n questions; a round is the quest of the statement asked about.")
    differs = ("Differs from the paper on purpose: the arena asks once per game, about the seat's latest statement "
               "with intentions, and tells how many intentions to pick (so precision = recall); the paper asks "
               "every round, with 2-3 picks and no count given. Questions per round are therefore few.")
    s_table = Table(key="interintent-summarisation", title="InterIntent intention summarisation (F1)",
                    columns=["agent", "All", *rounds], caption=caption, footnotes=[f1_note, differs])
    for agent in agents:
        s_table.add(_f1_row(agent, summary.get(agent, {})))
    g_rounds = Table(key="interintent-guessing-rounds", title="InterIntent intention guessing per round (F1)",
                     columns=["guesser", "All", *rounds], caption=caption,
                     footnotes=[f1_note, "The guesser sees only the other player's SPEAK. " + differs])
    for agent in agents:
        g_rounds.add(_f1_row(agent, guess.get(agent, {})))
    g_matrix = Table(key="interintent-guessing-matrix", title="InterIntent intention guessing: guesser (row) × the "
                     "agent whose statement was guessed (column), F1", columns=["guesser \\ game source", *agents],
                     caption=caption, footnotes=[
                         "A cell is the mean F1 of the row agent's guesses at statements made by the column agent, "
                         "with a seeded bootstrap interval and n guesses; the paper's game source is the model that "
                         "played the game, here the agent in the guessed seat (an agent may guess its own kind when "
                         "it plays several seats).", differs])
    for row in agents:
        g_matrix.add([label(row), *(mean_cell(guess_by_source.get((row, col), []), digits=3) for col in agents)])
    levels = [str(i) for i in range(1, 6)]
    f_table = Table(key="interintent-following", title="InterIntent intention following: the distribution of "
                    "scores 1-5, THINK and SPEAK rated apart (% of statements)",
                    columns=["agent", "part", *levels, "Mean"], caption=caption, footnotes=[
                        "Each statement with intentions is scored on its THINK and on its SPEAK apart: 1 + 4 × the "
                        "share of its intentions whose key words the text holds, rounded to 1-5; a level's cell is "
                        "the share of statements at that level (Wilson interval, n statements), Mean the mean "
                        "score with a bootstrap interval.",
                        "Differs from the paper on purpose: the paper's raters judge how well each text follows "
                        "the intentions; the arena's offline judge looks for the intentions' key words (a lexical "
                        "stand-in: an LLM judge's scores come from `experiment intentions --judge`)."])
    for agent in agents:
        for part, counts, values in (("THINK", think.get(agent, Counter()), think_values.get(agent, [])),
                                     ("SPEAK", speak.get(agent, Counter()), speak_values.get(agent, []))):
            total = sum(counts.values())
            f_table.add([label(agent), label(part), *(rate_cell(counts[i], total) for i in range(1, 6)),
                         mean_cell(values, digits=2)])
    r_table = Table(key="interintent-selection", title="InterIntent intention selection: statements whose chosen "
                    "intentions are judged reasonable (%)", columns=["agent", "Judged reasonable"], caption=caption,
                    footnotes=[
                        f"Judged reasonable: the heuristic judge's reasonableness (1-5) is at least {REASONABLE:g}, "
                        "i.e. most of the chosen intentions suit the speaker's role and fit the moment; Wilson "
                        "interval, n statements with intentions.",
                        "Differs from the paper on purpose: the paper's raters say whether a selection is "
                        "reasonable; the arena's offline judge checks each intention's role and situation "
                        "conditions from the catalogue."])
    for agent in agents:
        got = reasonable.get(agent, [])
        r_table.add([label(agent), rate_cell(sum(got), len(got))])
    return [s_table, g_rounds, g_matrix, f_table, r_table]


def build(store: Any, query: ReportQuery) -> list[Table]:
    matches = _matches(store, query.tag)
    what = f"the Avalon matches tagged {query.tag!r}" if query.tag is not None else "the finished Avalon matches"
    tables: list[Table] = []
    chosen = choose(groups(matches, ()), query, what) if matches else [("no matches", [])]
    for described, runs in chosen:
        agents = _agents(runs, query)
        source = f"tagged {query.tag}" if query.tag is not None else "finished, of every source"
        caption = f"{len(runs)} Avalon matches ({source}); {described}."
        tables += game_tables(runs, agents, caption)
        tables += intention_tables(runs, agents, caption)
    return tables


REPORT = Report(title="InterIntent (game metrics per side and the intention tables)",
                describe="Avalon's game metrics for the Loyal and Evil sides and the four intention metrics",
                build=build)
