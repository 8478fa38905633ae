"""The murder mystery's events: one model per kind the rules emit, with its documented fields
and how a transcript shows it.

Besides these the game emits the core's `Private` (each character's script as a whole document,
its role and task as facts) and an `InvalidAction` (a question aimed at no other character, a
final vote for no character), which agents see in their history.

Each kind's fields are exactly what the game has always stored under the event's `data`, in the
same order (`payload()` keeps only the fields the rules pass: a text clue has no `caption`,
`file` or `images`; a silence carries the question's `target`, or the `asker` and `question`
it left unanswered, only in those phases). Every field has a default, so a record written by an
older version, lacking a field added since, still reads as its kind."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from ...core.events import Event, EventKinds, InvalidAction, Setup, Style

__all__ = ["KINDS", "SPEECH", "Answer", "Clue", "GameOver", "Introduction", "MysteryInvalidAction", "MysterySetup",
           "Phase", "Question", "QuestionTarget", "Reasoning", "Silence", "Speech", "Start", "Statement", "Vote",
           "VoteResult"]


class MysterySetup(Setup):
    """The spectators' truth of a match: the script played, each seat's role, the murderer and
    the solution, and each phase's speaking order drawn with the seed."""

    script: str = Field(default="", description="the script's id")
    digest: str = Field(default="", description="the script's fingerprint (an edited script is told apart)")
    roles: dict[str, str] = Field(default_factory=dict, description="seat -> murderer | innocent")
    murderer: str = Field(default="", description="the murderer's seat")
    truth: dict[str, Any] = Field(default_factory=dict, description="the solution's fields that are set "
                                  "(murderer, motive, method, account)")
    key_roles: list[str] = Field(default_factory=list, description="characters whose script holds a key clue")
    orders: dict[str, list[str]] = Field(default_factory=dict, description="each phase's speaking order "
                                         "('introduction', 'round 1', ..., 'reasoning')")
    settings: dict[str, Any] = Field(default_factory=dict, description="the match's settings, as JSON")


class Start(Event):
    """The case told to everyone: the script's title, its background and the cast."""

    kind: Literal["start"] = "start"
    kind_words: ClassVar[dict[str, str]] = {"en": "the case", "zh": "案情"}
    script: str = Field(default="", description="the script's id")
    title: str = Field(default="", description="the script's title")
    language: str = Field(default="en", description="the script's language (en, zh)")
    background: str = Field(default="", description="the public background of the case")
    characters: list[dict[str, str]] = Field(default_factory=list, description="the cast in seat order: "
                                             "{name, introduction} (no introduction when the script has none)")
    seats: list[str] = Field(default_factory=list, description="the seats, which are the characters' names")
    rounds: int = Field(default=0, description="how many discussion rounds there are")

    icon: ClassVar[str] = "🎬"
    in_history: ClassVar[bool] = True


class Clue(Event):
    """A public clue: a text clue (its title and text as the event's text), or an image clue (its
    caption as text, its file reference in `images`, shown to every seat)."""

    kind: Literal["clue"] = "clue"
    kind_words: ClassVar[dict[str, str]] = {"en": "clue", "zh": "线索"}
    clue: str = Field(default="", description="the clue's id in the script")
    title: str = Field(default="", description="a text clue's title; an image clue's id")
    image_kind: str | None = Field(default=None, description="an image clue's kind (text-rich, media-rich); "
                                   "None for a text clue")
    caption: str | None = Field(default=None, description="an image clue's caption (image clues only)")
    file: str | None = Field(default=None, description="an image clue's file in the script folder (image clues "
                             "only)")

    icon: ClassVar[str] = "🔎"
    in_history: ClassVar[bool] = True

    def alt_text(self) -> str:
        return self.caption or self.text


class Phase(Event):
    """A new phase begins (introductions, a discussion round, reasoning, the vote), with its
    speaking order."""

    kind: Literal["phase"] = "phase"
    kind_words: ClassVar[dict[str, str]] = {"en": "phase", "zh": "阶段"}
    phase: str = Field(default="", description="introduction | discussion | reasoning | vote")
    order: list[str] = Field(default_factory=list, description="the seats in the order they are asked")

    icon: ClassVar[str] = "🔔"
    style: ClassVar[Style] = "heading"
    in_history: ClassVar[bool] = True


class Speech(Event):
    """What a character said in public (the kinds below); its text is the words, cut to the
    match's `max_chars`."""

    phase: str = Field(default="", description="the turn it was said in: introduction, share, question, answer "
                       "or reasoning")

    icon: ClassVar[str] = "💬"
    style: ClassVar[Style] = "said"
    in_history: ClassVar[bool] = True


class Introduction(Speech):
    """A character introduces itself."""

    kind: Literal["introduction"] = "introduction"
    kind_words: ClassVar[dict[str, str]] = {"en": "introduction", "zh": "自我介绍"}
    icon: ClassVar[str] = "🙋"


