"""A real model behind the SDK: a 6-seat Who is the Spy match against llama.cpp's server.

On loopback, in one run:
1. `python -m llama_cpp.server` serving the embedded SmolLM2 GGUF with one slot (one request at a
   time, as llama.cpp's server, Ollama's default and most self-hosted setups are); an agent built
   from `openai_caller` on it, served with `sdk.serve`; a 6-seat match with every seat that served
   agent, called by the arena's runner through `RemoteAgent`. Reported: wall time, calls, timeouts
   and errors, the model requests the server was still working on after the match ended (read
   from its access log: goal 0), and the arena's overhead per call over the model's own time
   (the call's latency as the runner measured it minus the time the caller spent in its model
   requests; goal: under 50 ms).
2. The same match with every seat `house:smollm2` (the embedded model in process).

    python benchmarks/model_server.py [--seeds 3,4,5] [--threads 2] [--seconds 60] [--skip-house]

(The served agent's own log of a call that ran out of time goes to standard error.)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ["NO_PROXY"] = "127.0.0.1,localhost"
os.environ["no_proxy"] = "127.0.0.1,localhost"

import httpx  # noqa: E402

from sdk import LLMAgent, RemoteAgent, openai_caller, serve  # noqa: E402

OVERHEAD_GOAL_MS = 50.0
REQUEST_LINE = re.compile(r'"POST /v1/chat/completions HTTP/1\.1" (\d{3})')


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(log: Path, threads: int) -> tuple[subprocess.Popen, str]:
    from sdk.callers.local import GGUF_FILE, model_dir

    port = free_port()
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-u", "-m", "llama_cpp.server",
                                 "--model", str(model_dir() / GGUF_FILE), "--host", "127.0.0.1", "--port", str(port),
                                 "--n_ctx", "2048",
                                 "--n_threads", str(threads)], stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(240):
        if proc.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.terminate()
    raise RuntimeError("llama_cpp.server did not start in 120 s")


class TimedCaller:
    """The caller the served agent uses, timing each model request (the model's own time)."""

    def __init__(self, caller: Callable[[list[dict[str, Any]]], Any]) -> None:
        self.caller = caller
        self.seconds: list[float] = []
        self.lock = threading.Lock()

    def __call__(self, messages: list[dict[str, Any]]) -> Any:
        started = time.perf_counter()
        try:
            return self.caller(messages)
        finally:
            with self.lock:
                self.seconds.append(time.perf_counter() - started)


def completed_requests(log: Path) -> int:
    return len(REQUEST_LINE.findall(log.read_text(errors="replace")))


async def play_match(agents: dict[str, Any], seed: int, seconds: float) -> tuple[Any, float]:
    from space_app.core import get_game
    from space_app.runner import SeatAgent, play

    game = get_game("spy").make(6, seed, {"players": 6, "seconds": seconds})
    seats = {seat: SeatAgent(agent, agent_id) for seat, (agent, agent_id) in agents.items()}
    started = time.perf_counter()
    outcome = await play(game, seats)
    return outcome, time.perf_counter() - started


def calls_of(outcome: Any) -> list[dict[str, Any]]:
    return [e.model_dump() for e in outcome.events if e.kind == "call"]


def summary(label: str, outcome: Any, wall: float) -> list[dict[str, Any]]:
    calls = calls_of(outcome)
    statuses: dict[str, int] = {}
    for c in calls:
        statuses[c.get("status", "?")] = statuses.get(c.get("status", "?"), 0) + 1
    latencies = sorted(c.get("latency_ms") or 0.0 for c in calls)
    print(f"{label}: {outcome.status} ({outcome.result.get('winner', outcome.error)}) in {wall:.1f} s; "
          f"{len(calls)} calls: " + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
          + (f"; call latency median {statistics.median(latencies) / 1000:.2f} s, max {latencies[-1] / 1000:.2f} s"
             if latencies else ""))
    return calls


def served_matches(seeds: list[int], threads: int, seconds: float) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="model-server-"))
    log = workdir / "server.log"
    proc, url = start_server(log, threads)
    timed = TimedCaller(openai_caller(model="smollm2", base_url=url, api_key="local", max_tokens=128,
                                      stream=True))
    app = serve(LLMAgent(timed, name="smollm2-served"))
    app.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=None, quiet=True)
    remotes = {f"P{i}": RemoteAgent(app.local_url, timeout=seconds + 10) for i in range(1, 7)}
    calls: list[dict[str, Any]] = []
    left_running = 0
    try:
        for seed in seeds:
            before = completed_requests(log)
            outcome, wall = asyncio.run(play_match({s: (r, "served:smollm2") for s, r in remotes.items()}, seed,
                                                   seconds))
            ended = completed_requests(log)
            calls += summary(f"seed {seed}: served agent on llama.cpp's server (one slot), 6 seats", outcome, wall)
            time.sleep(20)  # what the server still had queued or running when the match ended finishes now
            after = completed_requests(log)
            left_running += after - ended
            print(f"  model requests: {ended - before} answered during the match, {after - ended} still queued or "
                  "running on the server when it ended")
        own = sum(timed.seconds) * 1000
        total = sum(c.get("latency_ms") or 0.0 for c in calls)
        print(f"all {len(seeds)} matches: {len(calls)} calls, "
              f"{sum(c.get('status') == 'timeout' for c in calls)} timeouts; requests left on the server after a "
              f"match: {left_running} (goal 0)")
        if calls and timed.seconds:
            print(f"model time {own / 1000:.1f} s over {len(timed.seconds)} model requests; the arena's calls "
                  f"took {total / 1000:.1f} s: overhead {(total - own) / len(calls):.1f} ms per call "
                  f"(goal < {OVERHEAD_GOAL_MS:.0f} ms)")
    finally:
        for r in remotes.values():
            r.close()
        app.close()
        proc.terminate()
        proc.wait(30)


def house_matches(seeds: list[int], seconds: float) -> None:
    from space_app.agents.catalogue import GENERIC_HOUSE

    built = GENERIC_HOUSE["house:smollm2"].build()  # one model, loaded once, in every seat
    agents = {f"P{i}": (built, "house:smollm2") for i in range(1, 7)}
    for seed in seeds:
        outcome, wall = asyncio.run(play_match(agents, seed, seconds))
        summary(f"seed {seed}: house:smollm2 in process, 6 seats", outcome, wall)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="3,4,5", help="one match per seed (comma list)")
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp server threads")
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="each turn's limit (a one-slot server queues the simultaneous votes)")
    parser.add_argument("--skip-house", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    served_matches(seeds, args.threads, args.seconds)
    if not args.skip_house:
        house_matches(seeds, args.seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
