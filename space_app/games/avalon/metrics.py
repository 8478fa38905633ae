"""Avalon metrics, from a finished match's events only.

One record per seat (`records`): its side as the role and the rated team (good against
evil), won, score (1 for the winning side), and summable stats; an agent's leaderboard
row (`row`) turns their sums into the game metrics of the study this follows:

- quest win rate (quests won by the seat's side ÷ quests played in its games);
- quest engagement (quests the seat was on the team ÷ quests played), per side;
- team selection accuracy (a leader's final proposals that serve its side ÷ its proposals:
  good — no evil member; evil — at least as many evil members as Fail cards the quest needs);
- failure vote rate (Fail cards an evil member played ÷ its quest plays);
- team proposal change rate (proposals the leader revised after the discussion ÷ proposals
  that could be revised);
- Merlin assassination rate (assassinations that named this agent's Merlin ÷ assassinations
  it faced as Merlin), and the assassin's hit rate;

and the social-intelligence metrics of intention-guided play (`quiz.py`, `judge.py`):

- summarisation F1 (the seat's picks of its own intentions against what it selected),
  guessing F1 (its picks of another player's against that player's selection), each
  averaged over the questions asked; an unanswered question scores 0;
- role deduction accuracy (other players put on their true side ÷ other players judged;
  an unanswered question puts nobody right);
- selection reasonableness and following score (1-5), from the offline heuristic judge,
  averaged over the seat's statements with intentions; and the share of those statements
  whose pipeline reported errors.

Win rates (overall and per side), calls, latency, tokens and the invalid-action rate are the
arena's for every game (`core.facts`, the leaderboard's generic columns).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ...core.records import AgentTotals, SeatRecord, running_win_rate
from .events import (
    KINDS,
    Assassination,
    AvalonSetup,
    GameOver,
    Intentions,
    QuestCard,
    QuestResult,
    QuizAnswer,
    QuizQuestion,
    Revision,
    VoteResult,
)
from .intentions import Catalogue, load_catalogue, selected_ids
from .judge import heuristic_following, heuristic_reasonableness, intention_statements
from .quiz import deduction_correct, f1
from .table import EVIL, GOOD, fails_needed


def records(match: dict[str, Any]) -> list[SeatRecord]:
    events = KINDS.parse_all(match["events"])
    setup = next(e for e in events if isinstance(e, AvalonSetup))
    roles, sides = setup.roles, setup.sides
    over = next((e for e in events if isinstance(e, GameOver)), None)
    winner = over.winner if over else ""
    seats = [s["seat"] for s in match["seats"]]
    players = len(seats)
    stats: dict[str, Counter[str]] = {s: Counter() for s in seats}
    quests_played = 0
    quests_won: Counter[str] = Counter()
    for e in events:
        actor = e.actor
        if isinstance(e, Revision):
            if actor in stats:
                stats[actor]["revision_chances"] += 1
                stats[actor]["revisions"] += int(e.changed)
        elif isinstance(e, VoteResult):
            leader = e.leader
            if leader in stats and not e.auto:
                evil = sum(sides.get(m) == EVIL for m in e.team)
                serves = evil == 0 if sides[leader] == GOOD else evil >= fails_needed(players, e.quest)
                stats[leader]["proposals"] += 1
                stats[leader]["proposals_serving"] += int(serves)
        elif isinstance(e, QuestResult):
            quests_played += 1
            quests_won[GOOD if e.success else EVIL] += 1
            for member in e.team:
                if member in stats:
                    stats[member]["on_team"] += 1
        elif isinstance(e, QuestCard) and actor in stats and sides.get(actor) == EVIL:
            stats[actor]["evil_plays"] += 1
            stats[actor]["fails_played"] += int(e.card == "fail")
        elif isinstance(e, Assassination):
            if e.merlin in stats:
                stats[e.merlin]["merlin_faced"] += 1
                stats[e.merlin]["merlin_assassinated"] += int(e.hit)
            if e.assassin in stats:
                stats[e.assassin]["assassin_shots"] += 1
                stats[e.assassin]["assassin_hits"] += int(e.hit)
    _intention_stats(match, stats, sides)
    by_seat = {s["seat"]: s["agent_id"] for s in match["seats"]}
    out = []
    for seat in seats:
        side = sides[seat]
        s = stats[seat]
        s["quests_played"] = quests_played
        s["quests_won"] = quests_won[side]
        s[f"as_{roles[seat]}"] = 1
        out.append(SeatRecord(seat=seat, agent_id=by_seat[seat], role=side, team=side, won=side == winner,
                              score=1.0 if side == winner else 0.0, stats={k: float(v) for k, v in s.items()}))
    return out


def _intention_stats(match: dict[str, Any], stats: dict[str, Counter[str]], sides: dict[str, str]) -> None:
    """The quizzes' scores and the heuristic judge's, added to each seat's stats."""
    catalogue = load_catalogue()
    for s in intention_statements(match, catalogue):
        if s.seat in stats:
            st = stats[s.seat]
            st["intent_statements"] += 1
            st["intent_with_errors"] += int(bool(s.errors))
            st["judge_reasonable"] += heuristic_reasonableness(s, catalogue)
            st["judge_following"] += heuristic_following(s, catalogue)
    for q in quiz_results(match, catalogue, sides):
        if q.seat in stats:
            st = stats[q.seat]
            if q.quiz in ("summarise", "guess"):
                key = "summary" if q.quiz == "summarise" else "guess"
                st[f"{key}_asked"] += 1
                st[f"{key}_f1"] += q.score
            elif q.quiz == "deduce":
                st["deduce_asked"] += 1
                st["deduce_judged"] += q.judged
                st["deduce_correct"] += q.score


