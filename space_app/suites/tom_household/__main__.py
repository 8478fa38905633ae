"""Regenerate the suite: python -m space_app.suites.tom_household --out PATH [--seed N] [--per-type N]."""

from __future__ import annotations

import argparse

from .suite import write_suite


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m space_app.suites.tom_household", description=__doc__)
    parser.add_argument("--out", required=True, help="JSON Lines file to write")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-type", type=int, default=200, help="questions per question type")
    args = parser.parse_args(argv)
    if args.per_type < 1:
        parser.error("--per-type must be at least 1")
    n = write_suite(args.out, seed=args.seed, per_type=args.per_type)
    print(f"wrote {n} questions to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
