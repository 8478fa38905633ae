"""What signing costs a records dataset: build a store of N house-agent spy matches (a real
tournament), then time, per match line, writing it signed, checking its signature, and
importing it into a fresh store (what a restore does with each line), median of a few passes.

    python benchmarks/signed_records.py [--matches 500] [--db PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from space_app.service import Arena  # noqa: E402
from space_app.signed_records import RecordSigner  # noqa: E402
from space_app.store import Store  # noqa: E402


def timed(fn, repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=500)
    parser.add_argument("--db", help="reuse this store (built if it has fewer matches)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp())
    db = Path(args.db) if args.db else work / "signed.db"
    store = Store(db)
    have = store.count_matches("spy")
    if have < args.matches:
        started = time.perf_counter()
        arena = Arena(store)
        arena.run_in_own_loop(arena.tournament("spy", ["house:heuristic", "house:random"], args.matches - have,
                                               seed=have, concurrency=16))
        print(f"built {args.matches - have} matches in {time.perf_counter() - started:.1f} s")
    records = list(store.iter_matches("spy"))[: args.matches]
    signer = RecordSigner(b"a-records-key-for-the-benchmark-0123456789")
    lines: list[str] = []

    def sign() -> None:
        lines[:] = [signer.line("matches", r) for r in records]

    def plain() -> None:  # what writing cost before lines were signed
        for r in records:
            json.dumps(r, ensure_ascii=False, sort_keys=True, default=str)

    def check() -> None:
        for line in lines:
            assert signer.check("matches", json.loads(line)) == "verified"

    def parse() -> None:
        for line in lines:
            json.loads(line)

    n = len(records)
    size_mb = sum(len(x.encode()) for x in (lines or [signer.line("matches", r) for r in records])) / 2**20
    t_plain, t_sign = timed(plain, args.repeats), timed(sign, args.repeats)
    t_parse, t_check = timed(parse, args.repeats), timed(check, args.repeats)
    fresh = Store(work / "fresh.db")
    started = time.perf_counter()
    for line in lines:
        fresh.import_match(json.loads(line), origin="dataset")
    t_import = time.perf_counter() - started
    per = 1000 / n
    print(f"{n} match lines, {size_mb:.1f} MB signed ({size_mb * 2**20 / n / 1024:.1f} kB a line), "
          f"median of {args.repeats}")
    print(f"write a line: {t_plain * per:.2f} ms unsigned, {t_sign * per:.2f} ms signed")
    print(f"read a line:  {t_parse * per:.2f} ms parse, {t_check * per:.2f} ms parse + check signature")
    print(f"import a line into a fresh SQLite store: {t_import * per:.2f} ms (one pass)")
    print(f"signature check as a share of a restore's per-line work: "
          f"{(t_check - t_parse) / (t_check + t_import) * 100:.0f}%")


if __name__ == "__main__":
    main()
