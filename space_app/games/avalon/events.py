"""Avalon's events: one model per kind the rules emit, with its fields and how it is shown.

Public kinds (everyone sees them, and agents get them as history): the start, each quest's
start, proposals, statements and silences, revisions, team votes and their result, quest
results, the assassination and the end, plus the end-of-game quizzes' announcement. Secret
kinds: the setup (spectators only), each seat's role knowledge (the core `Private`), an
intention-guided seat's notes, quest cards (spectators only), the evil team's reveal and talk
(the evil seats), and the quiz questions and answers (their seat). The field values are the
ones the rules have always stored, so old matches read through these same models.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from ...core.events import Event, EventKinds, InvalidAction, Setup, Style

__all__ = [
    "KINDS", "Assassination", "AssassinationPhase", "AvalonInvalidAction", "AvalonSetup", "EvilReveal", "EvilTalk",
    "GameOver", "Intentions", "Proposal", "QuestCard", "QuestResult", "QuestStart", "QuizAnswer", "QuizQuestion",
    "Quizzes", "Revision", "Silence", "Start", "Statement", "TeamVote", "VoteResult",
]


class AvalonSetup(Setup):
    """The hidden truth of the match, for spectators: every seat's role and side, the first leader."""

    roles: dict[str, str] = Field(default_factory=dict, description="seat -> role (merlin, assassin, ...)")
    sides: dict[str, str] = Field(default_factory=dict, description="seat -> side (good | evil)")
    first_leader: str = Field(default="", description="the seat that leads the first proposal")
    settings: dict[str, Any] = Field(default_factory=dict, description="the match's settings as JSON")


class Start(Event):
    """The table: the players, how many are good and evil, the roles in play and the quests."""

    kind: Literal["start"] = "start"
    kind_words: ClassVar[dict[str, str]] = {"en": "start"}
    seats: list[str] = Field(default_factory=list, description="the seats in clockwise order")
    players: int = Field(default=0, description="how many players")
    good_count: int = Field(default=0, description="how many are good")
    evil_count: int = Field(default=0, description="how many are evil")
    roles_in_play: list[str] = Field(default_factory=list, description="the roles dealt (not who has them)")
    team_sizes: list[int] = Field(default_factory=list, description="the team size of quests 1-5")
    fails_needed: list[int] = Field(default_factory=list, description="Fail cards that fail quests 1-5")
    first_leader: str = Field(default="", description="the seat that leads the first proposal")
    settings: dict[str, Any] = Field(default_factory=dict, description="the match's settings as JSON")

    icon: ClassVar[str] = "🎬"
    in_history: ClassVar[bool] = True


class QuestStart(Event):
    """A quest begins: its team size, the Fail cards that fail it, the score and the leader."""

    kind: Literal["quest_start"] = "quest_start"
    kind_words: ClassVar[dict[str, str]] = {"en": "quest"}
    quest: int = Field(default=0, description="the quest, 1-5")
    size: int = Field(default=0, description="players on its team")
    fails_needed: int = Field(default=1, description="Fail cards that fail it")
    good_wins: int = Field(default=0, description="quests succeeded so far")
    evil_wins: int = Field(default=0, description="quests failed so far")
    leader: str = Field(default="", description="who proposes the first team")

    icon: ClassVar[str] = "🔔"
    style: ClassVar[Style] = "heading"
    in_history: ClassVar[bool] = True


class Proposal(Event):
    """The leader's team for the quest (an invalid proposal already completed by the rules)."""

    kind: Literal["proposal"] = "proposal"
    kind_words: ClassVar[dict[str, str]] = {"en": "proposal"}
    quest: int = Field(default=0, description="the quest")
    attempt: int = Field(default=1, description="which proposal of the quest, 1-5")
    leader: str = Field(default="", description="who proposed it")
    team: list[str] = Field(default_factory=list, description="the team, in seat order")

    icon: ClassVar[str] = "👑"
    in_history: ClassVar[bool] = True


