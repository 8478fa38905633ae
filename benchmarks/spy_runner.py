"""Runner benchmark: how close a match gets to its critical path, and throughput.

Scripted agents that reply after a fixed delay are served on loopback with
`sdk.serve`, one process per seat (each agent is its own Space in real use), and
called through `RemoteAgent`, as the arena calls real agents.
Every player abstains, so every match runs the full 3 rounds: 18 statements
(sequential by rule) + 3 simultaneous votes = 21 sequential steps.
For comparison, (a) is also measured with the same agents as local objects (no HTTP),
which separates the runner's own share from the transport's.

    python benchmarks/spy_runner.py [--delay 0.05] [--inflight 1 10 50] [--servers 6]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ["NO_PROXY"] = "127.0.0.1,localhost"

from sdk import ABSTAIN, Agent, Observation, RemoteAgent, serve  # noqa: E402
from space_app.games.spy.rules import SpyGame, SpySettings  # noqa: E402
from space_app.games.spy.words import WordPair  # noqa: E402
from space_app.runner import SeatAgent, play  # noqa: E402
from space_app.store import Store  # noqa: E402

SEATS = [f"P{i}" for i in range(1, 7)]


class DelayedAgent(Agent):
    name = "delayed"

    def __init__(self, delay: float) -> None:
        super().__init__("delayed")
        self.delay = delay

    def speak(self, obs: Observation) -> str:
        time.sleep(self.delay)
        return f"{obs.you} clue {obs.round} {len(obs.history)} {obs.match_id}"

    def vote(self, obs: Observation) -> str:
        time.sleep(self.delay)
        return ABSTAIN


async def one_match(remotes: list[Agent], seed: int, store: Store | None) -> tuple[float, int]:
    game = SpyGame(SEATS, seed, SpySettings(pair=WordPair(civilian="tea", spy="coffee"), seconds=30))
    game.match_id = f"bench{seed}"
    seats = {s: SeatAgent(remotes[i % len(remotes)], f"delayed{i % len(remotes)}")
             for i, s in enumerate(SEATS)}
    if store is not None:
        store.create_match(game.match_id, "spy", seed, [{"seat": s, "agent_id": "delayed"} for s in SEATS])
        sink = lambda items: store.append_events(game.match_id, items)  # noqa: E731
    else:
        sink = None
    started = time.perf_counter()
    outcome = await play(game, seats, sink)
    wall = time.perf_counter() - started
    if store is not None:
        store.finish_match(game.match_id, outcome.status, outcome.result)
    steps = sum(1 for e in outcome.events if e.kind == "statement") + \
        len({e.round for e in outcome.events if e.kind == "vote_result"})
    assert outcome.status == "finished", outcome.error
    return wall, steps


async def throughput(remotes: list[Agent], inflight: int, delay: float, store: Store, rounds: int = 1) -> dict:
    started = time.perf_counter()
    cpu = time.process_time()
    results = await asyncio.gather(*(one_match(remotes, 1000 * inflight + i, store)
                                     for i in range(inflight * rounds)))
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu
    calls = sum(18 + 3 * 6 for _ in results)  # 18 statements + 3 votes of 6 players
    critical = statistics.mean(steps for _, steps in results) * delay
    per_minute = len(results) / wall * 60
    ideal = inflight * 60 / critical
    return {"inflight": inflight, "matches": len(results), "wall_s": wall,
            "median_match_s": statistics.median(w for w, _ in results),
            "matches_per_min": per_minute, "ideal_per_min": ideal, "fraction": per_minute / ideal,
            "runner_cpu_ms_per_call": cpu / calls * 1000, "calls_per_s": calls / wall}


def serve_forever(delay: float, port: int) -> None:
    """The agent Space, in its own process as in real use (its CPU is not the runner's)."""
    app = serve(DelayedAgent(delay))
    app.launch(server_name="127.0.0.1", server_port=port, quiet=True)


def raw_post_median(port: int, n: int = 40) -> float:
    """Median round trip of a bare HTTP POST (no arena code) to the served agent."""
    import httpx

    game = SpyGame(SEATS, 0, SpySettings(pair=WordPair(civilian="tea", spy="coffee")))
    body = {"data": [game.pending()[0].observation.model_dump(mode="json"), ""]}
    times = []
    with httpx.Client() as client:
        for _ in range(n):
            started = time.perf_counter()
            client.post(f"http://127.0.0.1:{port}/gradio_api/run/act", json=body).raise_for_status()
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def main_async(args: argparse.Namespace) -> None:
    import multiprocessing

    # one process per seat, as each agent is its own Space in real use
    ports = [free_port() for _ in range(args.servers)]
    ctx = multiprocessing.get_context("spawn")
    servers = [ctx.Process(target=serve_forever, args=(args.delay, port), daemon=True) for port in ports]
    for server in servers:
        server.start()
    remotes = [RemoteAgent(f"http://127.0.0.1:{port}/", timeout=30, wake_timeout=120) for port in ports]
    for remote in remotes:
        remote.info(wait=True)
    port = ports[0]
    try:
        await one_match(remotes, 0, None)  # warm up connections
        walls = []
        steps = 0
        for i in range(args.repeat):
            wall, steps = await one_match(remotes, i + 1, None)
            walls.append(wall)
        critical = steps * args.delay
        floor = steps * raw_post_median(port)
        print(f"(a) one match: {steps} sequential steps x {args.delay * 1000:.0f} ms = critical path "
              f"{critical:.3f} s; median wall {statistics.median(walls):.3f} s over {args.repeat} matches; "
              f"ratio {statistics.median(walls) / critical:.3f} (goal <= 1.10)")
        print(f"    transport floor: {steps} x median raw POST to the same agent = {floor:.3f} s; "
              f"wall / floor = {statistics.median(walls) / floor:.3f} (the arena's own share)")
        # the same agents as local objects (no HTTP): what the runner itself adds
        local = [DelayedAgent(args.delay) for _ in ports]
        await one_match(local, 0, None)
        local_walls = [(await one_match(local, i + 1, None))[0] for i in range(args.repeat)]
        print(f"    same agents in-process, no HTTP: median wall {statistics.median(local_walls):.3f} s; "
              f"ratio {statistics.median(local_walls) / critical:.3f} (the runner's own share)")
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "bench.db")
            print("(b) throughput, store writes included (SQLite WAL, one transaction per step):")
            print(f"{'in flight':>9} {'matches':>7} {'wall s':>7} {'median match s':>14} "
                  f"{'matches/min':>11} {'ideal/min':>9} {'fraction':>8} {'calls/s':>7} {'runner CPU ms/call':>18}")
            for n in args.inflight:
                r = await throughput(remotes, n, args.delay, store)
                print(f"{r['inflight']:>9} {r['matches']:>7} {r['wall_s']:>7.2f} {r['median_match_s']:>14.3f} "
                      f"{r['matches_per_min']:>11.1f} {r['ideal_per_min']:>9.1f} {r['fraction']:>8.2f} "
                      f"{r['calls_per_s']:>7.0f} {r['runner_cpu_ms_per_call']:>18.2f}")
            store.close()
    finally:
        for remote in remotes:
            await remote.aclose()
        for server in servers:
            server.terminate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--servers", type=int, default=6, help="agent server processes (seat i -> i mod n)")
    parser.add_argument("--inflight", type=int, nargs="+", default=[1, 10, 50])
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
