"""Murder-mystery replay panels: the discussion by phase and round, who questioned whom (with
the question and the answer), the final votes, and the image clues with their captions. Each
panel is built from the events the chosen view may see, so a seat's replay never shows another
character's script or role before the game reveals it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ...core.events import Event
from ...core.spec import Panel, ReplayView
from .events import KINDS, Answer, Clue, GameOver, Question, QuestionTarget, Silence, Speech, Vote, VoteResult
from .phrases import PHRASES

if TYPE_CHECKING:  # pandas is imported where a frame is built
    import pandas as pd

DISCUSSION_COLUMNS = ("phase", "round", "character", "says")
QUESTION_COLUMNS = ("round", "asker", "questioned", "how", "question", "answer")
VOTE_COLUMNS = ("character", "votes for", "right")
TALLY_COLUMNS = ("character", "votes")
IMAGE_COLUMNS = ("clue", "kind", "caption", "image")

Rows = Iterable[Event | Mapping[str, Any]]  # stored rows or models


def _shown(events: Rows, upto: int | None) -> list[Event]:
    shown = list(events)
    return KINDS.parse_all(shown if upto is None else shown[: upto + 1])


def discussion(events: Rows, upto: int | None = None) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for e in _shown(events, upto):
        if isinstance(e, Speech | Silence):
            says = f"(silent: {e.reason or 'no statement'})" if isinstance(e, Silence) else e.text
            rows.append({"phase": e.phase or e.kind, "round": e.round, "character": e.actor, "says": says})
    return pd.DataFrame(rows, columns=list(DISCUSSION_COLUMNS))


def questions(events: Rows, upto: int | None = None) -> pd.DataFrame:
    """One row per questioning: who chose whom (or got a character by default), what was
    asked and what was answered."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for e in _shown(events, upto):
        if isinstance(e, QuestionTarget):
            rows.append({"round": e.round, "asker": e.asker, "questioned": e.target,
                         "how": "chosen" if e.chosen else "by default", "question": "", "answer": ""})
        elif rows and isinstance(e, Speech | Silence) and e.phase == "question":
            rows[-1]["question"] = e.text if isinstance(e, Question) else "(asked nothing)"
        elif rows and isinstance(e, Speech | Silence) and e.phase == "answer":
            rows[-1]["answer"] = e.text if isinstance(e, Answer) else "(no answer)"
    return pd.DataFrame(rows, columns=list(QUESTION_COLUMNS))


def _murderer(events: list[Event]) -> str | None:
    over = next((e for e in events if isinstance(e, GameOver)), None)
    return over.murderer if over else None


def final_votes(events: Rows, upto: int | None = None) -> pd.DataFrame:
    import pandas as pd

    shown = _shown(events, upto)
    murderer = _murderer(shown)
    rows = []
    for e in shown:
        if isinstance(e, Vote):
            right = "" if murderer is None else ("✅" if e.vote == murderer else "❌")
            rows.append({"character": e.actor, "votes for": e.vote or "(abstained)", "right": right})
    return pd.DataFrame(rows, columns=list(VOTE_COLUMNS))


def vote_tally(events: Rows, upto: int | None = None) -> pd.DataFrame:
    import pandas as pd

    result = next((e for e in _shown(events, upto) if isinstance(e, VoteResult)), None)
    counts = result.counts if result else {}
    rows = [{"character": name, "votes": n} for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return pd.DataFrame(rows, columns=list(TALLY_COLUMNS))


def image_clues(events: Rows, upto: int | None = None) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for e in _shown(events, upto):
        if isinstance(e, Clue) and e.images:
            rows.append({"clue": e.clue, "kind": e.image_kind, "caption": e.caption, "image": ", ".join(e.images)})
    return pd.DataFrame(rows, columns=list(IMAGE_COLUMNS))


VIEW = ReplayView(
    panels=(Panel("Discussion", discussion, columns=DISCUSSION_COLUMNS),
            Panel("Who questioned whom", questions, columns=QUESTION_COLUMNS),
            Panel("Final votes", final_votes, columns=VOTE_COLUMNS),
            Panel("Votes received", vote_tally, kind="bar", columns=TALLY_COLUMNS, x="character", y="votes",
                  x_title="character", y_title="final votes"),
            Panel("Image clues", image_clues, columns=IMAGE_COLUMNS)),
    result_columns=(("role", "roles"), ("side", "sides")))


def why_won(match: dict[str, Any]) -> str:
    """One line on why the winner won: how many innocents named the murderer in the final vote
    (in the match's language)."""
    result = match.get("result") or {}
    murderer = result.get("murderer") or "?"
    votes = result.get("votes") or {}
    innocents = len([s for s in votes if s != murderer]) or max(0, len(result.get("scores") or {}) - 1)
    named = int(result.get("named") or 0)
    key = {"innocents": "why_innocents", "draw": "why_draw"}.get(result.get("winner") or "", "why_murderer")
    return PHRASES.say((match.get("settings") or {}).get("language"), key, named=named, innocents=innocents,
                       murderer=murderer)
