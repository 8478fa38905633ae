"""The kernel's cost, before and after: start-up (what `import space_app.store` and the CLI
load, and how long they take) and a house tournament written to a fresh store then verified,
for this checkout and for another one (e.g. the commit before the kernel moved), in one run.

    git worktree add --detach /tmp/before <commit>
    python benchmarks/kernel.py --before /tmp/before [--matches 2000] [--repeats 7] [--rounds 3]
    python benchmarks/kernel.py --before /tmp/before --startup-only [--bytecode cached]

Every figure is measured in a fresh interpreter whose working directory is the checkout, so
each side imports its own code. The two sides take turns (before, after, before, ...) and each
figure is the median of its side: this machine's speed drifts by a quarter from one minute to
the next, so one side measured after the other would compare the drift.

`--bytecode` says whether the interpreters may use `.pyc` files: `as-set` keeps the environment
(where PYTHONDONTWRITEBYTECODE is set, every run compiles every module it imports from source),
`cached` lets them write and read `__pycache__` (one untimed run of each command first), as an
installed package runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

LOADED = """
import json, sys, time
started = time.perf_counter()
import space_app.store
took = time.perf_counter() - started
names = sorted(sys.modules)
print(json.dumps({"seconds": took, "modules": len(names),
                  "games": sum(n.startswith("space_app.games.") for n in names),
                  "PIL": any(n == "PIL" or n.startswith("PIL.") for n in names),
                  "pandas": any(n == "pandas" for n in names)}))
"""

TOURNAMENT = """
import json, sys, time
from space_app.service import Arena
from space_app.store import Store
from space_app.verify import verify_match
store = Store(sys.argv[1])
arena = Arena(store)
started = time.perf_counter()
arena.run_in_own_loop(arena.tournament("spy", ["house:heuristic", "house:random"], int(sys.argv[2]),
                                       seed=0, concurrency=16))
played = time.perf_counter() - started
started = time.perf_counter()
verdicts = {}
for match in store.iter_matches("spy", status=None):
    v = verify_match(match).verdict
    verdicts[v] = verdicts.get(v, 0) + 1
verified = time.perf_counter() - started
print(json.dumps({"tournament": played, "verify": verified, "verdicts": verdicts}))
"""


ENV = dict(os.environ)  # what every measured interpreter gets (see --bytecode)


def run(checkout: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=checkout, capture_output=True, text=True, env=ENV)


def timed(checkout: Path, args: list[str]) -> float:
    """Wall time of one whole command (interpreter start included)."""
    started = time.perf_counter()
    done = run(checkout, args)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return time.perf_counter() - started


COMMANDS = {"import space_app.store (s)": ["-c", "import space_app.store"],
            "python -m space_app --help (s)": ["-m", "space_app", "--help"],
            "python -m space_app verify --help (s)": ["-m", "space_app", "verify", "--help"],
            "python -m space_app match --help (s)": ["-m", "space_app", "match", "--help"],
            "python -m space_app tournament --help (s)": ["-m", "space_app", "tournament", "--help"]}

HELP_LOADS = """
import json, sys
from space_app.cli import main
try:
    main(["--help"])
except SystemExit:
    pass
names = sorted(sys.modules)
print(json.dumps({"modules": len(names), "games": sum(n.startswith("space_app.games.") for n in names)}))
"""


def startup(sides: dict[str, Path], repeats: int) -> dict[str, dict[str, object]]:
    times: dict[str, dict[str, list[float]]] = {side: {key: [] for key in COMMANDS} for side in sides}
    if "PYTHONDONTWRITEBYTECODE" not in ENV:  # --bytecode cached: write each side's .pyc files first
        for path in sides.values():
            for args in COMMANDS.values():
                timed(path, args)
    for _ in range(repeats):
        for key, args in COMMANDS.items():
            for side, path in sides.items():  # the sides take turns
                times[side][key].append(timed(path, args))
    out: dict[str, dict[str, object]] = {}
    for side, path in sides.items():
        loaded = json.loads(run(path, ["-c", LOADED]).stdout)
        helped = json.loads(run(path, ["-c", HELP_LOADS]).stdout.splitlines()[-1])
        out[side] = {key: statistics.median(values) for key, values in times[side].items()}
        out[side].update({"modules loaded by the store": loaded["modules"],
                          "game modules among them": loaded["games"], "PIL": loaded["PIL"],
                          "pandas": loaded["pandas"], "modules loaded by --help": helped["modules"],
                          "game modules loaded by --help": helped["games"]})
    return out


def tournament(checkout: Path, matches: int) -> dict[str, object]:
    db = Path(tempfile.mkdtemp()) / "kernel.db"
    done = run(checkout, ["-c", TOURNAMENT, str(db), str(matches)])
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: tournament failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the code to compare with")
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3, help="tournaments per side, taking turns")
    parser.add_argument("--startup-only", action="store_true", help="the start-up figures alone (no tournament)")
    parser.add_argument("--tournament-only", action="store_true",
                        help="the tournament and verify figures alone (no start-up figures)")
    parser.add_argument("--bytecode", choices=["as-set", "cached"], default="as-set",
                        help="as-set: the environment's PYTHONDONTWRITEBYTECODE as it is (default); cached: "
                             "interpreters write and read __pycache__")
    args = parser.parse_args()
    if args.bytecode == "cached":
        ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    sides = {"before": args.before.resolve(), "after": ROOT}
    compiled = "from .pyc files" if "PYTHONDONTWRITEBYTECODE" not in ENV else "compiled from source (no .pyc)"
    print(f"python {sys.version.split()[0]}; median of {args.repeats} fresh interpreters per start-up figure; "
          f"modules {compiled}\n")
    if not args.tournament_only:
        ups = startup(sides, args.repeats)
        print(f"{'start-up':44} {'before':>10} {'after':>10}")
        for key in ups["after"]:
            b, a = ups["before"][key], ups["after"][key]
            show = (lambda v: f"{v:10.3f}") if isinstance(a, float) else (lambda v: f"{v!s:>10}")
            print(f"{key:44} {show(b)} {show(a)}")
        for key in COMMANDS:
            print(f"{key}: {ups['before'][key] / ups['after'][key]:.2f}x faster after")
    if args.startup_only:
        return
    print(f"\n{args.matches}-match house tournament into a fresh SQLite store, then verify every match "
          f"(median of {args.rounds} per side, the sides taking turns)")
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in sides}
    for _ in range(args.rounds):
        for name, path in sides.items():
            runs[name].append(tournament(path, args.matches))
    for key in ("tournament", "verify"):
        b = statistics.median(r[key] for r in runs["before"])
        a = statistics.median(r[key] for r in runs["after"])
        each = "; ".join(f"{n}: {', '.join(f'{r[key]:.1f}' for r in runs[n])}" for n in sides)
        print(f"{key:12} before {b:7.1f} s   after {a:7.1f} s   after/before {a / b:.3f}   ({each})")
    print(f"verdicts: before {runs['before'][-1]['verdicts']}, after {runs['after'][-1]['verdicts']}")


if __name__ == "__main__":
    main()
