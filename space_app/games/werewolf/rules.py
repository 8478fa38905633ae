"""Werewolf, pure rules (no I/O, no clock; randomness only from the seed).

6-15 players: werewolves against the village (Seer, Doctor, Villagers, and the Witch and the
Hunter when they are in play). Night N: the werewolves talk in private and vote for a victim;
at the same time the Seer checks a player and the Doctor protects one; then the Witch may heal
the victim or poison a player; the victim dies unless protected or healed. Day N: the deaths
are announced (with their team or role, a setting), the living players discuss under the
protocol setting (round-robin, bidding for the floor, or parallel statements), then vote at
once to eliminate a player (a tie: nobody, or a run-off, a setting). The village wins when
every werewolf is out; the werewolves when they are at least as many as the others, or when
the day limit ends. Every rule and its default: docs/rules-werewolf.md.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, model_validator

from sdk.observation import ABSTAIN, Verb

from ...core.events import Private
from ...core.game import SPECTATORS, Game, Outcome, Request, usable_text, why_unusable
from .events import (
    Bids,
    Dawn,
    DayVote,
    DoctorProtect,
    Elimination,
    GameOver,
    HunterShot,
    NightResolution,
    NightStart,
    SeerCheck,
    Silence,
    Start,
    Statement,
    StatementPhase,
    VoteResult,
    WerewolfInvalid,
    WerewolfSetup,
    WitchAction,
    WitchWake,
    WolfChoice,
    WolfTalk,
    WolfVote,
)
from .phrases import PHRASES
from .roles import (
    DEFAULT_PLAYERS,
    DOCTOR,
    HUNTER,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROLES,
    SEER,
    VILLAGE,
    WEREWOLF,
    WEREWOLVES,
    WITCH,
    role_list,
    team_of,
)

BIDS = ("0", "1", "2", "3")
SAVE, NO_POTION, POISON = "save", "none", "poison"
Reveal = Literal["none", "team", "role"]


class WerewolfSettings(BaseModel):
    """Every rule that can change, with its default (docs/rules-werewolf.md)."""

    players: int = Field(default=DEFAULT_PLAYERS, ge=MIN_PLAYERS, le=MAX_PLAYERS)
    werewolves: int | None = Field(default=None, ge=1, description="None: 2 at 6-8 players, 3 at 9-11, 4 at 12-15")
    witch: bool = Field(default=False, description="a Witch in place of a Villager")
    hunter: bool = Field(default=False, description="a Hunter in place of a Villager")
    introductions: bool = Field(default=True, description="each player introduces themselves before night 1")
    wolf_talk_rounds: int = Field(default=1, ge=0, le=3, description="lines each wolf says at night (2+ wolves)")
    wolf_tie: Literal["lot", "no_kill"] = Field(default="lot", description="a tied wolf vote: drawn by lot, or no kill")
    seer_sees: Literal["team", "role"] = "team"
    doctor_self_protect: bool = True
    doctor_repeat: bool = Field(default=False, description="may protect the same player two nights in a row")
    witch_self_save: bool = False
    hunter_when_poisoned: bool = Field(default=False, description="a poisoned Hunter still shoots")
    protocol: Literal["round_robin", "bidding", "parallel"] = "round_robin"
    discussion_rounds: int = Field(default=2, ge=1, le=5, description="statements per living player a day")
    vote_tie: Literal["none", "runoff"] = "none"
    allow_abstain: bool = True
    last_words: bool = True
    reveal: Reveal = "role"
    max_days: int = Field(default=10, ge=1, le=30)
    seconds: float = Field(default=30.0, gt=0, le=3600)
    max_chars: int = Field(default=400, ge=1, le=100_000)
    language: Literal["en", "zh"] = "en"
    # belief probes (`core/probes.py`): off by default, and left out of the stored settings when off,
    # so a match without them records (and replays) exactly as before they existed
    probes: bool = Field(default=False, exclude_if=lambda on: not on)

    @model_validator(mode="after")
    def _roles_fit_the_table(self) -> WerewolfSettings:
        try:
            role_list(self.players, self.werewolves, self.witch, self.hunter)
        except ValueError as exc:
            raise ValueError(f"roles: {exc}") from None
        return self

    def roles(self) -> list[str]:
        return role_list(self.players, self.werewolves, self.witch, self.hunter)


def deal(seats: list[str], seed: int, settings: WerewolfSettings) -> tuple[list[str], str, random.Random]:
    """The seed's draws, in this order: the roles shuffled over the seats, the seat the first
    day's discussion starts from; and the generator the rules go on drawing lots from."""
    rng = random.Random(seed)
    dealt = settings.roles()
    rng.shuffle(dealt)
    return dealt, rng.choice(seats), rng


