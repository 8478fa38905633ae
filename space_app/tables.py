"""Plain-text tables for the CLI (no dependency: columns padded to their widest cell)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def figure(row: dict[str, Any], key: str, scale: float = 1.0, digits: int = 3) -> str:
    """A figure as shown everywhere: 'value [low, high] n=…' when the row holds its interval
    (key_low, key_high) and sample size (key_n); '-' when there is no value."""
    value = row.get(key)
    if value is None:
        return "-"
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    text = f"{value * scale:.{digits}f}" if isinstance(value, float) else str(value)
    if f"{key}_n" in row:
        low, high, n = row.get(f"{key}_low"), row.get(f"{key}_high"), row[f"{key}_n"]
        if low is not None and high is not None:
            text += f" [{low * scale:.{digits}f}, {high * scale:.{digits}f}]"
        text += f" n={n:g}"
    return text


def render(rows: Sequence[dict[str, Any]], columns: Sequence[str],
           headers: Sequence[str] | None = None) -> str:
    headers = list(headers or columns)
    cells = [[fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(lines)
