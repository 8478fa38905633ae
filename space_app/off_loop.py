"""Blocking store and file work, awaited from the event loop on a few threads of its own. A
write can wait seconds for another process's lock (SQLite's busy timeout, a PostgreSQL lock),
and the loop serves every other match and request meanwhile. Writes serialise on the store's
writer lock anyway, so a few threads are enough; their own pool keeps them from filling the
threads that requests and DNS lookups run on."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

STORE_THREADS = ThreadPoolExecutor(4, thread_name_prefix="store")


async def off_loop(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` on the store's threads, awaited."""
    return await asyncio.get_running_loop().run_in_executor(STORE_THREADS, functools.partial(fn, *args, **kwargs))


__all__ = ["STORE_THREADS", "off_loop"]
