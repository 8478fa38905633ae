"""Events: what a game emits, each with who may see it. The event log is the single source of
truth: observations, replays, metrics and verification are all built from it.

Every kind of event is a pydantic model: the envelope (`kind`, `actor`, `text`, `round`,
`visible_to`, and `seq` once stored) and the kind's own documented fields. The kinds every game
shares (a call record, an error, a private fact, an invalid action) are defined here; each game
defines its own in `games/<id>/events.py` and names them in its spec (`EventKinds`).

A kind also declares how it is shown, so one transcript renderer serves every game: its `icon`,
its `style` (a said line, a heading, a secret, the spectators' hidden setup, not shown), whether
agents see it in their `history`, and its `why()` and `marker()`.

The store keeps kind + the kind's fields as JSON (`payload()`), as it always has; `EventKinds.parse`
gives the model back from a stored row, so old records read through the same models. A row whose
kind is unknown, or whose fields do not fit its model, reads as a plain `Event` with every field
kept (nothing is lost; readers that look for a kind skip it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

SPECTATORS: tuple[str, ...] = ()  # visible to no seat: spectators and replays only

# how a transcript shows a kind: a plain line; "said" (who: words); a "heading" (a new round);
# a "secret" (only the seats it names, or spectators only, see it); "spoiler" (the spectators'
# hidden truth, folded away in a replay); "hidden" (not a transcript line: a call record)
Style = Literal["line", "said", "heading", "secret", "spoiler", "hidden"]

ENVELOPE = frozenset({"kind", "actor", "text", "round", "visible_to", "seq"})


class Marker(BaseModel):
    """A turn that went wrong (a foul, a timeout, an unreadable reply), for the replay's list."""

    seq: int | None
    round: int | None
    seat: str
    marker: str
    verb: str | None
    reason: str
    latency_ms: float | None = None


class Event(BaseModel):
    """One event. Subclasses narrow `kind` to a `Literal` and add the kind's fields."""

    model_config = ConfigDict(frozen=True, extra="allow")

    kind: str
    actor: str = Field(default="host", description="the seat that acted, or 'host' for the game")
    text: str = Field(default="", description="what happened, in the game's language")
    round: int | None = None
    visible_to: tuple[str, ...] | None = Field(
        default=None, description="None: everyone; (): spectators only; else the seats that see it")
    seq: int | None = Field(default=None, description="its place in the stored log (None until stored)")
    images: list[str] = Field(default_factory=list, description="images shown with it, to every seat that sees it")

    # how it is shown (see `Style`); whether agents see it as a history item; whether its own
    # line already says why it happened (no reason is added after it)
    icon: ClassVar[str] = "•"
    style: ClassVar[Style] = "line"
    in_history: ClassVar[bool] = False
    says_why: ClassVar[bool] = False
    # the kind in words, by language (a transcript line names it beside its speaker)
    kind_words: ClassVar[dict[str, str]] = {}

    def visible_for(self, seat: str) -> bool:
        return self.visible_to is None or seat in self.visible_to

    def __repr__(self) -> str:
        # short: a match's outcome holds hundreds of events, and asyncio reprs finished tasks
        return (f"{type(self).__name__}(kind={self.kind!r}, actor={self.actor!r}, round={self.round!r}, "
                f"seq={self.seq!r})")

    def why(self) -> str:
        """Why this happened, when the line does not say it (e.g. an invalid action's reason)."""
        return ""

    def word(self, language: str | None = None) -> str:
        """The kind in words in `language` (English when it has none there, its name at worst)."""
        return self.kind_words.get(language or "en") or self.kind_words.get("en") or self.kind.replace("_", " ")

    def said_by(self) -> str:
        """Who says this line: its actor (a seat, or 'host' for the game)."""
        return self.actor

    def shown_text(self) -> str:
        """What a transcript line says: the event's text unless the kind words it better for
        people (a code in the text, e.g. a quiz's name, said in words)."""
        return self.text

    def marker(self) -> Marker | None:
        """This event as a replay marker (a foul, a failed call), or None."""
        return None

    def pictures(self) -> list[str]:
        """Every image reference shown with this event (its own and any document's)."""
        return [str(i) for i in self.images]

    def alt_text(self) -> str:
        """What its pictures show, in words: its text unless the kind has better."""
        return self.text

    def payload(self) -> dict[str, Any]:
        """The kind's own fields as stored (the envelope aside): exactly the fields given."""
        return self.model_dump(exclude=set(ENVELOPE), exclude_unset=True)

    def to_dict(self) -> dict[str, Any]:
        """The stored shape: the envelope and the kind's fields under `data`."""
        return {"kind": self.kind, "actor": self.actor, "text": self.text, "round": self.round,
                "visible_to": None if self.visible_to is None else list(self.visible_to),
                "data": self.payload()}

    @classmethod
    def kind_name(cls) -> str:
        return str(cls.model_fields["kind"].default)


