"""Who is the Spy's replay panels: statements by round, and who voted for whom."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..spec import Panel, ReplayView

if TYPE_CHECKING:  # pandas is imported where a frame is built: the CLI and records need none
    import pandas as pd


def rounds_table(events: list[dict[str, Any]], upto: int | None = None) -> pd.DataFrame:
    """One row per statement: round, seat, statement (or the foul)."""
    import pandas as pd

    shown = events if upto is None else events[: upto + 1]
    rows = [{"round": e["round"], "seat": e["actor"],
             "statement": e["text"] if e["kind"] == "statement" else f"FOUL — {e['text']}"}
            for e in shown if e["kind"] in ("statement", "foul")]
    return pd.DataFrame(rows, columns=["round", "seat", "statement"])


def votes_frame(events: list[dict[str, Any]], upto: int | None = None) -> pd.DataFrame:
    """Who voted for whom, per round (abstentions as 'abstain')."""
    import pandas as pd

    shown = events if upto is None else events[: upto + 1]
    rows = [{"round": f"round {e['round']}", "voter": e["actor"],
             "target": (e.get("data") or {}).get("target") or "abstain", "votes": 1}
            for e in shown if e["kind"] == "vote"]
    return pd.DataFrame(rows, columns=["round", "voter", "target", "votes"])


VIEW = ReplayView(
    panels=(Panel("Who voted for whom", votes_frame, kind="bar", columns=("round", "voter", "target", "votes"),
                  x="target", y="votes", color="voter", x_title="voted for", y_title="votes"),
            Panel("Statements by round", rounds_table, columns=("round", "seat", "statement"))),
    result_columns=(("role", "roles"), ("word", "words")))
