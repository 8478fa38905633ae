"""Staging one episode: lay out a home, run the people through it, and record the truth.

A Spec says what the episode must show (who knows what, how they talk, how the listener
reacts); staging draws everything else from the seeded rng, runs the simulator, and checks
that the simulated beliefs came out as the spec needs. A draw that does not fit (a layout
with too few places, an accidental sighting) is simply redrawn, so every shipped episode's
beliefs are the simulator's, never asserted by hand.

Roles: the listener has a physical goal about the target object (get it, or put it
somewhere); the speaker has their own errand and a social goal towards the listener.

Knowledge set-ups:
- fresh: only the speaker has seen the object; the listener was in another room.
- moved: both saw it; the speaker moved it while the listener was away; she finds it gone.
- known: both saw it; the listener moved it while the speaker was away, so she knows the
  truth and knows the speaker still believes the old place (a false belief).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import policy
from .people import Person, sample_pair
from .sim import Beat, Event, Simulator
from .world import OBJECTS, House, sample_house


class Redraw(Exception):
    """This draw cannot stage the spec; draw again."""


@dataclass(frozen=True)
class Spec:
    family: str  # belief | social_goal | belief_of_goal
    phrasing: str  # most | least
    form: str  # affirm | negated (how the three options are worded)
    knowledge: str  # fresh | moved | known
    contact: str  # ask | offer
    speaker_goal: str
    response: str  # honest | mislead | decline
    reaction: str | None  # belief_of_goal only: follow | avoid | thank | cold | alone
    believed_goal: str | None  # belief_of_goal only: what the listener thinks the speaker wants
    letter: str  # where the answer goes


@dataclass(frozen=True)
class Truth:
    """The state right after the speaker spoke (plus the listener's reaction, if any)."""

    true_location: str
    speaker_belief: str
    listener_belief: str | None
    listener_model: str | None  # where the listener thinks the speaker believes it is
    speaker_goal: str
    listener_goal: str
    believed_goal: str | None
    act: str
    said: str | None
    reaction: str | None
    reaction_container: str | None


@dataclass(frozen=True)
class Staged:
    house: House
    speaker: Person
    listener: Person
    target: str
    task: str  # get | put
    task_container: str | None  # where the listener wants to put it (task == put)
    initial: dict[str, str]
    events: tuple[Event, ...]
    beats: tuple[Beat, ...]
    truth: Truth


def _errand(sim: Simulator, rng: random.Random, who: str, room: str, placed: dict[str, str], avoid: set[str]) -> None:
    """A side errand in `room`: fetch something, or tidy it from one container to another.
    `avoid` lists containers the target may be in, so an errand never stumbles on it; a
    container already opened is skipped too, so the errand's object was unseen until now."""
    opened = {e.container for e in sim.events if e.kind == "open"}
    kinds = [k for k in sim.house.in_room(room) if k not in avoid and k not in opened]
    if not kinds:
        sim.walk(who, room)
        return
    kind = rng.choice(kinds)
    holds = sim.house.container(kind).holds
    spare = [o for o in sorted(OBJECTS) if OBJECTS[o] in holds and o not in placed]
    obj = rng.choice(spare)
    placed[obj] = kind
    sim.world[obj] = kind  # it was there from the start; nobody has seen it yet
    dests = [k for k in kinds if k != kind and OBJECTS[obj] in sim.house.container(k).holds]
    if dests and rng.random() < 0.4:
        sim.walk(who, room, why=f"tidy:{obj}")
        sim.move(who, obj, kind, rng.choice(dests))
    else:
        sim.walk(who, room, why=f"fetch:{obj}")
        sim.take(who, obj, kind)


def stage(spec: Spec, rng: random.Random) -> Staged:
    house = sample_house(rng)
    task = rng.choice(("get", "get", "put"))
    need = 6 if task == "put" else 5
    targets = [o for o in sorted(OBJECTS) if len(house.fitting(o)) >= need]
    if not targets:
        raise Redraw("too few places")
    target = rng.choice(targets)
    fits = house.fitting(target)
    task_container = rng.choice(fits) if task == "put" else None
    places = [c for c in fits if c != task_container]
    listener, speaker = sample_pair(rng)
    A, B = listener.name, speaker.name

    L0 = rng.choice(places)
    R0 = house.room_of(L0)
    away_rooms = [r for r in house.rooms if r != R0]
    placed: dict[str, str] = {target: L0}
    sim = Simulator(house, (A, B), placed)
    searched: list[str] = []  # containers the listener opened and found without the target

    sim.beat("intro", None, listener=A, speaker=B, home=house.home)
    sim.beat("layout", None)

    if spec.knowledge == "fresh":
        Ra = rng.choice(away_rooms)
        sim.start(A, Ra)
        sim.start(B, rng.choice([R0, *away_rooms]) if rng.random() < 0.5 else R0)
        if sim.where[A] == sim.where[B]:
            sim.beat("together", None, room=Ra)
        else:
            for who in rng.sample((A, B), 2):
                sim.beat("whereabouts", who, room=sim.where[who])
        sim.look(B, L0)
        if rng.random() < 0.6:
            _errand(sim, rng, B, rng.choice(house.rooms), placed, {L0})
        if rng.random() < 0.5:
            _errand(sim, rng, A, Ra, placed, {L0})
        sim.beat("goal", A, knows=False)
        if rng.random() < 0.6:
            guess = rng.choice([c for c in places if c != L0])
            sim.look(A, guess)
            searched.append(guess)
    else:
        sim.start(A, R0)
        sim.start(B, R0)
        sim.beat("together", None, room=R0)
        sim.look(rng.choice((A, B)), L0)
        mover, other = (B, A) if spec.knowledge == "moved" else (A, B)
        Rx = rng.choice(away_rooms)
        L1s = [c for c in places if c != L0 and house.room_of(c) != Rx]
        if not L1s:
            raise Redraw("no second place")
        L1 = rng.choice(L1s)
        _errand(sim, rng, other, Rx, placed, {L0, L1})
        sim.move(mover, target, L0, L1)
        if rng.random() < 0.5:
            sim.beat("unseen", other, room=Rx)
        if spec.knowledge == "moved":
            if rng.random() < 0.5:
                _errand(sim, rng, B, rng.choice([r for r in house.rooms if r != Rx]), placed, {L0, L1})
            sim.beat("goal", A, knows=False)
            sim.look(A, L0)
            searched.append(L0)
        else:
            sim.beat("goal", A, knows=True)

    # they meet where the speaker is, or the speaker comes over
    if spec.knowledge == "known" and rng.random() < 0.5:
        sim.walk(B, sim.where[A])
    else:
        sim.walk(A, sim.where[B])

    if spec.contact == policy.ASK:
        sim.say(A, policy.ASK, B, target)
    else:
        sim.say(A, policy.ANNOUNCE, B, target, knows=spec.knowledge == "known")

    belief = sim.belief[B].get(target)
    true_loc = sim.world[target]
    if belief not in places:
        raise Redraw("speaker has no container belief")
    said: str | None
    if spec.response == "decline":
        act, said = policy.DECLINE, None
        sim.say(B, act, A, target)
    else:
        act = policy.ANSWER if spec.contact == policy.ASK else policy.OFFER
        if spec.response == "honest":
            said = belief
        else:
            lies = [c for c in places if c not in (belief, true_loc) and c not in searched]
            if not lies:
                raise Redraw("nowhere to point")
            said = rng.choice(lies)
        sim.say(B, act, A, target, said)

    listener_belief = sim.belief[A].get(target)
    listener_model = sim.model[A][B].get(target)
    reaction_container: str | None = None
    if spec.reaction is not None:
        reaction_container = _react(sim, rng, spec, A, B, target, said, true_loc, places, searched)

    truth = Truth(
        true_location=true_loc,
        speaker_belief=belief,
        listener_belief=listener_belief,
        listener_model=listener_model,
        speaker_goal=spec.speaker_goal,
        listener_goal=rng.choice(policy.GOALS),
        believed_goal=spec.believed_goal,
        act=act,
        said=said,
        reaction=spec.reaction,
        reaction_container=reaction_container,
    )
    _check(spec, truth)
    return Staged(
        house=house,
        speaker=speaker,
        listener=listener,
        target=target,
        task=task,
        task_container=task_container,
        initial=dict(sorted(placed.items())),
        events=tuple(sim.events),
        beats=tuple(sim.beats),
        truth=truth,
    )


def _react(
    sim: Simulator,
    rng: random.Random,
    spec: Spec,
    A: str,
    B: str,
    target: str,
    said: str | None,
    true_loc: str,
    places: list[str],
    searched: list[str],
) -> str | None:
    """The listener's reaction; the story ends as she sets off, before she learns more."""
    assert spec.reaction is not None
    if spec.reaction in (policy.THANK, policy.COLD):
        sim.react(A, spec.reaction, B, target, true_loc, said=said)
        return true_loc
    if spec.reaction == policy.ALONE:
        sim.react(A, spec.reaction, B, target, None)
        return None
    if spec.reaction == policy.FOLLOW:
        assert said is not None
        sim.react(A, spec.reaction, B, target, said, warm=spec.believed_goal == policy.HELP)
        return said
    elsewhere = [c for c in places if c != said and c not in searched]
    if not elsewhere:
        raise Redraw("nowhere else to look")
    dest = rng.choice(elsewhere)
    sim.react(A, spec.reaction, B, target, dest, said=said)
    return dest


def _check(spec: Spec, t: Truth) -> None:
    """The simulated beliefs must be what the spec asked for, and the behaviour lawful."""
    if (t.speaker_belief == t.true_location) != (spec.knowledge != "known"):
        raise Redraw("speaker belief truth differs from the spec")
    if spec.knowledge == "known":
        if t.listener_belief != t.true_location or t.listener_model != t.speaker_belief:
            raise Redraw("listener does not know the truth and the speaker's belief")
    elif t.listener_belief == t.true_location:
        raise Redraw("listener learnt the truth")
    if not policy.speech_allowed(spec.speaker_goal, t.act, t.said == t.speaker_belief):
        raise AssertionError(f"speech breaks the rules: {spec} {t}")
    if spec.believed_goal is not None:
        check = (t.said == t.listener_model) if t.listener_belief == t.true_location else None
        assert t.reaction is not None
        if spec.believed_goal not in policy.believed_goals(t.act, t.reaction, check):
            raise AssertionError(f"reaction breaks the rules: {spec} {t}")
