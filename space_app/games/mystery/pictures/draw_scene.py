"""Media-rich image clues: a floor plan, a survey map, a photo-like shot of objects.
Each drawer takes its spec from drawings.py and returns an RGB image."""

from __future__ import annotations

import math
import random

from PIL import Image, ImageDraw, ImageFilter

from .canvas import bold, dashed, fits, halo_text, marker, north_arrow, shade, surface, vignette, wrap
from .drawings import FloorPlan, Map, Objects, Thing, rgb
from .fonts import font

WALL: tuple[int, int, int] = (40, 40, 45)


class _Grid:
    """Grid units -> pixels, fitted into a box with the plan's aspect kept."""

    def __init__(self, grid: tuple[float, float], box: tuple[float, float, float, float]) -> None:
        left, top, right, bottom = box
        self.scale = min((right - left) / grid[0], (bottom - top) / grid[1])
        self.left = left + ((right - left) - grid[0] * self.scale) / 2
        self.top = top + ((bottom - top) - grid[1] * self.scale) / 2

    def __call__(self, x: float, y: float) -> tuple[float, float]:
        return self.left + x * self.scale, self.top + y * self.scale


def _legend(draw: ImageDraw.ImageDraw, lines: list[str], x: float, bottom: float, size: int = 13) -> None:
    y = bottom - len(lines) * size * 1.35
    for line in lines:
        draw.text((x, y), line, font=font(size), fill=(40, 40, 40))
        y += size * 1.35


def draw_floor_plan(spec: FloorPlan) -> Image.Image:
    rng = random.Random(spec.seed)
    w, h = spec.width, spec.height
    image = surface((w, h), (236, 238, 240), rng, strength=3)
    draw = ImageDraw.Draw(image)
    bold(draw, (24, 16), spec.title, 20, WALL)
    legend_h = len(spec.legend) * 13 * 1.35 + (10 if spec.legend else 0)
    g = _Grid(spec.grid, (24, 52, w - (70 if spec.north else 24), h - 16 - legend_h))
    wall = max(3, int(g.scale * 0.22))
    for room in spec.rooms:
        box = [*g(room.x, room.y), *g(room.x + room.w, room.y + room.h)]
        if room.shape == "circle":
            draw.ellipse(box, fill=rgb(room.fill), outline=WALL, width=wall)
        else:
            draw.rectangle(box, fill=rgb(room.fill), outline=WALL, width=wall)
    for stair in spec.stairs:
        x0, y0 = g(stair.x, stair.y)
        x1, y1 = g(stair.x + stair.w, stair.y + stair.h)
        if stair.spiral:
            cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, min(x1 - x0, y1 - y0) / 2
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=WALL, width=2, fill=(225, 225, 222))
            for k in range(10):
                a = k * math.pi / 5
                draw.line([(cx, cy), (cx + r * math.cos(a), cy + r * math.sin(a))], fill=WALL, width=1)
            draw.ellipse([cx - r * 0.18, cy - r * 0.18, cx + r * 0.18, cy + r * 0.18], fill=WALL)
        else:
            draw.rectangle([x0, y0, x1, y1], outline=WALL, width=2, fill=(225, 225, 222))
            vertical = (y1 - y0) >= (x1 - x0)
            steps = 8
            for k in range(1, steps):
                if vertical:
                    yy = y0 + (y1 - y0) * k / steps
                    draw.line([(x0, yy), (x1, yy)], fill=WALL, width=1)
                else:
                    xx = x0 + (x1 - x0) * k / steps
                    draw.line([(xx, y0), (xx, y1)], fill=WALL, width=1)
    for window in spec.windows:
        _opening(draw, g, window.x, window.y, window.along, window.length, wall, glass=True)
    for door in spec.doors:
        _opening(draw, g, door.x, door.y, door.along, door.length, wall, glass=False, locked=door.locked)
    for room in spec.rooms:  # names last, so walls and doors never cover them
        cx, cy = g(room.x + room.w / 2, room.y + room.h / 2)
        width = room.w * g.scale - 10
        lines = wrap(room.name.upper(), 13, width)
        for k, line in enumerate(lines):
            halo_text(draw, (cx, cy + (k - (len(lines) - 1) / 2) * 16), line, 13, WALL, anchor="mm")
    for stair in spec.stairs:
        if stair.label:
            x, y = g(stair.x + stair.w / 2, stair.y + stair.h)
            halo_text(draw, (x, y + 4), stair.label, 12, WALL, anchor="ma")
    for text in spec.texts:
        halo_text(draw, g(text.x, text.y), text.text, text.size, rgb(text.color))
    for mark in spec.marks:
        x, y = g(mark.x, mark.y)
        marker(draw, mark.kind, x, y, max(7.0, g.scale * 0.35), rgb(mark.color))
        if mark.label:
            halo_text(draw, (x + g.scale * 0.45 + 4, y), mark.label, 13, rgb(mark.color), anchor="lm")
    if spec.north:
        north_arrow(draw, w - 36, 80)
    _legend(draw, spec.legend, 24, h - 10)
    return image


