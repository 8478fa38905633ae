"""The inverse-planning agent's reasoning, with a scorer whose likelihoods are known: steps,
the condition, the person, MOST and LEAST, and that the hypothesis text itself is never scored."""

from __future__ import annotations

from space_app.suites import open_suite
from space_app.suites.inverse_planning import (
    InversePlanningAgent,
    condition_of,
    judge,
    people_in,
    sentences,
    wants_least,
)
from space_app.suites.run import observation

STORY = ("Ana and Ben are in the kitchen. Ana put the key in the drawer. Ben went to the garden. "
         "Ana moved the key to the shelf. Ben came back. \"Where is the key?\" Ben asked. "
         "\"It is in the drawer,\" Ana said.")
OPTIONS = {"A": "Ana believed the key was on the shelf.", "B": "Ana believed the key was in the drawer.",
           "C": "Ana believed the key was in the garden."}


class PlaceScorer:
    """log P(continuation | prefix): -1 per character, +20 when an aside's place is the place
    the step says (a model that finds a step likelier when the hypothesis predicts it)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    def logprobs(self, prefix: str, continuations: list[str]) -> list[float]:
        self.calls.append((prefix, continuations))
        out = []
        for c in continuations:
            score = -float(len(c))
            if c.startswith("(Note:") and ")" in c:
                aside, step = c.split(")", 1)
                for place in ("drawer", "shelf", "garden"):
                    if place in aside.split(";")[-1] and place in step:
                        score += 20
            out.append(score)
        return out


def test_steps_condition_person_and_phrasing():
    steps = sentences(STORY)
    assert steps[0] == "Ana and Ben are in the kitchen." and steps[-1] == "\"It is in the drawer,\" Ana said."
    assert len(steps) == 7
    assert condition_of("If Ana was trying to help Ben, which of the following is MOST likely?") == \
        "Ana was trying to help Ben"
    assert condition_of("Suppose Ana thought it was lost. Which is LEAST likely?") == "Ana thought it was lost"
    assert condition_of("Given what Ben did after Ana spoke, which is most likely?") == ""
    assert wants_least("Which of the following is LEAST likely?") and not wants_least("MOST likely?")
    assert people_in(STORY, OPTIONS) == ["Ana"]


def test_most_picks_the_hypothesis_that_explains_the_steps_and_least_the_worst():
    scorer = PlaceScorer()
    most = judge(STORY, "If Ana was trying to help Ben, which of the following is MOST likely?", OPTIONS, scorer)
    assert most.person == "Ana" and all("Ana" in sentences(STORY)[i] for i in most.steps)
    assert most.choice == "B"  # "in the drawer" is what she said: the drawer hypothesis explains it
    least = judge(STORY, "If Ana was trying to help Ben, which of the following is LEAST likely?", OPTIONS, scorer)
    assert least.least and least.choice == "C"  # the garden explains none of her steps
    # each step is scored once per hypothesis, with the aside in the condition, then the aside alone
    prefix, continuations = scorer.calls[0]
    assert prefix.startswith("Story:") and len(continuations) == 6
    assert all(c.startswith("(Note: Ana was trying to help Ben; Ana believed") for c in continuations)


def test_the_agent_answers_a_suite_observation_with_a_label():
    item = open_suite("tom-household").loaded.items[0]
    agent = InversePlanningAgent(PlaceScorer())
    reply = agent.answer(observation(item, "tom", 30.0))
    assert reply.startswith("Final answer: ") and reply.removeprefix("Final answer: ") in item.options
