"""Werewolf's events, one model per kind: what each says, who sees it and how a transcript
shows it. Every reader (metrics, replay panels, house agents) reads a stored row or a history
item back through `KINDS` and looks at these models' fields.

Visibility, as the rules emit them:
- spectators only: `setup` (every role) and `night_resolution` (what happened in the night
  and why: the wolves' victim, the protection, the potions);
- the wolves (their group): `wolf_talk`, `wolf_vote`, `wolf_choice`;
- one seat: `seer_check` (the Seer), `doctor_protect` (the Doctor), `witch_wake` and
  `witch_action` (the Witch);
- everyone: the rest.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from ...core.events import Event, EventKinds, InvalidAction, Setup, Style

Protocol = Literal["round_robin", "bidding", "parallel"]
StatementPhase = Literal["introduction", "discussion", "defence", "last_words"]


class WerewolfSetup(Setup):
    """The hidden truth (spectators only): every seat's role and team, and the settings."""

    roles: dict[str, str] = Field(default_factory=dict, description="seat -> role")
    teams: dict[str, str] = Field(default_factory=dict, description="seat -> team (village or werewolves)")
    settings: dict[str, object] = Field(default_factory=dict, description="the match's settings")


class Start(Event):
    """The table as everyone is told it: the seats, how many of each role are in play, the
    discussion protocol and the limits."""

    kind: Literal["start"] = "start"
    kind_words: ClassVar[dict[str, str]] = {"en": "start", "zh": "开始"}
    seats: list[str] = Field(default_factory=list)
    role_counts: dict[str, int] = Field(default_factory=dict, description="role -> how many are in play")
    teams: list[str] = Field(default_factory=list, description="the two teams' names")
    protocol: Protocol = "round_robin"
    max_days: int = 0
    settings: dict[str, object] = Field(default_factory=dict, description="every rule's setting for this match")

    icon: ClassVar[str] = "🐺"
    in_history: ClassVar[bool] = True


class NightStart(Event):
    """Night N falls (round N is night N and the day after it)."""

    kind: Literal["night_start"] = "night_start"
    kind_words: ClassVar[dict[str, str]] = {"en": "night", "zh": "夜晚"}
    night: int = 0
    alive: list[str] = Field(default_factory=list)

    icon: ClassVar[str] = "🌙"
    style: ClassVar[Style] = "heading"
    in_history: ClassVar[bool] = True


class WolfTalk(Event):
    """One wolf's line in the wolves' night discussion (the wolves and spectators only)."""

    kind: Literal["wolf_talk"] = "wolf_talk"
    kind_words: ClassVar[dict[str, str]] = {"en": "werewolf talk", "zh": "狼人夜聊"}
    night: int = 0
    silent: bool = Field(default=False, description="it said nothing usable")

    icon: ClassVar[str] = "🐺"
    style: ClassVar[Style] = "secret"
    in_history: ClassVar[bool] = True


class WolfVote(Event):
    """One wolf's vote for the night's victim (the wolves and spectators only); `target`
    None: no usable vote."""

    kind: Literal["wolf_vote"] = "wolf_vote"
    kind_words: ClassVar[dict[str, str]] = {"en": "werewolf vote", "zh": "狼人投票"}
    night: int = 0
    target: str | None = None

    icon: ClassVar[str] = "🗳️"
    style: ClassVar[Style] = "secret"
    in_history: ClassVar[bool] = True


class WolfChoice(Event):
    """The pack's victim as the votes decided it (the wolves and spectators only): the tally,
    the tied seats when there was a tie and how it was broken; `target` None: no kill."""

    kind: Literal["wolf_choice"] = "wolf_choice"
    kind_words: ClassVar[dict[str, str]] = {"en": "werewolves' choice", "zh": "狼人的选择"}
    night: int = 0
    target: str | None = None
    tally: dict[str, int] = Field(default_factory=dict)
    tied: list[str] = Field(default_factory=list)
    how: Literal["votes", "lot", "no_kill_tie", "no_votes"] = "votes"

    icon: ClassVar[str] = "🎯"
    style: ClassVar[Style] = "secret"
    in_history: ClassVar[bool] = True


