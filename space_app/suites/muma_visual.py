"""Read one MuMA-ToM episode's published visual data (`visual_data/<episode id>/`).

The release (SCAI-JHU/MuMA-ToM, `Files/visual_data/<id>/`) holds one JSON file per predicate,
each `{"<episode id>": {"<frame index>": [...]}}`, the frame indices written as strings:

- `on.json`:        ["A book is on the kitchentable", ...]
- `inside.json`:    ["A book is inside the cabinet", ...]
- `hold.json`:      ["The character is holding a milk ", ...]   (note the trailing space)
- `opened.json`:    ["fridge", ...]                              (what is open)
- `closeness.json`: ["kitchentable", "stove", ...]               (what the person is close to)
- `boxes.json` (optional): {"<frame>": {"<object id>": {"class_name": "desk", "x_min": ...,
  "x_max", "y_min", "y_max", "z_min", "z_max"}}}, object ids float-formatted ("86.0")
- `frames.json` (optional, assumed: not in every release folder): {"<episode id>": {"<frame
  index>": <video frame number>}}, the video frames the indices were sampled at.

Reading is tolerant of the release's quirks, each one reported in `EpisodeVisual.notes`, never
fatal: frame indices as strings (or "3.0"), float-formatted object ids, trailing spaces and
case in names, a missing file (no predicates of that kind), a frame missing from one file (none
of that kind there) or missing from all (a gap). A file that is not this shape at all raises
`VisualDataError` naming the file and key; the importer then keeps the episode text-only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PREDICATE_FILES = ("on", "inside", "hold", "opened", "closeness")
OPTIONAL_FILES = ("boxes", "frames")
_COORDS = ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max")

_ON = re.compile(r"(?:an?|the)\s+(.+?)\s+is\s+on\s+(?:the\s+)?(.+)", re.I)
_INSIDE = re.compile(r"(?:an?|the)\s+(.+?)\s+is\s+inside\s+(?:of\s+)?(?:the\s+)?(.+)", re.I)
_HOLD = re.compile(r"(?:the\s+)?(?:character|person)\s+is\s+holding\s+(?:an?\s+|the\s+)?(.+)", re.I)


class VisualDataError(ValueError):
    """A visual-data file not in the documented shape; the message names the file and key."""


@dataclass(frozen=True)
class Box:
    class_name: str
    x_min: float
    x_max: float
    z_min: float
    z_max: float

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x_min + self.x_max) / 2, (self.z_min + self.z_max) / 2


@dataclass
class Frame:
    index: int
    on: list[tuple[str, str]] = field(default_factory=list)  # (object, surface)
    inside: list[tuple[str, str]] = field(default_factory=list)  # (object, container)
    holds: list[str] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    close: list[str] = field(default_factory=list)
    boxes: dict[str, Box] = field(default_factory=dict)  # object id ("86") -> box
    video_frame: int | None = None

    def places(self, obj: str) -> list[tuple[str, str]]:
        """Where `obj` is in this frame: ("on"|"in", what)."""
        return [("on", s) for o, s in self.on if o == obj] + [("in", c) for o, c in self.inside if o == obj]


@dataclass
class EpisodeVisual:
    episode: str
    frames: list[Frame]
    notes: list[str] = field(default_factory=list)

    @property
    def has_frame_numbers(self) -> bool:
        return any(f.video_frame is not None for f in self.frames)


def name(raw: str) -> str:
    """An object or furniture name as the track and the drawing use it: trimmed, lower case, one space."""
    return " ".join(raw.split()).casefold()


def _frame_index(key: str, where: str) -> int:
    text = key.strip()
    try:
        value = float(text)
    except ValueError:
        raise VisualDataError(f"{where}: key {key!r} is not a frame index (a number)") from None
    if not value.is_integer() or value < 0:
        raise VisualDataError(f"{where}: key {key!r} is not a frame index (a whole number, 0 or more)")
    return int(value)


def _load(path: Path, episode: str) -> dict[str, Any]:
    """The per-frame mapping of one file, `{"<frame>": ...}`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError:
        raise VisualDataError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise VisualDataError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise VisualDataError(f"{path}: expected an object keyed by the episode id, found a JSON {type(data).__name__}")
    keys = [k for k in data if k.strip() == episode.strip()]
    if not keys:
        raise VisualDataError(f"{path}: no key {episode!r} (keys: {', '.join(map(repr, list(data)[:5]))})")
    frames = data[keys[0]]
    if not isinstance(frames, dict):
        raise VisualDataError(f"{path}: key {keys[0]!r}: expected an object keyed by frame index, "
                              f"found a JSON {type(frames).__name__}")
    return frames


