"""Avalon's replay panels: the quest track, every proposal with its vote grid (and whether
the leader revised it), the discussion by quest, the private intentions and THINK texts of
intention-guided seats, and the end-of-game quizzes. Each panel is built from the events
the chosen view may see, so a seat's replay never shows a Fail card's owner, a role, or
another seat's intentions (a seat sees its own; spectators see all)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ...core.events import Event
from ...core.spec import Panel, ReplayView
from .events import (
    KINDS,
    AvalonSetup,
    EvilTalk,
    GameOver,
    Intentions,
    Proposal,
    QuestResult,
    QuizAnswer,
    QuizQuestion,
    Revision,
    Silence,
    Statement,
    VoteResult,
)
from .intentions import selected_ids

if TYPE_CHECKING:  # pandas is imported where a frame is built
    import pandas as pd

Rows = Iterable[Event | Mapping[str, Any]]  # stored rows or their models

QUEST_COLUMNS = ("quest", "size", "fails needed", "team", "fails", "result", "proposals")
PROPOSAL_COLUMNS = ("quest", "attempt", "leader", "proposed", "revised to", "approve", "reject", "outcome", "votes")
DISCUSSION_COLUMNS = ("quest", "attempt", "seat", "statement")
INTENTION_COLUMNS = ("quest", "attempt", "seat", "intentions", "modified to", "THINK", "errors")
QUIZ_COLUMNS = ("seat", "quiz", "about", "asked", "answered", "status", "true answer")


def _shown(events: Rows, upto: int | None) -> list[Event]:
    parsed = KINDS.parse_all(events)
    return parsed if upto is None else parsed[: upto + 1]


def quest_track(events: Rows, upto: int | None = None) -> pd.DataFrame:
    import pandas as pd

    rows = [{"quest": e.quest, "size": e.size, "fails needed": e.fails_needed, "team": ", ".join(e.team),
             "fails": e.fails, "result": "✅ success" if e.success else "❌ fail", "proposals": e.attempts}
            for e in _shown(events, upto) if isinstance(e, QuestResult)]
    return pd.DataFrame(rows, columns=list(QUEST_COLUMNS))


def proposals_table(events: Rows, upto: int | None = None) -> pd.DataFrame:
    """One row per proposal: the team first proposed, the team after the leader's revision,
    the counts and each seat's vote (✓ approve, ✗ reject)."""
    import pandas as pd

    rows: dict[tuple[int, int], dict[str, Any]] = {}
    for e in _shown(events, upto):
        if isinstance(e, Proposal):
            rows[(e.quest, e.attempt)] = {
                "quest": e.quest, "attempt": e.attempt, "leader": e.leader, "proposed": ", ".join(e.team),
                "revised to": "", "approve": None, "reject": None, "outcome": "discussing", "votes": ""}
        elif isinstance(e, Revision) and (e.quest, e.attempt) in rows:
            rows[(e.quest, e.attempt)]["revised to"] = ", ".join(e.team) if e.changed else "(kept)"
        elif isinstance(e, VoteResult) and (e.quest, e.attempt) in rows:
            rows[(e.quest, e.attempt)].update(
                approve=e.approve, reject=e.reject,
                outcome="auto-approved" if e.auto else "approved" if e.approved else "rejected",
                votes=" ".join(f"{seat}{'✓' if v == 'approve' else '✗'}" for seat, v in e.grid.items()))
    return pd.DataFrame(list(rows.values()), columns=list(PROPOSAL_COLUMNS))


def discussion(events: Rows, upto: int | None = None) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for e in _shown(events, upto):
        if isinstance(e, Statement):
            rows.append({"quest": e.round, "attempt": e.attempt, "seat": e.actor, "statement": e.text})
        elif isinstance(e, Silence):
            rows.append({"quest": e.round, "attempt": e.attempt, "seat": e.actor,
                         "statement": f"(silent: {e.reason or 'no statement'})"})
        elif isinstance(e, EvilTalk):
            rows.append({"quest": e.round, "attempt": None, "seat": e.actor,
                         "statement": f"[evil team only] {e.text}"})
    return pd.DataFrame(rows, columns=list(DISCUSSION_COLUMNS))


