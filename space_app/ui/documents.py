"""The panel of what a seat may read beside the game (its script, its role card), live in the
Play tab for the person in the seat and in the Watch tab's view of that seat. The documents come
from the game (`Presentation.seat_documents`) and are computed from the seat's own view, so the
panel shows a seat nothing another seat was told. Each document is drawn whole, as inert text."""

from __future__ import annotations

from collections.abc import Iterable

from ..core import GameSpec
from ..core.documents import seat_view
from ..core.events import Event
from ..safe_text import html_text
from .i18n import text


def documents_html(spec: GameSpec, events: Iterable[Event], seat: str | None, language: str) -> str:
    """The panel for `seat` (its documents from the events it was shown); for no seat (the
    spectators), a line that says a seat's view holds them."""
    if seat is None:
        return f"<div class='da-documents'><i>{html_text(text(language, 'documents.choose_seat'))}</i></div>"
    docs = spec.presentation.seat_documents(seat_view(events, seat, language))
    head = f"<h3>{html_text(text(language, 'documents.title', seat=seat))}</h3>"
    if not docs:
        return f"<div class='da-documents'>{head}<i>{html_text(text(language, 'documents.none'))}</i></div>"
    # the first document (the card) open, a long script folded open too: it is what one plays from
    parts = [f"<details class='da-doc da-doc-{html_text(doc.kind)}' open><summary><b>{html_text(doc.title)}</b>"
             f"</summary><div class='da-doc-text'>{html_text(doc.text)}</div></details>" for doc in docs]
    return f"<div class='da-documents'>{head}{''.join(parts)}</div>"


__all__ = ["documents_html"]
