"""What each image clue looks like, as data: a script folder's `images.json` lists one
drawing per PNG, and images.py turns each into the same bytes every time.

Drawers that are mostly text ("text-rich"): note, letter, receipt, timetable, ticket.
Drawers that are mostly picture ("media-rich"): floor_plan, map, objects.
Coordinates of plans and maps are grid units scaled to the picture; objects are in pixels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

DRAWINGS_FILE = "images.json"

# named colours, so a spec reads "green ink" rather than a hex code; any "#rrggbb" also works
PALETTE: dict[str, tuple[int, int, int]] = {
    "black": (25, 25, 30), "blue": (28, 45, 120), "blue-black": (30, 34, 70), "green": (22, 110, 60),
    "red": (170, 30, 30), "pencil": (95, 95, 100), "brown": (110, 70, 35), "grey": (150, 150, 150),
    "white": (250, 250, 248), "paper": (246, 241, 226), "cream": (240, 232, 205), "yellow": (225, 190, 60),
    "orange": (220, 130, 40), "sea": (120, 165, 200), "sand": (222, 205, 160), "grass": (150, 185, 120),
    "wood": (150, 105, 65), "dark-wood": (95, 62, 38), "stone": (170, 168, 160), "brass": (190, 150, 60),
    "silver": (195, 198, 205), "glass": (200, 225, 235), "navy": (35, 50, 90), "purple": (100, 60, 130),
    "pink": (225, 150, 160), "teal": (40, 130, 130), "marsh": (120, 140, 95), "forest": (70, 110, 70),
}
Color = Annotated[str, StringConstraints(pattern=r"^(#[0-9a-fA-F]{6}|[a-z-]+)$")]
PngName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}\.png$")]
Label = Annotated[str, StringConstraints(max_length=200)]


def rgb(color: str) -> tuple[int, int, int]:
    if color.startswith("#"):
        return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)
    return PALETTE[color]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Drawing(_Spec):
    file: PngName
    width: int = Field(800, ge=200, le=1600)
    height: int = Field(600, ge=150, le=1200)
    seed: int = Field(0, description="fixes the jitter, grain and tilt: same seed, same bytes")

    @model_validator(mode="after")
    def _drawable(self) -> Drawing:
        # the built-in font (Pillow's Aileron subset) draws printable ASCII only; anything else
        # would come out as boxes, so refuse it here rather than ship an unreadable clue
        for text in _strings(self.model_dump()):
            bad = sorted({c for c in text if not (" " <= c <= "~")})
            if bad:
                raise ValueError(f"text {text[:40]!r} has characters the built-in font cannot draw: {''.join(bad)!r}")
        for name in ("ink", "fill", "outline", "color", "land", "water", "background", "card", "stamp_ink"):
            for value in _find(self.model_dump(), name):
                if isinstance(value, str) and not value.startswith("#") and value not in PALETTE:
                    raise ValueError(f"unknown colour {value!r}; use #rrggbb or one of: {', '.join(PALETTE)}")
        return self


def _find(value: Any, key: str) -> list[Any]:
    if isinstance(value, dict):
        return [v for k, v in value.items() if k == key] + [x for v in value.values() for x in _find(v, key)]
    if isinstance(value, list):
        return [x for v in value for x in _find(v, key)]
    return []


# ---- text-rich -------------------------------------------------------------------------------

class InkLine(_Spec):
    text: Label = ""
    ink: Color = "blue-black"
    strike: bool = False  # crossed out, still legible
    indent: int = Field(0, ge=0, le=400)


class Note(Drawing):
    """A handwritten-style page: slanted, jittered lines on lined, plain or squared paper."""

    drawer: Literal["note"]
    paper: Literal["lined", "plain", "grid"] = "lined"
    heading: Label | None = Field(None, description="printed heading at the top (a form or a logbook)")
    lines: list[InkLine | Label]
    size: int = Field(22, ge=10, le=60)
    slant: float = Field(0.18, ge=-0.5, le=0.5, description="shear of the handwriting")
    torn: bool = False  # a ragged lower edge


class Letter(Drawing):
    """A typed letter: letterhead, date, paragraphs, a handwritten signature; optionally burnt."""

    drawer: Literal["letter"]
    letterhead: Label | None = None
    date: Label | None = None
    salutation: Label | None = None
    paragraphs: list[Annotated[str, StringConstraints(max_length=2000)]]
    closing: Label | None = None
    signature: Label | None = None
    size: int = Field(18, ge=10, le=40)
    burnt_from: float | None = Field(None, ge=0.2, le=0.95,
                                     description="fraction of the height below which the page is burnt away")


class ReceiptItem(_Spec):
    label: Label
    amount: Label = ""


class Receipt(Drawing):
    """A till roll or a printed log: fixed-width text on a narrow strip."""

    drawer: Literal["receipt"]
    header: list[Label] = Field(default_factory=list)
    items: list[ReceiptItem] = Field(default_factory=list)
    total: ReceiptItem | None = None
    footer: list[Label] = Field(default_factory=list)
    size: int = Field(18, ge=10, le=40)
    strip_width: int = Field(380, ge=150, le=1200)


class Timetable(Drawing):
    """A printed table: title, column heads, rows (some shaded) and footnotes."""

    drawer: Literal["timetable"]
    title: Label
    subtitle: Label | None = None
    columns: list[Label] = Field(min_length=1)
    rows: list[list[Label]]
    highlight: list[int] = Field(default_factory=list, description="row indices to shade")
    notes: list[Label] = Field(default_factory=list)
    size: int = Field(17, ge=10, le=40)

    @model_validator(mode="after")
    def _rectangular(self) -> Timetable:
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"rows[{i}] has {len(row)} cells for {len(self.columns)} columns")
        return self


class TicketField(_Spec):
    label: Label  # printed on the card
    value: Label = ""  # written in by hand on the dotted line


class Ticket(Drawing):
    """A printed card filled in by hand: a pawn ticket, a left-luggage or cloakroom ticket, a
    chemist's label. Printed header, a serial number, labelled fields with handwritten values, an
    optional perforated stub and an optional rubber stamp across it."""

    drawer: Literal["ticket"]
    header: list[Label] = Field(min_length=1, description="printed lines; the first one larger")
    number: Label | None = Field(None, description="serial number, printed in red at the top right")
    fields: list[TicketField] = Field(default_factory=list)
    footer: list[Label] = Field(default_factory=list, description="small print at the bottom")
    stub: list[Label] = Field(default_factory=list, description="lines printed on a perforated stub at the right")
    stamp: Label | None = Field(None, description="a rubber stamp struck across the card")
    stamp_ink: Color = "red"
    card: Color = "cream"
    ink: Color = "blue-black"
    size: int = Field(18, ge=10, le=40)


# ---- media-rich ------------------------------------------------------------------------------

class Room(_Spec):
    name: Label
    x: float
    y: float
    w: float = Field(gt=0)
    h: float = Field(gt=0)
    shape: Literal["rect", "circle"] = "rect"
    fill: Color = "#f4f1e8"


class Door(_Spec):
    """A gap in a wall at (x, y), `length` long, along a horizontal or vertical wall."""

    x: float
    y: float
    along: Literal["h", "v"]
    length: float = Field(1.0, gt=0)
    locked: bool = False  # drawn with a bar and a small padlock


class Stair(_Spec):
    x: float
    y: float
    w: float = Field(gt=0)
    h: float = Field(gt=0)
    label: Label = ""
    spiral: bool = False


class Mark(_Spec):
    x: float
    y: float
    label: Label = ""
    kind: Literal["x", "dot", "star", "square", "triangle"] = "x"
    color: Color = "red"


class FreeText(_Spec):
    x: float
    y: float
    text: Label
    size: int = Field(14, ge=8, le=48)
    color: Color = "black"


class FloorPlan(Drawing):
    """An architect's plan: rooms, doors, windows, stairs, marks (X = where something was)."""

    drawer: Literal["floor_plan"]
    title: Label
    grid: tuple[float, float] = Field(description="width and height of the plan in grid units")
    rooms: list[Room] = Field(min_length=1)
    doors: list[Door] = Field(default_factory=list)
    windows: list[Door] = Field(default_factory=list)
    stairs: list[Stair] = Field(default_factory=list)
    marks: list[Mark] = Field(default_factory=list)
    texts: list[FreeText] = Field(default_factory=list)
    legend: list[Label] = Field(default_factory=list)
    north: bool = True


