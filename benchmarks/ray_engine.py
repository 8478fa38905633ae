"""Batch engines benchmark: a tournament of served agents that take 200 ms per call, played in
process and on Ray with 1 and 2 workers, the same number of matches in flight in each.

The agents are served on loopback with `sdk.serve`, each in its own process as each agent is
its own Space in real use (their CPU is not the engine's), and seated as `remote:URL` specs,
so every call goes through the arena's own HTTP client and egress policy. Every player
abstains, so every match plays all its rounds: with 4 players and 1 round, 4 statements
(one after another by rule) and one simultaneous vote, 5 steps of 200 ms.

Figures, per engine:
- wall: the tournament command's batch, from the first match started to the last rated;
- ratio: wall / critical path, the critical path being the sum of every match's steps × delay
  divided by the matches in flight (what a perfect engine with no overhead would take);
- engine CPU per match: CPU seconds of the driver plus (Ray) its workers, over the batch, per
  match; Ray's own daemons (raylet, GCS) are counted apart, from /proc;
- workers' start: Ray's time (and the workers' CPU) until every worker has opened the job
  (imports, the store): once per batch, whatever its size; it is left out of the next figures;
- overhead per match: (wall after the start − the in-process wall) × in flight / matches: how
  much longer a match slot is held on Ray than in process.

    python benchmarks/ray_engine.py [--matches 300] [--inflight 20] [--delay 0.2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ["NO_PROXY"] = "127.0.0.1,localhost"

from spy_runner import DelayedAgent  # noqa: E402  (the same served stand-in as the runner's benchmark)

from sdk import RemoteAgent, serve  # noqa: E402

SETTINGS = {"players": 4, "rounds": 1, "seconds": 30}


def serve_forever(delay: float, port: int) -> None:
    app = serve(DelayedAgent(delay))
    app.launch(server_name="127.0.0.1", server_port=port, quiet=True)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, seconds: float = 120) -> None:
    import socket

    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def ray_daemon_cpu() -> float:
    """CPU seconds used so far by Ray's own processes (raylet, GCS, ...), not its workers."""
    import psutil

    total = 0.0
    for p in psutil.process_iter(["name", "cmdline"]):
        try:
            cmd = " ".join(p.info["cmdline"] or [])
            if ("raylet" in cmd or "gcs_server" in cmd or "ray/_private" in cmd) and "ray::" not in cmd:
                times = p.cpu_times()
                total += times.user + times.system
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return total


def steps_of(db: Path) -> int:
    """Sequential steps of every stored match: its statements and its vote rounds."""
    with sqlite3.connect(db) as conn:
        statements = conn.execute("SELECT count(*) FROM events WHERE kind = 'statement'").fetchone()[0]
        votes = conn.execute("SELECT count(DISTINCT match_id || ':' || round) FROM events "
                             "WHERE kind = 'vote_result'").fetchone()[0]
    return statements + votes


def run(engine_name: str, workers: int | None, specs: list[str], args: argparse.Namespace,
        folder: Path) -> dict[str, float]:
    from space_app.engines import open_engine
    from space_app.service import Arena
    from space_app.store import Store

    per_worker = args.inflight // (workers or 1)
    engine = None
    if engine_name == "ray":
        engine = open_engine("ray", concurrency=per_worker, workers=workers, num_cpus=2)
    db = folder / f"{engine_name}-{workers or 0}.db"
    arena = Arena(Store(db), engine=engine)
    daemons = ray_daemon_cpu() if engine else 0.0
    cpu = time.process_time()
    started = time.perf_counter()
    outcomes = arena.run_in_own_loop(arena.tournament("spy", specs, args.matches, seed=3, settings=SETTINGS, players=4,
                                                      concurrency=args.inflight, tag="bench"))
    wall = time.perf_counter() - started
    driver_cpu = time.process_time() - cpu
    worker_cpu = getattr(engine, "worker_cpu_seconds", 0.0)
    startup = getattr(engine, "startup_seconds", 0.0)  # workers started and the job opened, once per batch
    startup_cpu = getattr(engine, "startup_cpu_seconds", 0.0)
    daemons = (ray_daemon_cpu() - daemons) if engine else 0.0
    if engine is not None:
        engine.close()
    failed = sum(o.status != "finished" for o in outcomes)
    critical = steps_of(db) * args.delay / args.inflight
    return {"wall": wall, "critical": critical, "ratio": wall / critical, "failed": failed,
            "startup": startup, "running": wall - startup, "running_ratio": (wall - startup) / critical,
            "cpu_per_match_ms": 1000 * (driver_cpu + worker_cpu - startup_cpu) / args.matches,
            "startup_cpu": startup_cpu,
            "driver_cpu_per_match_ms": 1000 * driver_cpu / args.matches,
            "daemon_cpu_per_match_ms": 1000 * daemons / args.matches,
            "match_s": steps_of(db) * args.delay / args.matches}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--inflight", type=int, default=20, help="matches in flight (split over Ray's workers)")
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--servers", type=int, default=4)
    args = parser.parse_args()
    ports = [free_port() for _ in range(args.servers)]
    ctx = multiprocessing.get_context("spawn")
    servers = [ctx.Process(target=serve_forever, args=(args.delay, port), daemon=True) for port in ports]
    for server in servers:
        server.start()
    try:
        for port in ports:
            wait_listening(port)
            RemoteAgent(f"http://127.0.0.1:{port}/", timeout=30).info()
        specs = [f"remote:http://127.0.0.1:{port}/" for port in ports]
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
        print(f"{args.matches} spy matches (4 players, 1 round, all abstain: 5 steps of {args.delay * 1000:.0f} ms), "
              f"{args.inflight} in flight, {args.servers} agent servers\n")
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            for name, workers in (("local", None), ("ray", 1), ("ray", 2)):
                result = run(name, workers, specs, args, Path(tmp))
                label = "in process" if name == "local" else f"ray, {workers} worker{'s' if workers > 1 else ''}"
                rows.append((label, result))
                print(f"{label}: done ({result['wall']:.1f} s)", file=sys.stderr)
        base = rows[0][1]["wall"]
        print("| engine | wall s | workers' start s (CPU s) | matches s | critical path s | ratio (matches / critical) "
              "| engine CPU ms/match (driver) | Ray daemons CPU ms/match | overhead ms/match vs in process | failed |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for label, r in rows:
            overhead = (r["running"] - base) * args.inflight / args.matches * 1000
            print(f"| {label} | {r['wall']:.1f} | {r['startup']:.1f} ({r['startup_cpu']:.1f}) | {r['running']:.1f} | "
                  f"{r['critical']:.1f} | {r['running_ratio']:.2f} | "
                  f"{r['cpu_per_match_ms']:.1f} ({r['driver_cpu_per_match_ms']:.1f}) | "
                  f"{r['daemon_cpu_per_match_ms']:.1f} | {overhead:+.0f} | {r['failed']} |")
        match_ms = rows[0][1]["match_s"] * 1000
        print(f"\na match's critical path: {match_ms:.0f} ms; 5% of it: {match_ms * 0.05:.0f} ms")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.join(timeout=10)


if __name__ == "__main__":
    main()
