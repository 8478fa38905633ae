"""Drawing helpers shared by the drawers: paper grain, handwriting, wrapped and fixed-width
text, markers, PNG bytes. Every random touch comes from a `random.Random` the caller seeds, so
the same drawing gives the same pixels."""

from __future__ import annotations

import io
import math
import random

from PIL import Image, ImageDraw

from .fonts import font, text_width

RGB = tuple[int, int, int]


class DrawingError(ValueError):
    """A drawing that cannot be drawn as specified (its content does not fit, ...)."""


def shade(color: RGB, delta: int) -> RGB:
    r, g, b = (max(0, min(255, c + delta)) for c in color)
    return r, g, b


def grain(size: tuple[int, int], rng: random.Random, cell: int = 6) -> Image.Image:
    """Smooth random mottling (an 'L' image): random bytes at low resolution, scaled up."""
    w, h = size
    small = (max(2, w // cell), max(2, h // cell))
    tile = Image.frombytes("L", small, rng.randbytes(small[0] * small[1]))
    return tile.resize(size, Image.Resampling.BICUBIC)


def surface(size: tuple[int, int], color: RGB, rng: random.Random, strength: int = 10, cell: int = 24) -> Image.Image:
    """A flat colour with grain: paper, stone, cloth bases."""
    light = Image.new("RGB", size, shade(color, strength))
    dark = Image.new("RGB", size, shade(color, -strength))
    # broad, soft mottling: reads as paper or stone, and smooth ramps keep the PNG small
    return Image.composite(light, dark, grain(size, rng, cell))


def vignette(image: Image.Image, strength: float = 0.45) -> Image.Image:
    """Darker corners, as in a flash photo."""
    mask = Image.radial_gradient("L").resize(image.size, Image.Resampling.BICUBIC)
    # in steps rather than a smooth ramp: looks the same, compresses far better
    mask = mask.point(lambda v: int(max(0, v - 90) * strength * 255 / 165) // 6 * 6)
    return Image.composite(Image.new("RGB", image.size, (10, 8, 6)), image, mask)


def png_bytes(image: Image.Image) -> bytes:
    # fixed settings, no metadata: the same pixels always give the same bytes
    buf = io.BytesIO()
    image.convert("RGB").save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


def wrap(text: str, size: int, width: float) -> list[str]:
    """Greedy word wrap to `width` pixels; a word longer than a line gets a line of its own."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if line and text_width(candidate, size) > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return lines


def bold(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill: RGB,
         anchor: str = "la") -> None:
    """The built-in font has one weight; a 1-pixel stroke in the same colour reads as bold."""
    draw.text(xy, text, font=font(size), fill=fill, anchor=anchor, stroke_width=1, stroke_fill=fill)


def halo_text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill: RGB,
              anchor: str = "la") -> None:
    """Text with a light outline, readable over plans and maps."""
    draw.text(xy, text, font=font(size), fill=fill, anchor=anchor, stroke_width=3, stroke_fill=(252, 250, 244))


def mono(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill: RGB) -> float:
    """Fixed-width text (a till printer): each character centred in a cell. Returns the width."""
    cell = mono_cell(size)
    x, y = xy
    for i, ch in enumerate(text):
        if ch != " ":
            draw.text((x + i * cell + cell / 2, y), ch, font=font(size), fill=fill, anchor="ma")
    return cell * len(text)


def mono_cell(size: int) -> float:
    return round(size * 0.62, 2)


def handwriting(text: str, size: int, rng: random.Random, slant: float, strike: bool = False) -> Image.Image:
    """One handwritten-style line as an 'L' mask: each letter a little off the baseline and a
    little wider or narrower, the whole line sheared (slant) and turned a fraction of a degree."""
    f = font(size)
    height = int(size * 1.6)
    width = int(f.getlength(text) * 1.12 + size * 2)
    mask = Image.new("L", (max(width, 4), height), 0)
    draw = ImageDraw.Draw(mask)
    x = size * 0.3
    for ch in text:
        dy = rng.uniform(-size * 0.06, size * 0.06)
        variant = font(max(8, size + rng.choice((-1, 0, 0, 1))))
        draw.text((x, size * 1.2 + dy), ch, font=variant, fill=255, anchor="ls")  # on one baseline
        x += variant.getlength(ch) * rng.uniform(1.0, 1.06)
    if strike and text.strip():
        y = size * 0.25 + size * 0.55
        draw.line([(size * 0.2, y + rng.uniform(-2, 2)), (x, y + rng.uniform(-2, 2))], fill=255, width=2)
    mask = mask.crop((0, 0, int(x + size * 0.5), height))
    shift = abs(slant) * height
    sheared = mask.transform((int(mask.width + shift), height), Image.Transform.AFFINE,
                             (1, slant, -slant * height if slant > 0 else 0, 0, 1, 0),
                             resample=Image.Resampling.BICUBIC)
    return sheared.rotate(rng.uniform(-0.7, 0.7), resample=Image.Resampling.BICUBIC, expand=True)


def ink_onto(image: Image.Image, mask: Image.Image, xy: tuple[int, int], ink: RGB) -> None:
    image.paste(Image.new("RGB", mask.size, ink), xy, mask)


def marker(draw: ImageDraw.ImageDraw, kind: str, x: float, y: float, r: float, color: RGB) -> None:
    """Plan and map symbols: x, dot, square, triangle, star."""
    if kind == "x":
        w = max(3, int(r / 2.5))
        draw.line([(x - r, y - r), (x + r, y + r)], fill=color, width=w)
        draw.line([(x - r, y + r), (x + r, y - r)], fill=color, width=w)
    elif kind == "dot":
        draw.ellipse([x - r * 0.7, y - r * 0.7, x + r * 0.7, y + r * 0.7], fill=color, outline=(20, 20, 20))
    elif kind == "square":
        draw.rectangle([x - r * 0.7, y - r * 0.7, x + r * 0.7, y + r * 0.7], fill=color, outline=(20, 20, 20))
    elif kind == "triangle":
        draw.polygon([(x, y - r), (x + r, y + r * 0.8), (x - r, y + r * 0.8)], fill=color, outline=(20, 20, 20))
    else:  # star
        points = []
        for i in range(10):
            radius = r if i % 2 == 0 else r * 0.45
            angle = -math.pi / 2 + i * math.pi / 5
            points.append((x + radius * math.cos(angle), y + radius * math.sin(angle)))
        draw.polygon(points, fill=color, outline=(20, 20, 20))


def north_arrow(draw: ImageDraw.ImageDraw, x: float, y: float, size: float = 26) -> None:
    draw.polygon([(x, y - size), (x + size * 0.4, y + size * 0.5), (x, y + size * 0.2)], fill=(30, 30, 30))
    draw.polygon([(x, y - size), (x - size * 0.4, y + size * 0.5), (x, y + size * 0.2)], outline=(30, 30, 30),
                 fill=(250, 250, 245))
    bold(draw, (x, y - size - 4), "N", 16, (30, 30, 30), anchor="ms")


def dashed(draw: ImageDraw.ImageDraw, points: list[tuple[float, float]], color: RGB, width: int,
           dash: float = 10, gap: float = 7) -> None:
    """A dashed polyline (Pillow has none); the dash pattern restarts at each corner."""
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        length = math.hypot(x1 - x0, y1 - y0)
        pos = 0.0
        while pos < length:
            a, b = pos / length, min(pos + dash, length) / length
            draw.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a), (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)],
                      fill=color, width=width)
            pos += dash + gap


def fits(y: float, limit: float, what: str) -> None:
    if y > limit:
        raise DrawingError(f"{what} does not fit: make the image taller or the text shorter")