class Shape(_Spec):
    points: list[tuple[float, float]] = Field(min_length=3)
    fill: Color
    label: Label = ""


class Route(_Spec):
    points: list[tuple[float, float]] = Field(min_length=2)
    style: Literal["road", "path", "causeway", "dashed", "railway"] = "path"
    label: Label = ""


class Place(_Spec):
    x: float
    y: float
    label: Label
    kind: Literal["dot", "square", "x", "triangle", "star"] = "dot"
    color: Color = "black"


class Map(Drawing):
    """A hand-drawn survey map: water, land and areas as polygons, routes, places, a scale bar."""

    drawer: Literal["map"]
    title: Label
    grid: tuple[float, float]
    water: Color = "sea"
    land: list[Shape] = Field(default_factory=list)
    areas: list[Shape] = Field(default_factory=list)
    routes: list[Route] = Field(default_factory=list)
    places: list[Place] = Field(default_factory=list)
    texts: list[FreeText] = Field(default_factory=list)
    scale: tuple[float, Label] | None = Field(None, description="length in grid units and its label")
    legend: list[Label] = Field(default_factory=list)
    north: bool = True


class Thing(_Spec):
    shape: Literal["rect", "rounded", "ellipse", "polygon", "line"]
    x: float = Field(description="centre, pixels")
    y: float
    w: float = Field(40, ge=1)
    h: float = Field(40, ge=1)
    points: list[tuple[float, float]] = Field(default_factory=list, description="polygon points around the centre")
    angle: float = 0.0
    fill: Color = "grey"
    outline: Color = "black"
    text: Label = ""  # printed on the object itself
    label: Label = ""  # an evidence tag beside it
    label_dx: float = 0
    label_dy: float = 60


class Objects(Drawing):
    """A photo-like evidence shot: objects (simple shapes) on a surface, with numbered tags."""

    drawer: Literal["objects"]
    surface: Literal["wood", "cloth", "stone", "carpet", "paper"] = "wood"
    title: Label | None = None
    things: list[Thing] = Field(min_length=1)
    tilt: float = Field(0.0, ge=-8, le=8, description="degrees the photo is turned")


AnyDrawing = Annotated[Note | Letter | Receipt | Timetable | Ticket | FloorPlan | Map | Objects,
                      Field(discriminator="drawer")]


class Drawings(_Spec):
    drawings: list[AnyDrawing]



def load_drawings(folder: Path) -> Drawings | None:
    """The folder's images.json, or None when the folder's images are not generated.
    Raises ValueError (json) or pydantic.ValidationError on a malformed file."""
    path = folder / DRAWINGS_FILE
    if not path.is_file():
        return None
    return Drawings.model_validate(json.loads(path.read_text(encoding="utf-8")))
