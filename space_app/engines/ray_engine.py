"""The Ray engine: a batch's items are tasks of long-lived worker actors on a Ray cluster.

Each worker is an async actor (one per CPU of the cluster by default, `workers` to choose)
that opens the job once, so what a job loads (a store connection, a local model) is loaded
once per worker, not per item, and runs up to `concurrency` items at once on its own event
loop. A worker's local model runs on as many threads as the CPUs Ray gave the worker (unless
ARENA_LOCAL_THREADS is set), so workers side by side do not oversubscribe the cores. The
driver hands the next item to the least loaded worker as items end. A worker
process that dies is restarted by Ray and its items in flight are run again (`retries`): a
job whose items are idempotent (planned matches are: see `space_app.batch`) loses nothing.

Connecting: `address` names an existing cluster (`host:port` or `ray://host:port`), checked
first with a plain TCP connection so an unreachable one fails at once with one line (Ray's
own connect would wait and retry); without it a local instance is started, with
`num_cpus` CPUs and no dashboard, and shut down by `close()`. A process that has already
called `ray.init` (a test, a notebook) is used as it is.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from .base import Done, EngineError, Job, OnEnd, OnStart, first_line

CONNECT_SECONDS = 5.0
WORKER_PREFIX = "arena-worker-"  # actor names: a batch's workers can be listed (and killed, in tests)


def _fit_local_threads() -> None:
    """A worker's local model uses the CPUs Ray gave the worker, not the machine's default: two
    workers of one CPU each, each running llama.cpp on 2 threads, would fight over 2 cores.
    ARENA_LOCAL_THREADS set by the operator is kept."""
    if os.environ.get("ARENA_LOCAL_THREADS", "").strip():
        return
    import ray

    cpus = ray.get_runtime_context().get_assigned_resources().get("CPU", 0.0)
    os.environ["ARENA_LOCAL_THREADS"] = str(max(1, int(cpus)))


class _Worker:
    """One worker process's copy of the job (wrapped with `ray.remote` when the engine starts)."""

    def __init__(self, job: Job) -> None:
        _fit_local_threads()
        self._worker = job.open()

    async def pid(self) -> int:
        return os.getpid()

    async def usage(self) -> dict[str, Any]:
        """This worker's process, its CPU seconds so far (all its threads) and the local models it
        has loaded (the embedded model's loader counts them; none if it was never imported)."""
        local = sys.modules.get("sdk.callers.local")
        loads = local.local_model_loads() if local is not None else {}
        return {"pid": os.getpid(), "cpu_seconds": time.process_time(), "model_loads": sum(loads.values()),
                "local_threads": os.environ.get("ARENA_LOCAL_THREADS", "")}

    async def run(self, item: Any) -> Any:
        return await self._worker.run(item)


def _host_port(address: str) -> tuple[str, int] | None:
    """The (host, port) a cluster address connects to, or None for 'auto' and the like."""
    text = address.removeprefix("ray://")
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return host.strip("[]") or "127.0.0.1", int(port)


def check_reachable(address: str, seconds: float = CONNECT_SECONDS) -> None:
    target = _host_port(address)
    if target is None:
        return
    try:
        with socket.create_connection(target, timeout=seconds):
            pass
    except OSError as exc:
        why = exc.strerror or str(exc) or type(exc).__name__
        raise EngineError(f"cannot reach the Ray cluster at {address}: {why}") from None


def join_failure(address: str, exc: BaseException, environ: Mapping[str, str] = os.environ) -> str:
    """Why joining a reachable cluster failed, in one line. A cluster started by `ray start`
    (Ray 2.59 and later) asks every client for its token, and a client without
    RAY_AUTH_MODE=token only sees a failed connection: say so, since that is the likely cause."""
    line = f"cannot join the Ray cluster at {address}: {first_line(exc)}"
    if environ.get("RAY_AUTH_MODE", "").strip().lower() != "token":
        line += ("; if the cluster was started with `ray start`, it asks for its token: set RAY_AUTH_MODE=token "
                 "here, with the token in RAY_AUTH_TOKEN or the head's ~/.ray/auth_token (docs/scale-out.md)")
    return line


