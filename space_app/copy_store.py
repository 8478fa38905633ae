"""`python -m space_app copy-store SRC DST`: a whole store moved to another backend (SQLite to
PostgreSQL, or back), then checked: every table's row count, and every game's standings
(per-seat records, running totals, ratings and the leaderboard read from them) must agree.

The destination must be empty (a new SQLite file, a new PostgreSQL database): a copy never
merges into records that are already there. Rows are streamed in chunks, one transaction
per table, so a store larger than memory copies too; into PostgreSQL each chunk is one COPY
(an executemany there sends a statement per row: 2.4x slower). Event ids are not copied: the
destination numbers them again in the same order (events are read by match and seq).
Leases (`match_leases`) are not copied: they belong to the processes using the source.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Column, Connection, Row, Table, func, insert, select

from .core import GAMES
from .store import Store, StoreError, agent_totals, events, matches, metadata, ratings, seat_records, shown_url

# leases say which live process plays a running match now: nothing to move to another store
TABLES: tuple[Table, ...] = tuple(t for t in metadata.sorted_tables if t.name != "match_leases")


@dataclass
class CopyReport:
    source: str
    target: str
    copied: dict[str, int] = field(default_factory=dict)  # table -> rows written
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)  # table -> (source, target) after
    games: dict[str, list[str]] = field(default_factory=dict)  # game -> what differs ([] = agrees)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return all(a == b for a, b in self.counts.values()) and not any(self.games.values())

    def lines(self) -> list[str]:
        out = [f"copied {shown_url(self.source)} to {shown_url(self.target)} in {self.seconds:.1f} s"]
        out += [f"  {name}: {a} rows" + ("" if a == b else f" in the source, {b} in the copy: DIFFERENT")
                for name, (a, b) in self.counts.items()]
        for game, diffs in self.games.items():
            out.append(f"  {game} standings: " + ("agree" if not diffs else "DIFFER: " + "; ".join(diffs)))
        out.append("counts and standings agree" if self.ok else "the copy does NOT agree with the source")
        return out


def _count(store: Store, table: Table) -> int:
    with store.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def _canonical(rows: list[Any]) -> list[str]:
    """Rows as sorted text, JSON values with sorted keys, so two backends' rows compare as equal."""
    return sorted(json.dumps(list(r), sort_keys=True, default=str) for r in rows)


def _standing_rows(store: Store, table: Table, game: str) -> list[str]:
    with store.engine.connect() as conn:
        return _canonical(list(conn.execute(select(table).where(table.c.game == game))))


def compare_standings(source: Store, target: Store, game: str) -> list[str]:
    """What differs between two stores' standings of one game ([] when they agree)."""
    diffs = [f"{table.name} differ" for table in (seat_records, agent_totals, ratings)
             if _standing_rows(source, table, game) != _standing_rows(target, table, game)]
    if game in GAMES:  # the leaderboard as visitors see it, read from each store
        from .leaderboard import board

        left = {r["agent"]: r for r in board(source, game)}
        right = {r["agent"]: r for r in board(target, game)}
        if left != right:
            diffs.append("leaderboards differ")
    return diffs


def _write(dst: Connection, table: Table, columns: list[Column], rows: list[Row]) -> None:
    """One chunk of rows into the destination, inside its open transaction."""
    dialect = dst.dialect
    if dialect.name != "postgresql":
        dst.execute(insert(table), [dict(r._mapping) for r in rows])
        return
    # the columns' own bind processing (JSON through the engine's serializer), then one COPY
    procs = [c.type.dialect_impl(dialect).bind_processor(dialect) for c in columns]
    quote = dialect.identifier_preparer.quote
    sql = f"COPY {quote(table.name)} ({', '.join(quote(c.name) for c in columns)}) FROM STDIN"
    with dst.connection.driver_connection.cursor() as cursor, cursor.copy(sql) as copy:
        for row in rows:
            copy.write_row([p(v) if p else v for p, v in zip(procs, row, strict=True)])


def copy_store(source: Store, target: Store, *, chunk: int = 2000,
               progress: Callable[[str, int], None] | None = None) -> CopyReport:
    """Copy every row of `source` into the empty `target`, then compare counts and standings."""
    if source.url == target.url:
        raise StoreError(f"the source and the destination are the same store ({shown_url(source.url)})")
    for table in TABLES:
        if _count(target, table):
            raise StoreError(f"{shown_url(target.url)} is not empty (its {table.name} table has rows): "
                             "copy into a new SQLite file or an empty database")
    report = CopyReport(source.url, target.url)
    started = time.perf_counter()
    for table in TABLES:
        columns = [c for c in table.columns if not (table is events and c.name == "id")]
        order = [events.c.id] if table is events else list(table.primary_key.columns)
        written = 0
        with source.engine.connect() as src, target.engine.begin() as dst:
            result = src.execution_options(yield_per=chunk).execute(select(*columns).order_by(*order))
            for part in result.partitions():
                _write(dst, table, columns, part)
                written += len(part)
                if progress is not None:
                    progress(table.name, len(part))
        report.copied[table.name] = written
    report.seconds = time.perf_counter() - started
    for table in TABLES:
        report.counts[table.name] = (_count(source, table), _count(target, table))
    with source.engine.connect() as conn:
        games = sorted({g for (g,) in conn.execute(select(matches.c.game).distinct())}
                       | {g for (g,) in conn.execute(select(seat_records.c.game).distinct())})
    for game in games:
        report.games[game] = compare_standings(source, target, game)
    return report