class Intentions(Event):
    """An intention-guided seat's private notes on the statement it makes next (that seat and
    spectators only): the intentions it selected, what it changed them to, THINK, errors."""

    kind: Literal["intentions"] = "intentions"
    kind_words: ClassVar[dict[str, str]] = {"en": "intentions"}
    quest: int = Field(default=0, description="the quest")
    attempt: int = Field(default=1, description="the proposal being discussed")
    notes: dict[str, Any] = Field(default_factory=dict, description="the agent's notes as it gave them "
                                  "(intentions, modified, think, first_order, second_order, errors, catalogue)")

    icon: ClassVar[str] = "🧭"
    style: ClassVar[Style] = "secret"


class Statement(Event):
    """What a seat said in the discussion of a proposal (its `text`)."""

    kind: Literal["statement"] = "statement"
    kind_words: ClassVar[dict[str, str]] = {"en": "statement"}
    quest: int = Field(default=0, description="the quest")
    attempt: int = Field(default=1, description="the proposal being discussed")

    icon: ClassVar[str] = "💬"
    style: ClassVar[Style] = "said"
    in_history: ClassVar[bool] = True


class Silence(Event):
    """A seat said nothing usable in its turn to discuss."""

    kind: Literal["silence"] = "silence"
    kind_words: ClassVar[dict[str, str]] = {"en": "silence"}
    quest: int = Field(default=0, description="the quest")
    attempt: int = Field(default=1, description="the proposal being discussed")
    reason: str = Field(default="", description="why: an empty statement, or why the reply was unusable")

    icon: ClassVar[str] = "🤐"
    in_history: ClassVar[bool] = True

    def why(self) -> str:
        return self.reason


class Revision(Event):
    """After the discussion the leader keeps or changes the team."""

    kind: Literal["revision"] = "revision"
    kind_words: ClassVar[dict[str, str]] = {"en": "revision"}
    quest: int = Field(default=0, description="the quest")
    attempt: int = Field(default=1, description="the proposal")
    leader: str = Field(default="", description="the leader")
    old_team: list[str] = Field(default_factory=list, description="the team discussed")
    team: list[str] = Field(default_factory=list, description="the team put to the vote")
    changed: bool = Field(default=False, description="the team is not the one discussed")

    icon: ClassVar[str] = "✏️"
    in_history: ClassVar[bool] = True


class TeamVote(Event):
    """One seat's vote on the team (an unreadable or missing vote counts as reject)."""

    kind: Literal["team_vote"] = "team_vote"
    kind_words: ClassVar[dict[str, str]] = {"en": "team vote"}
    quest: int = Field(default=0, description="the quest")
    attempt: int = Field(default=1, description="the proposal")
    vote: str = Field(default="", description="approve | reject")
    team: list[str] = Field(default_factory=list, description="the team voted on")

    icon: ClassVar[str] = "🗳️"
    in_history: ClassVar[bool] = True


class VoteResult(Event):
    """The team vote's outcome (or the fifth proposal approved without a vote)."""

    kind: Literal["vote_result"] = "vote_result"
    kind_words: ClassVar[dict[str, str]] = {"en": "vote result"}
    quest: int = Field(default=0, description="the quest")
    attempt: int = Field(default=1, description="the proposal")
    leader: str = Field(default="", description="who proposed the team")
    team: list[str] = Field(default_factory=list, description="the team voted on")
    approve: int = Field(default=0, description="approvals")
    reject: int = Field(default=0, description="rejections")
    grid: dict[str, str] = Field(default_factory=dict, description="seat -> approve | reject ({} when auto)")
    approved: bool = Field(default=False, description="a strict majority approved (a tie rejects)")
    auto: bool = Field(default=False, description="approved without a vote (the fifth proposal, a setting)")
    rejected_in_row: int = Field(default=0, description="proposals of this quest rejected so far")

    icon: ClassVar[str] = "📊"
    in_history: ClassVar[bool] = True


