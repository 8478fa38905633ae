"""Gradio's per-session state, bounded. Every call made without a session (plain HTTP, a new
`gradio_client.Client` per call) is a new Gradio session, and Gradio keeps, per session, a copy
of every component's config of this page (~0.5 MB, built in ~50 ms on the event loop) for up to
10,000 sessions. Here a session copies a component's config only when something needs it (an
API call needs only its output's), an API call's session is dropped when the call returns
unless a page opened it, and page sessions are bounded in number and dropped once idle.

Gradio 6.31's `StateHolder` and `SessionState` are subclassed: the test of this module
(`tests/test_sessions.py`) counts the sessions the real app holds, so an upgrade that
changes them fails there."""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from copy import copy
from typing import Any

import gradio as gr
from gradio.blocks import Blocks, BlocksConfig
from gradio.state_holder import SessionState, StateHolder


class _LazyConfigs(dict):
    """A session's component configs, each built the first time it is read. Gradio builds
    them all when a session starts; a block replaced in the session sets its own entry."""

    def __init__(self, blocks_config: BlocksConfig, ids: list[int]) -> None:
        super().__init__()
        self._config = blocks_config
        self._order = ids  # Gradio's order (the blocks'), which a deep link keeps
        self._pending = set(ids)

    def _build(self, key: int) -> dict:
        self._pending.discard(key)
        value = BlocksConfig.config_for_block(key, [], self._config.blocks[key])
        super().__setitem__(key, value)
        return value

    def __missing__(self, key: int) -> dict:
        if key in self._pending:
            return self._build(key)
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key) or key in self._pending

    def __setitem__(self, key: int, value: dict) -> None:
        self._pending.discard(key)
        super().__setitem__(key, value)

    def get(self, key: int, default: Any = None) -> Any:
        return self[key] if key in self else default

    def _all(self) -> None:
        if not self._pending:
            return
        for key in list(self._pending):
            if key in self._config.blocks:
                self._build(key)
        self._pending.clear()
        built = dict(super().items())
        ordered = {k: built.pop(k) for k in self._order if k in built}
        super().clear()
        super().update({**ordered, **built})

    def items(self) -> Any:
        self._all()
        return super().items()

    def values(self) -> Any:
        self._all()
        return super().values()

    def keys(self) -> Any:
        self._all()
        return super().keys()

    def __iter__(self) -> Iterator[int]:
        self._all()
        return super().__iter__()

    def __len__(self) -> int:
        self._all()
        return super().__len__()


class LeanSessionState(SessionState):
    """`SessionState` whose component configs are built on first use (see `_LazyConfigs`)."""

    def __init__(self, blocks: Blocks) -> None:  # noqa: D107 - same fields as Gradio's, lazily
        self.blocks_config = copy(blocks.default_config)
        ids = [k for k in self.blocks_config.blocks if k in blocks.blocks]
        self.config_values = _LazyConfigs(self.blocks_config, ids)
        self.state_data: dict[int, Any] = {}
        self._state_ttl: dict[int, Any] = {}
        self.is_closed = False
        self.STATE_TTL_WHEN_CLOSED = 1 if os.getenv("GRADIO_IS_E2E_TEST", None) else 3600


class ArenaSessions(StateHolder):
    """The app's session store: at most `capacity` sessions (when full, sessions no page opened
    go first, then the least recently used page; the session of the call being served may be
    one over), each dropped after `idle_seconds` unused.
    `page(request)` marks a session a page opened; `release(request)` drops a session no page
    opened (an API call's)."""

    def __init__(self, capacity: int, idle_seconds: float) -> None:
        super().__init__()
        self.capacity = capacity
        self.idle_seconds = idle_seconds
        self.pages: set[str] = set()

    def set_blocks(self, blocks: Blocks) -> None:
        self.blocks = blocks
        blocks.state_holder = self  # keeps this capacity, not the one given to launch()

    def __getitem__(self, session_id: str) -> SessionState:
        if session_id not in self.session_data:
            fresh = LeanSessionState(self.blocks)
            with self.lock:
                self.session_data.setdefault(session_id, fresh)
        return super().__getitem__(session_id)

    def _drop(self, session_id: str) -> None:
        self.session_data.pop(session_id, None)
        self.time_last_used.pop(session_id, None)
        self.pages.discard(session_id)

    def update(self, session_id: str) -> None:
        with self.lock:
            if session_id in self.session_data:
                self.session_data.move_to_end(session_id)
            self._evict(session_id)

    def _evict(self, session_id: str) -> None:
        """Back within capacity, keeping `session_id` (the one being used); under the lock."""
        while len(self.session_data) > self.capacity:
            others = [s for s in self.session_data if s != session_id]
            lone = next((s for s in others if s not in self.pages), None)
            if lone is None and session_id not in self.pages and len(others) <= self.capacity:
                break  # a session only this call uses, over the pages: it goes when its call ends
            self._drop(lone if lone is not None else others[0])

    def page(self, session_id: str | None) -> None:
        if session_id:
            with self.lock:
                if session_id in self.session_data:
                    self.pages.add(session_id)
                    self._evict(session_id)

    def release(self, session_id: str | None) -> None:
        if session_id:
            with self.lock:
                if session_id not in self.pages:
                    self._drop(session_id)

    def delete_all_expired_state(self) -> None:
        super().delete_all_expired_state()  # gr.State values past their time_to_live
        cutoff = dt.datetime.now() - dt.timedelta(seconds=self.idle_seconds)
        idle = [s for s, used in list(self.time_last_used.items()) if used < cutoff]
        for session_id in idle:
            self.delete_state(session_id)  # runs the State components' delete callbacks
            with self.lock:
                self._drop(session_id)


class Sessions:
    """What the app and its endpoints hold: the session store, installed when the server starts
    (`lifespan`), and the two marks endpoints give it."""

    def __init__(self, capacity: int, idle_seconds: float) -> None:
        self.holder = ArenaSessions(capacity, idle_seconds)

    @asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        """FastAPI lifespan: replace Gradio's session store before the first request."""
        self.holder.set_blocks(app.get_blocks())
        app.state_holder = self.holder
        yield

    def page(self, request: gr.Request | None) -> None:
        """A page opened this session (its load event): keep it."""
        self.holder.page(getattr(request, "session_hash", None))

    def release(self, request: gr.Request | None) -> None:
        self.holder.release(getattr(request, "session_hash", None))

    def stateless(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """An API endpoint keeps no session: the one its call made is dropped when it returns.
        `fn` takes `request: gr.Request`."""
        signature = inspect.signature(fn)

        def request_of(args: tuple, kwargs: dict) -> Any:
            return signature.bind_partial(*args, **kwargs).arguments.get("request")

        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(*args, **kwargs)
                finally:
                    self.release(request_of(args, kwargs))

            return run_async

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            finally:
                self.release(request_of(args, kwargs))

        return run


__all__ = ["ArenaSessions", "LeanSessionState", "Sessions"]
