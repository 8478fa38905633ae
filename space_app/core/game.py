"""The game protocol: a game is a pure state machine that asks seats to act and emits events.

A game never does I/O and never reads a clock. Given its seed and the outcomes it
is fed, it emits the same events. Observations are built only from the events a
seat may see, so private information cannot leak by construction.

What the observation builder reads of the events (models, `core/events.py`):
- `Private` events (visible to one seat, or to a group such as a team): their `facts` are
  merged into the seat's facts, the text is added to its private text, and a `document`
  becomes one whole `Document` (with the other seats of the group as `shared_with`);
- events of a kind that declares `in_history` become history items, with the kind's fields
  as their structured `data` (a vote's target, a team's members);
- an event's `images` reach exactly the seats that may see that event.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel

from sdk.observation import Document, HistoryItem, Limits, Observation, PrivateInfo, Verb

from .documents import fold_private
from .events import SPECTATORS, Event, Private
from .reply_formats import reply_format as default_reply_format

OVER = "over"  # the phase a game ends in
E = TypeVar("E", bound=Event)


@dataclass(frozen=True)
class Request:
    seat: str
    observation: Observation

    @property
    def verb(self) -> Verb:
        return self.observation.verb


OutcomeStatus = Literal["ok", "timeout", "error", "unparseable"]


@dataclass(frozen=True)
class Outcome:
    """What the runner hands back to the game for one request."""

    seat: str
    text: str | None  # None when there is no usable reply
    status: OutcomeStatus = "ok"
    detail: str = ""
    # the agent's private notes on this reply (bounded JSON), for games that record them where
    # only this seat and spectators see them; None when it gave none
    notes: dict[str, Any] | None = None
    # the seat's own time limit when it had one (a person), else None: a timeout is then
    # told with the limit that seat was given, not the game's
    seconds: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok" and self.text is not None


def usable_text(outcome: Outcome | None) -> str | None:
    """The reply's text when there is a usable one (no outcome: none)."""
    return outcome.text if outcome is not None and outcome.ok else None


def why_unusable(outcome: Outcome | None) -> str:
    """Why a seat's reply cannot be used, for the invalid-action record."""
    if outcome is None:
        return "no reply"
    return "no usable reply" if outcome.ok else f"no usable reply ({outcome.status})"


@dataclass
class _SeatView:
    """What one seat has been shown so far (kept by the game, grown as events arrive)."""

    read: int = 0  # events[:read] have been looked at
    facts: dict[str, Any] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    shared_with: list[str] = field(default_factory=list)
    history: list[HistoryItem] = field(default_factory=list)
    images: list[str] = field(default_factory=list)


class Game(ABC):
    """Subclasses implement `pending` and `submit` and emit events with `emit`."""

    id: ClassVar[str]
    title: ClassVar[str]

    def __init__(self, seats: list[str], seed: int, settings: BaseModel) -> None:
        if len(set(seats)) != len(seats):
            raise ValueError("seat names must be unique")
        self.seats = list(seats)
        self.seed = seed
        self.settings = settings
        self.events: list[Event] = []
        self.match_id = ""
        self._views: dict[str, _SeatView] = {}
        self._items: dict[int, HistoryItem] = {}  # event index -> its history item, shared by seats

    # -- the protocol the runner drives -----------------------------------
    @abstractmethod
    def pending(self) -> list[Request]:
        """Requests of the current step (all may be asked at once); [] when over."""

    @abstractmethod
    def submit(self, outcomes: Iterable[Outcome]) -> None:
        """Apply the outcomes of the current step's requests."""

    # the current phase; a game that keeps one ends when it is OVER (or overrides `over`)
    phase: str = ""

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def turn_limits(self) -> Limits:
        """A turn's limits from the game's settings (`max_chars`, `seconds`), else the defaults."""
        default = Limits()
        return Limits(max_chars=getattr(self.settings, "max_chars", default.max_chars),
                      seconds=getattr(self.settings, "seconds", default.seconds))

    @abstractmethod
    def result(self) -> dict[str, Any]:
        """Final result: at least {'scores': {seat: float}, 'winner': str, 'roles': {seat: str}}."""

    def seat_roles(self) -> dict[str, str]:
        """Hidden roles by seat (spectator knowledge), for placing role-specific agents."""
        return {}

    def rules_text(self) -> str:
        """The rules as the game states them to its players, in the match's language: every
        observation carries it, so an agent plays any game from what it is sent (the
        conformance checks require it of every registered game)."""
        return ""

    # -- helpers ------------------------------------------------------------
    def emit(self, event: E) -> E:
        """Append an event (a model of one of the game's kinds) to the log."""
        self.events.append(event)
        return event

    def visible_events(self, seat: str) -> list[Event]:
        return [e for e in self.events if e.visible_for(seat)]

    def _view(self, seat: str) -> _SeatView:
        """This seat's view, brought up to date with the events emitted since it was last
        read: each event is looked at once per seat, so building every observation of a
        match is linear in its events (no rescan of the whole log per observation)."""
        view = self._views.setdefault(seat, _SeatView())
        for index in range(view.read, len(self.events)):
            e = self.events[index]
            if not e.visible_for(seat):
                continue
            images = e.pictures()
            if isinstance(e, Private) and e.visible_to:
                # one seat's secret, or a group's (e.g. a team that knows each other)
                fold_private(e, seat, view.facts, view.texts, view.documents, view.shared_with)
            elif e.in_history:
                item = self._items.get(index)
                if item is None:
                    data = e.payload()
                    data.pop("images", None)
                    item = self._items[index] = HistoryItem(who=e.actor, kind=e.kind, text=e.text, round=e.round,
                                                            data=data, images=images)
                view.history.append(item)
            view.images += [i for i in images if i not in view.images]
        view.read = len(self.events)
        return view

    def observe(self, seat: str, verb: Verb, *, phase: str, instruction: str,
                options: list[str] | None = None, pick: int = 1, allow_abstain: bool = False,
                limits: Limits | None = None, round: int | None = None, language: str = "en",
                option_texts: dict[str, str] | None = None, reply_format: str | None = None) -> Observation:
        """An observation built only from the events this seat may see: its private facts,
        texts and documents (`private` events, for one seat or a group), the history, and the
        images of every event it may see; with the game's rules and how this reply is read
        (the kernel's wording for the verb unless the game gives its own `reply_format`)."""
        view = self._view(seat)
        limits = limits or Limits()
        if reply_format is None:
            reply_format = default_reply_format(verb, language, options=options or [], pick=pick,
                                                allow_abstain=allow_abstain, max_chars=limits.max_chars)
        obs = Observation(
            game=self.id, phase=phase, verb=verb, you=seat,
            private=PrivateInfo(facts=dict(view.facts), text=" ".join(view.texts), documents=list(view.documents),
                                shared_with=list(view.shared_with)),
            history=[], options=options or [], option_texts=option_texts or {}, pick=pick,
            allow_abstain=allow_abstain, instruction=instruction, limits=limits,
            rules=self.rules_text(), reply_format=reply_format,
            images=list(view.images),
            language=language, match_id=self.match_id, round=round, seats=list(self.seats),
        )
        # the history's items were validated once, when the event arrived; handing the
        # same (frozen) items on costs a list copy, not a re-validation of the whole log
        return obs.model_copy(update={"history": list(view.history)})


__all__ = ["OVER", "SPECTATORS", "Event", "Game", "Outcome", "OutcomeStatus", "Request", "usable_text", "why_unusable"]
