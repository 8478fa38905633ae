"""A MuMA-ToM frame drawn by code as a top-down schematic PNG.

The rooms the episode uses are drawn side by side; in each, its furniture as labelled boxes
listing what is on or in them; an open container has a thick red outline and "(open)"; the
person is a filled circle in their room, beside the first thing they are close to, with what
they hold written under them. A frame is drawn as given: an object listed in two places appears
in both (the importer reports it). The same frame always gives the same bytes.
"""

from __future__ import annotations

import base64
import io

from PIL import Image, ImageDraw, ImageFont

from .muma_track import ROOMS, person_room, room_of
from .muma_visual import EpisodeVisual, Frame

WIDTH, HEIGHT = 800, 480
_ROOM_FILL = {"kitchen": (250, 240, 220), "livingroom": (225, 240, 225), "bedroom": (225, 230, 250),
              "bathroom": (235, 245, 250), "elsewhere": (240, 240, 240)}


def _furniture(visual: EpisodeVisual) -> dict[str, list[str]]:
    """room -> the furniture the episode mentions there (containers, surfaces, what is close or open)."""
    things: list[str] = []
    for f in visual.frames:
        things += [s for _, s in f.on] + [c for _, c in f.inside] + f.opened
        things += [c for c in f.close if room_of(c, f) is not None]
    out: dict[str, list[str]] = {}
    frame = visual.frames[0]
    for thing in dict.fromkeys(things):
        out.setdefault(room_of(thing, frame) or "elsewhere", []).append(thing)
    return {r: out[r] for r in (*ROOMS, "elsewhere") if r in out}


def draw(visual: EpisodeVisual, frame: Frame) -> bytes:
    font = ImageFont.load_default()
    img = Image.new("RGB", (WIDTH, HEIGHT), "white")
    d = ImageDraw.Draw(img)
    label = f"episode {visual.episode} - frame {frame.index}"
    if frame.video_frame is not None:
        label += f" (video frame {frame.video_frame})"
    d.text((10, 8), label, fill="black", font=font)
    rooms = _furniture(visual) or {"elsewhere": []}
    here = person_room(frame)
    col = (WIDTH - 20) // len(rooms)
    for i, (room, furniture) in enumerate(rooms.items()):
        x0, y0 = 10 + i * col, 30
        d.rectangle((x0, y0, x0 + col - 6, HEIGHT - 32), fill=_ROOM_FILL[room], outline="black", width=2)
        d.text((x0 + 6, y0 + 4), room, fill="black", font=font)
        y = y0 + 24
        for thing in furniture:
            contents = [f"on: {o}" for o, s in frame.on if s == thing]
            contents += [f"in: {o}" for o, c in frame.inside if c == thing]
            h = 22 + 12 * len(contents)
            is_open = thing in frame.opened
            d.rectangle((x0 + 6, y, x0 + col - 14, y + h), fill="white",
                        outline=(200, 0, 0) if is_open else (90, 90, 90), width=3 if is_open else 1)
            d.text((x0 + 10, y + 4), thing + (" (open)" if is_open else ""), fill="black", font=font)
            for j, line in enumerate(contents):
                d.text((x0 + 18, y + 18 + 12 * j), line, fill=(0, 70, 160), font=font)
            if room == here and frame.close and thing == next((c for c in frame.close if c in furniture), None):
                cx, cy = x0 + col - 30, y + h // 2
                d.ellipse((cx - 8, cy - 8, cx + 8, cy + 8), fill=(220, 120, 0), outline="black")
                if frame.holds:  # what is held, beside the person
                    d.text((cx - 14, cy + 10), "holds " + ", ".join(frame.holds), fill=(160, 70, 0), font=font,
                           anchor="ra")
                    y += 12  # room for the label before the next box
            y += h + 8
        if room == here and not any(c in furniture for c in frame.close):
            d.ellipse((x0 + col - 38, y0 + 4, x0 + col - 22, y0 + 20), fill=(220, 120, 0), outline="black")
    held = ", ".join(frame.holds) or "nothing"
    where = here or "an unknown room"
    d.text((10, HEIGHT - 22), f"person (orange): in the {where}; holds {held}", fill="black", font=font)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()


def data_url(png: bytes) -> str:
    """A PNG as a data URL: stored in the suite item's `images`, sent as is to vision agents."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


__all__ = ["HEIGHT", "WIDTH", "data_url", "draw"]
