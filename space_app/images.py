"""A game's image references as inline pictures.

Games put short references in events and observations (a murder script's image clue is
`mystery/<script id>/<file>`); the game resolves one to its file (`Presentation.image_file`).
Here a file becomes a scaled JPEG data URL, cached, for two readers: the UI's thumbnails
(`ui/media.py`) and agents that declared `vision`, whose observations get the data URLs in
place of the references (`inline_images`, called by the runner). Only references already in
an observation are converted, so a seat is never shown a picture it was not shown before;
events keep the references, so the store stays small.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from sdk.observation import Observation

from .core import GameSpec, UnknownGame, get_game

MODEL_WIDTH = 1024  # px: what vision models read at full detail (larger is scaled down by them anyway)
JPEG_QUALITY = 82
INLINE = ("data:", "http://", "https://")  # already a picture an endpoint can read: left as it is
# an image clue larger than this is refused from its header, before any pixel is decoded: a
# small file can declare a huge canvas (a decompression bomb), and decoding it would take
# gigabytes; script pictures are a few megapixels at most
MAX_PIXELS = 25_000_000


def too_many_pixels(width: int, height: int) -> str:
    """Why an image of this size is refused, or "" when it is not."""
    if width * height <= MAX_PIXELS:
        return ""
    return (f"{width}×{height} pixels is more than the {MAX_PIXELS // 1_000_000}-megapixel limit (refused before "
            "decoding: a small file declaring a huge image is a decompression bomb)")


def canvas_problem(source: Path | BinaryIO) -> str:
    """Why an image file is refused from its header alone (a canvas too large to decode), or ""
    (an unreadable file too: whoever decodes it says so)."""
    from PIL import Image

    try:
        with Image.open(source) as img:  # reads the header only
            return too_many_pixels(*img.size)
    except Image.DecompressionBombError as exc:  # Pillow's own bound, far above ours
        return f"{exc} (more than the {MAX_PIXELS // 1_000_000}-megapixel limit; refused before decoding)"
    except Exception:  # noqa: BLE001 - not an image: the reader that decodes it names the problem
        return ""

Resolver = Callable[[str], str | None]  # image reference -> data URL, or None (not the game's)


@lru_cache(maxsize=128)
def _encoded(path: str, mtime: float, width: int) -> str:
    # mtime is part of the key: a redrawn image is encoded again. PIL is imported here, when a
    # picture is first drawn, so the runner (which imports this module) loads no imaging code.
    from PIL import Image

    if canvas_problem(Path(path)):
        raise ValueError(canvas_problem(Path(path)))
    with Image.open(path) as img:
        img = img.convert("RGB")
        if img.width > width:
            img = img.resize((width, round(img.height * width / img.width)), Image.LANCZOS)
        out = io.BytesIO()
        img.save(out, format="JPEG", quality=JPEG_QUALITY, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def data_url(path: Path, width: int = MODEL_WIDTH) -> str | None:
    """A JPEG data URL of the image file, at most `width` px wide, or None if it cannot be read."""
    try:
        return _encoded(str(path), path.stat().st_mtime, width)
    except (OSError, ValueError):
        return None


def resolver(spec: GameSpec, width: int = MODEL_WIDTH) -> Resolver | None:
    """ref -> data URL for the game's image references, or None when the game has no images."""
    if spec.presentation.image_file is None:
        return None
    image_file = spec.presentation.image_file

    def to_url(ref: str) -> str | None:
        path = image_file(ref)
        return data_url(path, width) if path is not None else None

    return to_url


def game_resolver(game: str, width: int = MODEL_WIDTH) -> Resolver | None:
    """The resolver of the registered game `game`, or None (no images, or a label that is no
    game, e.g. a question suite's)."""
    try:
        return resolver(get_game(game), width)
    except UnknownGame:
        return None


def outside_images(obs: Observation) -> list[tuple[str, str]]:
    """(where, value) of every image in `obs` that is neither a data: URL nor a reference of
    the arena's own (no scheme, no host): an http(s), file or protocol-relative URL in an
    observation a visitor wrote would have an agent author's model server fetch it."""
    found = [(f"images[{i}]", ref) for i, ref in enumerate(obs.images)]
    found += [(f"history[{h}].images[{i}]", ref) for h, item in enumerate(obs.history)
              for i, ref in enumerate(item.images)]
    found += [(f"private.documents[{d}].images[{i}]", ref)
              for d, doc in enumerate(obs.private.documents) for i, ref in enumerate(doc.images)]
    return [(where, ref) for where, ref in found if not _own_image(ref)]


def _own_image(ref: str) -> bool:
    value = ref.strip()
    if value.lower().startswith("data:"):
        return True
    # a reference is a relative path: no scheme (`http:`, `file:`, `javascript:`), no `//host`
    return ":" not in value.split("/", 1)[0] and not value.startswith(("//", "\\\\"))


def inline_images(obs: Observation, to_url: Resolver) -> Observation:
    """`obs` with each image reference it holds (in `images`, in history items and in private
    documents) replaced by its data URL; a reference the game does not know stays as it is.
    The history items are shared with the game (frozen): changed ones are copies."""
    refs = {*obs.images, *(i for item in obs.history for i in item.images),
            *(i for doc in obs.private.documents for i in doc.images)}
    urls = {ref: url for ref in refs if not ref.startswith(INLINE) and (url := to_url(ref)) is not None}
    if not urls:
        return obs

    def swap(images: list[str]) -> list[str]:
        return [urls.get(i, i) for i in images]

    history = [item.model_copy(update={"images": swap(item.images)}) if item.images else item
               for item in obs.history]
    documents = [doc.model_copy(update={"images": swap(doc.images)}) if doc.images else doc
                 for doc in obs.private.documents]
    private = obs.private.model_copy(update={"documents": documents})
    return obs.model_copy(update={"images": swap(obs.images), "history": history, "private": private})


__all__ = ["MODEL_WIDTH", "Resolver", "data_url", "game_resolver", "inline_images", "resolver"]
