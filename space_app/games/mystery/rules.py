"""Murder mystery, pure rules (no I/O, no clock; randomness only from the seed).

One seat per character of a `Script` (seats are the characters' names). Four phases:

1. **Initialisation**: the public background and cast, every public text clue and every image
   clue (a public `clue` event each; an image clue carries its file reference in the
   event's `images` and its caption as text), then each character's private script as one whole
   private `Document` (its length stated) with its role and task; each character introduces
   itself (`speak`).
2. **Discussion** (`rounds`, default 3): every character shares and analyses clues (`speak`);
   then, in the same order, each chooses one other character to question (`vote`), asks
   (`speak`) and the questioned character answers (`speak`).
3. **Reasoning**: each states whom it suspects, the motive and the method (`speak`).
4. **Voting**: everyone at once names the murderer (`vote` over every character, abstaining
   allowed). The innocents win when a strict majority of the innocents' votes names the
   murderer, draw at exactly half, and lose otherwise; the murderer's own vote never counts.

Speaking orders are drawn with the seed for each phase. Bad input takes the rule's default and
is recorded as an `invalid_action` (the seat's own record): a question aimed at oneself or at no
other character goes to the next character clockwise (seat order); a final vote that names no
character is an abstention. Full rules: docs/rules-mystery.md.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from sdk.observation import ABSTAIN

from ...core.events import Private, SharedDocument
from ...core.game import SPECTATORS, Game, Outcome, Request, usable_text, why_unusable
from .events import (
    Answer,
    Clue,
    GameOver,
    Introduction,
    MysteryInvalidAction,
    MysterySetup,
    Phase,
    Question,
    QuestionTarget,
    Reasoning,
    Silence,
    Speech,
    Start,
    Statement,
    Vote,
    VoteResult,
)
from .phrases import PHRASES
from .scripts.script import Script

__all__ = ["DRAW", "INNOCENT", "INNOCENTS", "MURDERER", "MysteryDeal", "MysteryGame", "MysterySettings", "deal_problem",
           "image_ref", "script_digest", "seat_characters", "tally"]

MURDERER, INNOCENT = "murderer", "innocent"  # a seat's role
INNOCENTS = "innocents"  # the side of every innocent seat (the murderer's side is "murderer")
DRAW = "draw"
IMAGE_ROOT = "mystery"  # image clues are referenced as "mystery/<script id>/<file>"
Turn = Literal["introduction", "share", "choose", "ask", "answer", "reasoning", "vote", "over"]


class MysteryDeal(BaseModel):
    """A fixed character assignment: the character of each seat, in seat order (the agent
    seated first plays the first named). Without one the seats are the script's characters in
    the script's order."""

    model_config = ConfigDict(extra="forbid")
    characters: list[str] = Field(min_length=2)


def deal_problem(deal: MysteryDeal, script: Script) -> str | None:
    """What makes `deal` wrong for `script` (an unknown, missing or repeated character), or None."""
    names = [r.name for r in script.roles]
    unknown = [c for c in deal.characters if c not in names]
    if unknown:
        return (f"deal: unknown character(s) {', '.join(map(repr, unknown))}; script {script.id!r} has "
                f"{', '.join(names)}")
    repeated = sorted({c for c in deal.characters if deal.characters.count(c) > 1})
    if repeated:
        return f"deal: character(s) named twice: {', '.join(repeated)}"
    missing = [n for n in names if n not in deal.characters]
    if missing:
        return f"deal: every character of script {script.id!r} needs a seat; missing {', '.join(missing)}"
    return None


def seat_characters(settings: MysterySettings, script: Script) -> list[str]:
    """The character of each seat: the deal's order, else the script's."""
    return list(settings.deal.characters) if settings.deal is not None else [r.name for r in script.roles]


