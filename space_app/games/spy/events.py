"""Who is the Spy's events: what the rules emit, each kind's fields and how it is shown.

Every field is optional (a stored row keeps exactly the fields its rule passed), and typed to
accept every value the game has stored.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from ...core.events import Event, EventKinds, Marker, Setup, Style


class SpySetup(Setup):
    """The hidden truth of a match (spectators only): the word pair, who the spy is, who opens."""

    roles: dict[str, str] = Field(default_factory=dict, description="seat -> 'spy' or 'civilian'")
    words: dict[str, str] = Field(default_factory=dict, description="seat -> the word it was dealt")
    spy: str = Field(default="", description="the spy's seat")
    opener: str = Field(default="", description="the seat that speaks first in each round (while alive)")
    pair: dict[str, Any] = Field(default_factory=dict, description="the drawn word pair (a WordPair's fields)")
    settings: dict[str, Any] = Field(default_factory=dict, description="the match's settings, the fixed pair aside")


class Start(Event):
    """The game begins: the players and the opener are announced to everyone."""

    kind: Literal["start"] = "start"
    kind_words: ClassVar[dict[str, str]] = {"en": "start", "zh": "开始"}
    seats: list[str] = Field(default_factory=list, description="every seat, in seat order")
    opener: str = Field(default="", description="the seat that speaks first")

    icon: ClassVar[str] = "🎬"
    in_history: ClassVar[bool] = True


class RoundStart(Event):
    """A round begins (its number is the envelope's `round`), with its speaking order."""

    kind: Literal["round_start"] = "round_start"
    kind_words: ClassVar[dict[str, str]] = {"en": "round", "zh": "回合"}
    order: list[str] = Field(default_factory=list, description="the surviving seats in speaking order")

    icon: ClassVar[str] = "🔔"
    style: ClassVar[Style] = "heading"
    in_history: ClassVar[bool] = True


class Statement(Event):
    """A seat's description of its word, as everyone sees it (the text is the statement)."""

    kind: Literal["statement"] = "statement"
    kind_words: ClassVar[dict[str, str]] = {"en": "statement", "zh": "发言"}
    truncated: bool = Field(default=False, description="the reply was cut to the game's length limit")
    foul: bool = Field(default=False, description="shown, but a foul (it repeats an earlier statement, "
                                                  "or is a skip); the `foul` event follows it")

    icon: ClassVar[str] = "💬"
    style: ClassVar[Style] = "said"
    in_history: ClassVar[bool] = True


class Foul(Event):
    """A statement that breaks a rule (own word, a repeat, empty, a skip, none in time): its
    seat is eliminated after the round's statements."""

    kind: Literal["foul"] = "foul"
    kind_words: ClassVar[dict[str, str]] = {"en": "foul", "zh": "犯规"}
    reason: str = Field(default="", description="why, in English (metrics and markers read it)")
    status: str = Field(default="ok", description="the reply's status: ok | timeout | error | unparseable")
    shown: str = Field(default="", description="what the other seats were shown of the statement "
                                               "(a notice that it was withheld, when it held the word)")

    icon: ClassVar[str] = "🚩"
    in_history: ClassVar[bool] = True
    says_why: ClassVar[bool] = True

    def why(self) -> str:
        return self.reason

    def marker(self) -> Marker | None:
        return Marker(seq=self.seq, round=self.round, seat=self.actor, marker="foul", verb="speak",
                      reason=self.reason or self.text)


class WithheldStatement(Event):
    """A statement that held its speaker's own word: spectators see it, the seats do not."""

    kind: Literal["withheld_statement"] = "withheld_statement"
    kind_words: ClassVar[dict[str, str]] = {"en": "withheld statement", "zh": "被扣下的发言"}

    icon: ClassVar[str] = "🙈"
    style: ClassVar[Style] = "secret"


class Elimination(Event):
    """A seat leaves the game (the actor): for a foul, or voted out."""

    kind: Literal["elimination"] = "elimination"
    kind_words: ClassVar[dict[str, str]] = {"en": "elimination", "zh": "淘汰"}
    reason: str = Field(default="", description="'foul' or 'vote'")

    icon: ClassVar[str] = "❌"
    in_history: ClassVar[bool] = True
    says_why: ClassVar[bool] = True

    def why(self) -> str:
        return self.reason


class Vote(Event):
    """One seat's vote (the actor), or its abstention."""

    kind: Literal["vote"] = "vote"
    kind_words: ClassVar[dict[str, str]] = {"en": "vote", "zh": "投票"}
    target: str | None = Field(default=None, description="the seat voted for; None: an abstention")
    reason: str = Field(default="", description="why it counts as an abstention ('abstained', a failed "
                                                "reply, a name not on the list); '' for a vote cast")

    icon: ClassVar[str] = "🗳️"
    in_history: ClassVar[bool] = True

    def why(self) -> str:
        return self.reason


class VoteResult(Event):
    """The round's tally: the seat with the most votes is out; a tie, or no votes, puts nobody out."""

    kind: Literal["vote_result"] = "vote_result"
    kind_words: ClassVar[dict[str, str]] = {"en": "vote result", "zh": "投票结果"}
    tally: dict[str, int] = Field(default_factory=dict, description="seat -> votes received")
    eliminated: str | None = Field(default=None, description="the seat voted out, or None")

    icon: ClassVar[str] = "📊"
    in_history: ClassVar[bool] = True


class End(Event):
    """The game is over: the winning side, every seat's role, word and score."""

    kind: Literal["end"] = "end"
    kind_words: ClassVar[dict[str, str]] = {"en": "result", "zh": "结果"}
    winner: str = Field(default="", description="'spy' or 'civilian'")
    roles: dict[str, str] = Field(default_factory=dict, description="seat -> 'spy' or 'civilian'")
    words: dict[str, str] = Field(default_factory=dict, description="seat -> its word")
    scores: dict[str, float] = Field(default_factory=dict, description="seat -> game score (they sum to 12)")
    language: str = Field(default="en", description="the match's language")

    icon: ClassVar[str] = "🏁"
    in_history: ClassVar[bool] = True


KINDS = EventKinds(SpySetup, Start, RoundStart, Statement, Foul, WithheldStatement, Elimination, Vote,
                   VoteResult, End)

__all__ = ["KINDS", "Elimination", "End", "Foul", "RoundStart", "SpySetup", "Start", "Statement", "Vote",
           "VoteResult", "WithheldStatement"]