class RayEngine:
    name = "ray"

    def __init__(self, address: str | None = None, *, workers: int | None = None, concurrency: int = 8,
                 num_cpus: int | None = None, retries: int = 3) -> None:
        try:
            import ray
        except ImportError:
            raise EngineError("--engine ray needs the ray package (pip install ray==2.60.0)") from None
        self._ray = ray
        self.concurrency = max(1, concurrency)
        self.retries = retries
        self._owned = False
        if address:
            check_reachable(address)
        if not ray.is_initialized():
            if address:
                try:
                    ray.init(address=address, log_to_driver=False)
                except Exception as exc:  # noqa: BLE001 - reachable but not a Ray cluster, or refused us
                    raise EngineError(join_failure(address, exc)) from None
            else:
                ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
                self._owned = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, workers or cpus)
        # a worker asks for a CPU only while the cluster has one for each, so more workers
        # than CPUs (many slow remote agents, little CPU) still start
        self._cpus_each = 1.0 if self.workers <= cpus else cpus / self.workers
        # the last batch, for benchmarks: seconds until every worker had opened the job, and the
        # CPU time its workers used then and in all
        self.startup_seconds = 0.0
        self.startup_cpu_seconds = 0.0
        self.worker_cpu_seconds = 0.0
        self.worker_usage: list[dict[str, Any]] = []  # each worker's `usage()` at the batch's end

    async def map(self, job: Job, items: Sequence[Any], on_start: OnStart | None = None,
                  on_end: OnEnd | None = None) -> list[Done]:
        if not items:  # nothing to run (a batch run again after it finished): no worker started
            return []
        ray = self._ray
        actor = ray.remote(_Worker)
        batch = uuid.uuid4().hex[:8]
        actors = [actor.options(name=f"{WORKER_PREFIX}{batch}-{k}", num_cpus=self._cpus_each,
                                max_restarts=self.retries, max_task_retries=self.retries,
                                max_concurrency=self.concurrency).remote(job)
                  for k in range(self.workers)]
        results: list[Done | None] = [None] * len(items)
        started = time.perf_counter()
        try:
            try:  # each worker opened the job (a store it cannot reach fails here, once)
                await asyncio.gather(*(_awaited(a.pid.remote()) for a in actors))
            except Exception as exc:  # noqa: BLE001 - the workers could not start: every item fails
                why = f"the workers could not start: {_cause(exc)}"
                return [self._end(Done(i, None, why), on_end) for i in range(len(items))]
            self.startup_seconds = time.perf_counter() - started
            self.startup_cpu_seconds = _cpu(await self._usage(actors))
            load = [0] * len(actors)
            queue = list(range(len(items)))[::-1]
            flying: dict[asyncio.Future, tuple[int, int]] = {}
            while queue or flying:
                while queue and min(load) < self.concurrency:
                    k = load.index(min(load))
                    index = queue.pop()
                    if on_start is not None:
                        on_start(index)
                    flying[_awaited(actors[k].run.remote(items[index]))] = (index, k)
                    load[k] += 1
                ended, _ = await asyncio.wait(flying, return_when=asyncio.FIRST_COMPLETED)
                for fut in ended:
                    index, k = flying.pop(fut)
                    load[k] -= 1
                    exc = fut.exception()
                    done = Done(index, fut.result()) if exc is None else Done(index, None, _cause(exc))
                    results[index] = self._end(done, on_end)
            self.worker_usage = await self._usage(actors)
            self.worker_cpu_seconds = _cpu(self.worker_usage)
        finally:
            for a in actors:
                ray.kill(a, no_restart=True)
        return [r for r in results if r is not None]

    @staticmethod
    def _end(done: Done, on_end: OnEnd | None) -> Done:
        if on_end is not None:
            on_end(done)
        return done

    async def _usage(self, actors: list[Any]) -> list[dict[str, Any]]:
        try:
            return list(await asyncio.gather(*(_awaited(a.usage.remote()) for a in actors)))
        except Exception:  # noqa: BLE001 - a figure for benchmarks only
            return []

    def close(self) -> None:
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()


def _cpu(usage: list[dict[str, Any]]) -> float:
    """The workers' CPU seconds so far, together (0 when they could not be read)."""
    return float(sum(u["cpu_seconds"] for u in usage))


def _awaited(ref: Any) -> asyncio.Future:
    return asyncio.wrap_future(ref.future())


def _cause(exc: BaseException) -> str:
    """The first line of what went wrong in a worker, not Ray's wrapping of it."""
    inner = getattr(exc, "cause", None)
    if isinstance(inner, BaseException):
        return first_line(inner)
    text = str(exc)
    return first_line(exc) if len(text) < 300 else f"{type(exc).__name__}: {text.splitlines()[0][:300]}"
