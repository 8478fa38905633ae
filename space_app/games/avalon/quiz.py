"""The end-of-game quizzes, pure: which questions a decided game asks, and how an answer
is read and scored. The rules (`rules.py`) ask them through `answer` before the roles are
revealed; the metrics (`metrics.py`) score them from the stored events.

- summarise: a seat that recorded intentions is shown its own THINK and SPEAK of its
  latest statement that carried them, and picks the intentions it followed;
- guess: the same seat is shown another such player's public SPEAK only (the next one
  clockwise that recorded intentions, its latest statement) and picks that player's;
- deduce: every seat picks which of the other players are evil.

Each is one multi-pick question with labelled options. The intention quizzes list the
whole catalogue (ids with their texts) and ask for as many as were selected (so
precision = recall = F1 whenever the answer has the asked size); the deduction quiz
lists the other seats and asks for as many as are evil among them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from .intentions import Catalogue

Quiz = Literal["summarise", "guess", "deduce"]
QUIZZES: tuple[Quiz, ...] = ("summarise", "guess", "deduce")
MAX_THINK = 1200  # characters of a THINK shown back in a question


@dataclass(frozen=True)
class Spoken:
    """A public statement that carried usable intentions (catalogue ids)."""

    seat: str
    quest: int
    attempt: int
    ids: tuple[str, ...]
    think: str
    speak: str


@dataclass(frozen=True)
class Question:
    seat: str
    quiz: Quiz
    instruction: str
    options: list[str]
    pick: int
    option_texts: dict[str, str] = field(default_factory=dict)
    # what the question is on, stored with it: about, quest, attempt, catalogue; or evil_total
    fields: dict[str, Any] = field(default_factory=dict)


def latest(spoken: list[Spoken]) -> dict[str, Spoken]:
    """Each seat's latest statement with intentions."""
    out: dict[str, Spoken] = {}
    for s in spoken:
        out[s.seat] = s
    return out


def _intention_question(seat: str, quiz: Quiz, text: str, target: Spoken, catalogue: Catalogue) -> Question:
    k = len(target.ids)
    return Question(
        seat, quiz, f"{text}\nPick exactly {k} intentions from the catalogue: reply with their ids, comma-separated.",
        catalogue.ids, k, catalogue.texts(),
        {"about": target.seat, "quest": target.quest, "attempt": target.attempt, "catalogue": catalogue.version})


def summarise_questions(spoken: list[Spoken], catalogue: Catalogue) -> list[Question]:
    out = []
    for seat, s in latest(spoken).items():
        think = s.think.strip()[:MAX_THINK] or "(you recorded no THINK)"
        text = (f"The game is decided. In quest {s.quest}, proposal {s.attempt}, you privately thought:\n"
                f"THINK: {think}\nand you said in public:\nSPEAK: {s.speak}\n"
                "Which intentions were you following?")
        out.append(_intention_question(seat, "summarise", text, s, catalogue))
    return out


def guess_questions(spoken: list[Spoken], seats: list[str], catalogue: Catalogue) -> list[Question]:
    """For each seat with intentions: the next seat clockwise that has them too, if any."""
    last = latest(spoken)
    out = []
    for seat in seats:
        if seat not in last:
            continue
        i = seats.index(seat)
        clockwise = seats[i + 1:] + seats[:i]
        target = next((last[x] for x in clockwise if x in last), None)
        if target is None:
            continue
        text = (f"The game is decided. In quest {target.quest}, proposal {target.attempt}, {target.seat} said in "
                f"public:\nSPEAK: {target.speak}\nWhich intentions was {target.seat} following?")
        out.append(_intention_question(seat, "guess", text, target, catalogue))
    return out


def deduce_questions(seats: list[str], sides: dict[str, str]) -> list[Question]:
    evil_total = sum(side == "evil" for side in sides.values())
    out = []
    for seat in seats:
        others = [x for x in seats if x != seat]
        k = sum(sides[x] == "evil" for x in others)
        if not 0 < k < len(others):
            continue
        text = (f"The game is decided; the roles are not revealed yet. There are {evil_total} evil players in all. "
                f"Which of the other players do you believe are evil? Pick exactly {k}, comma-separated.")
        out.append(Question(seat, "deduce", text, others, k, {}, {"evil_total": evil_total}))
    return out


def read_answer(text: str | None, options: list[str]) -> tuple[list[str], str]:
    """An answer (the runner hands over exact labels, comma-separated) -> (the options it
    names, in order, without repeats; what was wrong with it, or "")."""
    if text is None:
        return [], "no usable answer"
    by_fold = {o.casefold(): o for o in options}
    picks: list[str] = []
    unknown: list[str] = []
    for token in (t.strip() for t in re.split(r"[,;\n]", text)):
        if not token:
            continue
        option = by_fold.get(token.casefold())
        if option is None:
            unknown.append(token[:40])
        elif option not in picks:
            picks.append(option)
    if unknown:
        return picks, f"not options: {', '.join(unknown[:5])}"
    return picks, "" if picks else "no option named"


# -- scores ---------------------------------------------------------------------------------
def f1(picks: list[str], truth: list[str]) -> float:
    """F1 of the picked set against the true set (0 when either is empty)."""
    hit = len(set(picks) & set(truth))
    return 2 * hit / (len(set(picks)) + len(set(truth))) if picks and truth else 0.0


def deduction_correct(picks: list[str] | None, others: list[str], sides: dict[str, str]) -> int:
    """How many of the other players the answer puts on their true side (picked = evil,
    not picked = good); no answer puts nobody right."""
    if picks is None:
        return 0
    return sum((x in picks) == (sides.get(x) == "evil") for x in others)


__all__ = ["QUIZZES", "Question", "Quiz", "Spoken", "deduce_questions", "deduction_correct", "f1",
           "guess_questions", "latest", "read_answer", "summarise_questions"]