def _opening(draw: ImageDraw.ImageDraw, g: _Grid, x: float, y: float, along: str, length: float, wall: int,
             glass: bool, locked: bool = False) -> None:
    """A door (gap, leaf and swing) or a window (gap with glazing lines) in a wall."""
    x0, y0 = g(x, y)
    span = length * g.scale
    half = wall / 2 + 1
    if along == "h":
        gap = [x0, y0 - half, x0 + span, y0 + half]
    else:
        gap = [x0 - half, y0, x0 + half, y0 + span]
    draw.rectangle(gap, fill=(250, 250, 250))
    if glass:
        if along == "h":
            draw.line([(x0, y0 - 2), (x0 + span, y0 - 2)], fill=(80, 120, 170), width=1)
            draw.line([(x0, y0 + 2), (x0 + span, y0 + 2)], fill=(80, 120, 170), width=1)
        else:
            draw.line([(x0 - 2, y0), (x0 - 2, y0 + span)], fill=(80, 120, 170), width=1)
            draw.line([(x0 + 2, y0), (x0 + 2, y0 + span)], fill=(80, 120, 170), width=1)
        return
    if along == "h":
        draw.line([(x0, y0), (x0, y0 + span)], fill=WALL, width=2)
        draw.arc([x0 - span, y0 - span, x0 + span, y0 + span], 0, 90, fill=(120, 120, 120), width=1)
    else:
        draw.line([(x0, y0), (x0 + span, y0)], fill=WALL, width=2)
        draw.arc([x0 - span, y0 - span, x0 + span, y0 + span], 0, 90, fill=(120, 120, 120), width=1)
    if locked:  # a bolt across the gap and a small padlock beside it
        cx, cy = (gap[0] + gap[2]) / 2, (gap[1] + gap[3]) / 2
        draw.rectangle([cx - 6, cy - 5, cx + 6, cy + 5], fill=(60, 60, 60))
        draw.arc([cx - 4, cy - 11, cx + 4, cy - 1], 180, 360, fill=(60, 60, 60), width=2)


def _wobble(points: list[tuple[float, float]], rng: random.Random, amount: float) -> list[tuple[float, float]]:
    """A hand-drawn coastline: each edge split in steps, each point nudged."""
    out = []
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True):
        steps = max(1, int(math.hypot(x1 - x0, y1 - y0) / 14))
        for k in range(steps):
            t = k / steps
            out.append((x0 + (x1 - x0) * t + rng.uniform(-amount, amount),
                        y0 + (y1 - y0) * t + rng.uniform(-amount, amount)))
    return out


