"""Image clues drawn by code: each script folder's `images.json` lists its drawings, and this
module writes them as PNGs, or checks that the shipped PNGs are exactly what the code draws.

    python -m space_app.games.mystery.pictures.images [--check] [PATH]

PATH is a script folder or a folder of them (default: the shipped scripts). The same Pillow
version draws the same bytes (see fonts.py), so `--check` in a test catches a PNG edited by
hand or a drawing changed without regenerating."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import ValidationError

from ..scripts.validate import CONTENT_DIR, script_folders
from .canvas import DrawingError, png_bytes
from .draw_paper import draw_letter, draw_note, draw_receipt, draw_ticket, draw_timetable
from .draw_scene import draw_floor_plan, draw_map, draw_objects
from .drawings import DRAWINGS_FILE, AnyDrawing, load_drawings

DRAWERS: dict[str, Callable[[Any], Image.Image]] = {
    "note": draw_note, "letter": draw_letter, "receipt": draw_receipt, "timetable": draw_timetable,
    "ticket": draw_ticket,
    "floor_plan": draw_floor_plan, "map": draw_map, "objects": draw_objects,
}


@dataclass(frozen=True)
class Outcome:
    file: Path
    status: str  # "written", "unchanged", "current", "differs", "missing", "error"
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("written", "unchanged", "current")


def render(drawing: AnyDrawing) -> bytes:
    """The PNG bytes of one drawing (same drawing, same Pillow: same bytes)."""
    return png_bytes(DRAWERS[drawing.drawer](drawing))


def regenerate(folder: str | Path, check: bool = False) -> list[Outcome]:
    """Write (or, with check, compare) every drawing of one script folder."""
    folder = Path(folder)
    try:
        drawings = load_drawings(folder)
    except (ValueError, ValidationError, OSError) as exc:
        return [Outcome(folder / DRAWINGS_FILE, "error", str(exc).splitlines()[0])]
    if drawings is None:
        return []
    outcomes = []
    for drawing in drawings.drawings:
        path = folder / drawing.file
        try:
            data = render(drawing)
        except DrawingError as exc:
            outcomes.append(Outcome(path, "error", str(exc)))
            continue
        old = path.read_bytes() if path.is_file() else None
        if check:
            status = "missing" if old is None else ("current" if old == data else "differs")
        elif old == data:
            status = "unchanged"
        else:
            path.write_bytes(data)
            status = "written"
        outcomes.append(Outcome(path, status))
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m space_app.games.mystery.pictures.images",
                                     description="Draw every script's image clues from its images.json.")
    parser.add_argument("path", nargs="?", default=str(CONTENT_DIR), help="a script folder or a folder of them")
    parser.add_argument("--check", action="store_true", help="write nothing; fail when a PNG differs or is missing")
    args = parser.parse_args(argv)
    bad = 0
    for folder in script_folders(args.path):
        for outcome in regenerate(folder, check=args.check):
            bad += not outcome.ok
            detail = f": {outcome.detail}" if outcome.detail else ""
            print(f"{outcome.status:9} {outcome.file}{detail}")
    if args.check and bad:
        print(f"{bad} image(s) differ from their drawings: run python -m space_app.games.mystery.pictures.images")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
