"""How fast `verify` replays stored matches: build a store of N house-agent spy matches
(a real tournament), then time `verify_match` over every one of them, in one run.

    python benchmarks/verify_store.py [--matches 2000] [--db PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from space_app.service import Arena  # noqa: E402
from space_app.store import Store  # noqa: E402
from space_app.verify import verify_match  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--db", help="reuse this store (built if it has fewer matches)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    db = Path(args.db) if args.db else Path(tempfile.mkdtemp()) / "verify.db"
    store = Store(db)
    have = store.count_matches("spy")
    if have < args.matches:
        started = time.perf_counter()
        arena = Arena(store)
        arena.run_in_own_loop(arena.tournament("spy", ["house:heuristic", "house:random"], args.matches - have,
                                               seed=have, concurrency=16))
        print(f"built {args.matches - have} matches in {time.perf_counter() - started:.1f} s")
    size_mb = db.stat().st_size / 2**20
    events = 0
    runs = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        verdicts: dict[str, int] = {}
        n = 0
        events = 0
        for match in store.iter_matches("spy", status=None):
            verdict = verify_match(match).verdict
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            n += 1
            events += len(match["events"])
        runs.append((time.perf_counter() - started, n, verdicts))
    seconds = statistics.median(r[0] for r in runs)
    n, verdicts = runs[0][1], runs[0][2]
    print(f"store: {n} matches, {events} events, {size_mb:.1f} MB ({db})")
    print(f"verify (load + replay + compare), median of {args.repeats}: {seconds:.2f} s = {n / seconds:.0f} matches/s "
          f"({events / seconds:,.0f} events/s); verdicts: {verdicts}")


if __name__ == "__main__":
    main()
