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


def render(rows: Sequence[dict[str, Any]], columns: Sequence[str],
           headers: Sequence[str] | None = None) -> str:
    headers = list(headers or columns)
    cells = [[fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(h)] + [len(row[i]) for row in cells]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(lines)


LEADERBOARD_COLUMNS = ["agent", "ranking_score", "rating_mu", "rating_sigma", "games", "win_rate",
                       "win_rate_spy", "win_rate_civilian", "avg_score", "avg_score_spy",
                       "avg_score_civilian", "vote_accuracy", "abstentions", "survival_spy",
                       "survival_civilian", "foul_rate", "avg_latency_ms"]
ATTACK_COLUMNS = ["condition", "games", "vote_accuracy", "foul_rate", "civilian_foul_rate",
                  "avg_score_civilian", "avg_score_spy", "civilian_win_rate"]
REASONING_COLUMNS = ["condition", "games", "vote_accuracy", "civilian_win_rate", "avg_score_civilian"]