# -- the kinds every game shares --------------------------------------------------------------

class Call(Event):
    """The runner's record of one request to a seat and what came back (spectators only)."""

    kind: Literal["call"] = "call"
    kind_words: ClassVar[dict[str, str]] = {"en": "call", "zh": "调用"}
    verb: str | None = None
    phase: str | None = None
    status: str = Field(default="ok", description="ok | timeout | error | unparseable")
    detail: str = ""
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reply: str | None = Field(default=None, description="the reply as received (cut to a bound)")
    parsed: str | None = Field(default=None, description="what the game was given, for a choice")
    given: str | None = Field(default=None, description="what the game got, when `reply` is cut")
    tokens_clamped: dict[str, Any] | None = Field(default=None, description="counts reported out of bounds")
    notes: dict[str, Any] | None = Field(default=None, description="the agent's private notes")
    truncated: bool | None = Field(default=None, description="the model's reply stopped at its token limit")
    seconds: float | None = Field(default=None, description="the seat's own time limit, when it had one")
    model_calls: list[dict[str, Any]] | None = Field(
        default=None, description="the agent's model calls of the turn (messages, raw reply, tokens), "
        "as it reported them, bounded (`space_app.model_calls`)")
    model_calls_note: str | None = Field(default=None, description="what was cut from `model_calls`")
    skipped: bool | None = Field(default=None, description="not called: the seat was marked failing, and the "
                                 "turn took the rule's outcome for a failed call (`SeatDegraded`)")
    captions: bool | None = Field(default=None, description="a vision agent sent captions in place of pictures, "
                                  "its model having refused images earlier in the match")
    images_refused: str | None = Field(default=None, description="the refusal of images this call met first; "
                                       "the turn was asked again with captions")

    style: ClassVar[Style] = "hidden"

    @property
    def failed(self) -> bool:
        return self.status != "ok"

    @property
    def unreachable(self) -> bool:
        """The agent could not be reached at all (the network's fault more than the agent's)."""
        return self.detail.startswith("unreachable")

    @property
    def infrastructure(self) -> bool:
        """A failure counted as infrastructure (docs/methodology.md): the agent could not be
        reached, or it was not called because its seat had been marked failing."""
        return self.unreachable or self.skipped is True

    def why(self) -> str:
        return f"{self.status}: {self.detail}".rstrip(": ")[:200] if self.failed else ""

    def marker(self) -> Marker | None:
        if not self.failed:
            return None
        return Marker(seq=self.seq, round=self.round, seat=self.actor, marker=self.status, verb=self.verb,
                      reason=self.detail, latency_ms=self.latency_ms)


class SeatDegraded(Event):
    """The arena changed how it calls a seat for the rest of the match (spectators only):
    `failing` (its calls failed the same way `after` times in a row; it is no longer called)
    or `captions` (its model refused pictures; it is sent the captions instead)."""

    kind: Literal["degraded"] = "degraded"
    kind_words: ClassVar[dict[str, str]] = {"en": "seat degraded", "zh": "座位降级"}
    seat: str = ""
    state: Literal["failing", "captions"] = "failing"
    reason: str = ""
    after: int | None = Field(default=None, description="failing: the failures in a row that marked it")
    icon: ClassVar[str] = "🔌"
    says_why: ClassVar[bool] = True

    def marker(self) -> Marker | None:
        return Marker(seq=self.seq, round=self.round, seat=self.seat or self.actor, marker=self.state,
                      verb=None, reason=self.reason)


class Error(Event):
    """The match stopped on an error of the arena or the game (spectators only)."""

    kind: Literal["error"] = "error"
    kind_words: ClassVar[dict[str, str]] = {"en": "error", "zh": "错误"}
    icon: ClassVar[str] = "⚠️"


