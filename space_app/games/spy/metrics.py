"""Who is the Spy metrics, recomputed from each match's stored events.

Per game: the rule's scores (`games.spy.score`) and one record per seat (`records`:
role, won, score, and summable stats). Per agent, from the sums of its records (`row`):
ranking score (100 + sum of game scores - seats played), average score overall and by
role, vote accuracy (civilian votes that named the spy / civilian votes cast; abstentions
counted apart), average survival rounds by role (rounds completed while still in the
game), foul rate (fouls / turns to speak). Win rates, calls, latency and tokens are the
arena's for every game (`core.facts`); ratings too (`space_app/rating.py`), spy against
civilians.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ...core.records import SCORE, AgentTotals, SeatRecord
from ...stats import Rate, mean_interval
from .events import KINDS, Elimination, Foul, SpySetup, Statement, Vote
from .rules import CIVILIAN, SPY, score


@dataclass
class SpySeat:
    match_id: str
    seat: str
    agent_id: str
    role: str
    score: float
    won: bool
    survived_rounds: int
    turns: int
    fouls: int
    votes_cast: int
    votes_for_spy: int
    abstentions: int
    finished_at: float | None = None


@dataclass
class GameRecord:
    match_id: str
    winner: str
    spy: str
    scores: dict[str, float]
    seats: list[SpySeat]


def rescore(match: dict[str, Any]) -> GameRecord:
    """Recompute one finished match from its events alone."""
    events = KINDS.parse_all(match["events"])
    setup = next(e for e in events if isinstance(e, SpySetup))
    roles: dict[str, str] = setup.roles
    seats = [s["seat"] for s in match["seats"]]
    spy = next(s for s, r in roles.items() if r == SPY)
    eliminated: dict[str, int] = {}
    vote_points: Counter[str] = Counter()
    turns: Counter[str] = Counter()
    fouls: Counter[str] = Counter()
    cast: Counter[str] = Counter()
    for_spy: Counter[str] = Counter()
    abstain: Counter[str] = Counter()
    last_round = 1
    for e in events:
        actor = e.actor
        if e.round:
            last_round = max(last_round, e.round)
        if isinstance(e, Statement) and not e.foul:
            turns[actor] += 1
        elif isinstance(e, Foul):
            turns[actor] += 1
            fouls[actor] += 1
        elif isinstance(e, Elimination):
            eliminated[actor] = e.round
        elif isinstance(e, Vote):
            target = e.target
            if target:
                cast[actor] += 1
                if target == spy and actor != spy:
                    for_spy[actor] += 1
                    vote_points[actor] += 1
                    vote_points[spy] -= 1
            else:
                abstain[actor] += 1
    alive = [s for s in seats if s not in eliminated]
    result = score(seats, spy, alive, eliminated.get(spy), vote_points)
    by_seat = {s["seat"]: s["agent_id"] for s in match["seats"]}
    records = []
    for s in seats:
        role = roles[s]
        records.append(SpySeat(
            match_id=match["id"], seat=s, agent_id=by_seat[s], role=role,
            score=result["scores"][s], won=(role == result["winner"]),
            survived_rounds=(eliminated[s] - 1) if s in eliminated else last_round,
            turns=turns[s], fouls=fouls[s], votes_cast=cast[s], votes_for_spy=for_spy[s],
            abstentions=abstain[s],
            finished_at=match.get("finished_at")))
    return GameRecord(match["id"], result["winner"], spy, result["scores"], records)


def _seat_record(r: SpySeat) -> SeatRecord:
    return SeatRecord(
        seat=r.seat, agent_id=r.agent_id, role=r.role, team=r.role, won=r.won, score=r.score,
        stats={"turns": r.turns, "fouls": r.fouls, "votes_cast": r.votes_cast, "votes_for_spy": r.votes_for_spy,
               "abstentions": r.abstentions, "survived_rounds": r.survived_rounds})


def records(match: dict[str, Any]) -> list[SeatRecord]:
    """The per-seat records of a finished match (stored beside it; the teams rated are the
    spy against the civilians)."""
    return [_seat_record(r) for r in rescore(match).seats]


def row(totals: AgentTotals) -> dict[str, Any]:
    """One agent's leaderboard columns from its summed records."""
    every, spy, civ = totals.every, totals.role(SPY), totals.role(CIVILIAN)
    return {
        "ranking_score": round(100 + every.score - every.seats, 4),
        "avg_score": every.per_seat(SCORE),
        "avg_score_spy": spy.per_seat(SCORE),
        "avg_score_civilian": civ.per_seat(SCORE),
        "vote_accuracy": civ.rate("votes_for_spy", "votes_cast"),
        "civilian_votes": int(civ.get("votes_cast")),
        "abstentions": int(every.get("abstentions")),
        "survival_spy": spy.per_seat("survived_rounds"),
        "survival_civilian": civ.per_seat("survived_rounds"),
        "foul_rate": every.rate("fouls", "turns"),
    }


def history(agent: str, played: Iterable[SeatRecord]) -> list[dict[str, Any]]:
    """The agent's ranking score after each of its seats, in the order played (for plots)."""
    total = 0.0
    rows = []
    for n, r in enumerate(played, start=1):
        total += r.score
        rows.append({"agent": agent, "game": n, "ranking_score": 100 + total - n})
    return rows


def study_row(matches: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Table row of one study condition: civilians' vote accuracy, foul rate of all seats,
    average score (civilians and spy) and the civilians' win rate, each with its 95% interval
    and sample size (Wilson for rates, a seeded bootstrap over seats for mean scores), and the
    seeds and match ids behind it."""
    played = list(matches)
    games = [rescore(m) for m in played]
    civ = [r for g in games for r in g.seats if r.role == CIVILIAN]
    spy = [r for g in games for r in g.seats if r.role == SPY]
    every = civ + spy
    return {
        "games": len(games),
        **Rate(sum(r.votes_for_spy for r in civ), sum(r.votes_cast for r in civ)).to_dict("vote_accuracy"),
        **Rate(sum(r.fouls for r in every), sum(r.turns for r in every)).to_dict("foul_rate"),
        **Rate(sum(r.fouls for r in civ), sum(r.turns for r in civ)).to_dict("civilian_foul_rate"),
        **_bootstrapped("avg_score_civilian", [r.score for r in civ]),
        **_bootstrapped("avg_score_spy", [r.score for r in spy]),
        **Rate(sum(g.winner == CIVILIAN for g in games), len(games)).to_dict("civilian_win_rate"),
        "seeds": sorted({m["seed"] for m in played}),
        "match_ids": [m["id"] for m in played],
    }


def _bootstrapped(key: str, values: list[float]) -> dict[str, Any]:
    value, low, high = mean_interval(values) or (None, None, None)
    return {key: value, f"{key}_low": low, f"{key}_high": high, f"{key}_n": len(values)}
