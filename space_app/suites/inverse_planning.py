"""An inverse-planning reference agent for Theory-of-Mind questions (after LIMP).

Instead of asking a language model for the answer, it asks how *likely* each observed step
of the story is under each hypothesis an option implies, and answers with the hypothesis
that explains the story best (MOST questions) or worst (LEAST questions):

1. **Hypotheses.** Each option is a claim about a person's mental state ("Mei believed the
   scissors were in the drawer", "Mei was trying to help Aisha"). The question's condition
   ("If Mei was trying to stop Aisha ...") holds under every hypothesis, so it is joined to
   each option.
2. **Steps.** The context is split into sentences: the initial state, then each action and
   utterance in order. The person the options are about is found by name; the steps that
   person takes part in (acts, speaks, or is spoken to) are the observations to explain.
   **Perception of a video:** when the context carries an action track (`bench --condition`:
   `track` for every agent; `multimodal` and `video` for an agent that does not read images,
   which this one is; see `conditions.py`), its steps are the video's observed actions: each
   step that names the person, or names none of the options' people (a published track says
   "The person grabs ..."), is explained, and the text's sentences the person takes part in
   with them. The text carries no frame numbers, so the two are joined by what the text says
   of time: the text's setting and what it tells as earlier come before the video, its
   utterances and what it tells as following ("Then ...", "Later ...") after it (see
   `observed_steps`). Without a track the steps are the context's sentences, as above.
3. **Likelihood.** For a hypothesis h, the score is the sum over those steps t of
   log P(step_t | steps before t, h), where h is written into the story just before step t
   as the narrator's aside "(h)". The log-probabilities come from a `Scorer`: with the
   embedded model they are exact token log-probabilities, the story prefix evaluated once per
   step and shared by every hypothesis.
4. **Answer.** argmax over options for MOST questions, argmin for LEAST ones.

The comparison between hypotheses never scores the hypothesis text itself (it sits in the
condition, not in what is scored), so a longer option is not penalised for its length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from sdk import Agent, Observation

from .conditions import read_track


class Scorer(Protocol):
    """Log-probabilities of continuations of one text: `logprobs(prefix, [c1, c2, ...])`
    -> [log P(c1 | prefix), ...] (sums over each continuation's tokens)."""

    def logprobs(self, prefix: str, continuations: list[str]) -> list[float]: ...


_SENTENCE = re.compile(r'(?<=[.!?]["”])\s+|(?<=[.!?])\s+(?=["“A-Z])')
# '"Where is it?" Ben asked.': a speech tag after a quoted question belongs to it
_SPEECH_TAG = re.compile(r"^(?:[^\W\d_]+\s+){1,3}(?:asked|said|replied|answered|called|offered|added|told|"
                         r"whispered|shouted|suggested|explained|admitted|wondered|muttered)\b")
_CONDITION = re.compile(r"^\s*(?:if|suppose|assume|assuming|given that)[,\s]+(?P<cond>.+?)[,.]\s*"
                        r"(?:which|what|who)\b", re.IGNORECASE | re.DOTALL)
_LEAST = re.compile(r"\bLEAST\b|\bleast likely\b|\bnot likely\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?")


def sentences(text: str) -> list[str]:
    """The context as steps: sentences (a quoted utterance with its speech tag stays whole)."""
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        for piece in (p.strip() for p in _SENTENCE.split(paragraph.strip())):
            if not piece:
                continue
            if out and out[-1][-1:] in "\"”" and _SPEECH_TAG.match(piece):
                out[-1] = f"{out[-1]} {piece}"
            else:
                out.append(piece)
    return out


def condition_of(question: str) -> str:
    match = _CONDITION.match(question)
    return match.group("cond").strip() if match else ""


def wants_least(question: str) -> bool:
    return bool(_LEAST.search(question))


# capitalised words that are not people
_NOT_NAMES = frozenset("""The A An She He They It Its Her His Their Then When While After Before Some Later
Meanwhile Right Okay Ok Oh Yes No Thanks Thank You I We If Suppose Which What Who Where Judging Assume Given
Mr Mrs Ms Dr There This That These Those Both Each Neither Either One Still Once Soon Now Later""".split())


def _names(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if w[0].isupper()]


def people_in(context: str, options: dict[str, str]) -> list[str]:
    """Names the options and the context share, in the order the options name them."""
    in_context = set(_names(context))
    named: list[str] = []
    for text in options.values():
        for name in _names(text):
            if name in in_context and name not in _NOT_NAMES and name not in named:
                named.append(name)
    return named


# a told sentence that follows what the video shows: one that speaks, or says it came after
_UTTERANCE = re.compile(r"[\"“]|^[^\W\d_]+:\s")
_FOLLOWS = re.compile(r"^(?:then|later|afterwards|after that|next|finally)\b", re.IGNORECASE)


def observed_steps(context: str, people: list[str]) -> tuple[list[str], list[int]]:
    """The story as steps, and the indexes of those to explain (the first of `people` is the
    person the options are about). Without an action track in `context`: its sentences, those
    naming the person explained (all of them when none does). With one: the text's setting and
    earlier sentences, the track's steps, then the text's utterances and later sentences; the
    text's sentences naming the person and the track's steps naming the person or none of
    `people` are explained (all steps when none is)."""
    person = people[0] if people else ""
    text, track = read_track(context)
    if not track:
        steps = sentences(context)
        return steps, [i for i, s in enumerate(steps) if person and person in s] or list(range(len(steps)))
    told = sentences(text) if text else []
    after = [bool(_UTTERANCE.search(s) or _FOLLOWS.match(s)) for s in told]
    before = [s for s, a in zip(told, after, strict=True) if not a]
    steps = before + track + [s for s, a in zip(told, after, strict=True) if a]
    in_track = range(len(before), len(before) + len(track))
    scored = [i for i, s in enumerate(steps)
              if (person and person in s) or (i in in_track and not any(p in s for p in people))]
    return steps, scored or list(range(len(steps)))


@dataclass
class Judgement:
    """Why the agent answered as it did (kept for analysis and tests)."""

    person: str
    steps: list[int]  # indexes of the scored steps
    scores: dict[str, float]  # option label -> summed log-likelihood
    least: bool
    choice: str
    story: list[str] = field(default_factory=list)  # the steps, in the order they were read


def judge(context: str, question: str, options: dict[str, str], scorer: Scorer, max_steps: int = 12) -> Judgement:
    people = people_in(context, options)
    person = people[0] if people else ""
    steps, scored = observed_steps(context, people)
    scored = scored[-max_steps:]  # the latest steps carry the interaction the question is about
    condition = condition_of(question)
    hypotheses = {label: (f"{condition}; {text.rstrip('.')}" if condition else text.rstrip("."))
                  for label, text in options.items()}
    totals = {label: 0.0 for label in options}
    labels = list(options)
    for i in scored:
        prefix = "Story:\n" + " ".join(steps[:i]) + (" " if i else "")
        asides = [f"(Note: {hypotheses[label]}.) " for label in labels]
        # log P(step | prefix, aside) = log P(aside + step | prefix) - log P(aside | prefix)
        both = scorer.logprobs(prefix, [aside + steps[i] for aside in asides] + asides)
        for k, label in enumerate(labels):
            totals[label] += both[k] - both[k + len(labels)]
    least = wants_least(question)
    pick = (min if least else max)(labels, key=lambda label: (totals[label], -labels.index(label)))
    return Judgement(person, scored, totals, least, pick, steps)


class InversePlanningAgent(Agent):
    """Answers multiple-choice Theory-of-Mind questions by inverse planning (see module doc)."""

    games = ("tom",)

    def __init__(self, scorer: Scorer, name: str = "house:limp-local", max_steps: int = 12) -> None:
        super().__init__(name)
        self.scorer = scorer
        self.max_steps = max_steps
        self.description = ("Inverse planning: scores how likely each observed step is under each option's "
                            "hypothesis (exact token log-probabilities), not the model's answer.")

    def answer(self, obs: Observation) -> str:
        if not obs.options:
            return "I can only answer questions with options."
        context = "\n\n".join(d.text for d in obs.private.documents if d.kind == "context") or obs.private_text()
        options = {label: obs.option_texts.get(label, label) for label in obs.options}
        return f"Final answer: {judge(context, obs.instruction, options, self.scorer, self.max_steps).choice}"


__all__ = ["InversePlanningAgent", "Judgement", "Scorer", "condition_of", "judge", "observed_steps", "people_in",
           "sentences", "wants_least"]
