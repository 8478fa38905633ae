"""Export stored records for papers: matches (whole records or one summary row each),
the stored per-seat records (the game's metrics, flattened), the leaderboard and the
accounting (tokens, re-asks, unreadable and truncated replies, latency and cost per agent:
`accounting.py`), as JSON Lines or CSV."""

from __future__ import annotations

import csv
import datetime as dt
import json
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, TextIO

from . import __version__
from .accounting import accounting
from .core import get_game
from .core.facts import INFRA_FAILURES
from .leaderboard import board, columns, kinds_for
from .prices import Price
from .sources import describe, kind_of, label
from .standings import catch_up
from .store import Store

What = Literal["matches", "seats", "leaderboard", "accounting"]
REPO = Path(__file__).resolve().parents[1]
Format = Literal["jsonl", "csv"]


def match_summary(match: dict[str, Any]) -> dict[str, Any]:
    result = match.get("result") or {}
    return {"id": match["id"], "game": match["game"], "seed": match["seed"], "status": match["status"],
            "source": kind_of(match["tag"]),
            "tag": match["tag"], "rules": match.get("rules", ""), "created_at": match["created_at"],
            "finished_at": match["finished_at"], "winner": result.get("winner"),
            "seats": ";".join(f"{s['seat']}={s['agent_id']}" for s in match["seats"]),
            "events": len(match.get("events") or [])}


def rows(store: Store, game: str, what: What, fmt: Format, tag: str | None = None,
         sources: Iterable[str] | None = None, prices: dict[str, Price] | None = None) -> Iterator[dict[str, Any]]:
    """Rows to export, of the matches the filter takes (the leaderboard's: see `sources`);
    `prices`: the table the accounting's cost estimate uses (ARENA_PRICES)."""
    kinds = kinds_for(sources, tag)
    if what == "accounting":
        catch_up(store, game)
        for row in accounting(store, [game], prices or {}, sources=kinds):
            yield {**row, "models": ";".join(row["models"])} if fmt == "csv" else row
        return

    def matches() -> Iterable[dict[str, Any]]:
        for m in store.iter_matches(game, tag=tag):
            if kind_of(m["tag"]) in kinds:
                yield m

    if what == "matches":
        for m in matches():
            yield m if fmt == "jsonl" else match_summary(m)
    elif what == "seats":
        catch_up(store, game)
        for r in store.records(game, tag=tag):
            if kind_of(r["tag"]) not in kinds:
                continue
            yield {"match_id": r["match_id"], "tag": r["tag"], "game": r["game"], "seat": r["seat"],
                   "agent_id": r["agent_id"], "role": r["role"], "team": r["team"], "won": bool(r["won"]),
                   "score": r["score"], **(r["stats"] or {})}
    else:
        catch_up(store, game)
        yield from board(store, game, sources=kinds, tag=tag)


def code_version() -> dict[str, str]:
    """The package version and, from a git checkout, the commit (what a citation names). The
    version is the code's own (`space_app.__version__`, which the installed metadata is built
    from), so a checkout that was never installed names it too."""
    version = __version__
    commit = "unknown"
    if (REPO / ".git").exists():
        try:
            done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True,
                                  timeout=10, check=False)
            commit = done.stdout.strip() or commit
        except (OSError, subprocess.SubprocessError):
            pass
    return {"package_version": version, "commit": commit}


def matches_behind(store: Store, game: str, kinds: frozenset[str], tag: str | None = None,
                   void_infra: bool = False) -> int:
    """How many matches a leaderboard with this filter is computed from."""
    if void_infra:  # which matches are voided is in their records
        voided: dict[str, bool] = {}
        for r in store.records(game, tag=tag):
            if kind_of(r["tag"]) in kinds:
                lost = (r["stats"] or {}).get(INFRA_FAILURES, 0) > 0
                voided[r["match_id"]] = voided.get(r["match_id"], False) or lost
        return sum(not v for v in voided.values())
    return sum(n for t, n in store.rated_per_tag(game).items()
               if kind_of(t) in kinds and (tag is None or t == tag))


def snapshot(store: Store, game: str, *, sources: Iterable[str] | None = None, tag: str | None = None,
             void_infra: bool = False, min_matches: int = 0, by_version: bool = False) -> dict[str, Any]:
    """A leaderboard to cite: its rows with the filter that made them, what the filter
    includes, the number of matches behind it, the game's rules version, the code version
    and the time of the export. `by_version`: one row per agent and version."""
    catch_up(store, game)
    kinds = kinds_for(sources, tag)
    spec = get_game(game)
    rows = board(store, game, sources=kinds, tag=tag, min_matches=min_matches, void_infra=void_infra,
                 by_version=by_version)
    return {
        "game": game, "rules_version": spec.rules.rules_version,
        "filter": {"sources": label(kinds), "tag": tag, "void_infra": void_infra, "min_matches": min_matches,
                   "by_version": by_version,
                   "includes": describe(kinds, tag)},
        "matches": matches_behind(store, game, kinds, tag, void_infra),
        "code": code_version(),
        "exported_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "columns": [{"key": c.key, "label": c.label, "meaning": c.meaning} for c in columns(spec)],
        "rows": rows,
    }


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
