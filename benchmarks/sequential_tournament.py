"""Tournaments that stop when the answer is known, against fixed-size ones.

For each seed: `tournament --until-separated` between two agents of known different strength
(house:heuristic and house:random seated together in Who is the Spy; a deal is two matches),
with a budget of B matches and a look every 10 deals; then the fixed-size tournament of all B
matches on the same deals (it replays the stopped run's matches from the store and plays the
rest), read with an exact sign test on its deals; then the same sequential rule between two
equally strong agents that still differ deal by deal (the random agent, each copy voting from
its own random stream, house:heuristic filling the other seats; a deal is six matches: the
line-up and its swap), which should run to its budget and claim nothing. Prints, per seed and
as medians, the matches each played, the conclusions and the wall time.

`python benchmarks/sequential_tournament.py [--seeds 5] [--budget 400] [--twin-budget 300]`
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.sequential_compare import TWINS, arena_with_twins  # noqa: E402
from space_app.stats import sign_test  # noqa: E402
from space_app.tournament_stop import TournamentRule, stopping_tournament  # noqa: E402

STRONG, WEAK = "house:heuristic", "house:random"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=400, help="matches, heuristic against random")
    parser.add_argument("--twin-budget", type=int, default=300, help="matches, the two equal agents")
    parser.add_argument("--every", type=int, default=10, help="deals between looks")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        arena = arena_with_twins(tmp)
        for seed in range(args.seeds):
            tag = f"bench:{seed}"
            started = time.perf_counter()
            seq = arena.run_in_own_loop(stopping_tournament(
                arena, "spy", [STRONG, WEAK], TournamentRule(args.budget, separate=(STRONG, WEAK), every=args.every),
                seed=seed, tag=tag))
            seq_seconds = time.perf_counter() - started
            started = time.perf_counter()
            # one look, at the end: every deal of the budget (the stopped run's from the store)
            fixed = arena.run_in_own_loop(stopping_tournament(
                arena, "spy", [STRONG, WEAK], TournamentRule(args.budget, separate=(STRONG, WEAK),
                                                             every=args.budget), seed=seed, tag=tag))
            fixed_seconds = time.perf_counter() - started
            plus, minus = sum(d > 0 for d in fixed.diffs), sum(d < 0 for d in fixed.diffs)
            p = sign_test(plus, minus)
            verdict = "no difference" if p >= 0.05 else (f"{STRONG} better" if plus > minus else f"{WEAK} better")
            twins = arena.run_in_own_loop(stopping_tournament(
                arena, "spy", [*TWINS, STRONG], TournamentRule(args.twin_budget, separate=TWINS, every=args.every),
                seed=seed, tag=f"twins:{seed}"))
            rows.append({"seed": seed, "seq": seq.matches, "seq_stop": seq.stopped, "seq_s": seq_seconds,
                         "fixed": fixed.matches, "fixed_verdict": verdict, "p": p, "fixed_extra_s": fixed_seconds,
                         "twins": twins.matches, "twin_stop": twins.stopped,
                         "twin_last": twins.looks[-1].pair if twins.looks else None})
            r = rows[-1]
            last = r["twin_last"]
            print(f"seed {seed}: sequential {r['seq']} matches ({r['seq_stop']}, {r['seq_s']:.1f} s); "
                  f"fixed {r['fixed']} matches: {verdict} (p = {p:.2g}; +{fixed_seconds:.1f} s for its other "
                  f"matches); twins {r['twins']} matches ({r['twin_stop']}"
                  + (f"; evidence {last.evidence:.2g}, interval [{last.low:+.3f}, {last.high:+.3f}])" if last else ")"),
                  flush=True)
    agree = sum(r["seq_stop"].endswith(r["fixed_verdict"]) for r in rows)
    median = statistics.median(r["seq"] for r in rows)
    print(f"\nmedian matches: sequential {median:g}, fixed {args.budget} (ratio {median / args.budget:.2f}); "
          f"same conclusion on {agree} of {len(rows)} seeds")
    claimed = sum("no difference claimed" not in r["twin_stop"] for r in rows)
    print(f"identical agents: median {statistics.median(r['twins'] for r in rows):g} matches, "
          f"a difference claimed on {claimed} of {len(rows)} seeds")


if __name__ == "__main__":
    main()
