"""Belief probes: with a game's `probes` setting on, each seat is asked at the game's defined
moments (`ProbeRules.moment`), through `answer` and seen by nobody else, what it believes of
the hidden truth (who is the spy, who is evil), and the reply is recorded as a `Probe` event
for that seat and spectators. `ProbedGame` wraps the game: it asks the probes before the
game's own requests of that step and hands the game only the game's outcomes, so the game,
its random draws and every observation it builds are those of the same match without probes.
The reading of a reply is `belief_reading.py`; its scores, `belief_scores.py`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from sdk.observation import Limits, Observation

from .belief_reading import Shape, as_reply, read_belief
from .events import Event, Probe
from .game import Game, Outcome, Request
from .phrasebook import Phrasebook

PHASE = "probe_"  # a probe's observation phase is PHASE + its question id, e.g. "probe_spy"
MAX_CHARS = 600  # room for a probability per seat of the largest table, whatever the game's limit

LINES = Phrasebook({
    "en": {
        "one": "Give the probability that each of {names} is the one (they add up to 1).",
        "each": "Give the probability that each of {names} is (they add up to {count}, the number who are).",
        "format": 'Reply with one JSON object mapping each name to a probability, e.g. {example}. '
                  "Nobody else sees this question or your answer, and it does not change the game.",
    },
    "zh": {
        "one": "给出{names}中每人是该人的概率（总和为1）。",
        "each": "给出{names}中每人是的概率（总和为{count}，即这样的人数）。",
        "format": ("只回复一个JSON对象，把每个名字对应到一个概率，例如 {example}。"
                   "其他人看不到这个问题和你的回答，它也不影响游戏。"),
    },
})


@dataclass(frozen=True)
class ProbeQuestion:
    """One belief question to one seat: `text` asks it in the game's words and language."""

    id: str  # what it asks about: 'spy', 'evil', 'merlin', 'murderer', 'wolf'
    text: str
    candidates: list[str]
    shape: Shape = "one"
    count: int = 1  # shape 'each': how many candidates are it, as the seat knows


@dataclass(frozen=True)
class ProbeRules:
    """A game's belief probes (`Rules.probes`): when they are asked, what, and the truth."""

    # (the game, its requests of this step) -> the moment's name when the seats are probed
    # before these requests, else None; each name is asked once a match
    moment: Callable[[Any, list[Request]], str | None]
    # (the game, a seat, the moment) -> that seat's questions, in the order they are asked
    questions: Callable[[Any, str, str], list[ProbeQuestion]]
    # a finished match's result -> question id -> the seats that are it
    truth: Callable[[Mapping[str, Any]], Mapping[str, Iterable[str]]]
    # who is asked, by their `Request`s' seats; None: every seat
    asked: Callable[[Any], list[str]] | None = None


def probe_question(obs: Observation) -> str | None:
    """The question id of a probe's observation ('spy'), or None for any other request."""
    return obs.phase[len(PHASE):] if obs.phase.startswith(PHASE) else None


def others(obs: Observation) -> list[str]:
    """The seats a probe asks about: everyone but the seat asked."""
    return [s for s in obs.seats if s != obs.you]


def uniform_reply(obs: Observation, candidates: list[str] | None = None) -> str:
    """The answer of a seat that holds no belief: every candidate alike (the reader scales it
    to the question's shape), the house agents' answer where they keep no belief state."""
    names = others(obs) if candidates is None else candidates
    return as_reply(dict.fromkeys(names, 1.0))


def ask_text(question: str, shape: Shape, candidates: list[str], count: int, language: str) -> str:
    """A probe's instruction: the game's question, then what to give and how."""
    names = LINES.join(language, candidates)
    share = round(1 / len(candidates), 2) if candidates else 0
    more = ", ..." if len(candidates) > 2 else ""
    example = "{" + ", ".join(f'"{c}": {share}' for c in candidates[:2]) + more + "}"
    what = LINES.say(language, shape, names=names, count=count)
    return f"{question} {what} {LINES.say(language, 'format', example=example)}"


