"""`house:household-reader`: a symbolic inverse planner for `tom-household-mm`, the reference
that shows the suite's modality ablation in its ideal form.

Its perception step reads what it is shown — the text half and, when the condition gives it, the
action track in words (it does not read images) — back into facts (found empty, put, said,
searched), then it keeps the hidden states the policy allows (`solver.room_states`) and answers
with the one option they leave; when several are left (one half missing), it picks among them
with a seeded draw, the same for the same question. With both halves it is always right; with
one it is right about half the time: the gap the suite is built to measure.
"""

from __future__ import annotations

import hashlib
import re

from sdk import Agent, Observation

from .episode import FINDS_EMPTY, HELP, HINDER, INDIFFERENT, PUTS, SAYS, SEARCHES, TEXT, Fact
from .solver import Option, holds, room_states

_ROOM = re.compile(r"with an? (.+?), an? (.+?) and an? (.+?), all closed")
# the narrated and the tracked wording of each fact kind
_FACTS = (
    (FINDS_EMPTY, re.compile(r"opened the (.+?), saw nothing in it|opens the (.+?): there is nothing in it")),
    (PUTS, re.compile(r"put the .+? in the (.+?) and closed it|carries the .+? to the (.+?), puts it inside")),
    (SAYS, re.compile(r"\"It's in the (.+?)\.\"")),
    (SEARCHES, re.compile(r"goes to the (.+?) and opens it")),
)
_BELIEF = re.compile(r"thought the .+? was in the (.+?)\.$")
_GOALS = ((HINDER, "trying to hinder"), (HELP, "trying to help"), (INDIFFERENT, "did not care"))


def perceive(text: str) -> tuple[tuple[str, ...], tuple[Fact, ...]]:
    """The room's containers and the facts read from the words shown (in the order they appear)."""
    room = _ROOM.search(text)
    containers = tuple(room.groups()) if room else ()
    found: list[tuple[int, Fact]] = []
    for kind, pattern in _FACTS:
        for m in pattern.finditer(text):
            where = next(g for g in m.groups() if g)
            found.append((m.start(), Fact(kind, where, TEXT)))
    return containers, tuple(dict.fromkeys(f for _, f in sorted(found, key=lambda p: p[0])))


def option_of(text: str, asks_about_listener: bool) -> Option | None:
    if m := _BELIEF.search(text):
        return Option("belief", m.group(1))
    for goal, words in _GOALS:
        if words in text:
            return Option("believed_goal" if asks_about_listener else "goal", goal)
    return None


class HouseholdReader(Agent):
    name = "house:household-reader"
    description = ("Symbolic inverse planner for tom-household-mm: reads the text and the action track back into "
                   "facts and keeps the hidden states the policy allows (no model; reads no images).")
    games = ()

    def answer(self, obs: Observation) -> str:
        if not obs.options:
            return "I don't know."
        shown = " ".join(d.text for d in obs.private.documents)
        containers, facts = perceive(shown)
        texts = {o: obs.option_texts.get(o, o) for o in obs.options}
        about_listener = all(" thinks " in t for t in texts.values())
        condition = Option("goal", HINDER) if "trying to hinder" in obs.instruction else None
        kept = room_states(containers, facts, condition) if containers else []
        left = [o for o in obs.options
                if (opt := option_of(texts[o], about_listener)) is None or any(holds(s, opt) for s in kept)]
        left = left or list(obs.options)
        digest = hashlib.sha256(f"{obs.match_id}|{obs.instruction}".encode()).digest()
        return left[digest[0] % len(left)]


__all__ = ["HouseholdReader", "option_of", "perceive"]