def _ids(value: Any) -> str:
    return ", ".join(str(x) for x in value) if isinstance(value, list) else ""


def intentions_table(events: Rows, upto: int | None = None) -> pd.DataFrame:
    """One row per statement that carried intentions (private: its seat and spectators)."""
    import pandas as pd

    rows = []
    for e in _shown(events, upto):
        if isinstance(e, Intentions):
            notes = e.notes
            think = notes.get("think") if isinstance(notes.get("think"), str) else ""
            errors = notes.get("errors") if isinstance(notes.get("errors"), list) else []
            rows.append({"quest": e.round, "attempt": e.attempt, "seat": e.actor,
                         "intentions": _ids(notes.get("intentions")), "modified to": _ids(notes.get("modified")),
                         "THINK": think, "errors": "; ".join(str(x) for x in errors)})
    return pd.DataFrame(rows, columns=list(INTENTION_COLUMNS))


def quizzes_table(events: Rows, upto: int | None = None) -> pd.DataFrame:
    """Each end-of-game question with its answer; the true answer where this view may know it
    (a seat sees its own intentions, spectators everyone's and the sides)."""
    import pandas as pd

    shown = _shown(events, upto)
    selections = {(e.actor, e.quest, e.attempt): selected_ids(e.notes) for e in shown if isinstance(e, Intentions)}
    sides = next((e.sides for e in shown if isinstance(e, (AvalonSetup, GameOver))), {})
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for e in shown:
        if isinstance(e, QuizQuestion):
            if e.quiz == "deduce":
                truth = ", ".join(s for s in e.options if sides.get(s) == "evil")
            else:
                truth = _ids(selections.get((e.about or "", e.quest or 0, e.attempt or 0)))
            about = e.about or ""
            where = f" (quest {e.quest}, proposal {e.attempt})" if about else ""
            rows[(e.actor, e.quiz)] = {"seat": e.actor, "quiz": e.quiz, "about": f"{about}{where}",
                                       "asked": f"pick {e.pick}", "answered": "", "status": "asked",
                                       "true answer": truth}
        elif isinstance(e, QuizAnswer) and (e.actor, e.quiz) in rows:
            rows[(e.actor, e.quiz)].update(answered=_ids(e.picks), status=e.status)
    return pd.DataFrame(list(rows.values()), columns=list(QUIZ_COLUMNS))


VIEW = ReplayView(
    panels=(Panel("Quest track", quest_track, columns=QUEST_COLUMNS),
            Panel("Proposals and votes (✓ approve, ✗ reject)", proposals_table, columns=PROPOSAL_COLUMNS),
            Panel("Discussion", discussion, columns=DISCUSSION_COLUMNS),
            Panel("Intentions and THINK (private: the seat itself and spectators)", intentions_table,
                  columns=INTENTION_COLUMNS),
            Panel("End-of-game quizzes (intentions: summarise, guess; sides: deduce)", quizzes_table,
                  columns=QUIZ_COLUMNS)),
    result_columns=(("role", "roles"), ("side", "sides")))


def why_won(match: dict[str, Any]) -> str:
    """One line on why the winner won, from the stored result (the rule that decided it)."""
    result = match.get("result") or {}
    hit = result.get("assassination") or {}
    played = int(result.get("good_wins") or 0) + int(result.get("evil_wins") or 0)
    survived = (f"the Assassin {hit['assassin']} named {hit.get('target') or 'nobody'}, not Merlin "
                f"({hit.get('merlin', '?')})" if hit.get("assassin") else "Merlin was not named")
    reasons = {
        "five_rejections": "Five team proposals in a row were rejected.",
        "three_fails": f"Three of the {played} quests played failed.",
        "merlin_assassinated": f"Three quests succeeded, but the Assassin {hit.get('assassin', '?')} named "
                               f"Merlin ({hit.get('merlin') or hit.get('target') or '?'}).",
        "merlin_survived": f"Three quests succeeded and {survived}.",
    }
    return reasons.get(result.get("reason") or "", "")