class ProbedGame(Game):
    """A game with belief probes asked at its moments: every attribute not its own is the
    game's, and the events are the game's own list (the probes appended to it in order)."""

    def __init__(self, game: Game, rules: ProbeRules) -> None:  # no Game.__init__: the game is the state
        self.game = game
        self.probe_rules = rules
        self.events = game.events
        self._asked: set[str] = set()
        self._held: list[Request] | None = None  # the game's requests of this step, asked once
        self._steps: list[list[tuple[Request, ProbeQuestion, str]]] = []

    def __getattr__(self, name: str) -> Any:
        # only reached for what the wrapper lacks: the game's own attributes (`spy`, `roles`...)
        if name == "game":
            raise AttributeError(name)
        return getattr(self.game, name)

    # -- what the runner and verify read ------------------------------------------------------
    @property  # type: ignore[override]
    def id(self) -> str:
        return self.game.id

    @property  # type: ignore[override]
    def title(self) -> str:
        return self.game.title

    @property  # type: ignore[override]
    def seats(self) -> list[str]:
        return self.game.seats

    @property  # type: ignore[override]
    def seed(self) -> int:
        return self.game.seed

    @property  # type: ignore[override]
    def settings(self) -> BaseModel:
        return self.game.settings

    @property  # type: ignore[override]
    def match_id(self) -> str:
        return self.game.match_id

    @match_id.setter
    def match_id(self, value: str) -> None:
        self.game.match_id = value

    @property  # type: ignore[override]
    def phase(self) -> str:
        return self.game.phase

    @property
    def over(self) -> bool:
        return self.game.over

    def result(self) -> dict[str, Any]:
        return self.game.result()

    def seat_roles(self) -> dict[str, str]:
        return self.game.seat_roles()

    def rules_text(self) -> str:
        return self.game.rules_text()

    def turn_limits(self) -> Limits:
        return self.game.turn_limits()

    def visible_events(self, seat: str) -> list[Event]:
        return self.game.visible_events(seat)

    # -- the protocol -------------------------------------------------------------------------
    def pending(self) -> list[Request]:
        if self._steps:
            return [request for request, _, _ in self._steps[0]]
        if self._held is None:
            self._held = self.game.pending()
        if self._held and not self.game.over:
            moment = self.probe_rules.moment(self.game, self._held)
            if moment is not None and moment not in self._asked:
                self._asked.add(moment)
                self._steps = self._plan(moment)
                if self._steps:
                    return [request for request, _, _ in self._steps[0]]
        return self._held

    def submit(self, outcomes: Iterable[Outcome]) -> None:
        if self._steps:
            self._record(self._steps.pop(0), list(outcomes))
            return
        self._held = None
        self.game.submit(outcomes)

    # -- probes -------------------------------------------------------------------------------
    def _plan(self, moment: str) -> list[list[tuple[Request, ProbeQuestion, str]]]:
        """The probe steps of a moment: each seat's n-th question in the n-th step."""
        seats = self.probe_rules.asked(self.game) if self.probe_rules.asked else list(self.game.seats)
        language = str(getattr(self.game.settings, "language", "en"))
        limits = self.game.turn_limits()
        limits = Limits(max_chars=max(limits.max_chars, MAX_CHARS), seconds=limits.seconds)
        asked = {seat: [q for q in self.probe_rules.questions(self.game, seat, moment) if q.candidates]
                 for seat in seats}
        steps: list[list[tuple[Request, ProbeQuestion, str]]] = []
        for n in range(max((len(qs) for qs in asked.values()), default=0)):
            step = []
            for seat, questions in asked.items():
                if n < len(questions):
                    q = questions[n]
                    obs = self.game.observe(seat, "answer", phase=PHASE + q.id, instruction=q.text, limits=limits,
                                            language=language, reply_format=LINES.say(language, "format",
                                                                                      example="{...}"))
                    step.append((Request(seat, obs), q, moment))
            steps.append(step)
        return steps

    def _record(self, step: list[tuple[Request, ProbeQuestion, str]], outcomes: list[Outcome]) -> None:
        got = {o.seat: o for o in outcomes}
        for request, q, moment in step:
            outcome = got.get(request.seat)
            text = outcome.text if outcome is not None and outcome.ok else None
            reading = read_belief(text, q.candidates, q.shape, q.count)
            unreadable = reading.unreadable
            if text is None:
                unreadable = f"no reply ({outcome.status})" if outcome is not None else "no reply"
            self.events.append(Probe(
                text=q.text, actor=request.seat, visible_to=(request.seat,), moment=moment, question=q.id,
                shape=q.shape, candidates=list(q.candidates), count=q.count, reply=text, belief=reading.belief,
                dropped=reading.dropped, unreadable=unreadable))


def with_probes(game: Game, rules: ProbeRules | None, game_id: str) -> Game:
    """`game` with belief probes asked at its moments; refused for a game that defines none."""
    if rules is None:
        raise ValueError(f"game {game_id!r} has no belief probes: leave the 'probes' setting off")
    return ProbedGame(game, rules)


__all__ = ["LINES", "PHASE", "ProbeQuestion", "ProbeRules", "ProbedGame", "ask_text", "others", "probe_question",
           "uniform_reply", "with_probes"]
