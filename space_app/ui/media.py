"""Images in transcripts: an event's image references (e.g. a murder script's image clues)
become small inline thumbnails, resolved to files by the match's game (`Presentation.image_file`,
through `space_app.images`). Inline data, not file routes: no folder has to be opened to the
web server, and a reference the game does not know shows as text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .. import images
from ..core import GameSpec

THUMB_WIDTH = 560  # px: readable text on a clue, small enough to resend with every step


def thumbnail(path: Path) -> str | None:
    """A data URL of a scaled-down copy of the image file, or None if it cannot be read."""
    return images.data_url(path, THUMB_WIDTH)


def image_resolver(spec: GameSpec) -> Callable[[str], str | None] | None:
    """ref -> thumbnail data URL for the game's image references, or None (no images)."""
    return images.resolver(spec, THUMB_WIDTH)


__all__ = ["THUMB_WIDTH", "image_resolver", "thumbnail"]
