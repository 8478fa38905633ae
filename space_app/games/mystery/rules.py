"""Murder mystery, pure rules (no I/O, no clock; randomness only from the seed).

One seat per character of a `Script` (seats are the characters' names). Four phases:

1. **Initialisation**: the public background and cast, every public text clue and every image
   clue (a public `clue` event each; an image clue carries its file reference in
   `data.images` and its caption as text), then each character's private script as one whole
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

from pydantic import BaseModel, Field

from sdk.observation import ABSTAIN, Limits

from ..base import SPECTATORS, Game, Outcome, Request, usable_text, why_unusable
from .script import Script

__all__ = ["DRAW", "INNOCENT", "INNOCENTS", "MURDERER", "MysteryGame", "MysterySettings", "image_ref", "script_digest",
           "tally"]

MURDERER, INNOCENT = "murderer", "innocent"  # a seat's role
INNOCENTS = "innocents"  # the side of every innocent seat (the murderer's side is "murderer")
DRAW = "draw"
IMAGE_ROOT = "mystery"  # image clues are referenced as "mystery/<script id>/<file>"
SPEECH_KINDS = ("introduction", "statement", "question", "answer", "reasoning")
Phase = Literal["introduction", "share", "choose", "ask", "answer", "reasoning", "vote", "over"]


class MysterySettings(BaseModel):
    players: int = Field(default=5, ge=2, le=20)
    # a shipped script's id; None: the catalogue picks the first script of `language` with
    # `players` characters (the rules themselves are handed a Script object)
    script: str | None = None
    language: Literal["en", "zh"] = "en"
    rounds: int = Field(default=3, ge=1, le=10)
    seconds: float = Field(default=60.0, gt=0, le=3600)
    max_chars: int = Field(default=1000, ge=1, le=100_000)


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
    phase: Phase
    seat: str = ""  # who is asked ("" for the simultaneous vote; the answerer is the current target)
    round: int | None = None


TEXT = {
    "en": {
        "intro": "Introductions. Introduce your character, {you}, to the others: who you are and why you are "
                 "here tonight. Keep to yourself whatever your role must hide.",
        "share": "Discussion round {r} of {n}. Share the clues you know and analyse them: what do they tell us "
                 "about the murder?",
        "choose": "Discussion round {r} of {n}. Choose one other character to question.",
        "ask": "Discussion round {r} of {n}. Ask {target} one question.",
        "answer": "Discussion round {r} of {n}. {asker} asks you: \"{question}\" Answer {asker}.",
        "reasoning": "Reasoning. State whom you suspect of the murder, their motive and their method, and why.",
        "vote": "Final vote. Name the murderer: one of the characters. The innocents win if a strict majority of "
                "the innocents' votes names the murderer.",
        "script_title": "Your script: {name} ({chars:,} characters)",
        "murderer": "You are {name}, and you are the murderer. {task}Your private script "
                     "({chars:,} characters) is attached whole; no other character has seen it.",
        "innocent": "You are {name}, one of the innocents (not the murderer). {task}Your private "
                    "script ({chars:,} characters) is attached whole; no other character has seen it.",
        "task": "Your task: {task} ",
        "solution": " Motive: {motive} Method: {method}",
        "account": " What happened: {account}",
    },
    "zh": {
        "intro": "自我介绍。向其他人介绍你的角色{you}：你是谁，今晚为何在此。你的角色需要隐瞒的事情不要说。",
        "share": "讨论第{r}轮（共{n}轮）。分享你知道的线索并加以分析：它们说明了这起命案的什么？",
        "choose": "讨论第{r}轮（共{n}轮）。选择一名其他角色进行提问。",
        "ask": "讨论第{r}轮（共{n}轮）。向{target}提一个问题。",
        "answer": "讨论第{r}轮（共{n}轮）。{asker}问你：“{question}”请回答{asker}。",
        "reasoning": "推理。说出你怀疑的凶手、其动机和作案手法，以及理由。",
        "vote": "最终投票。指出凶手（角色之一）。若无辜者的票中严格多数指向凶手，无辜者获胜。",
        "script_title": "你的剧本：{name}（{chars}字）",
        "murderer": "你是{name}，你就是凶手。{task}你的私人剧本（{chars}字）已完整附上，其他角色都没有看过。",
        "innocent": "你是{name}，无辜者之一（不是凶手）。{task}你的私人剧本（{chars}字）已完整附上，"
                    "其他角色都没有看过。",
        "task": "你的任务：{task}",
        "solution": "动机：{motive} 手法：{method}",
        "account": "真相：{account}",
    },
}


class MysteryGame(Game):
    id: ClassVar[str] = "mystery"
    title: ClassVar[str] = "Murder mystery"
    history_kinds: ClassVar[frozenset[str]] = frozenset({
        "start", "clue", "phase", *SPEECH_KINDS, "silence", "question_target", "vote", "vote_result",
        "game_over", "invalid_action",
    })

    def __init__(self, seats: list[str], seed: int, settings: MysterySettings, script: Script) -> None:
        names = [r.name for r in script.roles]
        if list(seats) != names:
            raise ValueError(f"mystery seats are the script's characters in order ({', '.join(names)}); "
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
        self.text = TEXT[self.lang]
        self.murderer = murderers[0]
        self.roles = dict(zip(self.seats, script_roles(script), strict=True))
        rng = random.Random(seed)
        self.steps = self._plan(rng)
        self.index = 0
        self.target = ""  # the character questioned in the current turn
        self.question = ""  # what the asker asked ("" when it asked nothing)
        self.votes: dict[str, str | None] = {}
        self.winner = ""
        self.named = 0
        self.phase: Phase = "introduction"
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
        self.emit("setup", f"Script {sc.id!r}: the murderer is {self.murderer}.", visible_to=SPECTATORS,
                  script=sc.id, digest=script_digest(sc), roles=dict(self.roles), murderer=self.murderer, truth=truth,
                  key_roles=list(sc.key_roles), orders=self._orders(), settings=s.model_dump(mode="json"))
        # an imported character may have no public introduction
        cast = [{"name": r.name} | ({"introduction": r.introduction} if r.introduction else {}) for r in sc.roles]
        self.emit("start", self._start_text(cast), script=sc.id, title=sc.title, language=sc.language,
                  background=sc.background, characters=cast, seats=list(self.seats), rounds=s.rounds)
        for clue in sc.text_clues:
            self.emit("clue", f"{clue.title}: {clue.text}" if self.lang == "en" else f"{clue.title}：{clue.text}",
                      clue=clue.id, title=clue.title, image_kind=None)
        for image in sc.image_clues:
            label = "Image clue" if self.lang == "en" else "图片线索"
            self.emit("clue", f"{label} {image.id} ({image.kind}): {image.caption}", clue=image.id,
                      title=image.id, image_kind=image.kind, caption=image.caption, file=image.file,
                      images=[image_ref(sc.id, image.file)])
        for role in sc.roles:
            chars = len(role.script)
            mine = MURDERER if role.murderer else INNOCENT
            task = sc.tasks.murderer if role.murderer else sc.tasks.others
            text = self.text[mine].format(name=role.name, task=self.text["task"].format(task=task) if task else "",
                                          chars=chars)
            document = {"title": self.text["script_title"].format(name=role.name, chars=chars), "kind": "script",
                        "text": role.script, "data": {"character": role.name, "chars": chars}}
            self.emit("private", text, actor=role.name, visible_to=(role.name,), document=document,
                      facts={"character": role.name, "role": mine, "task": task, "script_chars": chars})

    def _start_text(self, cast: list[dict[str, str]]) -> str:
        sc, n = self.script, self.settings.rounds
        setting = f"{sc.background}\n\n" if sc.background else ""
        if self.lang == "zh":
            people = "\n".join(f"- {c['name']}：{c['introduction']}" if "introduction" in c else f"- {c['name']}"
                               for c in cast)
            return (f"《{sc.title}》\n{setting}角色：\n{people}\n\n你们之中有一人是凶手（murderer），其余都是"
                    f"无辜者（innocents）。流程：自我介绍；{n}轮讨论（每轮每人先分享并分析线索，再各自选一名其他角色提问，"
                    "被问者回答）；推理（说出怀疑对象、动机和手法）；最终投票。若无辜者的票中严格多数指向凶手，无辜者获胜；"
                    "恰好一半为平局；否则凶手获胜。")
        people = "\n".join(f"- {c['name']}: {c['introduction']}" if "introduction" in c else f"- {c['name']}"
                           for c in cast)
        return (f"{sc.title}\n{setting}The characters:\n{people}\n\nOne of you is the murderer; the others "
                f"are innocents. Phases: introductions; {n} discussion round(s) (each of you shares and analyses "
                "clues, then each questions one other character, who answers); reasoning (whom you suspect, the "
                "motive and the method); a final vote. The innocents win if a strict majority of the innocents' "
                "votes names the murderer; exactly half is a draw; otherwise the murderer wins.")

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

    @property
    def over(self) -> bool:
        return self.phase == "over"

    def _limits(self) -> Limits:
        return Limits(max_chars=self.settings.max_chars, seconds=self.settings.seconds)

    def pending(self) -> list[Request]:
        if self.over:
            return []
        step, t, n = self.step, self.text, self.settings.rounds

        def ask(seat: str, verb: Any, instruction: str, **kw: Any) -> Request:
            return Request(seat, self.observe(seat, verb, phase=step.phase, instruction=instruction,
                                              limits=self._limits(), round=step.round, language=self.lang, **kw))

        if step.phase == "introduction":
            return [ask(step.seat, "speak", t["intro"].format(you=step.seat))]
        if step.phase == "share":
            return [ask(step.seat, "speak", t["share"].format(r=step.round, n=n))]
        if step.phase == "choose":
            others = [x for x in self.seats if x != step.seat]
            return [ask(step.seat, "vote", t["choose"].format(r=step.round, n=n), options=others)]
        if step.phase == "ask":
            return [ask(step.seat, "speak", t["ask"].format(r=step.round, n=n, target=self.target))]
        if step.phase == "answer":
            return [ask(self.target, "speak", t["answer"].format(r=step.round, n=n, asker=step.seat,
                                                                  question=self.question))]
        if step.phase == "reasoning":
            return [ask(step.seat, "speak", t["reasoning"])]
        return [ask(seat, "vote", t["vote"], options=list(self.seats), allow_abstain=True) for seat in self.seats]

    def submit(self, outcomes: Iterable[Outcome]) -> None:
        if self.over:
            raise RuntimeError("the game is over")
        got = {o.seat: o for o in outcomes}
        step = self.step
        if step.phase == "introduction":
            self._speech("introduction", step, step.seat, got.get(step.seat))
        elif step.phase == "share":
            self._speech("statement", step, step.seat, got.get(step.seat))
        elif step.phase == "choose":
            self._choose(step, got.get(step.seat))
        elif step.phase == "ask":
            said = self._speech("question", step, step.seat, got.get(step.seat), target=self.target)
            self.question = said
        elif step.phase == "answer":
            self._speech("answer", step, self.target, got.get(self.target), asker=step.seat,
                         question=self.question)
        elif step.phase == "reasoning":
            self._speech("reasoning", step, step.seat, got.get(step.seat))
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
        zh = self.lang == "zh"
        order = [x.seat for x in self.steps if x.phase == step.phase and x.round == step.round]
        names = ("、" if zh else ", ").join(order)
        if step.phase == "introduction":
            text = f"自我介绍，顺序：{names}。" if zh else f"Introductions, in this order: {names}."
        elif step.phase == "share":
            text = (f"讨论第{step.round}轮：按顺序{names}分享线索，然后按同一顺序各自提问。" if zh else
                    f"Discussion round {step.round} of {self.settings.rounds}: {names} share clues in this order, "
                    "then each questions one other character in the same order.")
        elif step.phase == "reasoning":
            text = f"推理，顺序：{names}。" if zh else f"Reasoning, in this order: {names}."
        else:
            text = "最终投票：所有人同时投票指出凶手。" if zh else "Final vote: everyone names the murderer at once."
        self.emit("phase", text, round=step.round, phase=_group(step.phase), order=order)

    # -- what each turn does -------------------------------------------------------------------
    def _speech(self, kind: str, step: Step, seat: str, outcome: Outcome | None, **data: Any) -> str:
        raw = usable_text(outcome)
        text = (raw or "").strip()[: self.settings.max_chars].strip()
        phase = "share" if kind == "statement" else kind
        if text:
            self.emit(kind, text, actor=seat, round=step.round, phase=phase, **data)
        else:
            reason = "empty reply" if raw is not None else why_unusable(outcome)
            silent = f"{seat} says nothing." if self.lang == "en" else f"{seat}没有发言。"
            self.emit("silence", silent, actor=seat, round=step.round, phase=phase, reason=reason, **data)
        return text

    def _choose(self, step: Step, outcome: Outcome | None) -> None:
        asker, text = step.seat, usable_text(outcome)
        others = [x for x in self.seats if x != asker]
        named = _match(text, others)
        if named is None:
            i = self.seats.index(asker)
            named = self.seats[(i + 1) % len(self.seats)]  # the next character clockwise
            if text is not None and _match(text, [asker]):
                why = "a character cannot question itself"
            elif text is not None:
                why = f"'{text.strip()[:40]}' is not another character"
            else:
                why = why_unusable(outcome)
            self._invalid(asker, "question target", f"{why}; the next character clockwise, {named}, is "
                                                    "questioned", text, step.round)
        self.target, self.question = named, ""
        chosen = _match(text, others) is not None
        if self.lang == "zh":
            line = f"{asker}将向{named}提问。" + ("" if chosen else "（默认）")
        else:
            line = f"{asker} will question {named}." + ("" if chosen else " (by default)")
        self.emit("question_target", line, actor=asker, round=step.round, asker=asker, target=named, chosen=chosen)

    def _vote(self, got: dict[str, Outcome]) -> None:
        for seat in self.seats:
            outcome = got.get(seat)
            text = usable_text(outcome)
            named = _match(text, self.seats)
            if named is None and not (text or "").strip().casefold() == ABSTAIN:
                why = f"'{text.strip()[:40]}' is not a character" if text is not None else why_unusable(outcome)
                self._invalid(seat, "final vote", f"{why}; counted as an abstention", text, None)
            self.votes[seat] = named
        zh = self.lang == "zh"
        for seat in self.seats:
            target = self.votes[seat]
            if zh:
                line = f"{seat}投给{target}。" if target else f"{seat}弃权。"
            else:
                line = f"{seat} votes for {target}." if target else f"{seat} abstains."
            self.emit("vote", line, actor=seat, vote=target)
        counts = Counter(v for v in self.votes.values() if v)
        abstained = sum(v is None for v in self.votes.values())
        listed = ", ".join(f"{name} {k}" for name, k in counts.most_common())
        self.emit("vote_result", (f"票数：{listed or '无'}；弃权{abstained}。" if zh else
                                  f"Votes: {listed or 'none'}; {abstained} abstained."),
                  counts=dict(counts), abstained=abstained)
        self.winner, self.named, innocents = tally(self.votes, self.murderer)
        self._close(innocents)

    def _close(self, innocents: int) -> None:
        sc, zh = self.script, self.lang == "zh"
        self.phase = "over"
        if zh:
            verdict = {INNOCENTS: "无辜者获胜", MURDERER: "凶手获胜", DRAW: "平局"}[self.winner]
            text = (f"游戏结束：{verdict}（{innocents}名无辜者中有{self.named}人投给了凶手）。凶手是{self.murderer}。"
                    f"{self._solution()}")
        else:
            verdict = {INNOCENTS: "the innocents win", MURDERER: "the murderer wins", DRAW: "a draw"}[self.winner]
            text = (f"Game over: {verdict} ({self.named} of {innocents} innocents named the murderer). The murderer "
                    f"was {self.murderer}.{self._solution()}")
        self.emit("game_over", text, winner=self.winner, murderer=self.murderer, roles=dict(self.roles),
                  named=self.named, innocents=innocents, votes=dict(self.votes),
                  truth=sc.truth.told())

    def _solution(self) -> str:
        """Motive and method, or an imported script's one account (nothing when it has neither)."""
        truth = self.script.truth
        if truth.motive or truth.method:
            return self.text["solution"].format(motive=truth.motive or "?", method=truth.method or "?")
        return self.text["account"].format(account=truth.account) if truth.account else ""

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

    # -- helpers -------------------------------------------------------------------------------
    def _invalid(self, seat: str, action: str, reason: str, given: str | None, round: int | None) -> None:
        """A refused or missing action: its seat and spectators are told what happened."""
        self.emit("invalid_action", f"{seat}'s {action} was not valid: {reason}.", actor=seat, round=round,
                  visible_to=(seat,), seat=seat, action=action, reason=reason,
                  given=None if given is None else given[:200])


def _group(phase: str) -> str:
    """Turns of one discussion round belong together (one announcement per round)."""
    return "discussion" if phase in ("share", "choose", "ask", "answer") else phase


def _match(text: str | None, names: list[str]) -> str | None:
    """The name `text` is (exactly, or ignoring case and surrounding spaces), else None."""
    if text is None:
        return None
    wanted = text.strip().casefold()
    return next((n for n in names if n.casefold() == wanted), None)