class SeerCheck(Event):
    """What the Seer learned of one player (the Seer and spectators only): its team, or its
    role under the `seer_sees: role` setting."""

    kind: Literal["seer_check"] = "seer_check"
    kind_words: ClassVar[dict[str, str]] = {"en": "seer's vision", "zh": "预言家查验"}
    night: int = 0
    target: str | None = None
    result: str = Field(default="", description="werewolves | village (or the role)")
    werewolf: bool = False

    icon: ClassVar[str] = "🔮"
    style: ClassVar[Style] = "secret"
    in_history: ClassVar[bool] = True


class DoctorProtect(Event):
    """Whom the Doctor protected this night (the Doctor and spectators only)."""

    kind: Literal["doctor_protect"] = "doctor_protect"
    kind_words: ClassVar[dict[str, str]] = {"en": "doctor's protection", "zh": "医生守护"}
    night: int = 0
    target: str | None = None

    icon: ClassVar[str] = "🩺"
    style: ClassVar[Style] = "secret"
    in_history: ClassVar[bool] = True


class WitchWake(Event):
    """The Witch is told the wolves' victim and her potions left (the Witch and spectators)."""

    kind: Literal["witch_wake"] = "witch_wake"
    kind_words: ClassVar[dict[str, str]] = {"en": "witch wakes", "zh": "女巫醒来"}
    night: int = 0
    victim: str | None = None
    heal_left: bool = False
    poison_left: bool = False

    icon: ClassVar[str] = "🧪"
    style: ClassVar[Style] = "secret"
    in_history: ClassVar[bool] = True


class WitchAction(Event):
    """What the Witch did (the Witch and spectators only): saved the victim, poisoned a
    player, or nothing."""

    kind: Literal["witch_action"] = "witch_action"
    kind_words: ClassVar[dict[str, str]] = {"en": "witch's potion", "zh": "女巫用药"}
    night: int = 0
    action: Literal["save", "poison", "none"] = "none"
    target: str | None = None

    icon: ClassVar[str] = "🧪"
    style: ClassVar[Style] = "secret"
    in_history: ClassVar[bool] = True


class NightResolution(Event):
    """How the night resolved, with every cause (spectators only): the wolves' victim,
    whether the Doctor's protection or the Witch's potion saved it, whom the Witch poisoned,
    and who died of what."""

    kind: Literal["night_resolution"] = "night_resolution"
    kind_words: ClassVar[dict[str, str]] = {"en": "night's outcome", "zh": "夜晚结果"}
    night: int = 0
    victim: str | None = None
    protected: str | None = None
    saved_by: Literal["doctor", "witch"] | None = None
    poisoned: str | None = None
    causes: dict[str, str] = Field(default_factory=dict, description="dead seat -> wolves | poison")

    icon: ClassVar[str] = "🔒"
    style: ClassVar[Style] = "spoiler"


class Dawn(Event):
    """Day N begins: who died in the night (no cause is told), with what the reveal setting
    shows of each (`revealed`: seat -> team or role; empty under `reveal: none`)."""

    kind: Literal["dawn"] = "dawn"
    kind_words: ClassVar[dict[str, str]] = {"en": "dawn", "zh": "天亮"}
    day: int = 0
    deaths: list[str] = Field(default_factory=list)
    revealed: dict[str, str] = Field(default_factory=dict)
    alive: list[str] = Field(default_factory=list)

    icon: ClassVar[str] = "🌅"
    style: ClassVar[Style] = "heading"
    in_history: ClassVar[bool] = True


class Bids(Event):
    """One turn of bidding for the floor (`protocol: bidding`): every living player's bid
    and who got the floor (None: everyone passed and the discussion ended)."""

    kind: Literal["bids"] = "bids"
    kind_words: ClassVar[dict[str, str]] = {"en": "bids", "zh": "争取发言"}
    day: int = 0
    turn: int = 0
    bids: dict[str, int] = Field(default_factory=dict)
    speaker: str | None = None

    icon: ClassVar[str] = "✋"
    in_history: ClassVar[bool] = True


class Statement(Event):
    """What a player said in public: its introduction before the first night, in the day's
    discussion, in its defence before a run-off, or its last words after being voted out."""

    kind: Literal["statement"] = "statement"
    kind_words: ClassVar[dict[str, str]] = {"en": "statement", "zh": "发言"}
    day: int = 0
    turn: int = Field(default=0, description="the discussion round (round-robin, parallel) or floor turn (bidding)")
    phase: StatementPhase = "discussion"

    icon: ClassVar[str] = "💬"
    style: ClassVar[Style] = "said"
    in_history: ClassVar[bool] = True