class QuestCard(Event):
    """One team member's card, as counted (spectators only: only the Fail count is public)."""

    kind: Literal["quest_card"] = "quest_card"
    kind_words: ClassVar[dict[str, str]] = {"en": "quest card"}
    quest: int = Field(default=0, description="the quest")
    member: str = Field(default="", description="who played it")
    card: str = Field(default="", description="success | fail, as counted")
    played: str | None = Field(default=None, description="what the seat replied (cut), None when nothing")
    refused: bool = Field(default=False, description="the reply was not a card it may play: counted as success")

    icon: ClassVar[str] = "🃏"
    style: ClassVar[Style] = "secret"


class QuestResult(Event):
    """A quest's outcome: its team, the Fail cards and the score."""

    kind: Literal["quest_result"] = "quest_result"
    kind_words: ClassVar[dict[str, str]] = {"en": "quest result"}
    quest: int = Field(default=0, description="the quest")
    team: list[str] = Field(default_factory=list, description="the team that went")
    size: int = Field(default=0, description="its size")
    fails: int = Field(default=0, description="Fail cards played")
    fails_needed: int = Field(default=1, description="Fail cards that fail it")
    success: bool = Field(default=False, description="it succeeded")
    attempts: int = Field(default=1, description="proposals it took")
    leader: str = Field(default="", description="who proposed the team")
    good_wins: int = Field(default=0, description="quests succeeded so far")
    evil_wins: int = Field(default=0, description="quests failed so far")

    icon: ClassVar[str] = "⚔️"
    in_history: ClassVar[bool] = True


class AssassinationPhase(Event):
    """Three quests succeeded: the Assassin may name Merlin."""

    kind: Literal["assassination_phase"] = "assassination_phase"
    kind_words: ClassVar[dict[str, str]] = {"en": "assassination"}
    quest: int = Field(default=0, description="the quest the game stands at")

    icon: ClassVar[str] = "🗡️"
    style: ClassVar[Style] = "heading"
    in_history: ClassVar[bool] = True


class EvilReveal(Event):
    """Before the assassination the evil players reveal themselves to each other (evil seats only)."""

    kind: Literal["evil_reveal"] = "evil_reveal"
    kind_words: ClassVar[dict[str, str]] = {"en": "evil revealed"}
    evil: list[str] = Field(default_factory=list, description="every evil seat")

    icon: ClassVar[str] = "😈"
    style: ClassVar[Style] = "secret"
    in_history: ClassVar[bool] = True


class EvilTalk(Event):
    """An evil seat's word to its team on whom to name as Merlin (evil seats only)."""

    kind: Literal["evil_talk"] = "evil_talk"
    kind_words: ClassVar[dict[str, str]] = {"en": "evil talk"}
    silent: bool = Field(default=False, description="it said nothing (the text says so)")

    icon: ClassVar[str] = "🤫"
    style: ClassVar[Style] = "secret"
    in_history: ClassVar[bool] = True


class Assassination(Event):
    """The Assassin's shot at Merlin (an invalid or missing name is a miss)."""

    kind: Literal["assassination"] = "assassination"
    kind_words: ClassVar[dict[str, str]] = {"en": "assassin's shot"}
    assassin: str = Field(default="", description="the Assassin")
    target: str | None = Field(default=None, description="the seat named, None when no seat was")
    hit: bool = Field(default=False, description="the target is Merlin")
    valid: bool = Field(default=False, description="the target is a good seat")
    merlin: str = Field(default="", description="Merlin")

    icon: ClassVar[str] = "🎯"
    in_history: ClassVar[bool] = True


class Quizzes(Event):
    """The game is decided: the end-of-game quizzes come before the roles are revealed."""

    kind: Literal["quizzes"] = "quizzes"
    kind_words: ClassVar[dict[str, str]] = {"en": "quizzes"}
    quizzes: list[str] = Field(default_factory=list, description="the quizzes asked (summarise, guess, deduce)")

    icon: ClassVar[str] = "📝"
    in_history: ClassVar[bool] = True


