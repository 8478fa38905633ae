"""Murder-mystery faction matches: wall time and the size of every observation a seat gets.

A faction match (one agent in every innocent seat, another as the murderer) on the longest
shipped script (by the characters of its private scripts), played offline by the naive
retrieval agent. Every observation is measured as the JSON the arena would send to a remote
agent. What must hold: a seat's observation grows with the events of the match (linearly),
never with the square of them, and a long private script is sent whole, not re-read into
every history item.

    python benchmarks/mystery_match.py [--matches 3] [--agent house:mystery-naive] [--script ID]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdk import Agent, Observation, Reply  # noqa: E402
from space_app.games.mystery.catalog import catalog, get_script  # noqa: E402
from space_app.service import Arena, MatchPlan  # noqa: E402
from space_app.store import Store  # noqa: E402


class Measured(Agent):
    """Passes every observation to `inner`, noting its size and step first."""

    def __init__(self, inner: Agent, sizes: list[tuple[str, int, int]]) -> None:
        super().__init__(inner.name)
        self.inner, self.sizes = inner, sizes
        self.games = getattr(inner, "games", ("mystery",))

    def act(self, obs: Observation) -> Reply:
        self.sizes.append((obs.phase, len(obs.history), len(obs.model_dump_json().encode("utf-8"))))
        return self.inner.act(obs)


def longest_script() -> str:
    return max(catalog().scripts, key=lambda sid: sum(len(r.script) for r in get_script(sid).roles))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--agent", default="house:mystery-naive")
    parser.add_argument("--script", default=None, help="default: the longest shipped script")
    args = parser.parse_args()
    script_id = args.script or longest_script()
    script = get_script(script_id)
    players = len(script.roles)
    private = sum(len(r.script) for r in script.roles)
    print(f"script {script_id}: {players} roles, {private:,} characters of private scripts "
          f"(longest role {max(len(r.script) for r in script.roles):,}), agent {args.agent}")

    with tempfile.TemporaryDirectory() as folder:
        arena = Arena(Store(Path(folder) / "bench.db"))
        sizes: list[tuple[str, int, int]] = []
        arena.catalogue.add("measured", Measured(arena.catalogue.resolve(args.agent), sizes))
        walls = []
        for seed in range(args.matches):
            start = time.perf_counter()
            outcome = arena.run_sync(MatchPlan("mystery", ["measured"] * players, seed,
                                               {"script": script_id, "players": players},
                                               tag="bench", role_specs={"murderer": "measured"}))
            walls.append(time.perf_counter() - start)
            assert outcome.status == "finished", outcome.error
    calls = len(sizes) // args.matches
    kb = [s / 1024 for _, _, s in sizes]
    print(f"{args.matches} matches: wall time median {statistics.median(walls):.2f} s "
          f"(min {min(walls):.2f}, max {max(walls):.2f}); {calls} calls per match")
    print(f"observation size per call: median {statistics.median(kb):.1f} KiB, max {max(kb):.1f} KiB, "
          f"total per match {sum(kb) / args.matches / 1024:.2f} MiB")
    # growth: size against the number of history items, split into the match's quarters
    by_history = sorted(sizes, key=lambda x: x[1])
    quarter = max(1, len(by_history) // 4)
    print("history items -> median observation size (KiB):")
    for i in range(0, len(by_history), quarter):
        part = by_history[i:i + quarter]
        print(f"  {part[0][1]:>4}-{part[-1][1]:<4} items: {statistics.median(s for _, _, s in part) / 1024:7.1f}")
    first, middle, last = by_history[0], by_history[len(by_history) // 2], by_history[-1]

    def rate(a: tuple[str, int, int], b: tuple[str, int, int]) -> float:
        return (b[2] - a[2]) / max(1, b[1] - a[1])

    print(f"growth per history item: {rate(first, middle):.0f} bytes in the first half, {rate(middle, last):.0f} "
          f"in the second (equal: linear; a growing figure would mean a quadratic term); first observation "
          f"{first[2] / 1024:.1f} KiB with {first[1]} items, last {last[2] / 1024:.1f} KiB with {last[1]}")

if __name__ == "__main__":
    main()
