"""What inspectable calls cost: the bytes an LLMAgent's model calls add to a match's stored
events, the time to rebuild every call's observation by replaying a match (the first opening of
a replay's call panel; later steps are cached), and the size and the write/read time of a run log.

    python benchmarks/calls_view.py

Every seat is an LLMAgent on a scripted model (so the prompts are the real ones the arena
builds, with no model time), one Who is the Spy match (6 players) and one Avalon match
(7 players) each; medians of 9 runs for the timings."""

from __future__ import annotations

import asyncio
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdk import LLMAgent  # noqa: E402
from sdk.callers.scripted import scripted_caller  # noqa: E402
from space_app.calls import _OBSERVED, observations  # noqa: E402
from space_app.run_log import read_log, write_log  # noqa: E402
from space_app.runner import SeatAgent  # noqa: E402
from space_app.service import Arena, MatchPlan  # noqa: E402
from space_app.store import Store  # noqa: E402

RUNS = 9
REPLY = "It is found in most homes. Final answer: P2"


def median_ms(fn) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    root = Path(tempfile.mkdtemp())
    store = Store(str(root / "bench.db"))
    ids = []
    for game, n, seed in (("spy", 6, 1), ("avalon", 7, 2)):
        seats = {f"P{i}": SeatAgent(LLMAgent(scripted_caller([REPLY]), name="llm"), "llm", "llm")
                 for i in range(1, n + 1)}
        plan = MatchPlan(game=game, seats=["house:random"] * n, seed=seed, tag="bench-calls",
                         settings={"players": n})
        out = asyncio.run(Arena(store).run(plan, extra_agents=seats))
        ids.append(out.match_id)
    print(f"{'match':<22}{'calls':>7}{'events KB':>11}{'of it model_calls KB':>22}{'observations ms':>17}")
    for match_id in ids:
        match = store.get_match(match_id)
        calls = [e for e in match["events"] if e["kind"] == "call"]
        whole = len(json.dumps(match["events"], ensure_ascii=False).encode())
        model = sum(len(json.dumps(c["data"].get("model_calls"), ensure_ascii=False).encode()) for c in calls)

        def rebuild(match: dict = match, expected: int = len(calls)) -> None:
            _OBSERVED.clear()  # the first opening: no cached replay
            found, note = observations(match)
            assert len(found) == expected, note

        print(f"{match['game'] + ' ' + match_id:<22}{len(calls):>7}{whole / 1000:>11.1f}{model / 1000:>22.1f}"
              f"{median_ms(rebuild):>17.1f}")
    matches = [store.get_match(i) for i in ids]
    text = io.StringIO()
    write = median_ms(lambda: write_log(io.StringIO(), matches, {"tag": "bench-calls", "match": None, "game": None}))
    write_log(text, matches, {"tag": "bench-calls", "match": None, "game": None})
    lines = text.getvalue().splitlines()
    read = median_ms(lambda: read_log(lines))
    print(f"run log of both: {len(lines)} lines, {len(text.getvalue().encode()) / 1000:.1f} KB; "
          f"write {write:.1f} ms, read and validate {read:.1f} ms")


if __name__ == "__main__":
    main()