# each end-of-game quiz in words, as a transcript line names it
QUIZ_WORDS = {"summarise": "own-intentions", "guess": "guess-the-intention",
              "deduce": "who-is-evil"}


class QuizQuestion(Event):
    """One end-of-game question to one seat (that seat only); the instruction is the text."""

    kind: Literal["quiz_question"] = "quiz_question"
    kind_words: ClassVar[dict[str, str]] = {"en": "quiz question"}
    quiz: str = Field(default="", description="summarise | guess | deduce")
    options: list[str] = Field(default_factory=list, description="the labels it may pick")
    pick: int = Field(default=1, description="how many to pick")
    about: str | None = Field(default=None, description="intention quizzes: the seat whose statement it is on")
    quest: int | None = Field(default=None, description="intention quizzes: that statement's quest")
    attempt: int | None = Field(default=None, description="intention quizzes: that statement's proposal")
    catalogue: str | None = Field(default=None, description="intention quizzes: the catalogue's version")
    evil_total: int | None = Field(default=None, description="deduction: the evil players in all")

    icon: ClassVar[str] = "❓"
    # the question is the seat's prompt (its instruction): asked in the prompt box, never a
    # transcript line (six copies of it would end every spectator's transcript)
    style: ClassVar[Style] = "hidden"


class QuizAnswer(Event):
    """A seat's answer to its question, as read (that seat only)."""

    kind: Literal["quiz_answer"] = "quiz_answer"
    kind_words: ClassVar[dict[str, str]] = {"en": "quiz answer"}
    quiz: str = Field(default="", description="summarise | guess | deduce")
    picks: list[str] = Field(default_factory=list, description="the options it named, in order")
    pick: int = Field(default=1, description="how many it was asked for")
    status: str = Field(default="ok", description="ok | invalid | timeout | error | unparseable | missing")
    problem: str = Field(default="", description="what was wrong with it, or ''")
    given: str | None = Field(default=None, description="the reply (cut) when it had a problem")

    icon: ClassVar[str] = "✍️"
    style: ClassVar[Style] = "secret"

    def why(self) -> str:
        return self.problem

    def shown_text(self) -> str:
        # the stored text names the quiz by its code ("the deduce question"): said in words
        asked = QUIZ_WORDS.get(self.quiz, "end-of-game")
        return f"{self.actor} answers the {asked} question: {', '.join(self.picks) or 'nothing usable'}."


class GameOver(Event):
    """The end: the winning side, the rule that decided it, and the roles revealed."""

    kind: Literal["game_over"] = "game_over"
    kind_words: ClassVar[dict[str, str]] = {"en": "result"}
    winner: str = Field(default="", description="good | evil")
    reason: str = Field(default="", description="five_rejections | three_fails | merlin_assassinated | "
                        "merlin_survived")
    roles: dict[str, str] = Field(default_factory=dict, description="seat -> role")
    sides: dict[str, str] = Field(default_factory=dict, description="seat -> side")
    good_wins: int = Field(default=0, description="quests succeeded")
    evil_wins: int = Field(default=0, description="quests failed")

    icon: ClassVar[str] = "🏁"
    in_history: ClassVar[bool] = True
    says_why: ClassVar[bool] = True  # the line says why in words; `reason` is a code

    def why(self) -> str:
        return self.reason


class AvalonInvalidAction(InvalidAction):
    """A refused or missing action (a wrong team, an unreadable vote, a good seat's Fail,
    naming a teammate): its seat and spectators are told, and agents see it in their history."""

    in_history: ClassVar[bool] = True


KINDS = EventKinds(AvalonSetup, Start, QuestStart, Proposal, Intentions, Statement, Silence, Revision, TeamVote,
                   VoteResult, QuestCard, QuestResult, AssassinationPhase, EvilReveal, EvilTalk, Assassination,
                   Quizzes, QuizQuestion, QuizAnswer, GameOver, AvalonInvalidAction)
