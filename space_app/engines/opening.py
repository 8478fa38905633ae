"""An engine by its name, as the command line gives it."""

from __future__ import annotations

from .base import ENGINES, Engine, EngineError
from .local import LocalEngine


def open_engine(name: str, *, concurrency: int = 8, address: str | None = None, workers: int | None = None,
                num_cpus: int | None = None) -> Engine:
    """An engine by name, connected and ready (`ray`: to `address`, or a local instance started
    with `num_cpus`); `EngineError` when it cannot start."""
    if name == "local":
        if address:
            raise EngineError("--address names a Ray cluster: give it with --engine ray")
        return LocalEngine(concurrency)
    if name == "ray":
        from .ray_engine import RayEngine  # ray is imported only when asked for

        return RayEngine(address, workers=workers, concurrency=concurrency, num_cpus=num_cpus)
    raise EngineError(f"unknown engine {name!r}; known: {', '.join(ENGINES)}")


__all__ = ["open_engine"]
