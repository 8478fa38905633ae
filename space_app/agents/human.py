"""A seat played by a person in the browser: the runner awaits the page's reply."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Literal

from sdk import Agent, Observation, Reply

# what became of a reply the page sent: taken as the answer to its question; refused because
# the question it answers is no longer the open one (answered already, timed out, or a
# question the page showed again after it was answered); refused because none is open
Submitted = Literal["sent", "stale", "closed"]


@dataclass(frozen=True)
class Question:
    """The open question as the page shows it: the observation, its turn id (unique to this
    question, within the match and across matches) and its number in the seat's questions."""

    obs: Observation
    turn: str
    number: int
    asked_at: float  # monotonic time it was asked (the page's countdown)

    def seconds_left(self) -> float:
        return max(0.0, self.obs.limits.seconds - (time.monotonic() - self.asked_at))


class HumanAgent(Agent):
    """`aact` publishes the observation with a new turn id and waits for `submit(text, turn)`
    from the page. A reply is taken only for the turn it names, so a reply typed under a
    question that was already answered (a live update drawn just before the answer arrived)
    is refused, never taken as the answer to the next question. The runner's time limit
    (the human one, a setting) still applies. A person plays any game (the default `games`),
    from the rules and instructions the page shows."""

    # a person who let a few turns pass may come back: never marked failing (`seat_health`)
    always_called = True

    def __init__(self, name: str = "human") -> None:
        super().__init__(name)
        self._lock = threading.Lock()
        self._open: Question | None = None
        self._asked = 0  # questions asked so far: the open one's number
        self._token = uuid.uuid4().hex[:8]  # turn ids of a seat with no match id stay unique
        self._future: asyncio.Future[str] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def aact(self, obs: Observation) -> Reply:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()
        with self._lock:
            self._asked += 1
            turn = f"{obs.match_id or self._token}-{self._asked}"
            self._open = Question(obs, turn, self._asked, time.monotonic())
            self._future, self._loop = future, loop
        try:
            return Reply(text=await future)
        finally:
            with self._lock:
                if self._future is future:  # a timeout, or never answered
                    self._open, self._future = None, None

    def question(self) -> Question | None:
        """The open question (observation and turn id read together), or None."""
        with self._lock:
            return self._open

    @property
    def waiting(self) -> Observation | None:
        """The open question's observation, or None."""
        question = self.question()
        return question.obs if question else None

    def seconds_left(self) -> float | None:
        """Time left on the open question (its limit is the seat's own), or None when none is open."""
        question = self.question()
        return question.seconds_left() if question else None

    def act(self, obs: Observation) -> Reply:
        raise RuntimeError("a human seat can only be played through the arena page")

    def submit(self, text: str, turn: str) -> Submitted:
        """Deliver the person's reply to the question with turn id `turn`: 'sent' when that
        question is the open one; 'stale' when another one is open; 'closed' when none is."""
        with self._lock:
            question, future, loop = self._open, self._future, self._loop
            if question is None or future is None or loop is None or future.done():
                return "closed"
            if turn != question.turn:
                return "stale"
            # answered from now on: the page must not show the question again while the
            # runner's loop gets round to the reply, and a second click is not a reply
            self._open, self._future = None, None
        loop.call_soon_threadsafe(lambda: future.done() or future.set_result(text))
        return "sent"
