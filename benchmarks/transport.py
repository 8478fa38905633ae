"""Transport benchmark: what a call to a served agent costs, and the embedded model's speed.

On loopback, in one run:
1. an instant agent served with `sdk.serve`, called 5 ways: in process (`agent.act`),
   a raw keep-alive HTTP POST to `{url}gradio_api/run/act`, `RemoteAgent.act`,
   `RemoteAgent.aact` (sequential, one event loop) and gradio_client's
   `Client.predict(..., api_name="/act")`; median per call, and RemoteAgent's overhead
   above the raw POST (goal: <= 5 ms);
2. an agent whose speak sleeps 100 ms: one call vs 32 calls in flight through
   `RemoteAgent.aact` + `asyncio.gather` (goal: the 32 take < 2x one call);
3. `local_caller` (SmolLM2-135M, embedded): load time (first call, load included) and
   generation speed in tokens/s over a few ~64-token generations.

    python benchmarks/transport.py [--calls 300] [--client-calls 50] [--skip-model]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ["NO_PROXY"] = "127.0.0.1,localhost"
os.environ["no_proxy"] = "127.0.0.1,localhost"

import httpx  # noqa: E402

from sdk import Agent, LLMText, Observation, RemoteAgent, Usage, serve  # noqa: E402

OVERHEAD_GOAL_MS = 5.0
INFLIGHT = 32
SLOW_DELAY = 0.100
INFLIGHT_GOAL = 2.0

OBS = Observation.model_validate({
    "game": "spy", "phase": "describe", "verb": "speak", "you": "P3",
    "private": {"facts": {"word": "tea"}, "text": "Your secret word is 'tea'."},
    "history": [{"who": f"P{i % 6 + 1}", "kind": "statement", "text": f"Statement number {i}.",
                 "round": i // 6 + 1} for i in range(12)],
    "instruction": "Describe your word in one statement without saying it.",
    "seats": [f"P{i}" for i in range(1, 7)], "match_id": "bench", "round": 3,
})


class InstantAgent(Agent):
    name = "instant"

    def speak(self, obs: Observation) -> str:
        return LLMText("It is warm and comforting.", Usage(prompt_tokens=40, completion_tokens=6))


class SlowAgent(Agent):
    name = "slow"

    def speak(self, obs: Observation) -> str:
        time.sleep(SLOW_DELAY)
        return "done"


def launch(app) -> str:
    app.launch(prevent_thread_lock=True, server_name="127.0.0.1", server_port=None, quiet=True)
    return app.local_url


def timed(fn: Callable[[], Any], n: int, warmup: int = 10) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def load_avg() -> str:
    """Other processes on a 2-core machine skew every figure: print the load with them."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "load average: unknown"
    return f"load average: {one:.2f} (1 min), {five:.2f} (5 min)"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.3f}"


def versions() -> str:
    names = ["gradio", "gradio_client", "httpx", "aiohttp", "pydantic", "torch", "transformers"]
    found = []
    for name in names:
        try:
            found.append(f"{name} {importlib.import_module(name).__version__}")
        except Exception:  # noqa: BLE001 - optional packages
            found.append(f"{name} (missing)")
    return ", ".join(found)


def transport(calls: int, client_calls: int) -> dict[str, float]:
    agent = InstantAgent()
    app = serve(agent)
    url = launch(app)
    data = {"data": [OBS.model_dump(mode="json"), ""]}
    remote = RemoteAgent(url, timeout=10)
    results: dict[str, list[float]] = {}
    try:
        assert agent.act(OBS).text and remote.act(OBS).text == agent.act(OBS).text
        results["(a) in process: agent.act(obs)"] = timed(lambda: agent.act(OBS), calls)

        with httpx.Client() as client:
            route = f"{url}gradio_api/run/act"

            def post() -> None:
                response = client.post(route, json=data)
                response.raise_for_status()

            results["(b) raw HTTP POST (httpx, keep-alive)"] = timed(post, calls)

        results["(c) RemoteAgent.act(obs)"] = timed(lambda: remote.act(OBS), calls)

        async def sequential() -> list[float]:
            for _ in range(10):
                await remote.aact(OBS)
            out = []
            for _ in range(calls):
                start = time.perf_counter()
                await remote.aact(OBS)
                out.append(time.perf_counter() - start)
            await remote.aclose()
            return out

        results["(d) RemoteAgent.aact(obs), sequential"] = asyncio.run(sequential())

        from gradio_client import Client

        start = time.perf_counter()
        client = Client(url, verbose=False)
        connect = time.perf_counter() - start
        payload = OBS.model_dump(mode="json")
        results[f"(e) gradio_client predict (n={client_calls})"] = timed(
            lambda: client.predict(payload, "", api_name="/act"), client_calls, warmup=3)
        try:
            client.close()
        except Exception:  # noqa: BLE001 - older clients have no close()
            pass
    finally:
        remote.close()
        app.close()

    print(f"\n## 1. Per-call cost, instant agent ({calls} calls each unless noted; "
          "10 warm-up calls not counted)\n")
    print(f"({load_avg()} after the section)")
    print(f"{'path':48} {'median ms':>9} {'p90 ms':>8} {'min ms':>8}")
    medians = {}
    for label, times in results.items():
        times = sorted(times)
        medians[label] = statistics.median(times)
        p90 = times[int(0.9 * (len(times) - 1))]
        print(f"{label:48} {ms(medians[label]):>9} {ms(p90)} {ms(times[0])}")
    print(f"(gradio_client Client(url) construction: {connect * 1000:.1f} ms, not counted)")
    raw_post = medians["(b) raw HTTP POST (httpx, keep-alive)"]
    overhead = medians["(c) RemoteAgent.act(obs)"] - raw_post
    a_overhead = medians["(d) RemoteAgent.aact(obs), sequential"] - raw_post
    print(f"\nRemoteAgent.act overhead above the raw POST: {overhead * 1000:.3f} ms "
          f"(goal <= {OVERHEAD_GOAL_MS:.0f} ms)")
    print(f"RemoteAgent.aact overhead above the raw POST: {a_overhead * 1000:.3f} ms")
    return {"overhead_ms": overhead * 1000, "aact_overhead_ms": a_overhead * 1000}


