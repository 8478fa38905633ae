"""The release's `img/` folder: every file that is an image becomes an image clue. What a file is
comes from its first bytes, not its name (releases hold PNGs named .jpg); PNG, JPEG and WebP are
copied byte for byte under the right extension, another format Pillow reads (GIF, BMP...) is
converted to PNG, anything else is left out."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from ....images import canvas_problem

__all__ = ["ImageFile", "read_image", "sniff"]

MAX_IMAGE_BYTES = 20 * 1024 * 1024
_KEPT = {"png": ".png", "jpeg": ".jpg", "webp": ".webp"}  # what the validator accepts, as is
_SAME = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp"}


def sniff(data: bytes) -> str | None:
    """The image format from its magic bytes ("png", "jpeg", "webp", "gif", "bmp"), or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    return None


@dataclass(frozen=True)
class ImageFile:
    data: bytes  # what to write
    suffix: str  # with its dot: ".png", ".jpg", ".webp"
    repair: str | None = None  # how it differs from the release file, when it does


def read_image(path: Path) -> ImageFile:
    """The file as an image clue to write; ValueError says why it cannot be one."""
    if path.stat().st_size > MAX_IMAGE_BYTES:
        raise ValueError(f"larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MB")
    data = path.read_bytes()
    kind = sniff(data)
    refused = canvas_problem(io.BytesIO(data))  # a huge canvas is refused from its header, undecoded
    if refused:
        raise ValueError(refused)
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.verify()
        with Image.open(io.BytesIO(data)) as image:
            image.load()  # verify() misses a truncated body
            if kind in _KEPT:
                return _as_is(path, data, kind)
            what, frames = (kind or image.format or "image").upper(), getattr(image, "n_frames", 1)
            converted = io.BytesIO()
            keep_alpha = "A" in image.getbands() or "transparency" in image.info
            image.convert("RGBA" if keep_alpha else "RGB").save(converted, format="PNG")
    except Exception as exc:  # noqa: BLE001 - any decoder failure means the same: not a usable image
        raise ValueError(f"not a readable image ({type(exc).__name__})") from None
    extra = f" (its first of {frames} frames)" if frames > 1 else ""
    return ImageFile(converted.getvalue(), ".png", f"a {what} image; converted to PNG{extra}")


def _as_is(path: Path, data: bytes, kind: str) -> ImageFile:
    suffix = _KEPT[kind]
    if _SAME.get(path.suffix.lower()) == kind:
        return ImageFile(data, suffix)
    named = f"named {path.suffix}" if path.suffix else "named without an extension"
    return ImageFile(data, suffix, f"its content is {kind.upper()} but it is {named}; written as {suffix}")