def dealt_roles(seats: list[str], seed: int, settings: WerewolfSettings) -> list[str]:
    """Each seat's role under this seed (GameSpec.deal), without building a game."""
    return deal(seats, seed, settings)[0]


def plurality(votes: Iterable[str | None]) -> tuple[dict[str, int], list[str]]:
    """The tally of the votes cast (None: no vote) and the seats with the most votes."""
    tally = Counter(v for v in votes if v is not None)
    if not tally:
        return {}, []
    top = max(tally.values())
    return dict(sorted(tally.items())), sorted(s for s, n in tally.items() if n == top)


class WerewolfGame(Game):
    id: ClassVar[str] = "werewolf"
    title: ClassVar[str] = "Werewolf"

    def __init__(self, seats: list[str], seed: int = 0, settings: WerewolfSettings | None = None) -> None:
        settings = settings or WerewolfSettings(players=len(seats))
        if len(seats) != settings.players:
            raise ValueError(f"werewolf needs {settings.players} seats, got {len(seats)}")
        super().__init__(seats, seed, settings)
        self.settings: WerewolfSettings = settings
        dealt, self.opener, self.rng = deal(self.seats, seed, settings)
        self.roles: dict[str, str] = dict(zip(self.seats, dealt, strict=True))
        self.teams = {s: team_of(r) for s, r in self.roles.items()}
        self.wolves = [s for s in self.seats if self.roles[s] == WEREWOLF]
        self.alive = list(self.seats)
        self.day = 0  # night N and day N share round N
        self.phase = "night"
        self.order: list[tuple[str, int]] = []  # who speaks next in a sequential phase, with its round
        self.turn = 0
        self.discussion_round = 0
        self.spoken_today: Counter[str] = Counter()
        self.day_order: list[str] = []
        self.tied: list[str] = []
        self.wolf_votes: dict[str, str | None] = {}
        self.victim: str | None = None
        self.protected: str | None = None
        self.last_protected: str | None = None
        self.poisoned: str | None = None
        self.saved = False
        self.heal_left = self.poison_left = True
        self.hunter_seat: str | None = None
        self.hunter_when: Literal["night", "day"] = "day"
        self.after_hunter: Callable[[], None] | None = None
        self.last_words_seat: str | None = None
        self._hunter_after_words: str | None = None  # a Hunter voted out shoots after its last words
        self.winner = ""
        self.reason = ""
        self.died: dict[str, tuple[str, int]] = {}  # seat -> (night | day | shot, round)
        self._setup()

    # -- words ----------------------------------------------------------------------------
    def _say(self, key: str, **values: Any) -> str:
        return PHRASES.say(self.settings.language, key, **values)

    def _list(self, items: Iterable[str]) -> str:
        return PHRASES.join(self.settings.language, list(items))

    def role_name(self, role: str) -> str:
        return self._say(f"role_{role}")

    def _counts(self) -> str:
        counts = Counter(self.roles.values())
        return self._list(f"{self.role_name(r)} ×{counts[r]}" for r in ROLES if counts[r])

    def _what(self, seat: str, level: str | None = None) -> str | None:
        """What the reveal setting shows of a dead seat: its team, its role, or nothing."""
        level = level or self.settings.reveal
        if level == "team":
            return self.teams[seat]
        if level == "role":
            return self.roles[seat]
        return None

    def _what_words(self, value: str) -> str:
        return self._say(f"team_{value}") if value in (VILLAGE, WEREWOLVES) else self.role_name(value)

    def rules_text(self) -> str:
        s = self.settings
        say = self._say
        protocol = say(f"rules_protocol_{s.protocol}", rounds=s.discussion_rounds)
        doctor = (say("rules_doctor_self" if s.doctor_self_protect else "rules_doctor_no_self")
                  + say("rules_doctor_repeat" if s.doctor_repeat else "rules_doctor_no_repeat"))
        parts = [say("rules_intro", counts=self._counts()),
                 say("rules_roles", tie=say("tie_lot" if s.wolf_tie == "lot" else "tie_no_kill").rstrip(".。"),
                     sees=say(f"sees_{s.seer_sees}"), doctor=doctor)]
        if WITCH in self.roles.values():
            parts.append(say("rules_witch", self_save=say("rules_witch_self" if s.witch_self_save
                                                          else "rules_witch_no_self")))
        if HUNTER in self.roles.values():
            parts.append(say("rules_hunter", poison=say("rules_hunter_poison" if s.hunter_when_poisoned
                                                        else "rules_hunter_no_poison")))
        witch = WITCH in self.roles.values()
        if s.introductions:
            parts.append(say("rules_intro_round"))
        parts.append(say("rules_night", witch=say("rules_night_witch") if witch else "",
                               heal=say("rules_night_heal") if witch else ""))
        parts.append(say("rules_day", reveal=say(f"rules_reveal_{s.reveal}"), protocol=protocol,
                               tie=say("day_tie_none" if s.vote_tie == "none" else "day_tie_runoff").rstrip(".。"),
                               last=say("rules_last_words" if s.last_words else "rules_no_last_words")))
        parts.append(say("rules_win", max_days=s.max_days, max_chars=s.max_chars))
        return ("" if s.language == "zh" else " ").join(p.strip() for p in parts)

    def seat_roles(self) -> dict[str, str]:
        return dict(self.roles)

    # -- who is who -----------------------------------------------------------------------
    @property
    def living_wolves(self) -> list[str]:
        return [s for s in self.alive if self.roles[s] == WEREWOLF]

    def living(self, role: str) -> str | None:
        return next((s for s in self.alive if self.roles[s] == role), None)

    def _setup(self) -> None:
        s = self.settings
        self.emit(WerewolfSetup(
            text=self._say("setup", roles=self._list(f"{x} {self.role_name(self.roles[x])}" for x in self.seats)),
            visible_to=SPECTATORS, roles=dict(self.roles), teams=dict(self.teams),
            settings=s.model_dump(mode="json")))
        for seat in self.seats:
            role = self.roles[seat]
            text = self._say("you_are", role=self.role_name(role), team=self._say(f"team_{self.teams[seat]}"))
            facts: dict[str, Any] = {"role": role, "team": self.teams[seat]}
            if role == SEER:
                text += self._say("you_seer", sees=self._say(f"sees_{s.seer_sees}"))
            elif role == DOCTOR:
                text += self._say("you_doctor")
            elif role == WITCH:
                text += self._say("you_witch")
            elif role == HUNTER:
                text += self._say("you_hunter")
            self.emit(Private(text=text, actor=seat, visible_to=(seat,), facts=facts))
        self.emit(Private(text=self._say("you_wolf", wolves=self._list(self.wolves)).strip(),
                          visible_to=tuple(self.wolves), facts={"werewolves": list(self.wolves)}))
        counts = Counter(self.roles.values())
        self.emit(Start(text=self._say("start", n=len(self.seats), seats=self._list(self.seats), counts=self._counts(),
                                       protocol=self._say(f"protocol_{s.protocol}"), max_days=s.max_days),
                        seats=list(self.seats), role_counts={r: counts[r] for r in ROLES if counts[r]},
                        teams=[VILLAGE, WEREWOLVES], protocol=s.protocol, max_days=s.max_days,
                        settings=s.model_dump(mode="json")))
        if s.introductions:
            i = self.seats.index(self.opener)
            self.order = [(x, 0) for x in self.seats[i:] + self.seats[:i]]
            self.turn = 0
            self.phase = "introduction"
        else:
            self._start_night()

    # -- asking -----------------------------------------------------------------------------
    def _ask(self, seat: str, verb: Verb, instruction: str, options: list[str] | None = None,
             allow_abstain: bool = False, option_texts: dict[str, str] | None = None) -> Request:
        return Request(seat, self.observe(seat, verb, phase=self.phase, instruction=instruction, options=options,
                                          allow_abstain=allow_abstain, limits=self.turn_limits(), round=self.day,
                                          language=self.settings.language, option_texts=option_texts))

    def _wolf_targets(self) -> list[str]:
        return [s for s in self.alive if self.roles[s] != WEREWOLF]

    def _doctor_options(self, doctor: str) -> list[str]:
        s = self.settings
        return [x for x in self.alive if (s.doctor_self_protect or x != doctor)
                and (s.doctor_repeat or x != self.last_protected)]

    def _witch_options(self, witch: str) -> list[str]:
        options = [NO_POTION]
        if self.heal_left and self.victim is not None and (self.victim != witch or self.settings.witch_self_save):
            options.append(SAVE)
        if self.poison_left:
            options += [f"{POISON} {x}" for x in self.alive if x != witch]
        return options

    def pending(self) -> list[Request]:
        s, say, n = self.settings, self._say, self.day
        if self.phase == "wolf_talk":
            seat = self.order[self.turn][0]
            return [self._ask(seat, "speak", say("ask_wolf_talk", night=n, wolves=self._list(self.living_wolves),
                                                 targets=self._list(self._wolf_targets())))]
        if self.phase == "night":
            tie = say("tie_lot" if s.wolf_tie == "lot" else "tie_no_kill")
            asks = [self._ask(w, "vote", say("ask_wolf_vote", night=n, tie=tie), self._wolf_targets())
                    for w in self.living_wolves]
            seer = self.living(SEER)
            if seer is not None:
                asks.append(self._ask(seer, "vote", say("ask_seer", night=n, sees=say(f"sees_{s.seer_sees}")),
                                      [x for x in self.alive if x != seer]))
            doctor = self.living(DOCTOR)
            if doctor is not None and self._doctor_options(doctor):
                rule = ("" if s.doctor_self_protect else say("doctor_no_self")) + (
                    say("doctor_no_repeat", last=self.last_protected)
                    if not s.doctor_repeat and self.last_protected in self.alive else "")
                asks.append(self._ask(doctor, "vote", say("ask_doctor", night=n, rule=rule),
                                      self._doctor_options(doctor)))
            return sorted(asks, key=lambda r: self.seats.index(r.seat))
        if self.phase == "witch":
            witch = self.living(WITCH)
            assert witch is not None
            told = (say("witch_wake", victim=self.victim) if self.victim else say("witch_wake_none"))
            options = self._witch_options(witch)
            texts = {o: o for o in options}
            return [self._ask(witch, "vote", say("ask_witch", night=n, told=told), options, option_texts=texts)]
        if self.phase == "hunter":
            assert self.hunter_seat is not None
            return [self._ask(self.hunter_seat, "vote", say("ask_hunter"),
                              [x for x in self.alive if x != self.hunter_seat], allow_abstain=True)]
        if self.phase == "discuss":
            seat, turn = self.order[self.turn]
            if s.protocol == "bidding":
                return [self._ask(seat, "speak", say("ask_floor", day=n))]
            return [self._ask(seat, "speak", say("ask_discuss", day=n, turn=turn, rounds=s.discussion_rounds))]
        if self.phase == "discuss_parallel":
            return [self._ask(x, "speak", say("ask_parallel", day=n, turn=self.discussion_round,
                                              rounds=s.discussion_rounds)) for x in self.alive]
        if self.phase == "bid":
            return [self._ask(x, "vote", say("ask_bid", day=n, turn=self.turn + 1,
                                             turns=s.discussion_rounds * len(self.alive)), list(BIDS))
                    for x in self._bidders()]
        if self.phase == "introduction":
            return [self._ask(self.order[self.turn][0], "speak", say("ask_intro"))]
        if self.phase == "defence":
            seat = self.order[self.turn][0]
            return [self._ask(seat, "speak", say("ask_defence", day=n, tied=self._list(self.tied)))]
        if self.phase == "last_words":
            assert self.last_words_seat is not None
            return [self._ask(self.last_words_seat, "speak", say("ask_last_words", day=n))]
        if self.phase == "day_vote":
            tie = say("day_tie_none" if s.vote_tie == "none" else "day_tie_runoff")
            return [self._ask(x, "vote", say("ask_vote", day=n, tie=tie), self._choice_options(x, False),
                              allow_abstain=s.allow_abstain) for x in self.alive]
        if self.phase == "runoff":
            return [self._ask(x, "vote", say("ask_runoff", day=n, tied=self._list(self.tied)),
                              self._choice_options(x, True), allow_abstain=s.allow_abstain)
                    for x in self.alive if x not in self.tied]
        return []

    def submit(self, outcomes: Iterable[Outcome]) -> None:
        got = {o.seat: o for o in outcomes}
        phase = self.phase
        if phase == "wolf_talk":
            self._wolf_talk(got.get(self.order[self.turn][0]))
        elif phase == "night":
            self._night(got)
        elif phase == "witch":
            self._witch(got)
        elif phase == "hunter":
            self._hunter(got)
        elif phase == "discuss":
            self._floor_statement(got)
        elif phase == "discuss_parallel":
            self._parallel(got)
        elif phase == "bid":
            self._bids(got)
        elif phase == "introduction":
            self._introduction(got)
        elif phase == "defence":
            self._defence(got)
        elif phase == "last_words":
            self._last_words(got)
        elif phase == "day_vote":
            self._day_vote(got)
        elif phase == "runoff":
            self._runoff(got)
        else:
            raise RuntimeError("the game is over")

    # -- reading replies ---------------------------------------------------------------------
    def _invalid(self, seat: str, action: str, reason: str, given: str | None) -> None:
        words = self._say(f"action_{action}")
        self.emit(WerewolfInvalid(text=self._say("invalid", seat=seat, action=words, reason=reason), actor=seat,
                                  round=self.day, visible_to=(seat,), seat=seat, action=action, reason=reason,
                                  given=None if given is None else given[:200]))

    def _choice(self, seat: str, outcome: Outcome | None, options: list[str], action: str, counted: str,
                abstain_ok: bool = False) -> str | None:
        """A seat's choice among `options`, or None (its reason recorded as an invalid action,
        except an allowed abstention)."""
        text = usable_text(outcome)
        choice = (text or "").strip()
        if choice in options:
            return choice
        if abstain_ok and choice.casefold() == ABSTAIN:
            return None
        why = self._say("reason_not_option", given=choice[:40]) if text is not None else why_unusable(outcome)
        self._invalid(seat, action, self._say("reason_counted_as", why=why, counted=self._say(f"counted_{counted}")),
                      text)
        return None

    def _statement_text(self, outcome: Outcome | None) -> tuple[str, str]:
        """A statement's text cut to the limit, or "" and why there is none."""
        text = (usable_text(outcome) or "").strip()[: self.settings.max_chars].strip()
        if text:
            return text, ""
        return "", (self._say("reason_empty") if usable_text(outcome) is not None else why_unusable(outcome))

    def _speak(self, seat: str, outcome: Outcome | None, turn: int, phase: StatementPhase) -> bool:
        text, why = self._statement_text(outcome)
        if text:
            self.emit(Statement(text=text, actor=seat, round=self.day, day=self.day, turn=turn, phase=phase))
        else:
            self.emit(Silence(text=self._say("silence", seat=seat), actor=seat, round=self.day, day=self.day,
                              turn=turn, phase=phase, reason=why))
        return bool(text)

    def _introduction(self, got: dict[str, Outcome]) -> None:
        seat = self.order[self.turn][0]
        self._speak(seat, got.get(seat), 0, "introduction")
        self.turn += 1
        if self.turn >= len(self.order):
            self._start_night()

    # -- the night ----------------------------------------------------------------------------
    def _start_night(self) -> None:
        self.day += 1
        self.victim = self.protected = self.poisoned = None
        self.saved = False
        self.emit(NightStart(text=self._say("night_start", night=self.day, alive=self._list(self.alive)),
                             round=self.day, night=self.day, alive=list(self.alive)))
        wolves = self.living_wolves
        rounds = self.settings.wolf_talk_rounds
        if len(wolves) > 1 and rounds:
            k = (self.day - 1) % len(wolves)  # who opens the pack's talk turns with the nights
            ring = wolves[k:] + wolves[:k]
            self.order = [(w, r) for r in range(1, rounds + 1) for w in ring]
            self.turn = 0
            self.phase = "wolf_talk"
        else:
            self.phase = "night"

    def _wolf_talk(self, outcome: Outcome | None) -> None:
        seat = self.order[self.turn][0]
        text, _ = self._statement_text(outcome)
        self.emit(WolfTalk(text=text or self._say("wolf_silent", seat=seat), actor=seat, round=self.day,
                           visible_to=tuple(self.wolves), night=self.day, silent=not text))
        self.turn += 1
        if self.turn >= len(self.order):
            self.phase = "night"

    def _night(self, got: dict[str, Outcome]) -> None:
        s, n = self.settings, self.day
        targets = self._wolf_targets()
        pack = tuple(self.wolves)
        votes: dict[str, str | None] = {}
        for wolf in self.living_wolves:
            votes[wolf] = self._choice(wolf, got.get(wolf), targets, "wolf_vote", "none")
        for wolf, target in votes.items():
            text = (self._say("wolf_vote", seat=wolf, target=target) if target
                    else self._say("wolf_vote_none", seat=wolf))
            self.emit(WolfVote(text=text, actor=wolf, round=n, visible_to=pack, night=n, target=target))
        tally, top = plurality(votes.values())
        how: Literal["votes", "lot", "no_kill_tie", "no_votes"] = "votes"
        if not top:
            victim, how, text = None, "no_votes", self._say("wolf_no_votes")
        elif len(top) == 1:
            victim, text = top[0], self._say("wolf_choice", target=top[0])
        elif s.wolf_tie == "lot":
            victim, how = self.rng.choice(top), "lot"
            text = self._say("wolf_choice_lot", tied=self._list(top), target=victim)
        else:
            victim, how, text = None, "no_kill_tie", self._say("wolf_no_kill_tie", tied=self._list(top))
        self.victim = victim
        self.emit(WolfChoice(text=text, round=n, visible_to=pack, night=n, target=victim, tally=tally,
                             tied=top if len(top) > 1 else [], how=how))
        seer = self.living(SEER)
        if seer is not None:
            target = self._choice(seer, got.get(seer), [x for x in self.alive if x != seer], "seer", "no_vision")
            if target is not None:
                result = self.teams[target] if s.seer_sees == "team" else self.roles[target]
                self.emit(SeerCheck(text=self._say("seer_result", target=target, result=self._seen(result)),
                                    actor=seer, round=n, visible_to=(seer,), night=n, target=target, result=result,
                                    werewolf=self.roles[target] == WEREWOLF))
        doctor = self.living(DOCTOR)
        if doctor is not None and self._doctor_options(doctor):
            target = self._choice(doctor, got.get(doctor), self._doctor_options(doctor), "doctor",
                                  "no_protection")
            self.protected = target
            if target is not None:
                self.emit(DoctorProtect(text=self._say("doctor_result", target=target), actor=doctor, round=n,
                                        visible_to=(doctor,), night=n, target=target))
        self.last_protected = self.protected
        witch = self.living(WITCH)
        if witch is not None and len(self._witch_options(witch)) > 1:
            potions = [self._say(f"potion_{p}") for p, left in (("heal", self.heal_left),
                                                                 ("poison", self.poison_left)) if left]
            told = self._say("witch_wake", victim=self.victim) if self.victim else self._say("witch_wake_none")
            self.emit(WitchWake(text=told + self._say("witch_potions", potions=self._list(potions)), actor=witch,
                                round=n, visible_to=(witch,), night=n, victim=self.victim,
                                heal_left=self.heal_left, poison_left=self.poison_left))
            self.phase = "witch"
        else:
            self._resolve_night()

    def _seen(self, result: str) -> str:
        if result in (VILLAGE, WEREWOLVES):
            return self._say(f"result_{result}")
        return self.role_name(result)

    def _witch(self, got: dict[str, Outcome]) -> None:
        witch = self.living(WITCH)
        assert witch is not None
        choice = self._choice(witch, got.get(witch), self._witch_options(witch), "witch", "no_potion")
        n = self.day
        if choice == SAVE:
            self.saved, self.heal_left = True, False
            self.emit(WitchAction(text=self._say("witch_save", target=self.victim), actor=witch, round=n,
                                  visible_to=(witch,), night=n, action="save", target=self.victim))
        elif choice is not None and choice.startswith(POISON + " "):
            self.poisoned, self.poison_left = choice.split(" ", 1)[1], False
            self.emit(WitchAction(text=self._say("witch_poison", target=self.poisoned), actor=witch, round=n,
                                  visible_to=(witch,), night=n, action="poison", target=self.poisoned))
        else:
            self.emit(WitchAction(text=self._say("witch_none"), actor=witch, round=n, visible_to=(witch,), night=n,
                                  action="none"))
        self._resolve_night()

    def _resolve_night(self) -> None:
        """The night's deaths, in this order: the wolves' victim (unless the Doctor protected it
        or the Witch healed it), then the Witch's poison (which no protection stops)."""
        n = self.day
        causes: dict[str, str] = {}
        saved_by: Literal["doctor", "witch"] | None = None
        if self.victim is not None:
            if self.victim == self.protected:
                saved_by = "doctor"
            elif self.saved:
                saved_by = "witch"
            else:
                causes[self.victim] = "wolves"
        if self.poisoned is not None and self.poisoned not in causes:
            causes[self.poisoned] = "poison"
        dead = [x for x in self.alive if x in causes]  # in seat order: the announcement tells no cause
        nobody = self._say("nobody")
        self.emit(NightResolution(
            text=self._say("resolution", night=n, victim=self.victim or nobody, protected=self.protected or nobody,
                           dead=self._list(dead) or nobody),
            round=n, visible_to=SPECTATORS, night=n, victim=self.victim, protected=self.protected,
            saved_by=saved_by, poisoned=self.poisoned, causes=causes))
        for seat in dead:
            self._kill(seat, "night")
        revealed = {x: w for x in dead if (w := self._what(x)) is not None}
        if dead:
            shown = self._list(self._say("reveal", seat=x, what=self._what_words(revealed[x])) if x in revealed
                               else x for x in dead)
            text = self._say("dawn_dead", day=n, dead=shown)
        else:
            text = self._say("dawn_none", day=n)
        self.emit(Dawn(text=text, round=n, day=n, deaths=dead, revealed=revealed, alive=list(self.alive)))
        hunter = next((x for x in dead if self.roles[x] == HUNTER and (causes[x] != "poison"
                                                                        or self.settings.hunter_when_poisoned)), None)
        self.hunter_when = "night"
        self._after_deaths(hunter, self._start_day)

    def _kill(self, seat: str, how: str) -> None:
        self.alive.remove(seat)
        self.died[seat] = (how, self.day)

    def _after_deaths(self, hunter: str | None, then: Callable[[], None]) -> None:
        """After deaths: the game may be won; a dead Hunter shoots first (its shot may change
        who is at parity); then the game goes on with `then`."""
        if not self.living_wolves:
            self._finish(VILLAGE, "wolves_out")
        elif hunter is not None and len(self.alive) > 0:
            self.hunter_seat, self.after_hunter = hunter, then
            self.phase = "hunter"
        elif self._parity():
            self._finish(WEREWOLVES, "parity")
        else:
            then()

    def _parity(self) -> bool:
        wolves = len(self.living_wolves)
        return wolves >= len(self.alive) - wolves

    def _hunter(self, got: dict[str, Outcome]) -> None:
        seat, then = self.hunter_seat, self.after_hunter
        assert seat is not None and then is not None
        target = self._choice(seat, got.get(seat), [x for x in self.alive if x != seat], "hunter", "hold",
                              abstain_ok=True)
        self.hunter_seat = self.after_hunter = None
        if target is None:
            self.emit(HunterShot(text=self._say("hunter_holds", seat=seat), actor=seat, round=self.day, day=self.day,
                                 when=self.hunter_when))
        else:
            self._kill(target, self.hunter_when)
            what = self._what(target)
            text = (self._say("hunter_shot_reveal", seat=seat, target=target, what=self._what_words(what)) if what
                    else self._say("hunter_shot", seat=seat, target=target))
            self.emit(HunterShot(text=text, actor=seat, round=self.day, day=self.day, when=self.hunter_when,
                                 target=target, revealed=what))
        if not self.living_wolves:
            self._finish(VILLAGE, "wolves_out")
        elif self._parity():
            self._finish(WEREWOLVES, "parity")
        else:
            then()

    # -- the day ------------------------------------------------------------------------------
    def _start_day(self) -> None:
        s = self.settings
        i = (self.seats.index(self.opener) + self.day - 1) % len(self.seats)
        ring = self.seats[i:] + self.seats[:i]
        self.day_order = [x for x in ring if x in self.alive]  # the day's turn order
        self.spoken_today = Counter()
        self.turn = 0
        if s.protocol == "round_robin":
            self.order = [(x, r) for r in range(1, s.discussion_rounds + 1) for x in self.day_order]
            self.phase = "discuss"
        elif s.protocol == "parallel":
            self.discussion_round = 1
            self.phase = "discuss_parallel"
        else:
            self.phase = "bid"

    def _floor_statement(self, got: dict[str, Outcome]) -> None:
        seat, turn = self.order[self.turn]
        self._speak(seat, got.get(seat), turn, "discussion")
        self.spoken_today[seat] += 1
        self.turn += 1
        if self.settings.protocol == "bidding":
            self._next_bid()
        elif self.turn >= len(self.order):
            self.phase = "day_vote"

    def _parallel(self, got: dict[str, Outcome]) -> None:
        for seat in list(self.alive):
            self._speak(seat, got.get(seat), self.discussion_round, "discussion")
        self.discussion_round += 1
        if self.discussion_round > self.settings.discussion_rounds:
            self.phase = "day_vote"

    def _bidders(self) -> list[str]:
        """The living players who may still take the floor today (each speaks at most
        `discussion_rounds` times a day)."""
        return [x for x in self.day_order if self.spoken_today[x] < self.settings.discussion_rounds]

    def _next_bid(self) -> None:
        self.phase = "bid" if self._bidders() else "day_vote"

    def _bids(self, got: dict[str, Outcome]) -> None:
        bids: dict[str, int] = {}
        for seat in self._bidders():
            choice = self._choice(seat, got.get(seat), list(BIDS), "bid", "zero")
            bids[seat] = int(choice) if choice is not None else 0
        top = max(bids.values())
        shown = self._list(f"{x} {b}" for x, b in bids.items())
        if top == 0:  # everyone passes: the discussion ends
            self.emit(Bids(text=self._say("bids_pass", bids=shown), round=self.day, day=self.day, turn=self.turn + 1,
                           bids=bids, speaker=None))
            self.phase = "day_vote"
            return
        # the highest bid; then who has spoken least today; then the day's turn order
        speaker = min((x for x, b in bids.items() if b == top),
                      key=lambda x: (self.spoken_today[x], self.day_order.index(x)))
        self.emit(Bids(text=self._say("bids", bids=shown, speaker=speaker), round=self.day, day=self.day,
                       turn=self.turn + 1, bids=bids, speaker=speaker))
        self.order = self.order[: self.turn] + [(speaker, self.turn + 1)]
        self.phase = "discuss"

    def _count(self, got: dict[str, Outcome], voters: list[str], runoff: bool) -> None:
        votes: dict[str, str | None] = {}
        for seat in voters:
            votes[seat] = self._choice(seat, got.get(seat), self._choice_options(seat, runoff), "day_vote", "none",
                                       abstain_ok=self.settings.allow_abstain)
        for seat, target in votes.items():
            text = (self._say("day_vote", voter=seat, target=target) if target else self._say("day_abstain",
                                                                                              voter=seat))
            self.emit(DayVote(text=text, actor=seat, round=self.day, day=self.day, target=target, runoff=runoff))
        tally, top = plurality(votes.values())
        n = self.day
        if not top:
            self.emit(VoteResult(text=self._say("vote_none"), round=n, day=n, tally=tally, runoff=runoff,
                                 outcome="no_votes"))
            self._end_day()
        elif len(top) == 1:
            self.emit(VoteResult(text=self._say("vote_out", seat=top[0], votes=tally[top[0]]), round=n, day=n,
                                 tally=tally, eliminated=top[0], runoff=runoff, outcome="eliminated"))
            self._eliminate(top[0])
        elif self.settings.vote_tie == "runoff" and not runoff:
            self.tied = top
            self.emit(VoteResult(text=self._say("vote_runoff", tied=self._list(top)), round=n, day=n, tally=tally,
                                 tied=top, runoff=runoff, outcome="runoff"))
            self.order = [(x, 0) for x in top]
            self.turn = 0
            self.phase = "defence"
        else:
            self.emit(VoteResult(text=self._say("vote_tie", tied=self._list(top)), round=n, day=n, tally=tally,
                                 tied=top, runoff=runoff, outcome="tie"))
            self._end_day()

    def _day_vote(self, got: dict[str, Outcome]) -> None:
        self._count(got, list(self.alive), runoff=False)

    def _choice_options(self, seat: str, runoff: bool) -> list[str]:
        return list(self.tied) if runoff else [x for x in self.alive if x != seat]

    def _defence(self, got: dict[str, Outcome]) -> None:
        seat = self.order[self.turn][0]
        self._speak(seat, got.get(seat), 0, "defence")
        self.turn += 1
        if self.turn >= len(self.order):
            if [x for x in self.alive if x not in self.tied]:
                self.phase = "runoff"
            else:  # everyone alive is tied: nobody is left to vote
                self.emit(VoteResult(text=self._say("vote_tie", tied=self._list(self.tied)), round=self.day,
                                     day=self.day, tied=list(self.tied), runoff=True, outcome="tie"))
                self._end_day()

    def _runoff(self, got: dict[str, Outcome]) -> None:
        self._count(got, [x for x in self.alive if x not in self.tied], runoff=True)

    def _eliminate(self, seat: str) -> None:
        self._kill(seat, "day")
        self.hunter_when = "day"
        what = self._what(seat)
        text = (self._say("eliminated_reveal", seat=seat, what=self._what_words(what)) if what
                else self._say("eliminated", seat=seat))
        self.emit(Elimination(text=text, actor=seat, round=self.day, day=self.day, seat=seat, revealed=what))
        hunter = seat if self.roles[seat] == HUNTER else None
        if self.settings.last_words and self.living_wolves:
            self.last_words_seat = seat
            self.phase = "last_words"
            self._hunter_after_words = hunter
        else:
            self._after_deaths(hunter, self._end_day)

    def _last_words(self, got: dict[str, Outcome]) -> None:
        seat = self.last_words_seat
        assert seat is not None
        self._speak(seat, got.get(seat), 0, "last_words")
        self.last_words_seat = None
        hunter, self._hunter_after_words = self._hunter_after_words, None
        self._after_deaths(hunter, self._end_day)

    def _end_day(self) -> None:
        if self.day >= self.settings.max_days:
            self._finish(WEREWOLVES, "day_limit")
        else:
            self._start_night()

    # -- the end ------------------------------------------------------------------------------
    def _finish(self, winner: str, reason: Literal["wolves_out", "parity", "day_limit"]) -> None:
        self.winner, self.reason = winner, reason
        self.phase = "over"
        why = self._say(f"why_{reason}", max_days=self.settings.max_days)
        roles = self._list(f"{x} {self.role_name(self.roles[x])}" for x in self.seats)
        self.emit(GameOver(text=self._say("over", winner=self._say(f"wins_{winner}"), why=why, roles=roles),
                           round=self.day, winner=winner, reason=reason, roles=dict(self.roles),
                           teams=dict(self.teams), day=self.day))

    def result(self) -> dict[str, Any]:
        return {
            "scores": {x: (1.0 if self.winner and self.teams[x] == self.winner else 0.0) for x in self.seats},
            "winner": self.winner,
            "reason": self.reason,
            "roles": dict(self.roles),
            "teams": dict(self.teams),
            "days": self.day,
            "died": {x: {"when": how, "round": n} for x, (how, n) in self.died.items()},
            "survivors": list(self.alive),
        }


__all__ = ["BIDS", "NO_POTION", "POISON", "SAVE", "WerewolfGame", "WerewolfSettings", "deal", "dealt_roles",
           "plurality"]