def _sentences(path: Path, key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise VisualDataError(f"{path}: key {key!r}: expected a list of strings, found {json.dumps(value)[:60]}")
    return [s for s in value if s.strip()]


def _parse(kind: str, path: Path, key: str, sentence: str) -> Any:
    text = " ".join(sentence.split()).rstrip(".")
    pattern = {"on": _ON, "inside": _INSIDE, "hold": _HOLD}.get(kind)
    if pattern is None:  # opened, closeness: bare names
        return name(text)
    m = pattern.fullmatch(text)
    if m is None:
        raise VisualDataError(f"{path}: key {key!r}: {sentence!r} is not an {kind}.json predicate "
                              f"(expected e.g. {_EXAMPLES[kind]!r})")
    return tuple(name(g) for g in m.groups()) if kind != "hold" else name(m.group(1))


_EXAMPLES = {"on": "A book is on the kitchentable", "inside": "A book is inside the cabinet",
             "hold": "The character is holding a milk"}


def _box(path: Path, key: str, raw: Any) -> Box:
    if not isinstance(raw, dict) or not isinstance(raw.get("class_name"), str):
        raise VisualDataError(f"{path}: key {key!r}: expected an object with class_name and {', '.join(_COORDS)}")
    try:
        coords = {c: float(raw[c]) for c in _COORDS}
    except (KeyError, TypeError, ValueError):
        missing = [c for c in _COORDS if not isinstance(raw.get(c), int | float)]
        raise VisualDataError(f"{path}: key {key!r}: {', '.join(missing)} missing or not a number") from None
    return Box(name(raw["class_name"]), coords["x_min"], coords["x_max"], coords["z_min"], coords["z_max"])


def _object_id(raw: str) -> str:
    text = raw.strip()
    return text[:-2] if text.endswith(".0") and text[:-2].isdigit() else text


def read_episode(folder: Path, episode: str) -> EpisodeVisual | None:
    """The episode's frames, or None when its folder is missing or holds no frame at all."""
    if not folder.is_dir():
        return None
    notes: list[str] = []
    frames: dict[int, Frame] = {}
    seen_in: dict[str, set[int]] = {}
    for kind in (*PREDICATE_FILES, *OPTIONAL_FILES):
        path = folder / f"{kind}.json"
        if not path.is_file():
            if kind in PREDICATE_FILES:
                notes.append(f"{path.name} missing: no {kind} predicates in this episode")
            continue
        per_frame = _load(path, episode)
        seen_in[kind] = set()
        for key, value in per_frame.items():
            where = f"{path}: key {episode!r}"
            index = _frame_index(key, where)
            seen_in[kind].add(index)
            frame = frames.setdefault(index, Frame(index))
            label = f"{episode}/{key}"
            if kind == "boxes":
                if not isinstance(value, dict):
                    raise VisualDataError(f"{path}: key {label!r}: expected an object keyed by object id")
                frame.boxes = {_object_id(k): _box(path, f"{label}/{k}", v) for k, v in value.items()}
            elif kind == "frames":
                if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                    raise VisualDataError(f"{path}: key {label!r}: expected a video frame number")
                frame.video_frame = int(value)
            else:
                parsed = [_parse(kind, path, label, s) for s in _sentences(path, label, value)]
                attr = {"hold": "holds", "closeness": "close"}.get(kind, kind)
                setattr(frame, attr, parsed)
    if not frames:
        return None
    order = sorted(frames)
    gaps = sorted(set(range(order[0], order[-1] + 1)) - set(order))
    if gaps:
        which = f"frame{'s' if len(gaps) > 1 else ''} {', '.join(map(str, gaps))}"
        notes.append(f"{which} missing from every file: the track steps over them")
    for kind in PREDICATE_FILES:
        if kind in seen_in and (absent := [i for i in order if i not in seen_in[kind]]):
            notes.append(f"{kind}.json has no frame {', '.join(map(str, absent))}: none of that kind there")
    return EpisodeVisual(episode, [frames[i] for i in order], notes)


def contradictions(frame: Frame) -> list[str]:
    """Objects in two places at once in one frame (or held and placed): drawn as given, reported.
    The release can list two objects of one kind (two cellphones), which reads the same."""
    out = []
    for obj in dict.fromkeys([o for o, _ in frame.on] + [o for o, _ in frame.inside]):
        places = sorted(set(frame.places(obj)))
        if len(places) > 1:
            out.append(f"frame {frame.index}: {obj} is in {len(places)} places at once "
                       f"({'; '.join(f'{p} the {w}' for p, w in places)}): drawn as given")
        if obj in frame.holds:
            out.append(f"frame {frame.index}: {obj} is held and also {places[0][0]} the {places[0][1]}: drawn as given")
    return out


__all__ = ["Box", "EpisodeVisual", "Frame", "OPTIONAL_FILES", "PREDICATE_FILES", "VisualDataError", "contradictions",
           "name", "read_episode"]