class Statement(Speech):
    """A character shares and analyses clues in a discussion round."""

    kind: Literal["statement"] = "statement"
    kind_words: ClassVar[dict[str, str]] = {"en": "statement", "zh": "发言"}


class Question(Speech):
    """A character asks the character it chose to question."""

    kind: Literal["question"] = "question"
    kind_words: ClassVar[dict[str, str]] = {"en": "question", "zh": "提问"}
    target: str = Field(default="", description="the character questioned")

    icon: ClassVar[str] = "❓"


class Answer(Speech):
    """The questioned character answers."""

    kind: Literal["answer"] = "answer"
    kind_words: ClassVar[dict[str, str]] = {"en": "answer", "zh": "回答"}
    asker: str = Field(default="", description="the character who asked")
    question: str = Field(default="", description="what it asked")

    icon: ClassVar[str] = "🗨️"


class Reasoning(Speech):
    """A character states whom it suspects, the motive and the method."""

    kind: Literal["reasoning"] = "reasoning"
    kind_words: ClassVar[dict[str, str]] = {"en": "reasoning", "zh": "推理"}
    icon: ClassVar[str] = "🧠"


SPEECH: tuple[type[Speech], ...] = (Introduction, Statement, Question, Answer, Reasoning)


class Silence(Event):
    """A character said nothing where it was to speak (an empty or unusable reply). A question
    left unasked is not answered."""

    kind: Literal["silence"] = "silence"
    kind_words: ClassVar[dict[str, str]] = {"en": "silence", "zh": "沉默"}
    phase: str = Field(default="", description="the turn it kept silent in (as a speech's `phase`)")
    reason: str = Field(default="", description="'empty reply', or why the reply could not be used")
    target: str | None = Field(default=None, description="in the question turn: the character it was to question")
    asker: str | None = Field(default=None, description="in the answer turn: the character who asked")
    question: str | None = Field(default=None, description="in the answer turn: the question left unanswered")

    icon: ClassVar[str] = "🤐"
    in_history: ClassVar[bool] = True

    def why(self) -> str:
        return self.reason


class QuestionTarget(Event):
    """Whom a character questions this round: its choice, or the next character clockwise when
    it named no other character."""

    kind: Literal["question_target"] = "question_target"
    kind_words: ClassVar[dict[str, str]] = {"en": "questioning", "zh": "质询对象"}
    asker: str = Field(default="", description="the character asking")
    target: str = Field(default="", description="the character questioned")
    chosen: bool = Field(default=False, description="the asker chose it (False: it went to a character by default)")

    icon: ClassVar[str] = "🎯"
    in_history: ClassVar[bool] = True


class Vote(Event):
    """A character's final vote (all are cast at once, then shown)."""

    kind: Literal["vote"] = "vote"
    kind_words: ClassVar[dict[str, str]] = {"en": "vote", "zh": "投票"}
    vote: str | None = Field(default=None, description="the character named; None: it abstained")

    icon: ClassVar[str] = "🗳️"
    in_history: ClassVar[bool] = True


class VoteResult(Event):
    """The final votes counted."""

    kind: Literal["vote_result"] = "vote_result"
    kind_words: ClassVar[dict[str, str]] = {"en": "vote result", "zh": "投票结果"}
    counts: dict[str, int] = Field(default_factory=dict, description="character -> votes naming it")
    abstained: int = Field(default=0, description="how many abstained")

    icon: ClassVar[str] = "📊"
    in_history: ClassVar[bool] = True


class GameOver(Event):
    """The verdict, the murderer and the solution revealed."""

    kind: Literal["game_over"] = "game_over"
    kind_words: ClassVar[dict[str, str]] = {"en": "result", "zh": "结果"}
    winner: str = Field(default="", description="innocents | murderer | draw")
    murderer: str = Field(default="", description="the murderer's seat")
    roles: dict[str, str] = Field(default_factory=dict, description="seat -> murderer | innocent")
    named: int = Field(default=0, description="innocents whose final vote named the murderer")
    innocents: int = Field(default=0, description="how many innocents there were")
    votes: dict[str, str | None] = Field(default_factory=dict, description="seat -> whom it named (None: abstained)")
    truth: dict[str, Any] = Field(default_factory=dict, description="the solution's fields that are set")

    icon: ClassVar[str] = "🏁"
    in_history: ClassVar[bool] = True


class MysteryInvalidAction(InvalidAction):
    """A refused or missing action (as the core's), shown to agents in their history."""

    in_history: ClassVar[bool] = True


KINDS = EventKinds(MysterySetup, Start, Clue, Phase, *SPEECH, Silence, QuestionTarget, Vote, VoteResult, GameOver,
                   MysteryInvalidAction)