class Silence(Event):
    """A player whose turn to speak gave nothing usable (an empty, failed or late reply)."""

    kind: Literal["silence"] = "silence"
    kind_words: ClassVar[dict[str, str]] = {"en": "silence", "zh": "沉默"}
    day: int = 0
    turn: int = 0
    phase: StatementPhase = "discussion"
    reason: str = ""

    icon: ClassVar[str] = "🤐"
    in_history: ClassVar[bool] = True
    says_why: ClassVar[bool] = True


class DayVote(Event):
    """One player's elimination vote (`target` None: it abstained or gave no usable vote)."""

    kind: Literal["day_vote"] = "day_vote"
    kind_words: ClassVar[dict[str, str]] = {"en": "day vote", "zh": "白天投票"}
    day: int = 0
    target: str | None = None
    runoff: bool = False

    icon: ClassVar[str] = "🗳️"
    in_history: ClassVar[bool] = True


class VoteResult(Event):
    """The day's vote counted: the tally, the tied seats, and what follows (an elimination,
    a run-off, or nobody out)."""

    kind: Literal["vote_result"] = "vote_result"
    kind_words: ClassVar[dict[str, str]] = {"en": "vote result", "zh": "投票结果"}
    day: int = 0
    tally: dict[str, int] = Field(default_factory=dict)
    tied: list[str] = Field(default_factory=list)
    eliminated: str | None = None
    runoff: bool = Field(default=False, description="this was the run-off's count")
    outcome: Literal["eliminated", "runoff", "tie", "no_votes"] = "eliminated"

    icon: ClassVar[str] = "📊"
    in_history: ClassVar[bool] = True


class Elimination(Event):
    """A player voted out, with what the reveal setting shows of it."""

    kind: Literal["elimination"] = "elimination"
    kind_words: ClassVar[dict[str, str]] = {"en": "voted out", "zh": "放逐"}
    day: int = 0
    seat: str = ""
    revealed: str | None = None

    icon: ClassVar[str] = "⚖️"
    in_history: ClassVar[bool] = True


class HunterShot(Event):
    """The dead Hunter's last shot (`target` None: it held its fire), with what the reveal
    setting shows of the player shot."""

    kind: Literal["hunter_shot"] = "hunter_shot"
    kind_words: ClassVar[dict[str, str]] = {"en": "hunter's shot", "zh": "猎人开枪"}
    day: int = 0
    when: Literal["night", "day"] = Field(default="day", description="the Hunter died in the night, or by day")
    target: str | None = None
    revealed: str | None = None

    icon: ClassVar[str] = "🏹"
    in_history: ClassVar[bool] = True


class GameOver(Event):
    """The end: the winning team, why, and every role revealed."""

    kind: Literal["game_over"] = "game_over"
    kind_words: ClassVar[dict[str, str]] = {"en": "result", "zh": "结果"}
    winner: str = ""
    reason: Literal["wolves_out", "parity", "day_limit"] = "wolves_out"
    roles: dict[str, str] = Field(default_factory=dict)
    teams: dict[str, str] = Field(default_factory=dict)
    day: int = 0

    icon: ClassVar[str] = "🏁"
    style: ClassVar[Style] = "heading"
    in_history: ClassVar[bool] = True


# the invalid actions a seat is told of: in its history too, so a house agent sees them
class WerewolfInvalid(InvalidAction):
    """A refused or missing action (its seat and spectators)."""

    in_history: ClassVar[bool] = True


KINDS = EventKinds(WerewolfSetup, Start, NightStart, WolfTalk, WolfVote, WolfChoice, SeerCheck, DoctorProtect,
                   WitchWake, WitchAction, NightResolution, Dawn, Bids, Statement, Silence, DayVote, VoteResult,
                   Elimination, HunterShot, GameOver, WerewolfInvalid)

__all__ = ["KINDS", "Bids", "Dawn", "DayVote", "DoctorProtect", "Elimination", "GameOver", "HunterShot",
           "NightResolution", "NightStart", "Protocol", "SeerCheck", "Silence", "Start", "Statement",
           "StatementPhase", "VoteResult", "WerewolfInvalid", "WerewolfSetup", "WitchAction", "WitchWake",
           "WolfChoice", "WolfTalk", "WolfVote"]
