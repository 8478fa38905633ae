"""A multi-modal household episode as structured facts, each carried by one modality.

Two people, one room with three closed containers and one object the listener wants. The
hidden state is the speaker's belief (where she thinks the object is), her social goal
towards the listener (help, hinder, or indifferent) and the listener's belief of that goal.
What can be perceived are facts (`Fact`), and each fact is shown in exactly one modality:
`video` (drawn keyframes and the action track) or `text` (the narrated context).

Each question type is built so that its answer needs one fact from each modality:

- belief: the video shows the speaker open a container and find it empty; the text has her
  tell the listener the object is in another one; the question says she was hindering him.
- social_goal: the video shows the speaker put the object in a container; the text has her
  tell the listener where it is.
- belief_of_goal: the text has the speaker tell the listener where it is; the video shows
  where the listener goes to look.

`split` says which half is where: `actions-in-video` (the actions drawn, the conversation
written, as MuMA-ToM does) or `talk-in-video` (the reverse: the conversation drawn as speech
in the keyframes, the actions written).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..tom_household.people import Person, sample_pair
from ..tom_household.world import OBJECTS, ROOMS

BELIEF, SOCIAL_GOAL, BELIEF_OF_GOAL = "belief", "social_goal", "belief_of_goal"
TYPES = (BELIEF, SOCIAL_GOAL, BELIEF_OF_GOAL)
HELP, HINDER, INDIFFERENT = "help", "hinder", "indifferent"
GOALS = (HELP, HINDER, INDIFFERENT)
VIDEO, TEXT = "video", "text"
ACTIONS_IN_VIDEO, TALK_IN_VIDEO = "actions-in-video", "talk-in-video"
SPLITS = (ACTIONS_IN_VIDEO, TALK_IN_VIDEO)

# fact kinds: what a perceiver can learn
FINDS_EMPTY = "finds_empty"  # the speaker opens `container` and sees it empty
PUTS = "puts"  # the speaker puts the object in `container`
SAYS = "says"  # the speaker tells the listener the object is in `container`
SEARCHES = "searches"  # the listener goes to `container` first and opens it
ACTIONS = (FINDS_EMPTY, PUTS, SEARCHES)


@dataclass(frozen=True)
class Fact:
    kind: str
    container: str
    modality: str  # VIDEO or TEXT


@dataclass(frozen=True)
class Episode:
    id: str
    kind: str  # the question type it was built for
    split: str
    room: str
    containers: tuple[str, str, str]  # the room's containers, in the order they stand
    obj: str
    speaker: Person  # the one whose belief and goal are asked about
    listener: Person  # the one looking for the object
    facts: tuple[Fact, ...]  # in the order they happen
    speaker_belief: str
    speaker_goal: str
    believed_goal: str  # the listener's belief of the speaker's goal ("" when not staged)

    def facts_in(self, modalities: frozenset[str]) -> tuple[Fact, ...]:
        return tuple(f for f in self.facts if f.modality in modalities)


def _modality(kind: str, split: str) -> str:
    """Actions go to the video under `actions-in-video`, talk under `talk-in-video`."""
    is_action = kind in ACTIONS
    return VIDEO if is_action == (split == ACTIONS_IN_VIDEO) else TEXT


def _setting(rng: random.Random) -> tuple[str, tuple[str, str, str], str]:
    room = rng.choice(sorted(ROOMS))
    kinds = rng.sample(sorted(ROOMS[room]), 3)
    holds = {cat for k in kinds for cat in ROOMS[room][k]}
    obj = rng.choice(sorted(o for o, cat in OBJECTS.items() if cat in holds))
    return room, (kinds[0], kinds[1], kinds[2]), obj


def stage(kind: str, index: int, seed: int) -> Episode:
    """The episode for question `index` of type `kind`; every draw comes from a string-seeded
    generator, so the same (seed, kind, index) gives the same episode in every process."""
    if kind not in TYPES:
        raise ValueError(f"unknown question type {kind!r}; known: {', '.join(TYPES)}")
    rng = random.Random(f"tomh-mm:{seed}:{kind}:{index}")
    split = SPLITS[index % 2]  # half each way, alternating, so every sample is balanced
    room, containers, obj = _setting(rng)
    listener, speaker = sample_pair(rng)
    a, b, c = rng.sample(containers, 3)
    if kind == BELIEF:
        # she found `a` empty, then told him `b` while hindering him: she thinks it is in `c`
        events = [(FINDS_EMPTY, a), (SAYS, b)]
        belief, goal, believed = c, HINDER, ""
    elif kind == SOCIAL_GOAL:
        goal = rng.choice((HELP, HINDER))
        said = a if goal == HELP else b
        events = [(PUTS, a), (SAYS, said)]
        belief, believed = a, ""
    else:
        believed = rng.choice((HELP, HINDER))
        goal = rng.choice((HELP, HINDER))
        belief = a if goal == HELP else c
        went = a if believed == HELP else b
        events = [(SAYS, a), (SEARCHES, went)]
    facts = tuple(Fact(k, where, _modality(k, split)) for k, where in events)
    return Episode(f"tomhmm-{kind}-{index:04d}", kind, split, room, containers, obj, speaker, listener, facts,
                   belief, goal, believed)


__all__ = ["ACTIONS", "ACTIONS_IN_VIDEO", "BELIEF", "BELIEF_OF_GOAL", "Episode", "FINDS_EMPTY", "Fact", "GOALS",
           "HELP", "HINDER", "INDIFFERENT", "PUTS", "SAYS", "SEARCHES", "SOCIAL_GOAL", "SPLITS", "TALK_IN_VIDEO",
           "TEXT", "TYPES", "VIDEO", "stage"]
