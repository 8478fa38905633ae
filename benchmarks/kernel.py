"""The kernel's cost, before and after: start-up (what `import space_app.store` and the CLI
load, and how long they take) and a house tournament written to a fresh store then verified,
for this checkout and for another one (e.g. the commit before the kernel moved), in one run.

    git worktree add --detach /tmp/before <commit>
    python benchmarks/kernel.py --before /tmp/before [--matches 2000] [--repeats 7]

Every figure is measured in a fresh interpreter whose working directory is the checkout, so
each side imports its own code.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def run(checkout: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=checkout, capture_output=True, text=True)


def seconds(checkout: Path, args: list[str], repeats: int) -> float:
    """Median wall time of a whole command (interpreter start included)."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        done = run(checkout, args)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"{checkout}: {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return statistics.median(times)


def startup(checkout: Path, repeats: int) -> dict[str, object]:
    loaded = json.loads(run(checkout, ["-c", LOADED]).stdout)
    return {"import space_app.store (s)": seconds(checkout, ["-c", "import space_app.store"], repeats),
            "python -m space_app verify --help (s)": seconds(checkout, ["-m", "space_app", "verify", "--help"],
                                                             repeats),
            "modules loaded by the store": loaded["modules"],
            "game modules among them": loaded["games"], "PIL": loaded["PIL"], "pandas": loaded["pandas"]}


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
    args = parser.parse_args()
    sides = {"before": args.before.resolve(), "after": ROOT}
    print(f"python {sys.version.split()[0]}; median of {args.repeats} fresh interpreters per start-up figure\n")
    ups = {name: startup(path, args.repeats) for name, path in sides.items()}
    print(f"{'start-up':44} {'before':>10} {'after':>10}")
    for key in ups["after"]:
        b, a = ups["before"][key], ups["after"][key]
        show = (lambda v: f"{v:10.3f}") if isinstance(a, float) else (lambda v: f"{v!s:>10}")
        print(f"{key:44} {show(b)} {show(a)}")
    for key in ("import space_app.store (s)", "python -m space_app verify --help (s)"):
        print(f"{key}: {ups['before'][key] / ups['after'][key]:.2f}x faster after")
    print(f"\n{args.matches}-match house tournament into a fresh SQLite store, then verify every match")
    runs = {name: tournament(path, args.matches) for name, path in sides.items()}
    for key in ("tournament", "verify"):
        b, a = runs["before"][key], runs["after"][key]
        print(f"{key:12} before {b:7.1f} s   after {a:7.1f} s   after/before {a / b:.3f}")
    print(f"verdicts: before {runs['before']['verdicts']}, after {runs['after']['verdicts']}")


if __name__ == "__main__":
    main()
