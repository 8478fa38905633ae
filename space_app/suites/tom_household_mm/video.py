"""An episode's video half: the frames of what happens in `video` facts, drawn by code as
top-down keyframes (PNG), and the same frames read as an action track (each step naming the
frames it comes from), for agents that do not read images.

A frame shows the room, its three containers (a closed one grey; an open one red with what is
seen inside it, or "empty"), the people in the video as circles beside what they stand at,
what they hold, and what they say in a speech panel. The same episode always gives the same
bytes. The first frame sets the scene: the room, its containers, who is there.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from .episode import FINDS_EMPTY, PUTS, SAYS, SEARCHES, VIDEO, Episode

WIDTH, HEIGHT = 480, 300


@dataclass(frozen=True)
class Frame:
    at: dict[str, str | None]  # person -> the container they stand at (None: the middle of the room)
    holds: dict[str, str] = field(default_factory=dict)  # person -> object
    opened: dict[str, str] = field(default_factory=dict)  # container -> what is seen inside ("" unseen)
    speech: tuple[tuple[str, str], ...] = ()  # (person, line)


@dataclass(frozen=True)
class Step:
    text: str
    frames: tuple[int, int]

    def to_dict(self) -> dict[str, object]:
        return {"step": self.text, "frames": list(self.frames)}


def a(noun: str) -> str:
    return ("an " if noun[0].lower() in "aeiou" else "a ") + noun


def scene_words(ep: Episode) -> str:
    c1, c2, c3 = ep.containers
    return f"the {ep.room}, with {a(c1)}, {a(c2)} and {a(c3)}, all closed"


def looking_for(ep: Episode) -> str:
    return f"I'm looking for the {ep.obj}."


def its_in(container: str) -> str:
    return f"It's in the {container}."


def film(ep: Episode) -> tuple[list[Frame], list[Step]]:
    """The frames of the episode's video facts and the track read from them."""
    facts = ep.facts_in(frozenset({VIDEO}))
    s, li = ep.speaker.name, ep.listener.name
    cast = [s] if all(f.kind in (FINDS_EMPTY, PUTS) for f in facts) else [s, li]
    if any(f.kind == SEARCHES for f in facts) and not any(f.kind == SAYS for f in facts):
        cast = [li]
    frames = [Frame(dict.fromkeys(cast))]
    who = " and ".join(cast)
    steps = [Step(f"The video shows {scene_words(ep)}; {who} {'is' if len(cast) == 1 else 'are'} there.", (0, 0))]
    holding: dict[str, str] = {}
    for fact in facts:
        c = fact.container
        first = len(frames)
        if fact.kind == FINDS_EMPTY:
            frames += [Frame({s: c}, opened={c: "empty"}), Frame({s: c})]
            steps.append(Step(f"{s} opens the {c}: there is nothing in it. {s} closes it.", (first, first + 1)))
        elif fact.kind == PUTS:
            holding = {s: ep.obj}
            frames += [Frame({s: c}, holds=holding, opened={c: ""}), Frame({s: c}, opened={c: ep.obj}),
                       Frame({s: c})]
            steps.append(Step(f"{s} carries the {ep.obj} to the {c}, puts it inside and closes it.",
                              (first, first + 2)))
        elif fact.kind == SAYS:
            frames += [Frame({s: None, li: None}, speech=((li, looking_for(ep)), (s, its_in(c))))]
            steps.append(Step(f'{li} says: "{looking_for(ep)}" {s} says: "{its_in(c)}"', (first, first)))
        elif fact.kind == SEARCHES:
            frames += [Frame({li: c}), Frame({li: c}, opened={c: ""})]
            steps.append(Step(f"{li} goes to the {c} and opens it.", (first, first + 1)))
    return frames, steps


@lru_cache(maxsize=1)
def _font() -> ImageFont.ImageFont:
    # Pillow's bitmap font: a tenth of the cost of the TrueType default, and the same everywhere
    return ImageFont.load_default_imagefont()


_OPEN, _SHUT = (200, 0, 0), (110, 110, 110)
_COLOURS = ((220, 120, 0), (0, 120, 200))


def _centred(d: ImageDraw.ImageDraw, at: tuple[int, int], text: str, fill: object, font: ImageFont.ImageFont) -> None:
    width = d.textlength(text, font=font)
    d.text((at[0] - width / 2, at[1]), text, fill=fill, font=font)


def draw(ep: Episode, frames: list[Frame], index: int) -> bytes:
    frame = frames[index]
    font = _font()
    # drawn straight into a palette image: a few flat colours, small files, no quantising
    img = Image.new("P", (WIDTH, HEIGHT), "white")
    d = ImageDraw.Draw(img)
    d.text((8, 6), f"{ep.room} - frame {index + 1} of {len(frames)}", fill="black", font=font)
    d.rectangle((6, 24, WIDTH - 6, 200), fill=(245, 240, 228), outline="black", width=2)
    spots: dict[str | None, tuple[int, int]] = {None: (WIDTH // 2, 170)}
    width = (WIDTH - 40) // 3
    for i, c in enumerate(ep.containers):
        x0 = 16 + i * (width + 4)
        is_open = c in frame.opened
        d.rectangle((x0, 34, x0 + width - 8, 110), fill="white", outline=_OPEN if is_open else _SHUT,
                    width=3 if is_open else 1)
        d.text((x0 + 6, 40), c, fill="black", font=font)
        d.text((x0 + 6, 56), "(open)" if is_open else "(closed)", fill=_OPEN if is_open else _SHUT, font=font)
        if is_open and frame.opened[c]:
            d.text((x0 + 6, 76), f"in: {frame.opened[c]}", fill=(0, 70, 160), font=font)
        spots[c] = (x0 + (width - 8) // 2, 135)
    cast = [ep.speaker.name, ep.listener.name]
    for n, person in enumerate(p for p in cast if p in frame.at):
        x, y = spots[frame.at[person]]
        x += 40 * n if frame.at[person] is None else 0
        d.ellipse((x - 9, y - 9, x + 9, y + 9), fill=_COLOURS[cast.index(person)], outline="black")
        _centred(d, (x, y + 12), person, "black", font)
        if person in frame.holds:
            _centred(d, (x, y + 26), f"holds {frame.holds[person]}", (160, 70, 0), font)
    for j, (person, line) in enumerate(frame.speech):
        y = 210 + 26 * j
        d.rounded_rectangle((10, y, WIDTH - 10, y + 22), radius=8, fill=(250, 250, 210), outline="black")
        d.text((18, y + 5), f"{person}: \"{line}\"", fill="black", font=font)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


__all__ = ["Frame", "HEIGHT", "Step", "WIDTH", "draw", "film", "its_in", "looking_for", "scene_words"]
