"""Episodes -> suite items (the documented format), with the generator's modality check.

An item's `context` is the text half, its `images` the keyframes (PNG data URLs) and
`tags.action_track` the video half in words, so `bench --condition` (`suites/conditions.py`)
can show each condition. The text half always opens with the room and its containers (the
keyframes show them too): both halves name every option's container, so no option can be
picked by its words alone.

Every episode passes `solver.check` before it becomes an item (a failure is a generator bug
and stops generation, naming the episode). Options are shuffled with the episode's seed.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from os import PathLike
from typing import Any

from ..muma_keyframes import data_url
from .episode import (
    BELIEF,
    FINDS_EMPTY,
    HELP,
    HINDER,
    INDIFFERENT,
    PUTS,
    SAYS,
    SEARCHES,
    SOCIAL_GOAL,
    TEXT,
    TYPES,
    Episode,
    Fact,
    stage,
)
from .solver import Option, check, question_parts
from .video import draw, film, its_in, looking_for, scene_words

SUITE = "tom-household-mm"
PER_TYPE = 100


class ModalityCheckFailed(RuntimeError):
    """A generated episode answerable from one modality alone, or not from both: a generator bug."""


def _sentence(ep: Episode, fact: Fact) -> str:
    s, li, c = ep.speaker.name, ep.listener.name, fact.container
    if fact.kind == FINDS_EMPTY:
        return f"Earlier, while {li} was out, {s} opened the {c}, saw nothing in it and closed it again."
    if fact.kind == PUTS:
        return f"Earlier, while {li} was out, {s} put the {ep.obj} in the {c} and closed it."
    if fact.kind == SAYS:
        return f'{li} says: "{looking_for(ep)}" {s} says: "{its_in(c)}"'
    if fact.kind == SEARCHES:
        return f"Then {li} goes to the {c} and opens it."
    raise ValueError(f"unknown fact kind {fact.kind!r}")


def narrate(ep: Episode) -> str:
    """The text half: the setting, then the text facts in order."""
    scene = scene_words(ep)
    opening = f"{ep.listener.name} and {ep.speaker.name} share a home. This is {scene}."
    return " ".join([opening, *(_sentence(ep, f) for f in ep.facts_in(frozenset({TEXT})))])


def _option_text(ep: Episode, option: Option) -> str:
    s, li = ep.speaker.name, ep.listener.name
    if option.field == "belief":
        return f"{s} thought the {ep.obj} was in the {option.value}."
    # every goal option names both people and the object: no option shares more words with either half
    if option.field == "goal":
        return f"{s} " + _goal(option.value, li, li, ep.obj)
    return f"{li} thinks {s} " + _goal(option.value, ep.listener.obj, ep.listener.subj, ep.obj)


def _goal(goal: str, him: str, he: str, obj: str) -> str:
    return {HELP: f"was trying to help {him} get the {obj}.",
            HINDER: f"was trying to hinder {him} from getting the {obj}.",
            INDIFFERENT: f"did not care whether {he} got the {obj}."}[goal]


def _question(ep: Episode) -> str:
    s, li = ep.speaker.name, ep.listener.name
    if ep.kind == BELIEF:
        return f"If {s} was trying to hinder {li}, which of the following is most likely?"
    if ep.kind == SOCIAL_GOAL:
        return f"Which of the following is most likely about {s}'s goal towards {li}?"
    return f"Judging by how {li} reacted, which of the following is most likely?"


def to_item(ep: Episode, seed: int) -> dict[str, Any]:
    result = check(ep)
    if not result.passed:
        raise ModalityCheckFailed(f"{ep.id}: fails the modality check: {result.why()}")
    options, _, answer = question_parts(ep)
    random.Random(f"tomh-mm:{seed}:{ep.id}:options").shuffle(options)
    labels = "ABC"
    frames, steps = film(ep)
    return {
        "id": ep.id,
        "suite": SUITE,
        "context": narrate(ep),
        "images": [data_url(draw(ep, frames, i)) for i in range(len(frames))],
        "question": _question(ep),
        "options": {labels[i]: _option_text(ep, o) for i, o in enumerate(options)},
        "answer": labels[options.index(answer)],
        "types": [ep.kind],
        "tags": {
            "split": ep.split,
            "action_track": [s.to_dict() for s in steps],
            "keyframes": list(range(len(frames))),
            "frames": len(frames),
            "sampling": "every frame (each is one event)",
            "speaker_belief": ep.speaker_belief,
            "social_goal": ep.speaker_goal,
            "believed_goal": ep.believed_goal,
            "facts": [{"kind": f.kind, "container": f.container, "modality": f.modality} for f in ep.facts],
            "check": {"text_only": len(result.text), "video_only": len(result.video), "both": len(result.both)},
        },
    }


def generate_episodes(seed: int = 0, per_type: int = PER_TYPE) -> list[Episode]:
    if per_type < 1:
        raise ValueError(f"per_type must be at least 1, not {per_type}")
    return [stage(kind, i, seed) for kind in TYPES for i in range(per_type)]


def generate_suite(seed: int = 0, per_type: int = PER_TYPE) -> list[dict[str, Any]]:
    return [to_item(ep, seed) for ep in generate_episodes(seed, per_type)]


@lru_cache(maxsize=1)
def _shipped() -> tuple[str, ...]:
    return tuple(json.dumps(item, sort_keys=True) for item in generate_suite())


def shipped_items() -> list[dict[str, Any]]:
    """The registered suite (seed 0, 100 per type), generated once per process: the keyframes
    make a file of it too large to keep in the repository, and it is the same every time."""
    return [json.loads(line) for line in _shipped()]


def serialise(items: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n" for item in items)


def write_suite(path: str | PathLike[str], seed: int = 0, per_type: int = PER_TYPE) -> int:
    items = generate_suite(seed, per_type)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(serialise(items))
    return len(items)


__all__ = ["PER_TYPE", "SUITE", "ModalityCheckFailed", "generate_episodes", "generate_suite", "narrate",
           "serialise", "shipped_items", "to_item", "write_suite"]