def draw_map(spec: Map) -> Image.Image:
    rng = random.Random(spec.seed)
    w, h = spec.width, spec.height
    image = surface((w, h), rgb(spec.water), rng, strength=6)
    draw = ImageDraw.Draw(image)
    for _ in range(w * h // 9000):  # ripples
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        draw.arc([x, y, x + 18, y + 8], 200, 340, fill=shade(rgb(spec.water), 25), width=1)
    legend_h = len(spec.legend) * 13 * 1.35 + (10 if spec.legend else 0)
    g = _Grid(spec.grid, (20, 56, w - (60 if spec.north else 20), h - 16 - legend_h))
    for shape in spec.land:
        pts = _wobble([g(x, y) for x, y in shape.points], rng, 2.5)
        draw.polygon(pts, fill=rgb(shape.fill), outline=shade(rgb(shape.fill), -70), width=2)
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    odraw = ImageDraw.Draw(overlay)
    for shape in spec.areas:
        pts = _wobble([g(x, y) for x, y in shape.points], rng, 1.5)
        odraw.polygon(pts, fill=(*rgb(shape.fill), 170), outline=(*shade(rgb(shape.fill), -60), 255), width=1)
    image.paste(overlay, (0, 0), overlay)
    draw = ImageDraw.Draw(image)
    for route in spec.routes:
        pts = [g(x, y) for x, y in route.points]
        if route.style == "road":
            draw.line(pts, fill=(120, 90, 60), width=7, joint="curve")
            draw.line(pts, fill=(235, 220, 180), width=3, joint="curve")
        elif route.style == "causeway":
            draw.line(pts, fill=(105, 100, 92), width=11, joint="curve")
            draw.line(pts, fill=(185, 180, 168), width=7, joint="curve")
        elif route.style == "path":
            dashed(draw, pts, (90, 60, 35), 2, dash=6, gap=5)
        elif route.style == "railway":
            _railway(draw, pts)
        else:
            dashed(draw, pts, (160, 30, 30), 3, dash=12, gap=7)
    for shape in [*spec.land, *spec.areas]:
        if shape.label:
            cx = sum(x for x, _ in shape.points) / len(shape.points)
            cy = sum(y for _, y in shape.points) / len(shape.points)
            halo_text(draw, g(cx, cy), shape.label, 13, (50, 50, 45), anchor="mm")
    for route in spec.routes:
        if route.label:
            (ax, ay), (bx, by) = route.points[len(route.points) // 2 - 1], route.points[len(route.points) // 2]
            halo_text(draw, g((ax + bx) / 2, (ay + by) / 2), route.label, 12, (60, 40, 25), anchor="mm")
    for place in spec.places:
        x, y = g(place.x, place.y)
        marker(draw, place.kind, x, y, 7, rgb(place.color))
        halo_text(draw, (x + 11, y), place.label, 13, (20, 20, 20), anchor="lm")
    for text in spec.texts:
        halo_text(draw, g(text.x, text.y), text.text, text.size, rgb(text.color))
    # title cartouche
    bold(draw, (w / 2, 14), spec.title, 19, (30, 30, 30), anchor="ma")
    if spec.scale is not None:
        length, label = spec.scale
        x0, y0 = 24, h - 24 - legend_h
        x1 = x0 + length * g.scale
        draw.rectangle([x0, y0, x1, y0 + 6], outline=(20, 20, 20), fill=(250, 250, 245))
        draw.rectangle([x0, y0, (x0 + x1) / 2, y0 + 6], fill=(20, 20, 20))
        halo_text(draw, (x1 + 8, y0 + 3), label, 12, (20, 20, 20), anchor="lm")
    if spec.north:
        north_arrow(draw, w - 32, 84)
    _legend(draw, spec.legend, 24, h - 8)
    return image


def _railway(draw: ImageDraw.ImageDraw, points: list[tuple[float, float]]) -> None:
    """A railway line as maps draw it: sleepers across, then the rail along them."""
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        length = math.hypot(x1 - x0, y1 - y0)
        if length == 0:
            continue
        ux, uy = (x1 - x0) / length, (y1 - y0) / length
        pos = 4.0
        while pos < length:
            cx, cy = x0 + ux * pos, y0 + uy * pos
            draw.line([(cx - uy * 6, cy + ux * 6), (cx + uy * 6, cy - ux * 6)], fill=(105, 80, 55), width=2)
            pos += 9
    draw.line(points, fill=(45, 45, 50), width=3, joint="curve")


_SURFACES: dict[str, tuple[int, int, int]] = {
    "wood": (150, 105, 65), "cloth": (60, 80, 110), "stone": (160, 158, 150), "carpet": (120, 40, 45),
    "paper": (238, 234, 222),
}


def _surface(kind: str, size: tuple[int, int], rng: random.Random) -> Image.Image:
    base = _SURFACES[kind]
    image = surface(size, base, rng, strength=12 if kind != "paper" else 4)
    draw = ImageDraw.Draw(image)
    w, h = size
    if kind == "wood":  # long grain streaks and plank joints
        for _ in range(h // 8):
            y = rng.uniform(0, h)
            draw.line([(0, y), (w, y + rng.uniform(-6, 6))], fill=shade(base, rng.randint(-30, 10)), width=1)
        for y in range(0, h, 150):
            draw.line([(0, y), (w, y)], fill=shade(base, -55), width=2)
    elif kind == "cloth":
        for x in range(0, w, 4):
            draw.line([(x, 0), (x, h)], fill=shade(base, -8), width=1)
        for y in range(0, h, 4):
            draw.line([(0, y), (w, y)], fill=shade(base, 6), width=1)
    elif kind == "carpet":
        for y in range(0, h, 40):
            for x in range(0, w, 40):
                draw.regular_polygon((x + 20, y + 20, 8), 4, fill=shade(base, 30))
    return image


def _thing_layer(thing: Thing) -> Image.Image:
    """One object on its own transparent layer, turned by its angle."""
    pad = 8
    size = (int(thing.w) + 2 * pad, int(thing.h) + 2 * pad)
    if thing.shape == "polygon":
        span = max(max(abs(px), abs(py)) for px, py in thing.points) * 2 + 2 * pad
        size = (int(span), int(span))
    layer = Image.new("RGBA", size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    fill, outline = (*rgb(thing.fill), 255), (*rgb(thing.outline), 255)
    box = [pad, pad, size[0] - pad - 1, size[1] - pad - 1]
    if thing.shape == "rect":
        draw.rectangle(box, fill=fill, outline=outline, width=2)
    elif thing.shape == "rounded":
        draw.rounded_rectangle(box, radius=min(thing.w, thing.h) / 4, fill=fill, outline=outline, width=2)
    elif thing.shape == "ellipse":
        draw.ellipse(box, fill=fill, outline=outline, width=2)
    elif thing.shape == "line":
        draw.rectangle([pad, size[1] / 2 - thing.h / 2, size[0] - pad, size[1] / 2 + thing.h / 2], fill=fill)
    else:
        cx, cy = size[0] / 2, size[1] / 2
        draw.polygon([(cx + px, cy + py) for px, py in thing.points], fill=fill, outline=outline, width=2)
    if thing.shape == "ellipse":  # a highlight, so round things read as solid
        draw.ellipse([pad + thing.w * 0.2, pad + thing.h * 0.15, pad + thing.w * 0.45, pad + thing.h * 0.35],
                     fill=(*shade(rgb(thing.fill), 45), 255))
    if thing.text:
        size_px = max(9, min(18, int(min(thing.w / max(4, len(thing.text)) * 1.7, thing.h * 0.45))))
        draw.text((size[0] / 2, size[1] / 2), thing.text, font=font(size_px), fill=(*rgb(thing.outline), 255),
                  anchor="mm")
    return layer.rotate(thing.angle, resample=Image.Resampling.BICUBIC, expand=True)


def draw_objects(spec: Objects) -> Image.Image:
    rng = random.Random(spec.seed)
    w, h = spec.width, spec.height
    photo = _surface(spec.surface, (w, h), rng)
    for thing in spec.things:
        layer = _thing_layer(thing)
        at = (int(thing.x - layer.width / 2), int(thing.y - layer.height / 2))
        shadow = Image.new("RGBA", layer.size, (0, 0, 0, 0))
        shadow.putalpha(layer.getchannel("A").point(lambda a: a * 90 // 255))
        shadow = shadow.filter(ImageFilter.GaussianBlur(4))
        photo.paste(shadow, (at[0] + 7, at[1] + 7), shadow)
        photo.paste(layer, at, layer)
    photo = vignette(photo)
    draw = ImageDraw.Draw(photo)
    for number, thing in enumerate((t for t in spec.things if t.label), start=1):
        tx, ty = thing.x + thing.label_dx, thing.y + thing.label_dy
        tag = f"{number}  {thing.label}"
        width = font(13).getlength(tag) + 14
        box = [tx - width / 2, ty - 11, tx + width / 2, ty + 11]
        fits(box[3], h, f"the tag of {thing.label!r}")
        draw.line([(thing.x, thing.y), (tx, ty)], fill=(250, 250, 240), width=1)
        draw.rectangle(box, fill=(252, 250, 240), outline=(30, 30, 30))
        draw.text((tx, ty), tag, font=font(13), fill=(20, 20, 20), anchor="mm")
    if spec.title:
        draw.rectangle([0, h - 30, w, h], fill=(15, 15, 15))
        bold(draw, (12, h - 15), spec.title, 14, (245, 245, 235), anchor="lm")
    if spec.tilt:
        # a print lying slightly askew on a dark desk, with a white border
        framed = Image.new("RGB", (w, h), (245, 245, 240))
        framed.paste(photo.resize((w - 24, h - 24), Image.Resampling.BICUBIC), (12, 12))
        turned = framed.rotate(spec.tilt, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=(40, 34, 30))
        return turned
    return photo
