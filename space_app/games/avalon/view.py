"""Avalon's replay panels: the quest track, every proposal with its vote grid (and whether
the leader revised it), the discussion by quest, the private intentions and THINK texts of
intention-guided seats, and the end-of-game quizzes. Each panel is built from the events
the chosen view may see, so a seat's replay never shows a Fail card's owner, a role, or
another seat's intentions (a seat sees its own; spectators see all)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.spec import Panel, ReplayView

if TYPE_CHECKING:  # pandas is imported where a frame is built
    import pandas as pd

QUEST_COLUMNS = ("quest", "size", "fails needed", "team", "fails", "result", "proposals")
PROPOSAL_COLUMNS = ("quest", "attempt", "leader", "proposed", "revised to", "approve", "reject", "outcome", "votes")
DISCUSSION_COLUMNS = ("quest", "attempt", "seat", "statement")
INTENTION_COLUMNS = ("quest", "attempt", "seat", "intentions", "modified to", "THINK", "errors")
QUIZ_COLUMNS = ("seat", "quiz", "about", "asked", "answered", "status", "true answer")


def _shown(events: list[dict[str, Any]], upto: int | None) -> list[dict[str, Any]]:
    return events if upto is None else events[: upto + 1]


def quest_track(events: list[dict[str, Any]], upto: int | None = None) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for e in _shown(events, upto):
        d = e.get("data") or {}
        if e["kind"] == "quest_result":
            rows.append({"quest": d.get("quest"), "size": d.get("size"), "fails needed": d.get("fails_needed"),
                         "team": ", ".join(d.get("team") or []), "fails": d.get("fails"),
                         "result": "✅ success" if d.get("success") else "❌ fail", "proposals": d.get("attempts")})
    return pd.DataFrame(rows, columns=list(QUEST_COLUMNS))


def proposals_table(events: list[dict[str, Any]], upto: int | None = None) -> pd.DataFrame:
    """One row per proposal: the team first proposed, the team after the leader's revision,
    the counts and each seat's vote (✓ approve, ✗ reject)."""
    import pandas as pd

    rows: dict[tuple[Any, Any], dict[str, Any]] = {}
    for e in _shown(events, upto):
        d = e.get("data") or {}
        key = (d.get("quest"), d.get("attempt"))
        if e["kind"] == "proposal":
            rows[key] = {"quest": key[0], "attempt": key[1], "leader": d.get("leader"),
                         "proposed": ", ".join(d.get("team") or []), "revised to": "", "approve": None,
                         "reject": None, "outcome": "discussing", "votes": ""}
        elif e["kind"] == "revision" and key in rows:
            rows[key]["revised to"] = ", ".join(d.get("team") or []) if d.get("changed") else "(kept)"
        elif e["kind"] == "vote_result" and key in rows:
            grid = d.get("grid") or {}
            rows[key].update(approve=d.get("approve"), reject=d.get("reject"),
                             outcome=("auto-approved" if d.get("auto") else
                                      "approved" if d.get("approved") else "rejected"),
                             votes=" ".join(f"{seat}{'✓' if v == 'approve' else '✗'}" for seat, v in grid.items()))
    return pd.DataFrame(list(rows.values()), columns=list(PROPOSAL_COLUMNS))


def discussion(events: list[dict[str, Any]], upto: int | None = None) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for e in _shown(events, upto):
        d = e.get("data") or {}
        if e["kind"] in ("statement", "silence", "evil_talk"):
            text = e["text"] if e["kind"] != "silence" else f"(silent: {d.get('reason') or 'no statement'})"
            if e["kind"] == "evil_talk":
                text = f"[evil team only] {text}"
            rows.append({"quest": e.get("round"), "attempt": d.get("attempt"), "seat": e["actor"], "statement": text})
    return pd.DataFrame(rows, columns=list(DISCUSSION_COLUMNS))


def _ids(value: Any) -> str:
    return ", ".join(str(x) for x in value) if isinstance(value, list) else ""


def intentions_table(events: list[dict[str, Any]], upto: int | None = None) -> pd.DataFrame:
    """One row per statement that carried intentions (private: its seat and spectators)."""
    import pandas as pd

    rows = []
    for e in _shown(events, upto):
        notes = (e.get("data") or {}).get("notes")
        if e["kind"] == "intentions" and isinstance(notes, dict):
            think = notes.get("think") if isinstance(notes.get("think"), str) else ""
            errors = notes.get("errors") if isinstance(notes.get("errors"), list) else []
            rows.append({"quest": e.get("round"), "attempt": (e.get("data") or {}).get("attempt"), "seat": e["actor"],
                         "intentions": _ids(notes.get("intentions")), "modified to": _ids(notes.get("modified")),
                         "THINK": think, "errors": "; ".join(str(x) for x in errors)})
    return pd.DataFrame(rows, columns=list(INTENTION_COLUMNS))


def quizzes_table(events: list[dict[str, Any]], upto: int | None = None) -> pd.DataFrame:
    """Each end-of-game question with its answer; the true answer where this view may know it
    (a seat sees its own intentions, spectators everyone's and the sides)."""
    import pandas as pd

    from .intentions import selected_ids

    shown = _shown(events, upto)
    selections = {(e["actor"], (e.get("data") or {}).get("quest"), (e.get("data") or {}).get("attempt")):
                  selected_ids((e.get("data") or {}).get("notes")) for e in shown if e["kind"] == "intentions"}
    sides = next(((e.get("data") or {}).get("sides") or {} for e in shown if e["kind"] in ("setup", "game_over")),
                 {})
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for e in shown:
        d = e.get("data") or {}
        key = (e["actor"], str(d.get("quiz")))
        if e["kind"] == "quiz_question":
            if d.get("quiz") == "deduce":
                truth = ", ".join(s for s in d.get("options") or [] if sides.get(s) == "evil")
            else:
                truth = _ids(selections.get((d.get("about"), d.get("quest"), d.get("attempt"))))
            about = d.get("about") or ""
            where = f" (quest {d.get('quest')}, proposal {d.get('attempt')})" if about else ""
            rows[key] = {"seat": e["actor"], "quiz": d.get("quiz"), "about": f"{about}{where}",
                         "asked": f"pick {d.get('pick')}", "answered": "", "status": "asked", "true answer": truth}
        elif e["kind"] == "quiz_answer" and key in rows:
            rows[key].update(answered=_ids(d.get("picks")), status=d.get("status"))
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