class MysterySettings(BaseModel):
    players: int = Field(default=5, ge=2, le=20)
    # a shipped script's id; None: the catalogue picks the first script of `language` with
    # `players` characters (the rules themselves are handed a Script object)
    script: str | None = None
    language: Literal["en", "zh"] = "en"
    # belief probes (`core/probes.py`): off by default, and left out of the stored settings when off,
    # so a match without them records (and replays) exactly as before they existed
    probes: bool = Field(default=False, exclude_if=lambda on: not on)
    rounds: int = Field(default=3, ge=1, le=10)
    seconds: float = Field(default=60.0, gt=0, le=3600)
    max_chars: int = Field(default=1000, ge=1, le=100_000)
    # a fixed character assignment; left out of the stored settings when not given, so a match
    # without one records (and replays) exactly as before deals existed
    deal: MysteryDeal | None = Field(default=None, exclude_if=lambda deal: deal is None)


def image_ref(script_id: str, file: str) -> str:
    """How an image clue travels in events and observations (a file reference, not bytes:
    an observation stays small however many images a script has)."""
    return f"{IMAGE_ROOT}/{script_id}/{file}"


def script_digest(script: Script) -> str:
    """A short fingerprint of the script a match was played on (a replay on an edited script
    is told apart from a tampered record)."""
    # unset optional fields left out: a script written before they existed keeps its fingerprint
    return hashlib.sha256(script.model_dump_json(exclude_none=True).encode()).hexdigest()[:16]


def script_roles(script: Script) -> list[str]:
    """Each character's role: the script names the murderer, so the seed deals no role."""
    return [MURDERER if r.murderer else INNOCENT for r in script.roles]


def tally(votes: dict[str, str | None], murderer: str) -> tuple[str, int, int]:
    """(winner, innocents naming the murderer, innocents) from every seat's final vote.
    Abstentions count among the innocents' votes: failing to vote never helps them."""
    innocents = [seat for seat in votes if seat != murderer]
    named = sum(votes[seat] == murderer for seat in innocents)
    if 2 * named > len(innocents):
        return INNOCENTS, named, len(innocents)
    if 2 * named == len(innocents):
        return DRAW, named, len(innocents)
    return MURDERER, named, len(innocents)


@dataclass(frozen=True)
class Step:
    phase: Turn
    seat: str = ""  # who is asked ("" for the simultaneous vote; the answerer is the current target)
    round: int | None = None


