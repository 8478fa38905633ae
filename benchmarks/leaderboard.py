"""Leaderboard over a large store: the stored standings (records, totals, ratings) against
main's approach before them (read every event, rescore every match, rate them all).

Builds a store of N finished spy matches from copies of real ones (a house tournament of
`--seed-matches`, copied with new ids: matches, seats, events and their per-seat records),
rebuilds the totals and ratings from the records, then times, in one run:

- the leaderboard from a cold process (a fresh `python` that imports the arena, opens the
  store and asks for the leaderboard once), median of `--repeats`;
- the same call in a warm process;
- the recomputation from events (main's approach), on the first `--old-at` matches.

    python benchmarks/leaderboard.py [--matches 100000] [--old-at 2000,10000] [--db PATH]
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
    for row in conn.execute("SELECT match_id, seat, position, agent_id, agent_name FROM seats"):
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
        conn.executemany("INSERT INTO seats VALUES (?,?,?,?,?)", batch["s"])
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


def cold_run(db: Path) -> tuple[float, float, int]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", COLD.format(root=str(ROOT), db=str(db))], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    wall = time.perf_counter() - started
    return wall, float(out[1]), int(out[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--seed-matches", type=int, default=200)
    parser.add_argument("--old-at", default="2000,10000", help="match counts at which to time main's approach")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--db", help="reuse this store (built when missing)")
    args = parser.parse_args()
    db = Path(args.db) if args.db else Path(tempfile.mkdtemp()) / "leaderboard.db"
    if not db.exists():
        build(db, args.matches, args.seed_matches)
    store = Store(db, recover=False)
    n = store.count_matches("spy")
    size_mb = sum(p.stat().st_size for p in db.parent.glob(db.name + "*")) / 2**20
    with sqlite3.connect(db) as conn:
        events = conn.execute("SELECT count(*) FROM events").fetchone()[0]
    print(f"store: {n} finished matches, {events:,} events, {size_mb:,.0f} MB ({db})")

    colds = [cold_run(db) for _ in range(args.repeats)]
    print(f"cold process, whole run (python start + imports + leaderboard), median of {args.repeats}: "
          f"{statistics.median(c[0] for c in colds):.2f} s")
    print(f"cold process, the leaderboard call alone: {statistics.median(c[1] for c in colds) * 1000:.1f} ms "
          f"({colds[0][2]} rows)")
    warm = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        rows = board(store, "spy")
        warm.append(time.perf_counter() - started)
    print(f"warm process, leaderboard: {statistics.median(warm) * 1000:.1f} ms")

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
          f"{'met' if statistics.median(c[0] for c in colds) < 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
