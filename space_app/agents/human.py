"""A seat played by a person in the browser: the runner awaits the page's reply."""

from __future__ import annotations

import asyncio
import threading
import time

from sdk import Agent, Observation, Reply


class HumanAgent(Agent):
    """`aact` publishes the observation and waits for `submit(text)` from the page.
    The runner's time limit (the human one, a setting) still applies. A person plays any game
    (the default `games`), from the rules and instructions the page shows."""

    def __init__(self, name: str = "human") -> None:
        super().__init__(name)
        self._lock = threading.Lock()
        self.waiting: Observation | None = None
        self.asked_at = 0.0  # monotonic time the open question was asked (the page's countdown)
        self._future: asyncio.Future[str] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def aact(self, obs: Observation) -> Reply:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()
        with self._lock:
            self.waiting, self._future, self._loop = obs, future, loop
            self.asked_at = time.monotonic()
        try:
            return Reply(text=await future)
        finally:
            with self._lock:
                if self._future is future:  # a timeout, or never answered
                    self.waiting, self._future = None, None

    def seconds_left(self) -> float | None:
        """Time left on the open question (its limit is the seat's own), or None when none is open."""
        with self._lock:
            obs = self.waiting
            if obs is None:
                return None
            return max(0.0, obs.limits.seconds - (time.monotonic() - self.asked_at))

    def act(self, obs: Observation) -> Reply:
        raise RuntimeError("a human seat can only be played through the arena page")

    def submit(self, text: str) -> bool:
        """Deliver the person's reply; False when no question is open."""
        with self._lock:
            future, loop = self._future, self._loop
            if future is None or loop is None or future.done():
                return False
            # answered from now on: the page must not show the question again while the
            # runner's loop gets round to the reply, and a second click is not a reply
            self.waiting, self._future = None, None
        loop.call_soon_threadsafe(lambda: future.done() or future.set_result(text))
        return True