def inflight(repeats: int = 5) -> dict[str, float]:
    app = serve(SlowAgent())
    url = launch(app)
    remote = RemoteAgent(url, timeout=30)

    async def run() -> tuple[list[float], list[float]]:
        await remote.aact(OBS)  # open the session
        singles, batches = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            await remote.aact(OBS)
            singles.append(time.perf_counter() - start)
        for _ in range(repeats):
            start = time.perf_counter()
            replies = await asyncio.gather(*(remote.aact(OBS) for _ in range(INFLIGHT)))
            batches.append(time.perf_counter() - start)
            assert [r.text for r in replies] == ["done"] * INFLIGHT
        await remote.aclose()
        return singles, batches

    try:
        singles, batches = asyncio.run(run())
    finally:
        remote.close()
        app.close()
    single, batch = statistics.median(singles), statistics.median(batches)
    ratio = batch / single
    print(f"\n## 2. Calls in flight (speak sleeps {SLOW_DELAY * 1000:.0f} ms; median of {repeats} runs)\n")
    print(f"({load_avg()} after the section)")
    print(f"one call:                      {single * 1000:8.1f} ms")
    print(f"{INFLIGHT} calls in flight (gather):  {batch * 1000:8.1f} ms")
    print(f"ratio: {ratio:.2f}x (goal < {INFLIGHT_GOAL:.0f}x; fully serialised would be {INFLIGHT}x)")
    return {"ratio": ratio}


def model(generations: int = 3, new_tokens: int = 64) -> dict[str, float]:
    from sdk import local_caller

    caller = local_caller(max_new_tokens=new_tokens)
    prompts = [
        "Tell a short story about a lighthouse keeper and a storm.",
        "Describe, in detail, how to make a cup of tea.",
        "Explain why the sky is blue to a ten-year-old.",
        "Write a paragraph about a cat that explores a library at night.",
        "Describe a busy market in the morning.",
    ]

    def messages(i: int) -> list[dict]:
        return [{"role": "system", "content": "You are a helpful assistant. Write at length."},
                {"role": "user", "content": prompts[i % len(prompts)]}]

    start, cpu_start = time.perf_counter(), time.process_time()
    first = caller(messages(0))
    load, load_cpu = time.perf_counter() - start, time.process_time() - cpu_start
    tokens, seconds, cpu_seconds = 0, 0.0, 0.0
    rows = []
    for i in range(1, generations + 1):
        start, cpu_start = time.perf_counter(), time.process_time()
        reply = caller(messages(i))
        took, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        usage = reply.usage
        tokens += usage.completion_tokens
        seconds += took
        cpu_seconds += cpu
        rows.append((usage.prompt_tokens, usage.completion_tokens, took, cpu))
    print(f"\n## 3. Embedded model: local_caller (SmolLM2-135M-Instruct Q4_1 GGUF, greedy, "
          f"max_new_tokens={new_tokens})\n")
    print(f"({load_avg()} after the section)")
    print(f"first call, load included: {load:6.2f} s wall, {load_cpu:6.2f} s CPU "
          f"({first.usage.completion_tokens} tokens generated)")
    for i, (p, c, took, cpu) in enumerate(rows, 1):
        print(f"generation {i}: prompt {p:4d} tokens, {c:3d} new tokens in {took:5.2f} s wall "
              f"({cpu:5.2f} s CPU) = {c / took:5.1f} tokens/s")
    rate = tokens / seconds
    print(f"overall: {tokens} new tokens in {seconds:.2f} s wall = {rate:.1f} tokens/s "
          f"({tokens / cpu_seconds:.1f} tokens per CPU-second)")
    return {"load_s": load, "tokens_per_s": rate}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--client-calls", type=int, default=50)
    parser.add_argument("--skip-model", action="store_true")
    args = parser.parse_args()
    if args.calls < 300:
        print(f"note: --calls {args.calls} is below the 300 the figures in RESULTS.md use")

    print("# Transport and local model benchmark (benchmarks/transport.py)")
    print(f"python {platform.python_version()} ({platform.python_implementation()}), "
          f"{platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs")
    print(versions())
    print(load_avg(), "at start")

    t = transport(args.calls, args.client_calls)
    f = inflight()
    if not args.skip_model:
        model()

    goals = {
        f"RemoteAgent overhead <= {OVERHEAD_GOAL_MS:.0f} ms": t["overhead_ms"] <= OVERHEAD_GOAL_MS,
        f"{INFLIGHT} in flight < {INFLIGHT_GOAL:.0f}x one call": f["ratio"] < INFLIGHT_GOAL,
    }
    print()
    for name, met in goals.items():
        print(f"- {name}: {'met' if met else 'NOT met'}")
    print(f"goals: {'met' if all(goals.values()) else 'not met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
