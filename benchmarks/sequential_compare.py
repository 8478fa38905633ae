"""Comparisons that stop when the answer is known, against fixed-size ones.

For each seed: `compare --until-separated` (budget B deals, a look every 20) between two
agents of known different strength (house:heuristic against house:random in Who is the
Spy), and the fixed-size comparison of all B deals on the same deals with its sign test;
then the same sequential rule between two agents of one strength that still differ deal by
deal (the random agent, each copy drawing from its own random stream: house agents otherwise
play a deal identically and every pair would tie), which should run to its budget and claim
nothing. Prints, per seed and as medians,
the deals each played, the conclusions and the wall time.

`python benchmarks/sequential_compare.py [--seeds 5] [--budget 300]`
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sdk import Observation  # noqa: E402
from space_app.compare import compare  # noqa: E402
from space_app.games.spy.agents import RandomAgent  # noqa: E402
from space_app.sequential import StopRule  # noqa: E402
from space_app.service import Arena  # noqa: E402
from space_app.store import Store  # noqa: E402


class OwnStreamRandom(RandomAgent):
    """The random agent voting from its own stream: two copies are equally strong, and differ."""

    def __init__(self, name: str, seed: int) -> None:
        super().__init__(name)
        self.stream = random.Random(seed)

    def vote(self, obs: Observation) -> str:
        return ", ".join(self.stream.sample(obs.options, obs.pick))


TWINS = ("twin-a", "twin-b")


def arena_with_twins(folder: str) -> Arena:
    """An arena on a new store in `folder` whose catalogue holds the two equal agents `TWINS`."""
    arena = Arena(Store(Path(folder) / "seq.db"))
    for k, name in enumerate(TWINS):
        arena.catalogue.add(name, OwnStreamRandom(name, k))
    return arena


def conclusion(summary: dict) -> str:
    """The fixed-size run's conclusion at 5%: its sign test, and its interval's side."""
    if summary["p_value"] >= 0.05:
        return "no difference"
    return "A better" if summary["a_better"] > summary["b_better"] else "B better"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=300)
    args = parser.parse_args()
    rule = StopRule(separated=True, every=20)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        arena = arena_with_twins(tmp)
        for seed in range(args.seeds):
            started = time.perf_counter()
            seq = arena.run_in_own_loop(compare(arena, "house:heuristic", "house:random", "spy", args.budget,
                                                seed=seed, stop=rule))
            seq_seconds = time.perf_counter() - started
            started = time.perf_counter()  # the fixed run replays the sequential run's deals from the store
            fixed = arena.run_in_own_loop(compare(arena, "house:heuristic", "house:random", "spy", args.budget,
                                                  seed=seed))
            fixed_seconds = time.perf_counter() - started  # its deals past the sequential stop only
            # against the heuristic agent the random seat's vote decides some deals (against
            # random opponents it never does, and every pair would tie)
            twins = arena.run_in_own_loop(compare(arena, *TWINS, "spy", args.budget, seed=seed,
                                                  opponents=["house:heuristic"], stop=rule))
            s, f, t = seq.to_dict()["sequential"], fixed.summary(), twins.to_dict()["sequential"]
            rows.append({"seed": seed, "seq_deals": s["deals"], "seq_stop": s["stopped"],
                         "fixed_deals": f["deals"], "fixed": conclusion(f), "fixed_p": f["p_value"],
                         "twin_deals": t["deals"], "twin_stop": t["stopped"],
                         "seq_s": seq_seconds, "fixed_extra_s": fixed_seconds})
            r = rows[-1]
            print(f"seed {seed}: sequential {r['seq_deals']} deals ({r['seq_stop']}, {r['seq_s']:.1f} s); "
                  f"fixed {r['fixed_deals']} deals: {r['fixed']} (p = {r['fixed_p']:.2g}; "
                  f"+{r['fixed_extra_s']:.1f} s for its other deals); "
                  f"twins {r['twin_deals']} deals ({r['twin_stop']})", flush=True)
    agree = sum(r["seq_stop"].endswith(r["fixed"]) for r in rows)
    print(f"\nmedian deals: sequential {statistics.median(r['seq_deals'] for r in rows):g}, "
          f"fixed {args.budget} (ratio {statistics.median(r['seq_deals'] for r in rows) / args.budget:.2f}); "
          f"same conclusion on {agree} of {len(rows)} seeds")
    claimed = sum(not r["twin_stop"].startswith("budget spent: no difference") for r in rows)
    print(f"identical agents: median {statistics.median(r['twin_deals'] for r in rows):g} deals, "
          f"a difference claimed on {claimed} of {len(rows)} seeds")


if __name__ == "__main__":
    main()
