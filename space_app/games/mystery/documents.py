"""What a character's player reads beside the game: its character card (who it is, innocent or
murderer, its task) and its private script whole, in the script's language. Built from the
seat's own view (`core.documents.SeatView`), so it never holds another character's script."""

from __future__ import annotations

from ...core.documents import SeatDocument, SeatView
from .phrases import PHRASES


def documents(view: SeatView) -> list[SeatDocument]:
    """The character card (what the game told this seat), then each private document whole."""
    out: list[SeatDocument] = []
    if view.private.text:
        name = str(view.private.facts.get("character") or view.seat)
        out.append(SeatDocument(title=PHRASES.say(view.language, "card_title", name=name), text=view.private.text,
                                kind="role"))
    out += [SeatDocument(title=doc.title or doc.kind, text=doc.text, kind=doc.kind) for doc in view.private.documents]
    return out


__all__ = ["documents"]
