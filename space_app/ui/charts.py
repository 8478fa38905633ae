"""Charts that show their uncertainty: bars with 95% error bars and lines with an interval band,
drawn with Altair (Vega-Lite, which the page renders in `gr.Plot`). Gradio's own plots have no
error bars, and a rate without its interval reads as more certain than it is."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

HEIGHT = 260


def _empty(frame: pd.DataFrame, needed: Sequence[str]) -> bool:
    return frame is None or frame.empty or any(c not in frame.columns for c in needed)


def bars(frame: pd.DataFrame, *, x: str, y: str, color: str | None = None, low: str = "low", high: str = "high",
         title: str = "", x_title: str = "", y_title: str = "", y_domain: tuple[float, float] | None = None,
         order: Sequence[str] | None = None) -> alt.LayerChart | None:
    """Bars of `y` per `x` (coloured by `color`) with error bars from `low` to `high` (rows
    without an interval get no bar of error). None for an empty frame: the plot shows nothing."""
    if _empty(frame, [x, y]):
        return None
    data = frame.copy()
    for end in (low, high):
        if end not in data.columns:
            data[end] = None
    scale = alt.Scale(domain=list(y_domain)) if y_domain else alt.Undefined
    sort = list(order) if order else list(dict.fromkeys(data[x]))
    base = alt.Chart(data).encode(x=alt.X(f"{x}:N", sort=sort, title=x_title or x, axis=alt.Axis(labelAngle=-35)))
    tooltip = [c for c in (x, color, y, low, high) if c]
    shown = base.mark_bar().encode(y=alt.Y(f"{y}:Q", title=y_title or y, scale=scale), tooltip=tooltip)
    if color:
        shown = shown.encode(color=alt.Color(f"{color}:N"))
    with_interval = data.dropna(subset=[low, high])
    layers: list[Any] = [shown]
    if not with_interval.empty:
        layers.append(alt.Chart(with_interval).mark_rule(strokeWidth=2, color="#333").encode(
            x=alt.X(f"{x}:N", sort=sort), y=alt.Y(f"{low}:Q", scale=scale), y2=f"{high}:Q", tooltip=tooltip))
    return alt.layer(*layers).properties(title=title, height=HEIGHT)


def lines(frame: pd.DataFrame, *, x: str, y: str, color: str, low: str = "low", high: str = "high",
          title: str = "", x_title: str = "", y_title: str = "") -> alt.LayerChart | None:
    """Lines of `y` over `x` per `color`, with a band from `low` to `high` where the rows have one."""
    if _empty(frame, [x, y, color]):
        return None
    data = frame.copy()
    line = alt.Chart(data).mark_line(point=len(data) <= 60).encode(
        x=alt.X(f"{x}:Q", title=x_title or x), y=alt.Y(f"{y}:Q", title=y_title or y), color=f"{color}:N",
        tooltip=[c for c in (color, x, y, low, high) if c in data.columns])
    layers: list[Any] = [line]
    if low in data.columns and high in data.columns and data[[low, high]].notna().all(axis=None):
        layers.insert(0, alt.Chart(data).mark_area(opacity=0.18).encode(
            x=f"{x}:Q", y=f"{low}:Q", y2=f"{high}:Q", color=f"{color}:N"))
    return alt.layer(*layers).properties(title=title, height=HEIGHT)


__all__ = ["bars", "lines"]
