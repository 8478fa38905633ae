"""An Avalon seat's role card, read beside the game: its role and side and what the role
knows (Merlin's evil players but Mordred, Percival's two candidates, the evil players who know
each other), one fact a line, as the game told it. Built from the seat's own view
(`core.documents.SeatView`), so it holds nothing another seat was told."""

from __future__ import annotations

import re

from ...core.documents import SeatDocument, SeatView
from .table import ROLE_NAMES


def documents(view: SeatView) -> list[SeatDocument]:
    """The seat's role card, or nothing before the roles are dealt."""
    if not view.private.text:
        return []
    role = str(view.private.facts.get("role") or "")
    title = f"Your role card: {ROLE_NAMES.get(role, role)}" if role else "Your role card"
    # the game tells it in sentences: one a line reads as a card
    lines = [part.strip() for part in re.split(r"(?<=[.!?])\s+", view.private.text) if part.strip()]
    return [SeatDocument(title=title, text="\n".join(lines), kind="role")]


__all__ = ["documents"]
