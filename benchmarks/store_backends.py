"""Store backends: a house tournament written into SQLite and into PostgreSQL.

The same tournament (house:heuristic against house:random, balanced seating, the same
seeds) is played once into a new SQLite file and once into an empty PostgreSQL database,
each in a fresh process, so each figure includes everything a real run writes: every step's
events in its own transaction, the match row, and the per-seat records, totals and ratings
kept when each match ends. Printed per backend: matches per second (wall), the process's
CPU seconds per match, and how much the store grew on disk. PostgreSQL runs twice: with its
default durable commits (each commit waits for the server's WAL flush), and with
`synchronous_commit=off` set by the URL (a server crash may lose the last commits, never
corrupts). Then a check that the stores hold the same matches and win rates.

Without --postgres a throw-away server is started from Debian's PostgreSQL binaries, as
the tests do (tests/pg_server.py).

    python benchmarks/store_backends.py [--matches 2000] [--concurrency 16] [--postgres URL]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

RUN = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from space_app.service import Arena
from space_app.store import Store

store = Store({target!r})
arena = Arena(store)
started, cpu = time.perf_counter(), time.process_time()
outcomes = arena.run_in_own_loop(arena.tournament(
    "spy", ["house:heuristic", "house:random"], {matches}, seed=1, concurrency={concurrency}))
print(json.dumps({{"seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
                  "finished": sum(o.status == "finished" for o in outcomes)}}))
"""


def run(target: str, matches: int, concurrency: int) -> dict[str, float]:
    code = RUN.format(root=str(ROOT), target=target, matches=matches, concurrency=concurrency)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def size_of(target: str) -> int:
    from sqlalchemy import create_engine, text

    if "://" not in target:
        return sum(p.stat().st_size for p in Path(target).parent.glob(Path(target).name + "*"))
    engine = create_engine(target)
    with engine.connect() as conn:
        size = int(conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one())
    engine.dispose()
    return size


def outcomes(target: str) -> dict[str, tuple[int, str]]:
    """Per agent: matches and win rate (ratings depend on the order matches happened to end
    in, which concurrency leaves free; these do not)."""
    from space_app.leaderboard import board
    from space_app.store import Store

    store = Store(target, recover=False)
    rows = {r["agent"]: (r["matches"], str(r["win_rate"])) for r in board(store, "spy")}
    store.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--postgres", nargs=2, metavar="URL",
                    help="two empty PostgreSQL databases (default: start a throw-away server)")
    args = ap.parse_args()

    import psycopg
    import sqlalchemy

    print(f"python {platform.python_version()}, {platform.platform()}, {os.cpu_count()} CPUs; "
          f"SQLAlchemy {sqlalchemy.__version__}, psycopg {psycopg.__version__}")
    print(f"load average at start: {os.getloadavg()[0]:.2f} (1 min)")
    server = None
    if args.postgres:
        postgres, other = args.postgres
    else:
        from pg_server import PostgresServer

        server = PostgresServer().start(durable=True)
        postgres, other = server.database("bench"), server.database("bench")
    lazy = other + ("&" if "?" in other else "?") + "options=-c%20synchronous_commit%3Doff"
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = str(Path(tmp) / "arena.db")
        try:
            with psycopg.connect(postgres.replace("+psycopg", ""), autocommit=True) as conn:
                print(f"PostgreSQL {conn.execute('SHOW server_version').fetchone()[0]}"
                      + (" (a throw-away server, default settings: fsync and synchronous_commit on)" if server else ""))
            print(f"\n{args.matches}-match spy tournament, house:heuristic vs house:random, "
                  f"{args.concurrency} matches in flight, each backend in a fresh process\n")
            print(f"{'backend':<40}{'matches/s':>10}{'CPU ms/match':>14}{'size grown':>13}{'finished':>10}")
            rows = (("SQLite (WAL, synchronous=NORMAL)", sqlite), ("PostgreSQL (default)", postgres),
                    ("PostgreSQL (synchronous_commit=off)", lazy))
            for name, target in rows:
                empty = size_of(target) if "://" in target else 0  # a new PostgreSQL database is ~7 MB
                got = run(target, args.matches, args.concurrency)
                size = size_of(target) - empty
                print(f"{name:<40}{args.matches / got['seconds']:>10.1f}{1000 * got['cpu'] / args.matches:>14.1f}"
                      f"{size / 2**20:>10.1f} MB{int(got['finished']):>10}", flush=True)
            same = outcomes(sqlite) == outcomes(postgres) == outcomes(lazy)
            print(f"\nmatches and win rates per agent in the three stores: {'identical' if same else 'DIFFERENT'}")
        finally:
            if server is not None:
                server.stop()
    print(f"load average at end: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
