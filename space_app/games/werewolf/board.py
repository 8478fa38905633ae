"""What a seat can read from its own observation (the house agents keep no state): who is
alive, what each death revealed, every day vote, the Seer claims made in the statements (with
what each claimant said of whom), and what its role alone knows (the wolves' pack and their
night talk, the Seer's visions, the Doctor's last protection, the Witch's potions). Built from
the history items as the kinds' models (`KINDS.from_history`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sdk import Observation

from .events import (
    KINDS,
    Dawn,
    DayVote,
    DoctorProtect,
    Elimination,
    HunterShot,
    NightStart,
    SeerCheck,
    Start,
    Statement,
    WitchAction,
    WolfTalk,
)
from .roles import DOCTOR, VILLAGE, WEREWOLF, WEREWOLVES

# how a statement claims the Seer and reports a vision, in the languages the game is played in
CLAIM = re.compile(r"\bI am the Seer\b|我是预言家", re.IGNORECASE)
WOLF_SAID = (r"{seat}\s+is\s+a\s+werewolf", r"{seat}\s*是狼人")
GOOD_SAID = (r"{seat}\s+is\s+(?:on\s+the\s+village's\s+side|a\s+villager|good)", r"{seat}\s*是好人")


@dataclass
class Claim:
    """A player who said it is the Seer: when it first said so, and what it said of whom."""

    seat: str
    first: int  # the history index of its first claim
    day: int = 0  # the day of its first claim
    wolves: set[str] = field(default_factory=set)
    good: set[str] = field(default_factory=set)


@dataclass
class Board:
    me: str
    role: str
    team: str
    seats: list[str]
    day: int
    pack: list[str] = field(default_factory=list)  # the werewolves, when this seat is one
    dead: list[str] = field(default_factory=list)
    revealed: dict[str, str] = field(default_factory=dict)  # seat -> team or role shown at its death
    votes: list[tuple[int, str, str | None, bool]] = field(default_factory=list)  # day, voter, target, run-off
    eliminated: dict[int, str] = field(default_factory=dict)  # day -> seat voted out
    claims: dict[str, Claim] = field(default_factory=dict)
    said_today: dict[str, list[str]] = field(default_factory=dict)  # seat -> its statements today
    named_today: dict[str, int] = field(default_factory=dict)  # seat -> times named a werewolf today
    visions: dict[str, bool] = field(default_factory=dict)  # the Seer's: seat -> is a werewolf
    protected_last: str | None = None
    heal_used: bool = False
    poison_used: bool = False
    wolf_talk_tonight: list[str] = field(default_factory=list)
    doctor_repeat: bool = False  # the rules: may the Doctor protect one player two nights running
    protocol: str = "round_robin"

    def doctor_may_live(self) -> bool:
        """Whether a Doctor may still be protecting someone: no seat shown to be the Doctor has died."""
        return not any(self.revealed.get(s) == DOCTOR for s in self.dead)

    def guarded_tonight(self, claim: Claim) -> bool:
        """Whether a living Doctor that follows the claim guards the claimant tonight: every night
        when it may protect one player two nights running, else the nights after the claim it is
        free to (the first, the third...), never two in a row."""
        if not self.doctor_may_live():
            return False
        return self.doctor_repeat or (self.day - claim.day) % 2 == 1

    @property
    def alive(self) -> list[str]:
        return [s for s in self.seats if s not in self.dead]

    def is_wolf_shown(self, seat: str) -> bool | None:
        """What the reveals say of a dead seat: a werewolf, not one, or unknown."""
        shown = self.revealed.get(seat)
        if shown is None:
            return None
        return shown in (WEREWOLVES, WEREWOLF)

    def liar(self, claim: Claim) -> bool:
        """A claimant the reveals prove wrong: it named as a werewolf a seat shown to be on the
        village's side, or as good a seat shown to be a werewolf, or it was shown not to be the
        Seer, or another claimant was."""
        shown = self.revealed.get(claim.seat)
        if shown is not None and shown not in ("seer", VILLAGE):
            return True
        if any(self.revealed.get(other) == "seer" for other in self.claims if other != claim.seat):
            return True  # another claimant died and was shown to be the Seer
        return any(self.is_wolf_shown(s) is False for s in claim.wolves) or any(
            self.is_wolf_shown(s) is True for s in claim.good)

    def trusted_claim(self) -> Claim | None:
        """The Seer claim this seat believes: the earliest claim the reveals have not disproved
        (a real Seer tends to speak first; a counter-claim comes after it)."""
        if self.role == "seer":
            return None
        if self.pack:
            return None
        return self.believed_claim()

    def believed_claim(self) -> Claim | None:
        """The claim a village seat that knows no more than the table believes (the earliest one
        not disproved, not this seat's own): what a werewolf expects the village to follow."""
        fair = [c for c in self.claims.values() if not self.liar(c) and c.seat != self.me]
        return min(fair, key=lambda c: c.first) if fair else None

    def caught(self) -> list[str]:
        """The living werewolves of this seat's pack that the claim the village believes names:
        a village that follows its Seer votes them out whatever the pack does."""
        claim = self.believed_claim()
        if claim is None or claim.seat in self.pack:
            return []
        return [w for w in self.pack if w in claim.wolves and w in self.alive]


def _patterns(seats: list[str], forms: tuple[str, ...]) -> list[tuple[str, re.Pattern[str]]]:
    out = []
    for seat in sorted(seats, key=len, reverse=True):
        name = rf"(?<![\w]){re.escape(seat)}(?![\w])"
        out += [(seat, re.compile(f.format(seat=name), re.IGNORECASE)) for f in forms]
    return out


def named(text: str, seats: list[str]) -> list[str]:
    """The seats a text names, in the order they first appear."""
    found = []
    for seat in seats:
        m = re.search(rf"(?<![\w]){re.escape(seat)}(?![\w])", text)
        if m:
            found.append((m.start(), seat))
    return [s for _, s in sorted(found)]


def read_board(obs: Observation) -> Board:
    facts = obs.private.facts
    board = Board(me=obs.you, role=str(facts.get("role", "")), team=str(facts.get("team", "")), seats=list(obs.seats),
                  day=obs.round or 0, pack=[str(w) for w in facts.get("werewolves") or []])
    wolf_forms, good_forms = _patterns(obs.seats, WOLF_SAID), _patterns(obs.seats, GOOD_SAID)
    night = 0
    for index, item in enumerate(obs.history):
        e = KINDS.from_history(item)
        if isinstance(e, Start):
            board.doctor_repeat = bool(e.settings.get("doctor_repeat", False))
            board.protocol = e.protocol
        elif isinstance(e, NightStart):
            night = e.night
            board.wolf_talk_tonight = []
        elif isinstance(e, Dawn):
            board.said_today, board.named_today = {}, {}
            for seat in e.deaths:
                board.dead.append(seat)
            board.revealed.update(e.revealed)
        elif isinstance(e, Elimination):
            board.dead.append(e.seat)
            board.eliminated[e.day] = e.seat
            if e.revealed is not None:
                board.revealed[e.seat] = e.revealed
        elif isinstance(e, HunterShot) and e.target is not None:
            board.dead.append(e.target)
            if e.revealed is not None:
                board.revealed[e.target] = e.revealed
        elif isinstance(e, DayVote):
            board.votes.append((e.day, e.actor, e.target, e.runoff))
        elif isinstance(e, Statement):
            board.said_today.setdefault(e.actor, []).append(e.text)
            claimed = CLAIM.search(e.text) is not None
            wolves = {s for s, p in wolf_forms if s != e.actor and p.search(e.text)}
            good = {s for s, p in good_forms if s != e.actor and p.search(e.text)} - wolves
            for s in wolves:
                board.named_today[s] = board.named_today.get(s, 0) + 1
            if claimed or e.actor in board.claims:
                claim = board.claims.setdefault(e.actor, Claim(e.actor, index, e.day))
                claim.wolves |= wolves
                claim.good |= good
        elif isinstance(e, WolfTalk) and e.night == night and not e.silent:
            board.wolf_talk_tonight.append(e.text)
        elif isinstance(e, SeerCheck) and e.target is not None:
            board.visions[e.target] = e.werewolf
        elif isinstance(e, DoctorProtect):
            board.protected_last = e.target
        elif isinstance(e, WitchAction):
            board.heal_used |= e.action == "save"
            board.poison_used |= e.action == "poison"
    return board


__all__ = ["Board", "Claim", "named", "read_board"]
