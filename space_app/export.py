"""Export stored records for papers: matches (whole records or one summary row each),
the stored per-seat records (the game's metrics, flattened) and the leaderboard, as JSON
Lines or CSV."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from typing import Any, Literal, TextIO

from .leaderboard import board
from .standings import EXPERIMENT_PREFIXES, catch_up
from .store import Store

What = Literal["matches", "seats", "leaderboard"]
Format = Literal["jsonl", "csv"]


def match_summary(match: dict[str, Any]) -> dict[str, Any]:
    result = match.get("result") or {}
    return {"id": match["id"], "game": match["game"], "seed": match["seed"], "status": match["status"],
            "tag": match["tag"], "rules": match.get("rules", ""), "created_at": match["created_at"],
            "finished_at": match["finished_at"], "winner": result.get("winner"),
            "seats": ";".join(f"{s['seat']}={s['agent_id']}" for s in match["seats"]),
            "events": len(match.get("events") or [])}


def rows(store: Store, game: str, what: What, fmt: Format, tag: str | None = None,
         include_studies: bool = True) -> Iterator[dict[str, Any]]:
    def matches() -> Iterable[dict[str, Any]]:
        for m in store.iter_matches(game, tag=tag):
            if include_studies or not m["tag"].startswith(EXPERIMENT_PREFIXES):
                yield m

    if what == "matches":
        for m in matches():
            yield m if fmt == "jsonl" else match_summary(m)
    elif what == "seats":
        catch_up(store, game)
        skip = None if include_studies else EXPERIMENT_PREFIXES
        for r in store.records(game, tag=tag, exclude_prefix=skip):
            yield {"match_id": r["match_id"], "tag": r["tag"], "game": r["game"], "seat": r["seat"],
                   "agent_id": r["agent_id"], "role": r["role"], "team": r["team"], "won": bool(r["won"]),
                   "score": r["score"], **(r["stats"] or {})}
    else:
        catch_up(store, game)
        yield from board(store, game, include_studies=include_studies, tag=tag)


def write(out: TextIO, records: Iterable[dict[str, Any]], fmt: Format) -> int:
    """Write records; CSV columns are the first record's keys (later keys are appended as
    they appear, so nothing is dropped). Returns how many were written."""
    n = 0
    if fmt == "jsonl":
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            n += 1
        return n
    buffered = list(records)
    columns: list[str] = []
    for record in buffered:
        columns += [k for k in record if k not in columns]
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    for record in buffered:
        writer.writerow({k: json.dumps(v, default=str) if isinstance(v, (dict, list)) else v
                         for k, v in record.items()})
        n += 1
    return n


__all__ = ["match_summary", "rows", "write"]
