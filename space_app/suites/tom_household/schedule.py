"""Balanced plans: which goal, belief truth, phrasing and answer letter each question gets.

Cells are chosen so that every family is balanced across help/hinder/independent, true/false
beliefs and MOST/LEAST, within the combinations the rules allow:
- an independent speaker never volunteers, and a listener who asks knows nothing, so in a
  two-person home she can only be asked by someone who saw the truth: independent speakers
  always hold true beliefs, and helpers/hinderers carry most of the false ones;
- a listener who follows directions she asked for may think the speaker helps or does not
  care (two consistent goals), which only a LEAST question can ask about.
Then each cell is dressed as one concrete set-up (who knows what, ask or offer, reaction).
"""

from __future__ import annotations

import random

from . import policy
from .questions import BELIEF, BELIEF_OF_GOAL, LETTERS, SOCIAL_GOAL
from .scenario import Spec

HLP, HND, IND = policy.HELP, policy.HINDER, policy.INDEPENDENT

# (goal, speaker belief true?) -> weight, for belief and social_goal; each weight is used with both phrasings
_SPEAKER_CELLS: tuple[tuple[str, bool, int], ...] = (
    (IND, True, 4),
    (HLP, True, 1),
    (HLP, False, 3),
    (HND, True, 1),
    (HND, False, 3),
)
# (believed goal, is that belief right?, phrasing) -> weight, for belief_of_goal. LEAST answers are spread
# over the three goals as far as the rules allow: the only two-goal consistent set is {help, independent}
# (she followed directions she asked for), whose odd one out is always "hinder".
_LISTENER_CELLS: tuple[tuple[str, bool, str, int], ...] = (
    (HLP, True, "most", 2),
    (HLP, False, "most", 2),
    (HND, True, "most", 2),
    (HND, False, "most", 2),
    (IND, True, "most", 4),
    (HLP, True, "least", 1),
    (HLP, False, "least", 3),
    (HND, False, "least", 4),
    (IND, True, "least", 3),
    (IND, False, "least", 1),
)


def _cycle(cells: list, n: int, rng: random.Random) -> list:
    """n cells: whole shuffled rounds of `cells`, then a shuffled part of one more round."""
    out: list = []
    while len(out) < n:
        batch = list(cells)
        rng.shuffle(batch)
        out.extend(batch)
    return out[:n]


def _letters(n: int, rng: random.Random) -> list[str]:
    return _cycle(list(LETTERS), n, rng)


def _knowing(rng: random.Random, truth: bool) -> str:
    return rng.choice(("fresh", "moved")) if truth else "known"


def _speaker_spec(family: str, goal: str, truth: bool, phrasing: str, letter: str, rng: random.Random) -> Spec:
    knowledge = _knowing(rng, truth)
    form = "affirm" if phrasing == "most" else "negated"
    if goal == IND:
        contact = policy.ASK
        if family == BELIEF:
            response = "honest"
        elif phrasing == "most":
            response = "decline"
        else:  # mostly declines: an honest answer leaves {help, independent}, whose odd one out is always hinder
            response = "decline" if rng.random() < 0.8 else "honest"
            form = "negated" if response == "decline" else "affirm"
    else:
        contact = policy.OFFER if knowledge == "known" else rng.choice((policy.ASK, policy.OFFER))
        response = "honest" if goal == HLP else "mislead"
        if family == SOCIAL_GOAL and goal == HLP:
            if phrasing == "most":
                contact = policy.OFFER  # asked honest answers also fit an indifferent speaker
            elif contact == policy.ASK:
                form = "affirm"  # help or independent both fit: the hinder option is the odd one out
    return Spec(family, phrasing, form, knowledge, contact, goal, response, None, None, letter)


def _bog(
    phrasing: str, form: str, knowledge: str, contact: str, speaker: str, reaction: str, believed: str, letter: str
) -> Spec:
    """A belief_of_goal spec; the speaker's words follow from their goal."""
    response = "decline" if reaction == policy.ALONE else "mislead" if speaker == HND else "honest"
    return Spec(BELIEF_OF_GOAL, phrasing, form, knowledge, contact, speaker, response, reaction, believed, letter)


def _listener_spec(believed: str, right: bool, phrasing: str, letter: str, rng: random.Random) -> Spec:
    form = "affirm" if phrasing == "most" else "negated"
    unknowing = rng.choice(("fresh", "moved"))
    if believed == IND:
        if right:  # asked, and the speaker declined
            return _bog(phrasing, form, unknowing, policy.ASK, IND, policy.ALONE, IND, letter)
        # she followed an answer she asked for: helper and independent both fit, so only LEAST can ask
        return _bog("least", "affirm", unknowing, policy.ASK, rng.choice((HLP, HND)), policy.FOLLOW, IND, letter)
    if believed == HLP:
        # she took volunteered directions (or knew they matched what the speaker saw): only a helper volunteers truly
        if right and rng.random() < 0.4:
            return _bog(phrasing, form, "known", policy.OFFER, HLP, policy.THANK, HLP, letter)
        return _bog(phrasing, form, unknowing, policy.OFFER, HLP if right else HND, policy.FOLLOW, HLP, letter)
    # believed hinder: she avoided the place named (or knew the speaker lied)
    speaker = HND if right else rng.choice((HLP, HLP, IND))
    shape = rng.choice(("known", "offer", "ask")) if speaker == HND else rng.choice(("offer", "ask"))
    if speaker == IND:
        shape = "ask"
    if shape == "known":
        return _bog(phrasing, form, "known", policy.OFFER, HND, policy.COLD, HND, letter)
    contact = policy.OFFER if shape == "offer" else policy.ASK
    return _bog(phrasing, form, unknowing, contact, speaker, policy.AVOID, HND, letter)


def plan(family: str, n: int, rng: random.Random) -> list[Spec]:
    letters = _letters(n, rng)
    specs: list[Spec] = []
    if family == BELIEF_OF_GOAL:
        cells = [(b, r, p) for b, r, p, w in _LISTENER_CELLS for _ in range(w)]
        for (believed, right, phrasing), letter in zip(_cycle(cells, n, rng), letters, strict=True):
            specs.append(_listener_spec(believed, right, phrasing, letter, rng))
        return specs
    cells = [(g, t, p) for g, t, w in _SPEAKER_CELLS for p in ("most", "least") for _ in range(w)]
    for (goal, truth, phrasing), letter in zip(_cycle(cells, n, rng), letters, strict=True):
        specs.append(_speaker_spec(family, goal, truth, phrasing, letter, rng))
    return specs
