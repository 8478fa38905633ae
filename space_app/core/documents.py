"""What a seat may read beside the game: the documents its game hands it (a murder script
whole, a role card with what the role knows), each a titled text. The game computes them
(`Presentation.documents`) from the seat's own view: exactly the events that seat was shown,
and the private facts, texts and documents folded from them the way its observations fold
them. Nothing another seat was told can reach that view, so a panel drawn from it shows a
seat's documents to that seat only. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sdk.observation import Document, PrivateInfo

from .events import Call, Event, Private


class SeatDocument(BaseModel):
    """One document a seat may read: a title and its whole text, in the match's language."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str
    text: str
    kind: str = Field(default="note", description="e.g. script, role, note")


@dataclass(frozen=True)
class SeatView:
    """One seat's own view of a match so far: the events it was shown (no call records) and
    its private information folded from them, in the match's language."""

    seat: str
    language: str
    events: tuple[Event, ...]
    private: PrivateInfo


# a game's hook: a seat's view -> the documents it may read (Presentation.documents)
DocumentsHook = Callable[[SeatView], list[SeatDocument]]


def fold_private(e: Private, seat: str, facts: dict[str, Any], texts: list[str], documents: list[Document],
                 shared_with: list[str]) -> None:
    """Fold one private event `seat` was shown into its private information: facts merged,
    text added, a document kept whole (with the group's other seats as `shared_with`)."""
    others = [s for s in e.visible_to or () if s != seat]
    facts.update(e.facts)
    if e.text:
        texts.append(e.text)
    shared_with += [s for s in others if s not in shared_with]
    if e.document is not None:
        doc = e.document
        documents.append(Document(title=doc.title, kind=doc.kind, text=doc.text, shared_with=others,
                                  images=list(doc.images), data=dict(doc.data)))


def seat_view(events: Iterable[Event], seat: str, language: str = "en") -> SeatView:
    """`seat`'s view of these events: only those it was shown, whatever the list holds."""
    shown = tuple(e for e in events if not isinstance(e, Call) and e.visible_for(seat))
    facts: dict[str, Any] = {}
    texts: list[str] = []
    documents: list[Document] = []
    shared: list[str] = []
    for e in shown:
        if isinstance(e, Private) and e.visible_to:
            fold_private(e, seat, facts, texts, documents, shared)
    private = PrivateInfo(facts=facts, text=" ".join(texts), documents=documents, shared_with=shared)
    return SeatView(seat=seat, language=language, events=shown, private=private)


TOLD = {"en": "What you were told", "zh": "你被告知的"}  # the plain reading's title, by language


def told_documents(view: SeatView) -> list[SeatDocument]:
    """The plain reading of a seat's private information, for a game with no hook of its own:
    what it was told (its private text), then every private document whole."""
    title = TOLD.get(view.language, TOLD["en"])
    out = [SeatDocument(title=title, text=view.private.text, kind="role")] if view.private.text else []
    out += [SeatDocument(title=doc.title or doc.kind, text=doc.text, kind=doc.kind) for doc in view.private.documents]
    return out


__all__ = ["DocumentsHook", "SeatDocument", "SeatView", "fold_private", "seat_view", "told_documents"]
