"""Write the suite and show its checks: python -m space_app.suites.tom_household_mm --out PATH
[--seed N] [--per-type N]; with --baseline, the word-overlap baseline per input condition."""

from __future__ import annotations

import argparse

from ...stats import Rate
from .lexical import overlap_by_condition
from .suite import PER_TYPE, generate_suite, serialise


def _pct(rate: Rate) -> str:
    low, high = rate.interval or (0.0, 0.0)
    return f"{100 * (rate.value or 0.0):.1f} [{100 * low:.1f}, {100 * high:.1f}] n={rate.n}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m space_app.suites.tom_household_mm", description=__doc__)
    parser.add_argument("--out", help="JSON Lines file to write")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-type", type=int, default=PER_TYPE, help="questions per question type")
    parser.add_argument("--baseline", action="store_true", help="print the word-overlap baseline per condition")
    args = parser.parse_args(argv)
    if args.per_type < 1:
        parser.error("--per-type must be at least 1")
    if not args.out and not args.baseline:
        parser.error("give --out PATH, --baseline, or both")
    items = generate_suite(args.seed, args.per_type)  # every item passed the modality check
    print(f"{len(items)} questions, each answerable with both halves and not with either alone")
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            f.write(serialise(items))
        print(f"wrote {args.out}")
    if args.baseline:
        print("house:overlap (word overlap), accuracy % [95% interval], chance 33.3:")
        print("| condition | belief | social goal | belief of goal | all |\n|---|---|---|---|---|")
        for score in overlap_by_condition(items):
            cells = [_pct(r) for r in score.by_type.values()]
            print(f"| {score.condition} | {' | '.join(cells)} | {_pct(score.all)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
