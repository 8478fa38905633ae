"""The batch-engine options every batch command takes (`--engine`, `--address`, `--workers`,
`--num-cpus`) and the engine they ask for, opened before the store and closed after the
command: shared by the CLI's own commands and the games' commands (through `ArenaServices`)."""

from __future__ import annotations

import argparse
from contextlib import AbstractContextManager, closing, nullcontext
from typing import Any


def add_engine_args(p: argparse.ArgumentParser, unit: str = "matches") -> None:
    p.add_argument("--engine", choices=["local", "ray"], default="local",
                   help=f"where the {unit} run: local = in this process (default); ray = as tasks on a Ray "
                   "cluster's workers (--address), or on a local Ray instance started for this run")
    p.add_argument("--address", default=None, metavar="HOST:PORT",
                   help="an existing Ray cluster (with --engine ray), e.g. 10.0.0.5:6379 or ray://10.0.0.5:10001")
    p.add_argument("--workers", type=int, default=None,
                   help="Ray workers (default: one per CPU of the cluster); --concurrency is per worker")
    p.add_argument("--num-cpus", type=int, default=None,
                   help="CPUs of the local Ray instance started without --address (default: all)")


def open_engine_of(args: argparse.Namespace) -> Any:
    """The batch engine the arguments ask for, connected before the store is opened (a cluster
    that cannot be reached stops the command before anything is created); None: in process."""
    if getattr(args, "engine", "local") == "local" and not getattr(args, "address", None):
        return None
    from .engines import open_engine

    return open_engine(args.engine, concurrency=args.concurrency, address=args.address, workers=args.workers,
                       num_cpus=args.num_cpus)


def closing_engine(engine: Any) -> AbstractContextManager[Any]:
    """The engine, closed at the end of the command (a local Ray instance is shut down)."""
    return nullcontext() if engine is None else closing(engine)


__all__ = ["add_engine_args", "closing_engine", "open_engine_of"]
