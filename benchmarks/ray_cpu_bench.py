"""Batch engines, CPU-bound: questions of the generated ToM suite (`tom-household`) answered by
`house:limp-local` (inverse planning on the embedded model's log-probabilities), in one
process and on a local Ray instance with 2 workers, each into a fresh SQLite store.

The in-process run is `bench tom-household --agent house:limp-local --limit N --concurrency 1`
(the model answers one question at a time, on ARENA_LOCAL_THREADS threads, 2 by default); the
Ray run is the same with `--engine ray --workers 2 --num-cpus 2`, one question at a time per
worker, each worker's model on the one CPU Ray gave it. Both go through `run_suite`, as the
command does.

Figures, per engine:
- wall: the whole `run_suite` call; on Ray also the workers' start (a process each, the arena
  imported, the store opened, before the first question) and the wall after it;
- CPU seconds: this process's (the driver; in process it is also the model's), plus on Ray each
  worker's own (`time.process_time()` read inside the worker: every thread of its process) and
  Ray's daemons (raylet, GCS; from /proc through psutil);
- CPU seconds per question, the workers' start left out: the figure the machine's other load
  does not move much (a busy machine makes the wall time longer, not the work);
- the per-question median: each answer's stored latency (the call as the runner timed it);
- agreement: the agent is deterministic (greedy log-probabilities), so both runs must give
  the same answer to every question;
- model loads: counted by the embedded model's loader (`sdk.callers.local.local_model_loads`),
  in this process for the in-process run and in each worker for Ray.

The load average is printed before and after: the machine may be shared.

    python benchmarks/ray_cpu_bench.py [--questions 60] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from ray_engine import ray_daemon_cpu  # noqa: E402  (the I/O-bound benchmark's count of Ray's own CPU)

SUITE = "tom-household"
AGENT = "house:limp-local"


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(engine_name: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    from sdk.callers.local import local_model_loads
    from space_app.engines import open_engine
    from space_app.service import Arena
    from space_app.store import Store
    from space_app.suites import open_suite
    from space_app.suites.run import run_suite

    suite = open_suite(SUITE)
    engine = None
    if engine_name == "ray":
        engine = open_engine("ray", concurrency=1, workers=args.workers, num_cpus=args.workers)
    store = Store(folder / f"{engine_name}.db")
    arena = Arena(store, engine=engine)
    arena.catalogue.check_plays(AGENT, suite.game)
    # in process the agent is this process's; on Ray each worker resolves it from the store
    agent = None if engine else arena.catalogue.resolve(AGENT)
    loads_before = sum(local_model_loads().values())
    daemons = ray_daemon_cpu() if engine else 0.0
    cpu = time.process_time()
    started = time.perf_counter()
    scores = arena.run_in_own_loop(run_suite(store, suite, agent, AGENT, limit=args.questions, concurrency=1,
                                             seconds=args.seconds, engine=engine))
    wall = time.perf_counter() - started
    driver_cpu = time.process_time() - cpu
    out: dict[str, Any] = {"wall": wall, "driver_cpu": driver_cpu, "startup": 0.0, "startup_cpu": 0.0,
                           "worker_cpu": 0.0, "daemons": 0.0}
    if engine is not None:
        out["startup"] = engine.startup_seconds
        out["startup_cpu"] = engine.startup_cpu_seconds
        out["worker_cpu"] = engine.worker_cpu_seconds
        out["daemons"] = ray_daemon_cpu() - daemons
        out["loads"] = [u["model_loads"] for u in engine.worker_usage]
        out["threads"] = ", ".join(u["local_threads"] for u in engine.worker_usage)  # fitted by the engine
        engine.close()
    else:
        out["loads"] = [sum(local_model_loads().values()) - loads_before]
        from sdk.callers.local import local_threads

        out["threads"] = str(local_threads())
    rows = store.answers(suite.id, AGENT)
    out["answers"] = {r["item_id"]: r["parsed"] for r in rows}
    out["statuses"] = {r["status"] for r in rows}
    out["median_q"] = statistics.median(r["latency_ms"] for r in rows) / 1000 if rows else 0.0
    out["answered"] = scores.answered
    out["accuracy"] = scores.accuracy.to_dict("a")["a"]
    n = max(1, scores.answered)
    # the work per question, whatever the wall clock: the workers' start (once per batch) left out
    out["cpu_q"] = (driver_cpu + out["worker_cpu"] - out["startup_cpu"]) / n
    out["cpu_total"] = driver_cpu + out["worker_cpu"] + out["daemons"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=600.0, 
                        help="time allowed per answer (a loaded machine is slow)")
    args = parser.parse_args()
    print(f"load average before: {loadavg()} ({os.cpu_count()} CPUs)")
    print(f"{args.questions} questions of {SUITE}, {AGENT}; in process (one at a time) and on Ray "
          f"({args.workers} workers, one at a time each), each into a fresh SQLite store\n")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("local", "ray"):
            result = run(name, args, Path(tmp))
            label = "in process" if name == "local" else f"ray, {args.workers} workers"
            rows.append((label, result))
            print(f"{label}: done ({result['wall']:.1f} s); load average {loadavg()}", file=sys.stderr)
    print("| engine | model threads | wall s | workers' start s (CPU s) | wall after start s | median s/question "
          "| CPU s: driver + workers + Ray daemons | CPU s/question | model loads per worker | accuracy |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, r in rows:
        print(f"| {label} | {r['threads']} | {r['wall']:.1f} | {r['startup']:.1f} ({r['startup_cpu']:.1f}) | "
              f"{r['wall'] - r['startup']:.1f} | {r['median_q']:.2f} | "
              f"{r['driver_cpu']:.1f} + {r['worker_cpu']:.1f} + {r['daemons']:.1f} = {r['cpu_total']:.1f} | "
              f"{r['cpu_q']:.2f} | {', '.join(map(str, r['loads']))} | "
              f"{100 * r['accuracy']:.1f}% ({r['answered']}) |")
    local, ray = rows[0][1], rows[1][1]
    same = sum(local["answers"].get(k) == v for k, v in ray["answers"].items())
    print(f"\nwall time in process / on Ray: {local['wall'] / ray['wall']:.2f} "
          f"(after the workers' start: {local['wall'] / (ray['wall'] - ray['startup']):.2f})")
    print(f"CPU s per question on Ray / in process: {ray['cpu_q'] / local['cpu_q']:.2f}")
    print(f"same answer in both runs: {same} of {len(local['answers'])} "
          f"(statuses: in process {sorted(local['statuses'])}, Ray {sorted(ray['statuses'])})")
    print(f"load average after: {loadavg()}")


if __name__ == "__main__":
    main()