class MysteryGame(Game):
    id: ClassVar[str] = "mystery"
    title: ClassVar[str] = "Murder mystery"

    def __init__(self, seats: list[str], seed: int, settings: MysterySettings, script: Script) -> None:
        problem = deal_problem(settings.deal, script) if settings.deal is not None else None
        if problem:
            raise ValueError(problem)
        names = seat_characters(settings, script)
        if list(seats) != names:
            order = "in the deal's order" if settings.deal is not None else "in order"
            raise ValueError(f"mystery seats are the script's characters {order} ({', '.join(names)}); "
                             f"got {', '.join(seats)}")
        if settings.players != len(names):
            raise ValueError(f"script {script.id!r} has {len(names)} characters; players must be {len(names)}, "
                             f"got {settings.players}")
        murderers = [r.name for r in script.roles if r.murderer]
        if len(murderers) != 1 or len(names) < 2:
            raise ValueError(f"script {script.id!r} needs at least two characters and exactly one murderer")
        super().__init__(seats, seed, settings)
        self.settings: MysterySettings = settings
        self.script = script
        self.lang = script.language
        self.murderer = murderers[0]
        by_name = dict(zip([r.name for r in script.roles], script_roles(script), strict=True))
        self.roles = {seat: by_name[seat] for seat in self.seats}
        rng = random.Random(seed)
        self.steps = self._plan(rng)
        self.index = 0
        self.target = ""  # the character questioned in the current turn
        self.question = ""  # what the asker asked ("" when it asked nothing)
        self.votes: dict[str, str | None] = {}
        self.winner = ""
        self.named = 0
        self.phase: Turn = "introduction"
        self._setup()
        self._enter()

    # -- the plan of a whole game: every turn is known up front but the answerer ------------
    def _order(self, rng: random.Random) -> list[str]:
        order = list(self.seats)
        rng.shuffle(order)
        return order

    def _plan(self, rng: random.Random) -> list[Step]:
        steps = [Step("introduction", s) for s in self._order(rng)]
        for r in range(1, self.settings.rounds + 1):
            order = self._order(rng)
            steps += [Step("share", s, r) for s in order]
            for s in order:
                steps += [Step("choose", s, r), Step("ask", s, r), Step("answer", s, r)]
        steps += [Step("reasoning", s) for s in self._order(rng)]
        steps.append(Step("vote"))
        return steps

    @property
    def step(self) -> Step:
        return self.steps[self.index]

    # -- setup: the truth for spectators, the case for everyone, each script for its seat --------
    def _setup(self) -> None:
        sc, s = self.script, self.settings
        truth = sc.truth.told()
        self.emit(MysterySetup(text=self._record("setup", script=sc.id, murderer=self.murderer),
                               visible_to=SPECTATORS, script=sc.id, digest=script_digest(sc), roles=dict(self.roles),
                               murderer=self.murderer, truth=truth, key_roles=list(sc.key_roles),
                               orders=self._orders(), settings=s.model_dump(mode="json")))
        # an imported character may have no public introduction
        cast = [{"name": r.name} | ({"introduction": r.introduction} if r.introduction else {}) for r in sc.roles]
        self.emit(Start(text=self._start_text(cast), script=sc.id, title=sc.title, language=sc.language,
                        background=sc.background, characters=cast, seats=list(self.seats), rounds=s.rounds))
        for clue in sc.text_clues:
            self.emit(Clue(text=self._say("clue", title=clue.title, text=clue.text), clue=clue.id, title=clue.title,
                           image_kind=None))
        for image in sc.image_clues:
            self.emit(Clue(text=self._say("image_clue", id=image.id, kind=image.kind, caption=image.caption),
                           images=[image_ref(sc.id, image.file)], clue=image.id, title=image.id,
                           image_kind=image.kind, caption=image.caption, file=image.file))
        for role in sc.roles:
            chars = len(role.script)
            mine = MURDERER if role.murderer else INNOCENT
            task = sc.tasks.murderer if role.murderer else sc.tasks.others
            text = self._say(f"you_{mine}", name=role.name, task=self._say("your_task", task=task) if task else "",
                             chars=chars)
            document = SharedDocument(title=self._say("script_title", name=role.name, chars=chars), kind="script",
                                      text=role.script, data={"character": role.name, "chars": chars})
            self.emit(Private(text=text, actor=role.name, visible_to=(role.name,), document=document,
                              facts={"character": role.name, "role": mine, "task": task, "script_chars": chars}))

    def _start_text(self, cast: list[dict[str, str]]) -> str:
        sc = self.script
        people = "\n".join(self._say("cast_member", name=c["name"], introduction=c["introduction"])
                           if "introduction" in c else self._say("cast_name", name=c["name"]) for c in cast)
        return self._say("start", title=sc.title, setting=f"{sc.background}\n\n" if sc.background else "",
                         people=people, rounds=self.settings.rounds)

    def _orders(self) -> dict[str, list[str]]:
        """Each phase's speaking order (for spectators and replays)."""
        out: dict[str, list[str]] = {}
        for step in self.steps:
            if step.phase in ("introduction", "share", "reasoning"):
                key = step.phase if step.round is None else f"round {step.round}"
                out.setdefault(key, []).append(step.seat)
        return out

    # -- the protocol ------------------------------------------------------------------------
    def seat_roles(self) -> dict[str, str]:
        return dict(self.roles)

    def pending(self) -> list[Request]:
        if self.over:
            return []
        step, n = self.step, self.settings.rounds

        def ask(seat: str, verb: Any, instruction: str, **kw: Any) -> Request:
            return Request(seat, self.observe(seat, verb, phase=step.phase, instruction=instruction,
                                              limits=self.turn_limits(), round=step.round, language=self.lang, **kw))

        if step.phase == "introduction":
            return [ask(step.seat, "speak", self._say("introduce", you=step.seat))]
        if step.phase == "share":
            return [ask(step.seat, "speak", self._say("share", round=step.round, rounds=n))]
        if step.phase == "choose":
            others = [x for x in self.seats if x != step.seat]
            return [ask(step.seat, "vote", self._say("choose", round=step.round, rounds=n), options=others)]
        if step.phase == "ask":
            return [ask(step.seat, "speak", self._say("ask", round=step.round, rounds=n, target=self.target))]
        if step.phase == "answer":
            return [ask(self.target, "speak", self._say("answer", round=step.round, rounds=n, asker=step.seat,
                                                        question=self.question))]
        if step.phase == "reasoning":
            return [ask(step.seat, "speak", self._say("reason"))]
        return [ask(seat, "vote", self._say("vote"), options=list(self.seats), allow_abstain=True)
                for seat in self.seats]

    def submit(self, outcomes: Iterable[Outcome]) -> None:
        if self.over:
            raise RuntimeError("the game is over")
        got = {o.seat: o for o in outcomes}
        step = self.step
        if step.phase == "introduction":
            self._speech(Introduction, "introduction", step, step.seat, got.get(step.seat))
        elif step.phase == "share":
            self._speech(Statement, "share", step, step.seat, got.get(step.seat))
        elif step.phase == "choose":
            self._choose(step, got.get(step.seat))
        elif step.phase == "ask":
            said = self._speech(Question, "question", step, step.seat, got.get(step.seat), target=self.target)
            self.question = said
        elif step.phase == "answer":
            self._speech(Answer, "answer", step, self.target, got.get(self.target), asker=step.seat,
                         question=self.question)
        elif step.phase == "reasoning":
            self._speech(Reasoning, "reasoning", step, step.seat, got.get(step.seat))
        else:
            self._vote(got)
            return
        self.index += 1
        self._enter()

    # -- moving on ---------------------------------------------------------------------------
    def _enter(self) -> None:
        """Skip what cannot be asked (an answer to a question never asked) and announce each
        new phase once."""
        while self.step.phase == "answer" and not self.question:
            self.index += 1
        step = self.step
        before = self.steps[self.index - 1] if self.index else None
        self.phase = step.phase
        group = (_group(step.phase), step.round)
        if before is not None and (_group(before.phase), before.round) == group:
            return
        self._announce(step)

    def _announce(self, step: Step) -> None:
        order = [x.seat for x in self.steps if x.phase == step.phase and x.round == step.round]
        phase = _group(step.phase)
        text = self._say(f"phase_{phase}", round=step.round, rounds=self.settings.rounds,
                         order=PHRASES.join(self.lang, order))
        self.emit(Phase(text=text, round=step.round, phase=phase, order=order))

    # -- what each turn does -------------------------------------------------------------------
    def _speech(self, said: type[Speech], phase: str, step: Step, seat: str, outcome: Outcome | None,
                **about: str) -> str:
        """What `seat` said in this turn (a `said` event), or a silence; `about`: the question's
        target, or the asker and question of an answer (on the silence too)."""
        raw = usable_text(outcome)
        text = (raw or "").strip()[: self.settings.max_chars].strip()
        if text:
            self.emit(said(text=text, actor=seat, round=step.round, phase=phase, **about))
        else:
            reason = "empty reply" if raw is not None else why_unusable(outcome)
            self.emit(Silence(text=self._say("silent", seat=seat), actor=seat, round=step.round, phase=phase,
                              reason=reason, **about))
        return text

    def _choose(self, step: Step, outcome: Outcome | None) -> None:
        asker, text = step.seat, usable_text(outcome)
        others = [x for x in self.seats if x != asker]
        named = _match(text, others)
        if named is None:
            i = self.seats.index(asker)
            named = self.seats[(i + 1) % len(self.seats)]  # the next character clockwise
            if text is not None and _match(text, [asker]):
                why = self._record("invalid_self")
            elif text is not None:
                why = self._record("invalid_not_other", given=text.strip()[:40])
            else:
                why = why_unusable(outcome)
            self._invalid(asker, "question target", self._record("invalid_clockwise", why=why, target=named), text,
                          step.round)
        self.target, self.question = named, ""
        chosen = _match(text, others) is not None
        line = self._say("will_question" if chosen else "will_question_by_default", asker=asker, target=named)
        self.emit(QuestionTarget(text=line, actor=asker, round=step.round, asker=asker, target=named, chosen=chosen))

    def _vote(self, got: dict[str, Outcome]) -> None:
        for seat in self.seats:
            outcome = got.get(seat)
            text = usable_text(outcome)
            named = _match(text, self.seats)
            if named is None and not (text or "").strip().casefold() == ABSTAIN:
                why = (self._record("invalid_not_character", given=text.strip()[:40]) if text is not None else
                       why_unusable(outcome))
                self._invalid(seat, "final vote", self._record("invalid_abstention", why=why), text, None)
            self.votes[seat] = named
        for seat in self.seats:
            target = self.votes[seat]
            line = self._say("votes_for", seat=seat, target=target) if target else self._say("abstains", seat=seat)
            self.emit(Vote(text=line, actor=seat, vote=target))
        counts = Counter(v for v in self.votes.values() if v)
        abstained = sum(v is None for v in self.votes.values())
        # the counts are listed with ", " in both languages
        listed = ", ".join(self._say("count", name=name, votes=k) for name, k in counts.most_common())
        text = self._say("vote_result", counts=listed or self._say("no_counts"), abstained=abstained)
        self.emit(VoteResult(text=text, counts=dict(counts), abstained=abstained))
        self.winner, self.named, innocents = tally(self.votes, self.murderer)
        self._close(innocents)

    def _close(self, innocents: int) -> None:
        sc = self.script
        self.phase = "over"
        verdict = self._say({INNOCENTS: "innocents_win", MURDERER: "murderer_wins", DRAW: "draw"}[self.winner])
        text = self._say("game_over", verdict=verdict, named=self.named, innocents=innocents, murderer=self.murderer,
                         solution=self._solution())
        self.emit(GameOver(text=text, winner=self.winner, murderer=self.murderer, roles=dict(self.roles),
                           named=self.named, innocents=innocents, votes=dict(self.votes), truth=sc.truth.told()))

    def _solution(self) -> str:
        """Motive and method, or an imported script's one account (nothing when it has neither)."""
        truth = self.script.truth
        if truth.motive or truth.method:
            return self._say("solution", motive=truth.motive or "?", method=truth.method or "?")
        return self._say("account", account=truth.account) if truth.account else ""

    def result(self) -> dict[str, Any]:
        sc = self.script
        if self.winner == DRAW:
            scores = {s: 0.5 for s in self.seats}
        else:
            side = {s: (MURDERER if r == MURDERER else INNOCENTS) for s, r in self.roles.items()}
            scores = {s: (1.0 if self.winner and side[s] == self.winner else 0.0) for s in self.seats}
        return {
            "scores": scores,
            "winner": self.winner,
            "roles": dict(self.roles),
            "sides": {s: (MURDERER if r == MURDERER else INNOCENTS) for s, r in self.roles.items()},
            "murderer": self.murderer,
            "truth": sc.truth.told(),
            "votes": dict(self.votes),
            "named": self.named,
            "script": sc.id,
            "title": sc.title,
        }

    def rules_text(self) -> str:
        return self._say("rules", rounds=self.settings.rounds)

    # -- helpers -------------------------------------------------------------------------------
    def _say(self, key: str, **values: Any) -> str:
        """A line of the game's phrasebook in the script's language."""
        return PHRASES.say(self.lang, key, **values)

    @staticmethod
    def _record(key: str, **values: Any) -> str:
        """A line the record keeps in English in every match (phrases.RECORD_KEYS)."""
        return PHRASES.say("en", key, **values)

    def _invalid(self, seat: str, action: str, reason: str, given: str | None, round: int | None) -> None:
        """A refused or missing action: its seat and spectators are told what happened."""
        self.emit(MysteryInvalidAction(text=self._record("invalid", seat=seat, action=action, reason=reason),
                                       actor=seat, round=round, visible_to=(seat,), seat=seat, action=action,
                                       reason=reason, given=None if given is None else given[:200]))


def _group(phase: str) -> str:
    """Turns of one discussion round belong together (one announcement per round)."""
    return "discussion" if phase in ("share", "choose", "ask", "answer") else phase


def _match(text: str | None, names: list[str]) -> str | None:
    """The name `text` is (exactly, or ignoring case and surrounding spaces), else None."""
    if text is None:
        return None
    wanted = text.strip().casefold()
    return next((n for n in names if n.casefold() == wanted), None)
