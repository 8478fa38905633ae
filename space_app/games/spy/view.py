"""Who is the Spy's replay panels: statements by round, and who voted for whom."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.events import Event
from ...core.spec import Panel, ReplayView
from .events import KINDS, Elimination, Foul, Start, Statement, Vote
from .phrases import PHRASES

if TYPE_CHECKING:  # pandas is imported where a frame is built: the CLI and records need none
    import pandas as pd


def rounds_table(events: Sequence[Event | Mapping[str, Any]], upto: int | None = None) -> pd.DataFrame:
    """One row per statement: round, seat, statement (or the foul)."""
    import pandas as pd

    shown = KINDS.parse_all(events if upto is None else events[: upto + 1])
    rows = [{"round": e.round, "seat": e.actor,
             "statement": e.text if isinstance(e, Statement) else f"FOUL — {e.text}"}
            for e in shown if isinstance(e, (Statement, Foul))]
    return pd.DataFrame(rows, columns=["round", "seat", "statement"])


VOTE_COLUMNS = ("round · target", "round", "voter", "target", "votes")


def votes_frame(events: Sequence[Event | Mapping[str, Any]], upto: int | None = None) -> pd.DataFrame:
    """Who voted for whom: one bar per round and target ("R1 · P3", so each round is its own
    group of bars rather than every round stacked on one bar), split by voter; abstentions
    as 'abstain'."""
    import pandas as pd

    every = KINDS.parse_all(events)
    shown = every if upto is None else every[: upto + 1]
    rows = []
    for e in shown:
        if isinstance(e, Vote):
            target = e.target or "abstain"
            rows.append({"round · target": f"R{e.round} · {target}", "round": e.round, "voter": e.actor,
                         "target": target, "votes": 1})
    if rows:
        # a zero row per seat: the chart fixes its colours on the first votes it draws, so
        # every voter must be in them (else later voters' bars are never drawn)
        rows = [{**rows[0], "voter": seat, "votes": 0} for seat in _seats(every)] + rows
    return pd.DataFrame(rows, columns=list(VOTE_COLUMNS))


def _seats(events: list[Event]) -> list[str]:
    start = next((e for e in events if isinstance(e, Start)), None)
    return list(start.seats) if start else []


VIEW = ReplayView(
    panels=(Panel("Who voted for whom, round by round", votes_frame, kind="bar", columns=VOTE_COLUMNS,
                  x="round · target", y="votes", color="voter", x_title="round · voted for", y_title="votes"),
            Panel("Statements by round", rounds_table, columns=("round", "seat", "statement"))),
    result_columns=(("role", "roles"), ("word", "words")))


def why_won(match: dict[str, Any]) -> str:
    """One line on why the winner won, from the stored result and events, in the match's language."""
    result = match.get("result") or {}
    settings = match.get("settings") or {}
    lang = settings.get("language")
    spy = result.get("spy") or next((s for s, r in (result.get("roles") or {}).items() if r == "spy"), "?")
    out_round = (result.get("eliminated_round") or {}).get(spy)
    if out_round is not None:
        how = next((e.reason for e in KINDS.parse_all(match.get("events", []))
                    if isinstance(e, Elimination) and e.actor == spy), "vote")
        return PHRASES.say(lang, "why_foul" if how == "foul" else "why_voted", spy=spy, round=out_round)
    rounds = result.get("rounds_played")
    survivors = len(result.get("scores") or {}) - len(result.get("eliminated_round") or {})
    if survivors < int(settings.get("min_survivors", 3)):
        return PHRASES.say(lang, "why_few_left", spy=spy, survivors=survivors)
    return PHRASES.say(lang, "why_all_rounds", spy=spy, rounds=rounds) if rounds else PHRASES.say(
        lang, "why_never_out", spy=spy)