class SharedDocument(BaseModel):
    """A whole document a private event hands its seats (a character's script, a note)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str = ""
    kind: str = "note"
    text: str = ""
    images: list[str] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)


class Private(Event):
    """Something one seat (or a group, e.g. a team) is told: facts merged into its private
    facts, the text added to its private text, and a whole document when there is one."""

    kind: Literal["private"] = "private"
    kind_words: ClassVar[dict[str, str]] = {"en": "told in private", "zh": "私下告知"}
    facts: dict[str, Any] = Field(default_factory=dict)
    document: SharedDocument | None = None

    icon: ClassVar[str] = "🔑"
    style: ClassVar[Style] = "secret"

    def pictures(self) -> list[str]:
        return [*super().pictures(), *(self.document.images if self.document else [])]

    def said_by(self) -> str:
        return "host"  # the game tells the seat (its actor is the seat it is about)


class InvalidAction(Event):
    """A refused or missing action: its seat and spectators are told what happened."""

    kind: Literal["invalid_action"] = "invalid_action"
    kind_words: ClassVar[dict[str, str]] = {"en": "invalid action", "zh": "无效操作"}
    seat: str = ""
    action: str = ""
    reason: str = ""
    given: str | None = None

    icon: ClassVar[str] = "⛔"
    in_history: ClassVar[bool] = True  # the seat is told, so it can do better next time

    def why(self) -> str:
        return self.reason


class Setup(Event):
    """The spectators' hidden truth of a match (roles, words, the murderer): each game gives
    its own fields; a replay folds it away so it does not spoil itself."""

    kind: Literal["setup"] = "setup"
    kind_words: ClassVar[dict[str, str]] = {"en": "hidden setup", "zh": "隐藏设定"}
    icon: ClassVar[str] = "🔒"
    style: ClassVar[Style] = "spoiler"


class Probe(Event):
    """A belief probe and its reply (`core/probes.py`): what one seat was asked about the hidden
    truth (who is the spy, who is evil) and what was read of its answer. Only that seat and
    spectators see it, and it is no history item: the seat's later observations, and so the
    game, are the same as without probes."""

    kind: Literal["probe"] = "probe"
    kind_words: ClassVar[dict[str, str]] = {"en": "belief probe", "zh": "信念探测"}
    moment: str = Field(default="", description="when it was asked, e.g. 'round 2' or 'after quest 1'")
    question: str = Field(default="", description="what it asks about, e.g. 'spy', 'evil', 'merlin'")
    shape: Literal["one", "each"] = "one"
    candidates: list[str] = Field(default_factory=list, description="the seats it asks about")
    count: int = Field(default=1, description="how many candidates are it, as the seat knows (shape 'each')")
    reply: str | None = Field(default=None, description="the reply as the game was handed it")
    belief: dict[str, float] | None = Field(default=None, description="the reply read and normalised")
    dropped: list[str] = Field(default_factory=list, description="names in the reply that are no candidate")
    unreadable: str = Field(default="", description="why no belief was read")

    icon: ClassVar[str] = "🎯"
    style: ClassVar[Style] = "secret"

    def shown_text(self) -> str:
        if self.belief is None:
            return f"{self.text} — {self.unreadable}"
        told = ", ".join(f"{name} {p:.2f}" for name, p in self.belief.items())
        return f"{self.text} — {told}"


GENERIC_KINDS: tuple[type[Event], ...] = (Call, Error, Private, InvalidAction, SeatDegraded, Probe)


class EventKinds:
    """A game's event vocabulary: the generic kinds and the game's own, by kind name."""

    def __init__(self, *kinds: type[Event]) -> None:
        self.by_kind: dict[str, type[Event]] = {k.kind_name(): k for k in GENERIC_KINDS}
        for k in kinds:
            self.by_kind[k.kind_name()] = k

    def __contains__(self, kind: object) -> bool:
        return kind in self.by_kind

    def model_of(self, kind: str) -> type[Event]:
        return self.by_kind.get(kind, Event)

    def parse(self, row: Event | Mapping[str, Any]) -> Event:
        """A stored row (`{kind, actor, text, round, visible_to, data, seq}`) as its model."""
        if isinstance(row, Event):
            return row
        fields = {**(row.get("data") or {})}
        for key in ENVELOPE:
            if row.get(key) is not None:
                fields[key] = row[key]
        fields.setdefault("kind", "")
        try:
            return self.model_of(str(fields["kind"])).model_validate(fields)
        except ValidationError:
            return Event.model_validate(fields)  # kept whole, read as no particular kind

    def parse_all(self, rows: Iterable[Event | Mapping[str, Any]]) -> list[Event]:
        return [self.parse(r) for r in rows]

    def from_history(self, item: Any) -> Event:
        """An agent's history item (`sdk.HistoryItem`: who, kind, text, round, data, images)
        as the model of its kind, so a house agent reads fields, not keys."""
        data = {**item.data, "images": list(item.images)} if item.images else dict(item.data)
        return self.parse({"kind": item.kind, "actor": item.who, "text": item.text, "round": item.round,
                           "data": data})


GENERIC = EventKinds()  # the generic kinds alone: what generic code reads of any game's log


__all__ = ["ENVELOPE", "GENERIC", "GENERIC_KINDS", "SPECTATORS", "Call", "Error", "Event", "EventKinds",
           "InvalidAction", "Marker", "Private", "Probe", "SeatDegraded", "Setup", "SharedDocument", "Style"]
