"""Memory and event-loop health of the arena under public traffic, on loopback.

    python benchmarks/soak.py reads  [--reads 20000] [--rate 20] [--matches 8] [--app-dir DIR]
    python benchmarks/soak.py signin [--tokens 50] [--hub-seconds 5] [--app-dir DIR]

The arena runs as `python app.py` would (its own process, started from `--app-dir`, so an
older checkout can be measured the same way), with a loop-lag probe added by this script: a
task that asks to wake every 20 ms and logs how late it woke, the same for every version.

`reads`: `--matches` matches of house agents kept running (a new one starts when one ends)
while anonymous reads (get_match, list_matches, leaderboard, list_agents, in turn) arrive at a
fixed rate through the plain REST route, each with no session, as any HTTP client makes them.
Prints the arena's resident memory after a warm-up and at the end, read latency (p50/p99) and
the loop's worst stall over the reads.

`signin`: a stand-in hub answers `whoami` after `--hub-seconds`; the arena's
huggingface_hub is pointed at it (`HF_ENDPOINT`). While a match runs (six seats of an agent
served here that answers after 1.5 s), `--tokens` requests with fresh tokens arrive at once
(`try_agent`, which signs its caller in). Prints the match's step times and the loop's worst
stall, and what became of the token requests.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

# Runs in the arena's process: the app as app.py builds it, plus the lag probe.
SERVER = r'''
import asyncio, os, sys, time
from contextlib import asynccontextmanager
sys.path.insert(0, os.getcwd())
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
from space_app.main import create_arena
demo, kwargs = create_arena()
try:  # as app.py does, where the checkout has it
    from space_app.heap import settle_heap
except ImportError:
    pass
else:
    settle_heap()
lags = open(os.environ["SOAK_LAG_FILE"], "w", buffering=1)

async def probe():
    while True:
        asked = time.monotonic()
        await asyncio.sleep(0.02)
        lag = time.monotonic() - asked - 0.02
        if lag > 0.002:
            lags.write(f"{time.time():.3f} {lag * 1000:.1f}\n")

own = (kwargs.get("app_kwargs") or {}).get("lifespan")

@asynccontextmanager
async def lifespan(app):
    if os.environ.get("SOAK_SLOW_MS"):  # name every callback that holds the loop longer
        import logging
        logging.basicConfig(level=logging.WARNING)
        loop = asyncio.get_running_loop()
        loop.set_debug(True)
        loop.slow_callback_duration = float(os.environ["SOAK_SLOW_MS"]) / 1000
    task = asyncio.create_task(probe())
    if own is None:
        yield
    else:
        async with own(app):
            yield
    task.cancel()

kwargs["app_kwargs"] = {**(kwargs.get("app_kwargs") or {}), "lifespan": lifespan}
demo.launch(server_name="127.0.0.1", server_port=int(os.environ["SOAK_PORT"]), quiet=True, **kwargs)
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Arena:
    """The arena in its own process, from `app_dir`."""

    def __init__(self, app_dir: Path, work: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.lag_file = work / "lag.txt"
        full = {**os.environ, "ARENA_DB": str(work / "arena.db"), "ARENA_DEMO_MATCHES": "0",
                "SOAK_PORT": str(self.port), "SOAK_LAG_FILE": str(self.lag_file),
                "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "NO_PROXY": "127.0.0.1,localhost",
                "PYTHONPATH": str(app_dir), **env}
        self.log = open(work / "arena.log", "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER], cwd=app_dir, env=full,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.ps = psutil.Process(self.proc.pid)

    def wait_ready(self, seconds: float = 300) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                self.log.flush()
                raise SystemExit(f"the arena exited ({self.proc.returncode}):\n"
                                 + Path(self.log.name).read_text()[-3000:])
            try:
                if httpx.get(self.url + "gradio_api/info", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise SystemExit("the arena did not start")

    def rss_mb(self) -> float:
        return self.ps.memory_info().rss / 2**20

    def stalls(self, start: float, end: float) -> list[float]:
        """Lags (ms) the probe logged between two wall-clock times."""
        out = []
        for line in self.lag_file.read_text().splitlines():
            at, lag = line.split()
            if start <= float(at) <= end:
                out.append(float(lag))
        return out

    def stop(self) -> None:
        if os.environ.get("SOAK_SHOW_LOG"):
            print(Path(self.log.name).read_text()[-20000:])
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


async def call(http: httpx.AsyncClient, url: str, name: str, data: list[Any],
               headers: dict[str, str] | None = None) -> tuple[str, Any]:
    """One call through the plain REST route (a new Gradio session each): (event, payload)."""
    posted = await http.post(f"{url}gradio_api/call/{name}", json={"data": data}, headers=headers or {})
    posted.raise_for_status()
    stream = (await http.get(f"{url}gradio_api/call/{name}/{posted.json()['event_id']}")).text
    return last_event(stream)


def last_event(stream: str) -> tuple[str, Any]:
    """The stream's final event (a long call sends heartbeats first): (event, payload)."""
    kind, data = "none", ""
    for block in stream.strip().split("\n\n"):
        head, _, body = block.partition("\ndata: ")
        if head.removeprefix("event: ") != "heartbeat":
            kind, data = head.removeprefix("event: "), body
    try:
        return kind, json.loads(data)
    except ValueError:
        return kind, data[:200]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def header(app_dir: Path) -> None:
    commit = subprocess.run(["git", "-C", str(app_dir), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    load = os.getloadavg()
    print(f"app: {app_dir} (commit {commit or '?'}); {os.cpu_count()} CPUs; "
          f"load average {load[0]:.2f} (1 min) at start")


# -- reads ----------------------------------------------------------------------------------
async def soak_reads(arena: Arena, reads: int, rate: float, matches: int, warmup: int) -> None:
    url = arena.url
    finished: list[str] = []
    played = [0]
    stop = asyncio.Event()
    # a fresh connection per request, as one-off clients make them (and no race with the
    # server closing an idle kept-alive connection as it is reused)
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=600, limits=limits) as http:
        async def keep_playing(n: int) -> None:
            seed = n * 100_000
            while not stop.is_set():
                seed += 1
                try:
                    kind, payload = await call(http, url, "run_match", ["spy", [], seed, {}])
                except httpx.HTTPError as exc:
                    kind, payload = "transport", repr(exc)
                if kind == "complete":
                    finished.append(payload[0]["match_id"])
                    played[0] += 1
                else:
                    print("  run_match:", payload)
                    await asyncio.sleep(1)

        players = [asyncio.create_task(keep_playing(n)) for n in range(matches)]
        while not finished:
            await asyncio.sleep(0.2)

        def read(i: int) -> tuple[str, list[Any]]:
            kind = i % 4
            if kind == 0:
                return "get_match", [random.choice(finished[-50:]), ""]
            if kind == 1:
                return "list_matches", ["", "", "", 50]
            if kind == 2:
                return "leaderboard", ["spy", 0, "all", "", False, False, ""]
            return "list_agents", []

        latencies: list[float] = []
        errors: list[str] = []
        gate = asyncio.Semaphore(64)  # reads in flight at most (past it, the rate falls behind)

        async def one(i: int, keep: bool) -> None:
            async with gate:
                name, data = read(i)
                t0 = time.perf_counter()
                try:
                    kind, payload = await call(http, url, name, data)
                except httpx.HTTPError as exc:
                    kind, payload = "transport", repr(exc)
                if keep:
                    latencies.append((time.perf_counter() - t0) * 1000)
                if kind != "complete":
                    errors.append(f"{name}: {str(payload)[:120]}")

        await asyncio.gather(*(one(i, False) for i in range(warmup)))
        rss_start, wall_start, t0 = arena.rss_mb(), time.time(), time.monotonic()
        tasks = []
        for i in range(reads):
            await asyncio.sleep(max(0.0, t0 + i / rate - time.monotonic()))
            tasks.append(asyncio.create_task(one(i, True)))
        await asyncio.gather(*tasks)
        elapsed, wall_end, rss_end = time.monotonic() - t0, time.time(), arena.rss_mb()
        stop.set()
        for task in players:
            task.cancel()
    stalls = arena.stalls(wall_start, wall_end)
    print(f"reads: {reads} at {rate:g}/s asked ({reads / elapsed:.1f}/s achieved, {elapsed:.0f} s), "
          f"{warmup} warm-up reads before; {matches} matches kept running ({played[0]} played)")
    print(f"errors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    print(f"RSS: {rss_start:.0f} MB after warm-up -> {rss_end:.0f} MB after the reads: "
          f"growth {rss_end - rss_start:+.0f} MB")
    print(f"latency ms: p50 {pct(latencies, 0.5):.0f}, p99 {pct(latencies, 0.99):.0f}, "
          f"max {max(latencies):.0f}")
    print(f"loop: worst stall {max(stalls, default=0.0):.0f} ms; wake-ups late by > 100 ms: "
          f"{sum(s > 100 for s in stalls)}, > 50 ms: {sum(s > 50 for s in stalls)}")


# -- sign-in --------------------------------------------------------------------------------
async def soak_signin(arena: Arena, agent_url: str, tokens: int) -> None:
    url = arena.url
    seats = [f"remote:{agent_url}"] * 6
    obs = {"game": "spy", "verb": "vote", "you": "P1", "options": ["P2", "P3"]}
    async with httpx.AsyncClient(timeout=600) as http:
        match = asyncio.create_task(call(http, url, "run_match", ["spy", seats, 7, {}]))
        match_id = ""
        while not match_id:
            await asyncio.sleep(0.2)
            kind, rows = await call(http, url, "list_matches", ["", "", "running", 5])
            match_id = rows[0][0]["id"] if kind == "complete" and rows[0] else ""
            if match.done():
                raise SystemExit(f"the match ended before the tokens were sent: {match.result()}")
        await asyncio.sleep(1.0)  # some steps before the burst, to compare with
        burst_start = time.time()

        async def signed(n: int) -> tuple[float, str]:
            t0 = time.perf_counter()
            kind, payload = await call(http, url, "try_agent", ["house:heuristic", obs],
                                       {"authorization": f"Bearer hf_fresh_{n}_{random.random()}"})
            what = "ok" if kind == "complete" else str(payload.get("error") if isinstance(payload, dict) else payload)
            return time.perf_counter() - t0, what

        answers = await asyncio.gather(*(signed(n) for n in range(tokens)))
        burst_end = time.time()
        kind, result = await match
        _, record = await call(http, url, "get_match", [match_id, ""])
    times = sorted({e["created_at"] for e in record[0]["events"]})
    steps = [(b - a) * 1000 for a, b in zip(times, times[1:], strict=False)]
    during = [(b - a) * 1000 for a, b in zip(times, times[1:], strict=False) if b >= burst_start and a <= burst_end]
    stalls = arena.stalls(burst_start, burst_end)
    outcomes: dict[str, int] = {}
    for _, what in answers:
        key = what if what == "ok" else what.split("(")[0].split(";")[0][:70]
        outcomes[key] = outcomes.get(key, 0) + 1
    print(f"match {match_id}: {result[0]['status'] if kind == 'complete' else result}, {len(times)} steps "
          f"over {times[-1] - times[0]:.1f} s; {tokens} requests with fresh tokens sent together "
          f"{burst_start - times[0]:.1f} s after it started")
    print(f"step ms, whole match: p50 {statistics.median(steps):.0f}, max {max(steps):.0f}; "
          f"during the burst ({burst_end - burst_start:.1f} s): "
          f"p50 {statistics.median(during) if during else float('nan'):.0f}, "
          f"max {max(during, default=float('nan')):.0f}")
    print(f"loop during the burst: worst stall {max(stalls, default=0.0):.0f} ms, "
          f"wake-ups late by > 100 ms: {sum(s > 100 for s in stalls)}")
    print("token requests: " + ", ".join(f"{v} {k!r}" for k, v in sorted(outcomes.items())) +
          f"; seconds p50 {statistics.median(t for t, _ in answers):.2f}, max {max(t for t, _ in answers):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["reads", "signin"])
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="checkout whose app.py is run")
    parser.add_argument("--reads", type=int, default=20_000)
    parser.add_argument("--rate", type=float, default=20.0, help="reads a second")
    parser.add_argument("--matches", type=int, default=8, help="matches kept running during the reads")
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--tokens", type=int, default=50)
    parser.add_argument("--hub-seconds", type=float, default=5.0)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the arena's process")
    parser.add_argument("--slow-callbacks", type=float, default=0,
                        help="log (in the arena's log, printed with SOAK_SHOW_LOG=1) every callback that holds "
                             "the loop longer than this many ms")
    args = parser.parse_args()
    header(args.app_dir.resolve())
    extra = dict(item.split("=", 1) for item in args.env)
    if args.slow_callbacks:
        extra["SOAK_SLOW_MS"] = str(args.slow_callbacks)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.mode == "reads":
            env = {"ARENA_MAX_MATCHES_PER_VISITOR": str(args.matches), "ARENA_MAX_MATCHES": str(2 * args.matches)}
            arena = Arena(args.app_dir.resolve(), work, {**env, **extra})
            try:
                arena.wait_ready()
                asyncio.run(soak_reads(arena, args.reads, args.rate, args.matches, args.warmup))
            finally:
                arena.stop()
            return
        from stand_in_hub import stand_in_hub

        from sdk import Agent, Observation, serve

        class Steady(Agent):
            """Answers every call after 1.5 s, so a match lasts long enough to watch."""

            games = ("spy",)

            def speak(self, obs: Observation) -> str:
                time.sleep(1.5)
                return f"something you find on a table, round {obs.round}"

            def vote(self, obs: Observation) -> str:
                time.sleep(1.5)
                return obs.options[-1]

        agent = serve(Steady("steady"))
        agent.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=None, quiet=True)
        with stand_in_hub({}, delay=args.hub_seconds) as hub:
            env = {"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": hub.url.rstrip("/"), "ARENA_ALLOW_PRIVATE_URLS": "1"}
            arena = Arena(args.app_dir.resolve(), work, {**env, **extra})
            try:
                arena.wait_ready()
                asyncio.run(soak_signin(arena, agent.local_url, args.tokens))
                print(f"the stand-in hub was asked {len(hub.calls)} times")
            finally:
                arena.stop()
                agent.close()


if __name__ == "__main__":
    main()