@dataclass(frozen=True)
class QuizResult:
    """One end-of-game quiz answer scored: F1 for the intention quizzes; for deduction, the
    other players put on their true side (`score`) of those judged (`judged`)."""

    seat: str
    quiz: str
    score: float
    judged: int = 1
    about: str | None = None  # intention quizzes: the seat whose statement it was on
    quest: int | None = None  # ... and that statement's quest


def quiz_results(match: dict[str, Any], catalogue: Catalogue | None = None,
                 sides: dict[str, str] | None = None) -> Iterator[QuizResult]:
    """Every answered (or timed-out) quiz question of a match, scored against the recorded
    selections and the true sides."""
    catalogue = catalogue or load_catalogue()
    events = KINDS.parse_all(match["events"])
    if sides is None:
        sides = next(e for e in events if isinstance(e, AvalonSetup)).sides
    selections: dict[tuple[str, int, int], list[str]] = {}  # (seat, quest, attempt) -> its selection
    for e in events:
        if isinstance(e, Intentions):
            selections[(e.actor, e.quest, e.attempt)] = selected_ids(e.notes, catalogue)
    asked: dict[tuple[str, str], QuizQuestion] = {}  # (seat, quiz) -> the question
    for e in events:
        if isinstance(e, QuizQuestion):
            asked[(e.actor, e.quiz)] = e
        elif isinstance(e, QuizAnswer) and (e.actor, e.quiz) in asked:
            question, quiz, seat = asked[(e.actor, e.quiz)], e.quiz, e.actor
            picks = list(e.picks)
            if quiz in ("summarise", "guess"):
                truth = selections.get((question.about or "", question.quest or 0, question.attempt or 0), [])
                yield QuizResult(seat, quiz, f1(picks, truth), about=question.about, quest=question.quest)
            elif quiz == "deduce":
                others = [x for x in question.options if x in sides]
                yield QuizResult(seat, quiz, deduction_correct(picks or None, others, sides), len(others))


def row(totals: AgentTotals) -> dict[str, Any]:
    every, good, evil = totals.every, totals.role(GOOD), totals.role(EVIL)
    return {
        "quest_win_rate": every.rate("quests_won", "quests_played"),
        "engagement_good": good.rate("on_team", "quests_played"),
        "engagement_evil": evil.rate("on_team", "quests_played"),
        "team_selection_accuracy": every.rate("proposals_serving", "proposals"),
        "failure_vote_rate": evil.rate("fails_played", "evil_plays"),
        "proposal_change_rate": every.rate("revisions", "revision_chances"),
        "merlin_assassinated": good.rate("merlin_assassinated", "merlin_faced"),
        "merlin_games": int(good.get("as_merlin")),
        "assassin_hit_rate": evil.rate("assassin_hits", "assassin_shots"),
        "summarisation_f1": every.ratio("summary_f1", "summary_asked"),
        "guessing_f1": every.ratio("guess_f1", "guess_asked"),
        "deduction_accuracy": every.rate("deduce_correct", "deduce_judged"),
        "deduction_accuracy_good": good.rate("deduce_correct", "deduce_judged"),
        "selection_reasonableness": every.ratio("judge_reasonable", "intent_statements"),
        "following_score": every.ratio("judge_following", "intent_statements"),
        "intention_error_rate": every.rate("intent_with_errors", "intent_statements"),
    }


history = running_win_rate  # the leaderboard plot: the running win rate over seats


__all__ = ["QuizResult", "history", "quiz_results", "records", "row"]
