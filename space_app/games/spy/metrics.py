"""Who is the Spy metrics, recomputed from each match's stored events.

Per game: the rule's scores (`games.spy.score`). Per agent: ranking score
(100 + sum of game scores - games played), games, win rate as spy / civilian /
overall, average score overall and by role, vote accuracy (civilian votes that
named the spy / civilian votes cast; abstentions counted apart), average survival
rounds by role (rounds completed while still in the game), foul rate (fouls /
turns to speak), average latency, and an OpenSkill (Plackett-Luce) rating.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from .rules import CIVILIAN, SPY, score


@dataclass
class SeatRecord:
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
    latency_ms: list[float] = field(default_factory=list)
    tokens: int = 0
    finished_at: float | None = None


@dataclass
class GameRecord:
    match_id: str
    winner: str
    spy: str
    scores: dict[str, float]
    seats: list[SeatRecord]
    attack_obeyed: int = 0


def rescore(match: dict[str, Any]) -> GameRecord:
    """Recompute one finished match from its events alone."""
    events = match["events"]
    setup = next(e for e in events if e["kind"] == "setup")
    roles: dict[str, str] = setup["data"]["roles"]
    seats = [s["seat"] for s in match["seats"]]
    spy = next(s for s, r in roles.items() if r == SPY)
    eliminated: dict[str, int] = {}
    vote_points: Counter[str] = Counter()
    turns: Counter[str] = Counter()
    fouls: Counter[str] = Counter()
    cast: Counter[str] = Counter()
    for_spy: Counter[str] = Counter()
    abstain: Counter[str] = Counter()
    latency: defaultdict[str, list[float]] = defaultdict(list)
    tokens: Counter[str] = Counter()
    last_round = 1
    for e in events:
        kind, actor, data = e["kind"], e["actor"], e["data"] or {}
        if e["round"]:
            last_round = max(last_round, e["round"])
        if kind == "statement" and not data.get("foul"):
            turns[actor] += 1
        elif kind == "foul":
            turns[actor] += 1
            fouls[actor] += 1
        elif kind == "elimination":
            eliminated[actor] = e["round"]
        elif kind == "vote":
            target = data.get("target")
            if target:
                cast[actor] += 1
                if target == spy and actor != spy:
                    for_spy[actor] += 1
                    vote_points[actor] += 1
                    vote_points[spy] -= 1
            else:
                abstain[actor] += 1
        elif kind == "call":
            latency[actor].append(float(data.get("latency_ms") or 0.0))
            tokens[actor] += int(data.get("prompt_tokens") or 0) + int(data.get("completion_tokens") or 0)
    alive = [s for s in seats if s not in eliminated]
    result = score(seats, spy, alive, eliminated.get(spy), vote_points)
    by_seat = {s["seat"]: s["agent_id"] for s in match["seats"]}
    records = []
    for s in seats:
        role = roles[s]
        records.append(SeatRecord(
            match_id=match["id"], seat=s, agent_id=by_seat[s], role=role,
            score=result["scores"][s], won=(role == result["winner"]),
            survived_rounds=(eliminated[s] - 1) if s in eliminated else last_round,
            turns=turns[s], fouls=fouls[s], votes_cast=cast[s], votes_for_spy=for_spy[s],
            abstentions=abstain[s], latency_ms=latency[s], tokens=tokens[s],
            finished_at=match.get("finished_at")))
    return GameRecord(match["id"], result["winner"], spy, result["scores"], records)


def seat_records(match: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat row per seat of a finished match (export): its role, score, votes, fouls."""
    game = rescore(match)
    rows = []
    for r in game.seats:
        row = {k: v for k, v in asdict(r).items() if k != "latency_ms"}
        row.update(game=match["game"], winner=game.winner, calls=len(r.latency_ms),
                   avg_latency_ms=_mean(r.latency_ms))
        rows.append(row)
    return rows


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _rate(values: list[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def ratings(games: Iterable[GameRecord]) -> dict[str, tuple[float, float]]:
    """OpenSkill Plackett-Luce, spy vs civilians as two teams, in match order.
    An agent in several seats of one game gets the mean of its seats' updates."""
    model = PlackettLuce()
    current: dict[str, Any] = {}
    for g in games:
        spy_seats = [r for r in g.seats if r.role == SPY]
        civ_seats = [r for r in g.seats if r.role == CIVILIAN]
        if not spy_seats or not civ_seats:
            continue
        for r in g.seats:
            current.setdefault(r.agent_id, model.rating(name=r.agent_id))
        teams = [[current[r.agent_id] for r in spy_seats], [current[r.agent_id] for r in civ_seats]]
        ranks = [0, 1] if g.winner == SPY else [1, 0]
        new = model.rate(teams, ranks=ranks)
        updates: defaultdict[str, list[tuple[float, float]]] = defaultdict(list)
        for seats_of_team, rated in zip((spy_seats, civ_seats), new, strict=True):
            for r, rating in zip(seats_of_team, rated, strict=True):
                updates[r.agent_id].append((rating.mu - current[r.agent_id].mu, rating.sigma))
        for agent_id, ups in updates.items():
            old = current[agent_id]
            current[agent_id] = model.rating(mu=old.mu + sum(u for u, _ in ups) / len(ups),
                                             sigma=sum(s for _, s in ups) / len(ups), name=agent_id)
    return {a: (r.mu, r.sigma) for a, r in current.items()}


def leaderboard(matches: Iterable[dict[str, Any]], min_games: int = 0) -> list[dict[str, Any]]:
    games = [rescore(m) for m in matches]
    rated = ratings(games)
    per_agent: defaultdict[str, list[SeatRecord]] = defaultdict(list)
    for g in games:
        for r in g.seats:
            per_agent[r.agent_id].append(r)
    rows = []
    for agent_id, recs in per_agent.items():
        if len(recs) < min_games:
            continue
        spy = [r for r in recs if r.role == SPY]
        civ = [r for r in recs if r.role == CIVILIAN]
        civ_cast = sum(r.votes_cast for r in civ)
        turns = sum(r.turns for r in recs)
        lat = [x for r in recs for x in r.latency_ms]
        mu, sigma = rated.get(agent_id, (25.0, 25.0 / 3))
        rows.append({
            "agent": agent_id,
            "ranking_score": round(100 + sum(r.score for r in recs) - len(recs), 4),
            "rating_mu": round(mu, 3), "rating_sigma": round(sigma, 3),
            "rating": round(mu - 3 * sigma, 3),
            "games": len(recs), "games_spy": len(spy), "games_civilian": len(civ),
            "win_rate": _rate([r.won for r in recs]),
            "win_rate_spy": _rate([r.won for r in spy]),
            "win_rate_civilian": _rate([r.won for r in civ]),
            "avg_score": _mean([r.score for r in recs]),
            "avg_score_spy": _mean([r.score for r in spy]),
            "avg_score_civilian": _mean([r.score for r in civ]),
            "vote_accuracy": (sum(r.votes_for_spy for r in civ) / civ_cast) if civ_cast else None,
            "civilian_votes": civ_cast,
            "abstentions": sum(r.abstentions for r in recs),
            "survival_spy": _mean([float(r.survived_rounds) for r in spy]),
            "survival_civilian": _mean([float(r.survived_rounds) for r in civ]),
            "foul_rate": (sum(r.fouls for r in recs) / turns) if turns else None,
            "avg_latency_ms": _mean(lat),
            "tokens": sum(r.tokens for r in recs),
        })
    rows.sort(key=lambda r: (-r["ranking_score"], r["agent"]))
    return rows


def score_history(matches: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cumulative ranking score per agent after each of its games (for plots)."""
    totals: Counter[str] = Counter()
    played: Counter[str] = Counter()
    rows = []
    for m in matches:
        g = rescore(m)
        for r in g.seats:
            totals[r.agent_id] += r.score
            played[r.agent_id] += 1
            rows.append({"agent": r.agent_id, "game": played[r.agent_id],
                         "ranking_score": 100 + totals[r.agent_id] - played[r.agent_id],
                         "finished_at": r.finished_at})
    return rows


def study_row(matches: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Table row of one study condition: civilians' vote accuracy, foul rate of all
    seats, average score (civilians and spy) and the civilians' win rate."""
    games = [rescore(m) for m in matches]
    civ = [r for g in games for r in g.seats if r.role == CIVILIAN]
    spy = [r for g in games for r in g.seats if r.role == SPY]
    every = civ + spy
    cast = sum(r.votes_cast for r in civ)
    turns = sum(r.turns for r in every)
    return {
        "games": len(games),
        "vote_accuracy": (sum(r.votes_for_spy for r in civ) / cast) if cast else None,
        "foul_rate": (sum(r.fouls for r in every) / turns) if turns else None,
        "civilian_foul_rate": (sum(r.fouls for r in civ) / max(1, sum(r.turns for r in civ))),
        "avg_score_civilian": _mean([r.score for r in civ]),
        "avg_score_spy": _mean([r.score for r in spy]),
        "civilian_win_rate": _rate([g.winner == CIVILIAN for g in games]),
    }
