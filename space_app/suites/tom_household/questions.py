"""The three question families, each with three options of one shape.

Every option is a Claim about one value (a container, or a social goal), affirmed or
negated. Given the set S of values consistent with the story and the stated condition:
an affirmed value v is consistent iff v is in S; a negated one iff S holds something other
than v. A MOST question has exactly one consistent option; a LEAST question has exactly one
inconsistent option. That option is the answer.

- belief: condition on the speaker's (true) social goal; ask what the speaker believed.
  S = {where the speaker last saw the object}, which the goal and the words agree with.
- social_goal: condition on the speaker's (true) belief; ask for the speaker's goal.
  S = the goals whose speech rule produces what was said.
- belief_of_goal: ask what the listener thinks the speaker's goal is, from her reaction
  (or, when she knows the truth, from what she knows the speaker saw).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import policy
from .scenario import Spec, Staged

LETTERS = ("A", "B", "C")
BELIEF, SOCIAL_GOAL, BELIEF_OF_GOAL = "belief", "social_goal", "belief_of_goal"
FAMILIES = (BELIEF, SOCIAL_GOAL, BELIEF_OF_GOAL)


@dataclass(frozen=True)
class Claim:
    value: str  # a container kind, or a goal
    negated: bool


@dataclass(frozen=True)
class Question:
    family: str
    phrasing: str  # most | least
    condition: tuple[str, str] | None  # ("goal", g) or ("belief", container)
    text: str
    options: dict[str, Claim]
    option_texts: dict[str, str]
    answer: str


def consistent(claim: Claim, allowed: tuple[str, ...]) -> bool:
    if claim.negated:
        return any(v != claim.value for v in allowed)
    return claim.value in allowed


def allowed_values(spec: Spec, staged: Staged) -> tuple[str, ...]:
    t = staged.truth
    if spec.family == BELIEF:
        return (t.speaker_belief,)
    if spec.family == SOCIAL_GOAL:
        return policy.goals_from_speech(t.act, t.said == t.speaker_belief)
    assert t.reaction is not None
    check = (t.said == t.listener_model) if t.listener_belief == t.true_location else None
    return policy.believed_goals(t.act, t.reaction, check)


# -- wording ------------------------------------------------------------------------------------

_BELIEF_YES = (
    "{s} thought the {o} was in the {c}.",
    "{s} believed the {o} was in the {c}.",
    "{s} was under the impression that the {o} was in the {c}.",
)
_BELIEF_NO = (
    "{s} thought the {o} was not in the {c}.",
    "{s} believed the {o} was somewhere other than the {c}.",
    "{s} was convinced the {o} was not in the {c}.",
)
# predicates about the speaker's goal; {l}/{ls} name the listener as object/subject
_GOAL_YES = (
    {
        policy.HELP: "was trying to help {l} {inf}",
        policy.HINDER: "was trying to stop {l} from {ger}",
        policy.INDEPENDENT: "did not care whether {ls} managed to {inf}",
    },
    {
        policy.HELP: "wanted {l} to succeed in {ger}",
        policy.HINDER: "wanted {l} to fail at {ger}",
        policy.INDEPENDENT: "was indifferent to whether {ls} succeeded in {ger}",
    },
    {
        policy.HELP: "meant to make it easier for {l} to {inf}",
        policy.HINDER: "meant to make it harder for {l} to {inf}",
        policy.INDEPENDENT: "had no interest either way in whether {ls} could {inf}",
    },
)
_GOAL_NO = (
    {
        policy.HELP: "was not trying to help {l} {inf}",
        policy.HINDER: "was not trying to stop {l} from {ger}",
        policy.INDEPENDENT: "cared one way or the other whether {ls} managed to {inf}",
    },
    {
        policy.HELP: "was not out to help {l} {inf}",
        policy.HINDER: "was not out to keep {l} from {ger}",
        policy.INDEPENDENT: "was not indifferent to whether {ls} managed to {inf}",
    },
)
_CONDITION_GOAL = {
    policy.HELP: (
        "If {s} was trying to help {l} {inf}, which of the following is {p} likely?",
        "Suppose {s} genuinely wanted to help {l} {inf}. Which of the following is {p} likely?",
    ),
    policy.HINDER: (
        "If {s} was trying to stop {l} from {ger}, which of the following is {p} likely?",
        "Suppose {s} was deliberately trying to keep {l} from {ger}. Which of the following is {p} likely?",
    ),
    policy.INDEPENDENT: (
        "If {s} did not care either way whether {l} managed to {inf}, which of the following is {p} likely?",
        "Suppose {s} was minding {sposs} own business and had no stake in whether {l} managed to {inf}. "
        "Which of the following is {p} likely?",
    ),
}
_CONDITION_BELIEF = (
    "Suppose {s} believed the {o} was in the {c} when {ssubj} spoke. Which of the following is {p} likely?",
    "If, at that moment, {s} thought the {o} was in the {c}, which of the following is {p} likely?",
    "Assume {s} was under the impression that the {o} was in the {c}. Which of the following is {p} likely?",
)
_REACTION = (
    "Judging by how {l} reacted, which of the following is {p} likely?",
    "Given what {l} did after {s} spoke, which of the following is {p} likely?",
    "Based on {l}'s response, which of the following is {p} likely?",
)


def task_phrases(staged: Staged) -> tuple[str, str]:
    """(infinitive, gerund) of the listener's physical goal."""
    o = staged.target
    if staged.task == "put":
        return f"put the {o} in the {staged.task_container}", f"putting the {o} in the {staged.task_container}"
    return f"get the {o}", f"getting the {o}"


