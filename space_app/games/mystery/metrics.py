"""Murder-mystery metrics, from a finished match's events only.

One record per seat (`records`): its side (`murderer` or `innocents`) as the role and the
rated team, won (a draw is won by nobody), score (1 win, 0.5 draw, 0 loss) and summable
stats; an agent's leaderboard row (`row`) turns their sums into:

- the draw rate (win rates per faction are the arena's, as for every game);
- vote accuracy: final votes of innocent seats that named the murderer ÷ innocent seats;
- ITD (the Chain of Evaluation's decision-making score): distinct key roles (the script's
  `key_roles`, whose private scripts hold a key clue) a seat chose to question ÷ the key roles
  it could question (all but itself); a question that went to a character by default (no
  valid choice) is not the seat's choice and does not count;
- questions asked, statements made and their mean length.

Calls, latency, tokens and invalid actions are counted for every game by the standings
(`core.facts`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ...core.records import AgentTotals, SeatRecord, running_win_rate
from .events import KINDS, GameOver, MysterySetup, Question, QuestionTarget, Silence, Speech, Vote
from .rules import DRAW, INNOCENTS, MURDERER

__all__ = ["history", "records", "row", "side_of"]


def side_of(role: str) -> str:
    return MURDERER if role == MURDERER else INNOCENTS


def records(match: dict[str, Any]) -> list[SeatRecord]:
    events = KINDS.parse_all(match["events"])
    setup = next(e for e in events if isinstance(e, MysterySetup))
    roles, murderer, key_roles = setup.roles, setup.murderer, set(setup.key_roles)
    over = next((e for e in events if isinstance(e, GameOver)), None)
    winner = over.winner if over else ""
    seats = [s["seat"] for s in match["seats"]]
    stats: dict[str, Counter[str]] = {s: Counter() for s in seats}
    questioned: dict[str, set[str]] = {s: set() for s in seats}
    for e in events:
        actor = e.actor
        if actor not in stats:
            continue
        if isinstance(e, Speech):
            stats[actor]["statements"] += 1
            stats[actor]["statement_chars"] += len(e.text)
            stats[actor]["questions_asked"] += int(isinstance(e, Question))
        elif isinstance(e, Silence):
            stats[actor]["silences"] += 1
        elif isinstance(e, QuestionTarget) and e.chosen:
            stats[actor]["questions_chosen"] += 1
            questioned[actor].add(e.target)
        elif isinstance(e, Vote):
            stats[actor]["final_votes"] += int(e.vote is not None)
            stats[actor]["named_murderer"] += int(e.vote == murderer)
    by_seat = {s["seat"]: s["agent_id"] for s in match["seats"]}
    out = []
    for seat in seats:
        side = side_of(roles[seat])
        s = stats[seat]
        s["key_roles_available"] = len(key_roles - {seat})
        s["key_roles_questioned"] = len(questioned[seat] & key_roles)
        s["draws"] = int(winner == DRAW)
        score = 0.5 if winner == DRAW else float(side == winner)
        out.append(SeatRecord(seat=seat, agent_id=by_seat[seat], role=side, team=side, won=side == winner,
                              score=score, stats={k: float(v) for k, v in s.items()}))
    return out


def row(totals: AgentTotals) -> dict[str, Any]:
    every, innocents = totals.every, totals.role(INNOCENTS)
    return {
        "draw_rate": every.share("draws"),
        "vote_accuracy": innocents.share("named_murderer"),
        "itd": every.rate("key_roles_questioned", "key_roles_available"),
        "questions": every.per_seat("questions_asked"),
        "statement_chars": every.ratio("statement_chars", "statements"),
    }


history = running_win_rate  # the leaderboard plot: the running win rate over seats
