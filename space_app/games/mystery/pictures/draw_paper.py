"""Text-rich image clues: a handwritten note, a typed letter, a receipt, a timetable, a ticket.
Each drawer takes its spec from drawings.py and returns an RGB image."""

from __future__ import annotations

import random

from PIL import Image, ImageDraw

from .canvas import (
    DrawingError,
    bold,
    fits,
    handwriting,
    ink_onto,
    mono,
    mono_cell,
    shade,
    surface,
    wrap,
)
from .drawings import InkLine, Letter, Note, Receipt, Ticket, Timetable, rgb
from .fonts import font, text_width

DESK: tuple[int, int, int] = (58, 46, 38)


def _ragged_bottom(image: Image.Image, rng: random.Random, depth: int) -> None:
    """A torn or burnt lower edge: everything below a jagged line becomes desk."""
    w, h = image.size
    top = h - depth
    points = [(0, h), (0, top)]
    for x in range(0, w + 12, 12):
        points.append((x, top + rng.uniform(-depth * 0.35, depth * 0.35)))
    points.append((w, h))
    ImageDraw.Draw(image).polygon(points, fill=DESK)


def draw_note(spec: Note) -> Image.Image:
    rng = random.Random(spec.seed)
    w, h = spec.width, spec.height
    image = surface((w, h), rgb("paper"), rng, strength=7)
    draw = ImageDraw.Draw(image)
    line_gap = int(spec.size * 1.75)
    top = 24
    if spec.heading:
        # printed, not handwritten: plain type (a stroke would blur it at this size)
        draw.text((w / 2, 18), spec.heading, font=font(max(12, spec.size - 5)), fill=rgb("black"), anchor="ma")
        top = 18 + int(spec.size * 1.3)
    first = top + line_gap
    if spec.paper == "lined":
        for y in range(first, h, line_gap):
            draw.line([(0, y), (w, y)], fill=(170, 190, 215), width=1)
        draw.line([(64, 0), (64, h)], fill=(215, 120, 120), width=2)
    elif spec.paper == "grid":
        step = line_gap // 2
        for y in range(first % step, h, step):
            draw.line([(0, y), (w, y)], fill=(200, 210, 222), width=1)
        for x in range(0, w, step):
            draw.line([(x, 0), (x, h)], fill=(200, 210, 222), width=1)
    limit = h - (40 if spec.torn else 10)
    for i, raw in enumerate(spec.lines):
        line = raw if isinstance(raw, InkLine) else InkLine(text=raw)
        baseline = first + i * line_gap
        fits(baseline, limit, f"line {i + 1} of the note")
        if not line.text:
            continue
        mask = handwriting(line.text, spec.size, rng, spec.slant, strike=line.strike)
        x = 74 + line.indent + int(rng.uniform(0, 6))
        if x + mask.width > w + spec.size:
            raise DrawingError(f"line {i + 1} of the note is too wide: {line.text[:30]!r}...")
        ink_onto(image, mask, (x, baseline - int(spec.size * 1.15) - (mask.height - int(spec.size * 1.6)) // 2),
                 rgb(line.ink))
    if spec.torn:
        _ragged_bottom(image, rng, 26)
    return image


def draw_letter(spec: Letter) -> Image.Image:
    rng = random.Random(spec.seed)
    w, h = spec.width, spec.height
    image = surface((w, h), rgb("white"), rng, strength=4)
    draw = ImageDraw.Draw(image)
    ink = rgb("black")
    margin = 56
    y = 30.0
    if spec.letterhead:
        bold(draw, (w / 2, y), spec.letterhead, spec.size + 4, rgb("navy"), anchor="ma")
        y += spec.size * 1.8
        draw.line([(margin, y), (w - margin, y)], fill=rgb("navy"), width=2)
        y += spec.size * 0.9
    if spec.date:
        draw.text((w - margin, y), spec.date, font=font(spec.size), fill=ink, anchor="ra")
        y += spec.size * 1.8
    if spec.salutation:
        draw.text((margin, y), spec.salutation, font=font(spec.size), fill=ink)
        y += spec.size * 1.7
    line_height = spec.size * 1.38
    for paragraph in spec.paragraphs:
        for line in wrap(paragraph, spec.size, w - 2 * margin):
            draw.text((margin, y), line, font=font(spec.size), fill=ink)
            y += line_height
        y += spec.size * 0.6
    if spec.closing:
        draw.text((margin, y), spec.closing, font=font(spec.size), fill=ink)
        y += spec.size * 1.4
    if spec.signature:
        mask = handwriting(spec.signature, spec.size + 8, rng, 0.28)
        ink_onto(image, mask, (margin + 10, int(y)), rgb("blue-black"))
        y += mask.height
    if spec.burnt_from is None:
        fits(y, h - 10, "the letter")
    else:
        _burn(image, rng, int(h * spec.burnt_from))
    return image


def _burn(image: Image.Image, rng: random.Random, edge: int) -> None:
    """Scorch bands above a jagged edge, then nothing (desk) below it."""
    w, h = image.size
    draw = ImageDraw.Draw(image)
    for depth, color in ((30, (190, 150, 95)), (16, (120, 75, 40)), (6, (40, 28, 20))):
        points = [(0, h)]
        for x in range(0, w + 10, 10):
            points.append((x, edge - depth + rng.uniform(-14, 14)))
        points.append((w, h))
        draw.polygon(points, fill=color)
    points = [(0, h)] + [(x, edge + rng.uniform(-10, 12)) for x in range(0, w + 10, 10)] + [(w, h)]
    draw.polygon(points, fill=DESK)


def draw_receipt(spec: Receipt) -> Image.Image:
    rng = random.Random(spec.seed)
    w, h = spec.width, spec.height
    image = surface((w, h), DESK, rng, strength=8)
    strip_w = min(spec.strip_width, w - 40)
    left = (w - strip_w) // 2
    strip = surface((strip_w, h - 30), rgb("white"), rng, strength=5)
    image.paste(strip, (left, 15))
    draw = ImageDraw.Draw(image)
    for edge in (15, h - 15):  # serrated tear at both ends
        teeth = [(left + x, edge + (5 if (x // 8) % 2 else -5) * (1 if edge > 20 else -1))
                 for x in range(0, strip_w + 1, 8)]
        draw.line(teeth, fill=DESK, width=6)
    size, cell = spec.size, mono_cell(spec.size)
    columns = int((strip_w - 30) // cell)
    x0 = left + (strip_w - columns * cell) / 2
    ink = (45, 45, 50)
    y = 36.0
    step = size * 1.35

    def row(text: str) -> None:
        nonlocal y
        fits(y + size, h - 24, "the receipt")
        mono(draw, (x0, y), text[:columns], size, ink)
        y += step

    for line in spec.header:
        row(line.center(columns).rstrip())
    if spec.header:
        row("-" * columns)
    for item in spec.items:
        for part in _item_lines(item.label, item.amount, columns):
            row(part)
    if spec.total is not None:
        row("=" * columns)
        for part in _item_lines(spec.total.label, spec.total.amount, columns):
            row(part)
    if spec.footer:
        row("-" * columns)
    for line in spec.footer:
        row(line.center(columns).rstrip())
    return image


def _item_lines(label: str, amount: str, columns: int) -> list[str]:
    room = columns - len(amount) - 1
    if room < 4:
        raise DrawingError(f"receipt amount {amount!r} is too wide for the strip")
    words = wrap_chars(label, room)
    words[-1] = words[-1].ljust(room) + " " + amount if amount else words[-1]
    return words


def wrap_chars(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return lines


def draw_timetable(spec: Timetable) -> Image.Image:
    rng = random.Random(spec.seed)
    w, h = spec.width, spec.height
    image = surface((w, h), rgb("white"), rng, strength=3)
    draw = ImageDraw.Draw(image)
    ink = rgb("black")
    margin = 28
    size = spec.size
    y = 22.0
    bold(draw, (w / 2, y), spec.title, size + 5, ink, anchor="ma")
    y += size * 1.9
    if spec.subtitle:
        draw.text((w / 2, y), spec.subtitle, font=font(size - 1), fill=shade(ink, 60), anchor="ma")
        y += size * 1.6
    widths = _column_widths(spec, w - 2 * margin)
    pad = 6

    def table_row(cells: list[str], fill: tuple[int, int, int] | None, heading: bool) -> None:
        nonlocal y
        wrapped = [wrap(c, size, cw - 2 * pad) for c, cw in zip(cells, widths, strict=True)]
        height = max(len(lines) for lines in wrapped) * size * 1.3 + 2 * pad
        fits(y + height, h - 8, "the timetable")
        x = float(margin)
        for lines, cw in zip(wrapped, widths, strict=True):
            draw.rectangle([x, y, x + cw, y + height], fill=fill, outline=(90, 90, 90))
            for k, line in enumerate(lines):
                pos = (x + pad, y + pad + k * size * 1.3)
                if heading:
                    bold(draw, pos, line, size, ink)
                else:
                    draw.text(pos, line, font=font(size), fill=ink)
            x += cw
        y += height

    table_row(spec.columns, (222, 226, 232), heading=True)
    for i, cells in enumerate(spec.rows):
        table_row(cells, (250, 236, 160) if i in spec.highlight else None, heading=False)
    y += size * 0.8
    for note in spec.notes:
        for line in wrap(note, size - 2, w - 2 * margin):
            fits(y + size, h - 4, "the timetable's notes")
            draw.text((margin, y), line, font=font(size - 2), fill=shade(ink, 50))
            y += (size - 2) * 1.3
    return image


def _column_widths(spec: Timetable, total: float) -> list[float]:
    """Share the width by each column's longest text, never narrower than its heading word."""
    natural = []
    for j, head in enumerate(spec.columns):
        cells = [head] + [row[j] for row in spec.rows]
        longest = max(text_width(c, spec.size) for c in cells) + 14
        shortest = max(text_width(word, spec.size) for word in head.split()) + 14
        natural.append((min(longest, total * 0.6), shortest))
    want = sum(n for n, _ in natural)
    return [max(n * total / want, s) if want > total else n * total / want for n, s in natural]


def draw_ticket(spec: Ticket) -> Image.Image:
    """A card on a desk: printed header and small print, handwritten field values on dotted
    lines, a red serial number, a perforated stub at the right and a rubber stamp across it."""
    rng = random.Random(spec.seed)
    w, h = spec.width, spec.height
    image = surface((w, h), DESK, rng, strength=8)
    size = spec.size
    left, top, right, bottom = 30, 26, w - 30, h - 26
    shadow = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    ImageDraw.Draw(shadow).rectangle([left + 8, top + 8, right + 8, bottom + 8], fill=(0, 0, 0, 90))
    image.paste(shadow, (0, 0), shadow)
    card = surface((right - left, bottom - top), rgb(spec.card), rng, strength=5)
    image.paste(card, (left, top))
    draw = ImageDraw.Draw(image)
    printed = rgb("black")
    stub_w = int(w * 0.2) if spec.stub else 0
    body_right = right - stub_w
    draw.rectangle([left + 8, top + 8, body_right - 8, bottom - 8], outline=shade(printed, 60), width=2)
    draw.rectangle([left + 13, top + 13, body_right - 13, bottom - 13], outline=shade(printed, 90), width=1)
    if spec.stub:  # perforation: a column of punched holes, then the stub's own printed lines
        for y in range(top + 6, bottom - 4, 11):
            draw.ellipse([body_right - 3, y - 3, body_right + 3, y + 3], fill=DESK)
        sy = top + 30.0
        for line in spec.stub:
            for part in wrap(line, size - 2, stub_w - 24):
                fits(sy + size, bottom - 12, "the ticket's stub")
                draw.text((body_right + stub_w / 2, sy), part, font=font(size - 2), fill=printed, anchor="ma")
                sy += (size - 2) * 1.35
    inner_l, inner_r = left + 28, body_right - 28
    y = top + 26.0
    if spec.number:
        bold(draw, (inner_r, y), spec.number, size + 2, rgb("red"), anchor="ra")
        y += size * 1.7
    for k, line in enumerate(spec.header):
        big = size + 6 if k == 0 else size - 1
        for part in wrap(line, big, inner_r - inner_l):
            fits(y + big, bottom - 16, "the ticket's header")
            if k == 0:
                bold(draw, ((inner_l + inner_r) / 2, y), part, big, printed, anchor="ma")
            else:
                draw.text(((inner_l + inner_r) / 2, y), part, font=font(big), fill=shade(printed, 30), anchor="ma")
            y += big * 1.3
    y += size * 0.5
    draw.line([(inner_l, y), (inner_r, y)], fill=shade(printed, 60), width=1)
    y += size * 0.9
    row_h = size * 2.1
    for field in spec.fields:
        fits(y + row_h, bottom - 16, "the ticket's fields")
        label_w = text_width(field.label, size - 2)
        draw.text((inner_l, y + size * 0.5), field.label, font=font(size - 2), fill=printed)
        start = inner_l + label_w + 10
        base = y + size * 1.55
        for x in range(int(start), int(inner_r), 6):
            draw.point((x, base), fill=shade(printed, 80))
        if field.value:
            mask = handwriting(field.value, size + 2, rng, 0.16)
            if start + mask.width > inner_r + size:
                raise DrawingError(f"the ticket's value {field.value[:30]!r} is too wide")
            ink_onto(image, mask, (int(start + 4), int(base - (size + 2) * 1.3)), rgb(spec.ink))
        y += row_h
    y += size * 0.3
    for line in spec.footer:
        for part in wrap(line, size - 5, inner_r - inner_l):
            fits(y + size, bottom - 14, "the ticket's small print")
            draw.text((inner_l, y), part, font=font(size - 5), fill=shade(printed, 40))
            y += (size - 5) * 1.3
    if spec.stamp:
        _stamp(image, spec.stamp, size + 10, rgb(spec.stamp_ink), rng,
               (int((inner_l + inner_r) * 0.62), int(top + (bottom - top) * 0.55)))
    return image


def _stamp(image: Image.Image, text: str, size: int, ink: tuple[int, int, int], rng: random.Random,
           centre: tuple[int, int]) -> None:
    """A rubber stamp: boxed capitals, struck at an angle, the ink a little patchy."""
    width = int(text_width(text, size) + size * 1.4)
    height = int(size * 2.0)
    layer = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(layer)
    draw.rectangle([2, 2, width - 3, height - 3], outline=255, width=3)
    bold(draw, (width / 2, height / 2), text, size, 255, anchor="mm")  # type: ignore[arg-type]
    patchy = Image.frombytes("L", layer.size, bytes(rng.choice((150, 190, 215, 235)) for _ in range(width * height)))
    layer = Image.composite(patchy, Image.new("L", layer.size, 0), layer)
    turned = layer.rotate(rng.uniform(-16, -9), resample=Image.Resampling.BICUBIC, expand=True)
    image.paste(Image.new("RGB", turned.size, ink), (centre[0] - turned.width // 2, centre[1] - turned.height // 2),
                turned)