def _values(spec: Spec, staged: Staged, allowed: tuple[str, ...], rng: random.Random) -> list[str]:
    """The three values the options are about (answer-bearing value first)."""
    if spec.family != BELIEF:
        return list(policy.GOALS)
    t = staged.truth
    belief = t.speaker_belief
    # the tempting wrong places first: what was said, and where the object really is
    traps = [c for c in (t.said, t.true_location) if c is not None and c != belief]
    rest = [c for c in staged.house.fitting(staged.target) if c not in (belief, staged.task_container, *traps)]
    picks = list(dict.fromkeys(traps))[:2]
    picks += rng.sample(rest, 2 - len(picks))
    return [belief, *picks]


def make_question(spec: Spec, staged: Staged, rng: random.Random) -> Question:
    allowed = allowed_values(spec, staged)
    values = _values(spec, staged, allowed, rng)
    negated = spec.form == "negated"
    claims = [Claim(v, negated) for v in values]
    flags = [consistent(c, allowed) for c in claims]
    want = spec.phrasing == "most"
    hits = [c for c, f in zip(claims, flags, strict=True) if f == want]
    if len(hits) != 1:
        raise AssertionError(f"not exactly one {'consistent' if want else 'inconsistent'} option: {spec} {allowed}")
    answer = hits[0]
    others = [c for c in claims if c != answer]
    rng.shuffle(others)
    order: dict[str, Claim] = {}
    for letter in LETTERS:
        order[letter] = answer if letter == spec.letter else others.pop()

    s, li = staged.speaker, staged.listener
    inf, ger = task_phrases(staged)
    p = spec.phrasing.upper()
    texts: dict[str, str]
    condition: tuple[str, str] | None
    if spec.family == BELIEF:
        template = rng.choice(_BELIEF_NO if negated else _BELIEF_YES)
        texts = {k: template.format(s=s.name, o=staged.target, c=c.value) for k, c in order.items()}
        condition = ("goal", staged.truth.speaker_goal)
        stem = rng.choice(_CONDITION_GOAL[staged.truth.speaker_goal])
        text = stem.format(s=s.name, l=li.name, inf=inf, ger=ger, p=p, sposs=s.poss)
    else:
        preds = rng.choice(_GOAL_NO if negated else _GOAL_YES)
        if spec.family == SOCIAL_GOAL:
            slots = {"l": li.name, "ls": li.name, "inf": inf, "ger": ger}
            texts = {k: f"{s.name} {preds[c.value].format(**slots)}." for k, c in order.items()}
            condition = ("belief", staged.truth.speaker_belief)
            stem = rng.choice(_CONDITION_BELIEF)
            text = stem.format(s=s.name, o=staged.target, c=staged.truth.speaker_belief, ssubj=s.subj, p=p)
        else:
            slots = {"l": li.obj, "ls": li.subj, "inf": inf, "ger": ger}
            texts = {k: f"{li.name} thought {s.name} {preds[c.value].format(**slots)}." for k, c in order.items()}
            condition = None
            text = rng.choice(_REACTION).format(l=li.name, s=s.name, p=p)
    return Question(spec.family, spec.phrasing, condition, text, order, texts, spec.letter)
