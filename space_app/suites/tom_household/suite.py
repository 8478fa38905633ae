"""Episodes -> suite items, and the one writer.

Every random draw comes from a `random.Random` seeded with a string built from the suite
seed, the family and the question's index (string seeds hash the same in every process),
so one question never shifts another and regeneration is byte-for-byte identical.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from os import PathLike

from .narrator import narrate
from .questions import BELIEF_OF_GOAL, FAMILIES, Question, make_question
from .scenario import Redraw, Spec, Staged, Truth, stage
from .schedule import plan

SUITE = "tom-household"
MAX_DRAWS = 500  # a spec that cannot be staged in this many draws is a bug, not bad luck


@dataclass(frozen=True)
class Episode:
    """One staged episode and its question; `staged.events` + `staged.initial` are the full
    record a checker needs to recompute every belief."""

    id: str
    episode: str
    spec: Spec
    staged: Staged
    context: str
    question: Question

    @property
    def truth(self) -> Truth:
        return self.staged.truth


def _stage(spec: Spec, seed: int, family: str, index: int) -> tuple[Staged, random.Random]:
    for draw in range(MAX_DRAWS):
        rng = random.Random(f"tomh:{seed}:{family}:{index}:{draw}")
        try:
            return stage(spec, rng), rng
        except Redraw:
            continue
    raise RuntimeError(f"could not stage {spec}")


def generate_episodes(seed: int = 0, per_type: int = 200) -> list[Episode]:
    """per_type episodes for each family, in family order; each carries its question."""
    episodes: list[Episode] = []
    for family in FAMILIES:
        specs = plan(family, per_type, random.Random(f"tomh:{seed}:plan:{family}"))
        for i, spec in enumerate(specs):
            staged, rng = _stage(spec, seed, family, i)
            people = {staged.listener.name: staged.listener, staged.speaker.name: staged.speaker}
            task = (staged.task, staged.task_container)
            context = narrate(staged.house, people, staged.target, task, staged.beats, rng)
            question = make_question(spec, staged, rng)
            n = len(episodes) + 1
            episodes.append(Episode(f"tomh-{n:04d}-{family}", f"tomh-ep-{n:04d}", spec, staged, context, question))
    return episodes


def to_item(ep: Episode) -> dict:
    """The documented suite format. tags.belief is, for belief and social_goal questions,
    whether the speaker's belief about the object's place is true; for belief_of_goal
    questions, whether the listener is right about the speaker's goal."""
    t, spec = ep.truth, ep.spec
    speaker_right = t.speaker_belief == t.true_location
    if spec.family == BELIEF_OF_GOAL:
        belief = t.believed_goal == t.speaker_goal
    else:
        belief = speaker_right
    return {
        "id": ep.id,
        "suite": SUITE,
        "context": ep.context,
        "images": [],
        "question": ep.question.text,
        "options": dict(ep.question.option_texts),
        "answer": ep.question.answer,
        "types": [spec.family],
        "tags": {
            "phrasing": spec.phrasing,
            "belief": "true" if belief else "false",
            "social_goal": t.speaker_goal,
            "episode": ep.episode,
            "speaker_belief": "true" if speaker_right else "false",
            "believed_goal": t.believed_goal or "",
            "knowledge": spec.knowledge,
            "contact": spec.contact,
            "response": spec.response,
            "reaction": t.reaction or "",
            "option_form": spec.form,
            "physical_goal": ep.staged.task,
        },
    }


def generate_suite(seed: int = 0, per_type: int = 200) -> list[dict]:
    return [to_item(ep) for ep in generate_episodes(seed, per_type)]


def serialise(items: list[dict]) -> str:
    return "".join(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n" for item in items)


def write_suite(path: str | PathLike[str], seed: int = 0, per_type: int = 200) -> int:
    """Write the suite as JSON Lines (UTF-8, "\\n" endings); returns the number of items."""
    items = generate_suite(seed, per_type)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(serialise(items))
    return len(items)
