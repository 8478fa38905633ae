"""Leaderboard over a large store: the stored standings (records, totals, ratings) against
main's approach before them (read every event, rescore every match, rate them all).

Builds a store of N finished spy matches from copies of real ones (a house tournament of
`--seed-matches`, copied with new ids: matches, seats, events and their per-seat records),
rebuilds the totals and ratings from the records, then times, in one run:

- the leaderboard from a cold process (a fresh `python` that imports the arena, opens the
  store and asks for the leaderboard once), median of `--repeats`;
- the same call in a warm process;
- the recomputation from events (main's approach), on the first `--old-at` matches.

With `--postgres` the same store is then copied into an empty PostgreSQL database
(`copy_store`, as `python -m space_app copy-store` does: timed, with its rows per second,
then its counts and standings checked), and the leaderboard is timed again on the
PostgreSQL URL, cold and warm, printed beside the SQLite figures. Without a URL a
throw-away server is started from Debian's PostgreSQL binaries, as the tests do
(tests/pg_server.py), with its default settings (fsync on). A database given by URL that
holds the same number of matches already (an earlier run's copy) is reused.

    python benchmarks/leaderboard.py [--matches 100000] [--old-at 2000,10000] [--db PATH]
                                     [--postgres [URL]]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from space_app.leaderboard import board, from_matches  # noqa: E402
from space_app.service import Arena  # noqa: E402
from space_app.standings import rebuild  # noqa: E402
from space_app.store import Store  # noqa: E402

AGENTS = ["house:heuristic", "house:random"]
COLD = """
import sys, time
started = time.perf_counter()
sys.path.insert(0, {root!r})
from space_app.leaderboard import board
from space_app.store import Store
imported = time.perf_counter()
rows = board(Store({db!r}, recover=False), "spy")
done = time.perf_counter()
print(f"{{imported - started:.4f}} {{done - imported:.4f}} {{len(rows)}}")
"""


def build(db: Path, matches: int, seed_matches: int) -> None:
    """Play `seed_matches` real matches, then copy them (with their records) up to `matches`."""
    store = Store(db)
    started = time.perf_counter()
    arena = Arena(store)
    names = [f"bot-{i}" for i in range(10)]  # ten agents under their own names
    for i, name in enumerate(names):
        arena.catalogue.add(name, arena.catalogue.resolve(AGENTS[i % 2]))
    arena.run_in_own_loop(arena.tournament("spy", names, seed_matches, seed=1, concurrency=16))
    print(f"played {seed_matches} real matches in {time.perf_counter() - started:.1f} s", flush=True)
    store.close()
    started = time.perf_counter()
    conn = sqlite3.connect(db)
    src_matches = conn.execute("SELECT * FROM matches WHERE status='finished' ORDER BY rated").fetchall()
    mcols = [d[0] for d in conn.execute("SELECT * FROM matches LIMIT 0").description]
    seats = {}
    for row in conn.execute("SELECT match_id, seat, position, agent_id, agent_name, version FROM seats"):
        seats.setdefault(row[0], []).append(row[1:])
    events = {}
    for row in conn.execute("SELECT match_id, seq, kind, actor, round, visible_to, text, data, created_at "
                            "FROM events ORDER BY match_id, seq"):
        events.setdefault(row[0], []).append(row[1:])
    records = {}
    rcols = [d[0] for d in conn.execute("SELECT * FROM seat_records LIMIT 0").description]
    for row in conn.execute("SELECT * FROM seat_records"):
        records.setdefault(row[0], []).append(row)
    id_at, rated_at = mcols.index("id"), mcols.index("rated")
    order = len(src_matches)
    copies = matches - len(src_matches)
    batch: dict[str, list] = {"m": [], "s": [], "e": [], "r": []}

    def flush() -> None:
        conn.executemany(f"INSERT INTO matches VALUES ({','.join('?' * len(mcols))})", batch["m"])
        conn.executemany("INSERT INTO seats (match_id, seat, position, agent_id, agent_name, version) "
                         "VALUES (?,?,?,?,?,?)", batch["s"])
        conn.executemany("INSERT INTO events (match_id, seq, kind, actor, round, visible_to, text, data, created_at) "
                         "VALUES (?,?,?,?,?,?,?,?,?)", batch["e"])
        conn.executemany(f"INSERT INTO seat_records VALUES ({','.join('?' * len(rcols))})", batch["r"])
        conn.commit()
        for part in batch.values():
            part.clear()

    for i in range(copies):
        src = src_matches[i % len(src_matches)]
        new_id = f"copy{i:07d}"
        order += 1
        row = list(src)
        row[id_at], row[rated_at] = new_id, order
        batch["m"].append(row)
        batch["s"] += [(new_id, *s) for s in seats[src[id_at]]]
        batch["e"] += [(new_id, *e) for e in events[src[id_at]]]
        rated_col = rcols.index("rated")
        for r in records[src[id_at]]:
            copy = list(r)
            copy[0], copy[rated_col] = new_id, order
            batch["r"].append(copy)
        if len(batch["m"]) >= 2000:
            flush()
    flush()
    conn.close()
    print(f"copied {copies} matches in {time.perf_counter() - started:.1f} s", flush=True)
    started = time.perf_counter()
    rebuilt = rebuild(Store(db, recover=False), "spy")
    print(f"rebuilt totals and ratings from {rebuilt} matches' records in {time.perf_counter() - started:.1f} s",
          flush=True)


def cold_run(db: Path | str) -> tuple[float, float, int]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", COLD.format(root=str(ROOT), db=str(db))], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    wall = time.perf_counter() - started
    return wall, float(out[1]), int(out[2])


def load() -> str:
    return f"load average {os.getloadavg()[0]:.2f} (1 min)"


def timings(db: Path | str, store: Store, repeats: int, label: str) -> dict[str, float]:
    """The leaderboard from a cold process (whole run; the store opened and asked once) and in
    this warm process, medians of `repeats`, printed and returned."""
    colds = [cold_run(db) for _ in range(repeats)]
    got = {"cold": statistics.median(c[0] for c in colds), "call": statistics.median(c[1] for c in colds)}
    print(f"{label}: cold process, whole run (python start + imports + leaderboard), median of {repeats}: "
          f"{got['cold']:.2f} s")
    print(f"{label}: cold process, the leaderboard call alone (store opened, board read): "
          f"{got['call'] * 1000:.1f} ms ({colds[0][2]} rows)")
    warm = []
    for _ in range(repeats):
        started = time.perf_counter()
        board(store, "spy")
        warm.append(time.perf_counter() - started)
    got["warm"] = statistics.median(warm)
    print(f"{label}: warm process, leaderboard: {got['warm'] * 1000:.1f} ms  ({load()})", flush=True)
    return got


def on_postgres(source: Store, url: str | None, repeats: int, sqlite: dict[str, float]) -> None:
    """Copy `source` into an empty PostgreSQL database (a throw-away server's when `url` is
    None), time the copy and the leaderboard there, and print both backends side by side."""
    sys.path.insert(0, str(ROOT / "tests"))
    from space_app.copy_store import copy_store
    from space_app.store import shown_url

    server = None
    if url is None:
        from pg_server import PostgresServer

        server = PostgresServer().start(durable=True)
        url = server.database("board")
    try:
        target = Store(url, recover=False)
        with target.engine.connect() as conn:
            version = conn.exec_driver_sql("SHOW server_version").scalar_one()
        print(f"\nPostgreSQL {version}" + (" (a throw-away server, default settings)" if server else ""), flush=True)
        held = target.count_matches("spy")
        if held and held == source.count_matches("spy"):  # a database this script filled before: reused
            print(f"reusing {shown_url(url)}: it holds the {held} matches already")
        else:
            started = time.perf_counter()
            report = copy_store(source, target, chunk=5000)
            checked = time.perf_counter() - started - report.seconds
            rows = sum(report.copied.values())
            print(f"copy-store to {shown_url(url)}: {rows:,} rows in {report.seconds:.1f} s = "
                  f"{rows / report.seconds:,.0f} rows/s ({report.copied['events']:,} events); counts and standings "
                  f"checked in {checked:.1f} s: {'agree' if report.ok else 'DO NOT AGREE'}  ({load()})", flush=True)
            if not report.ok:
                raise SystemExit("\n".join(report.lines()))
            # the planner's statistics of the new tables now, as autovacuum would give them a minute later
            with target.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.exec_driver_sql("ANALYZE")
        pg = timings(url, target, repeats, "PostgreSQL")
        target.close()
    finally:
        if server is not None:
            server.stop()
    print(f"\n{'leaderboard of ' + str(source.count_matches('spy')) + ' matches':<44}{'SQLite':>10}{'PostgreSQL':>12}")
    print(f"{'cold process, whole run (s)':<44}{sqlite['cold']:>10.2f}{pg['cold']:>12.2f}")
    print(f"{'cold process, store opened + board (ms)':<44}{sqlite['call'] * 1000:>10.1f}{pg['call'] * 1000:>12.1f}")
    print(f"{'warm process, board (ms)':<44}{sqlite['warm'] * 1000:>10.1f}{pg['warm'] * 1000:>12.1f}")
    print(f"goal: under 2 s from a cold process on PostgreSQL: {'met' if pg['cold'] < 2 else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--seed-matches", type=int, default=200)
    parser.add_argument("--old-at", default="2000,10000", help="match counts at which to time main's approach")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--db", help="reuse this store (built when missing)")
    parser.add_argument("--postgres", nargs="?", const="", metavar="URL",
                        help="also copy the store into this empty PostgreSQL database (default: a throw-away "
                             "server's) and time the leaderboard there; a database holding the copy already "
                             "is reused")
    args = parser.parse_args()
    db = Path(args.db) if args.db else Path(tempfile.mkdtemp()) / "leaderboard.db"
    if not db.exists():
        build(db, args.matches, args.seed_matches)
    store = Store(db, recover=False)
    n = store.count_matches("spy")
    size_mb = sum(p.stat().st_size for p in db.parent.glob(db.name + "*")) / 2**20
    with sqlite3.connect(db) as conn:
        events = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    print(f"store: {n} finished matches, {events:,} events, {size_mb:,.0f} MB ({db}); {load()}")

    sqlite = timings(db, store, args.repeats, "SQLite")
    rows = board(store, "spy")

    for at in [int(x) for x in args.old_at.split(",") if x]:
        at = min(at, n)
        matches = (m for i, m in zip(range(at), store.iter_matches("spy", order="rated"), strict=False))
        started = time.perf_counter()
        old = from_matches("spy", matches)
        seconds = time.perf_counter() - started
        print(f"main's approach (load every event, rescore, rate) on {at} matches: {seconds:.2f} s; "
              f"linear to {n}: {seconds * n / at:.0f} s")
        if at == n:
            same = json.dumps(old, sort_keys=True) == json.dumps(rows, sort_keys=True)
            print(f"  the same rows as the stored standings: {same}")
    print(f"goal: leaderboard of {n} matches under 2 s from a cold process: "
          f"{'met' if sqlite['cold'] < 2 else 'NOT met'}")
    if args.postgres is not None:
        on_postgres(store, args.postgres or None, args.repeats, sqlite)


if __name__ == "__main__":
    main()
