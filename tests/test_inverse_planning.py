"""The inverse-planning agent's reasoning, with a scorer whose likelihoods are known: steps,
the condition, the person, MOST and LEAST, and that the hypothesis text itself is never scored."""

from __future__ import annotations

import math

import pytest

from space_app.suites import open_suite
from space_app.suites.conditions import conditioned_item, read_track, track_words
from space_app.suites.inverse_planning import (
    InversePlanningAgent,
    condition_of,
    judge,
    observed_steps,
    people_in,
    sentences,
    wants_least,
)
from space_app.suites.items import SuiteItem
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


# --- the action track as the perception step (`bench --condition`) ---

def _shown(item_id: str, condition: str) -> SuiteItem:
    item = next(i for i in open_suite("tom-household-mm").loaded.items if i.id == item_id)
    shown = conditioned_item(item, condition, vision=False)
    assert shown is not None
    return shown


def test_the_track_is_read_back_without_its_numbers_and_frames():
    tags = {"action_track": [{"step": "The person walks to the kitchen.", "frames": [0, 1]},
                             {"step": "The person grabs the mug from the table.", "frames": [1, 2]}]}
    text, steps = read_track(f"Ann: \"Where is my mug?\"\n\n{track_words(tags)}")
    assert text == "Ann: \"Where is my mug?\""
    assert steps == ["The person walks to the kitchen.", "The person grabs the mug from the table."]
    assert read_track(STORY) == (STORY, [])


def test_without_a_track_the_steps_are_todays_sentences():
    steps, scored = observed_steps(STORY, ["Ana"])
    assert steps == sentences(STORY) and scored == [0, 1, 3, 6]
    item = open_suite("tom-household").loaded.items[0]
    people = people_in(item.context, dict(item.options))
    steps, scored = observed_steps(item.context, people)
    assert steps == sentences(item.context)
    assert scored == ([i for i, s in enumerate(steps) if people and people[0] in s] or list(range(len(steps))))


def test_a_published_track_is_the_persons_steps_between_the_setting_and_the_talk():
    tags = {"action_track": [{"step": "The person is in the kitchen.", "frames": [0, 0]},
                             {"step": "The person opens the cabinet.", "frames": [0, 1]},
                             {"step": "Ben walks to the garden.", "frames": [1, 2]}]}
    told = ("Ana and Ben are at home. Ben was in the garden.\nBen: \"Where is the key?\"\n"
            "Ana: \"It is in the drawer.\" Then Ana left.")
    steps, scored = observed_steps(f"{told}\n\n{track_words(tags)}", ["Ana", "Ben"])
    assert steps == ["Ana and Ben are at home.", "Ben was in the garden.",
                     "The person is in the kitchen.", "The person opens the cabinet.", "Ben walks to the garden.",
                     "Ben: \"Where is the key?\"", "Ana: \"It is in the drawer.\"", "Then Ana left."]
    # Ana's told sentences and the track's steps of "the person"; Ben's step is not hers
    assert scored == [0, 2, 3, 6, 7]


def test_the_generated_suite_under_each_condition_a_non_vision_agent_is_shown():
    # belief, actions in the video: she finds a container empty (video), then tells him (text)
    track = _shown("tomhmm-belief-0000", "track")
    people = people_in(track.context, dict(track.options))
    steps, scored = observed_steps(track.context, people)
    person = people[0]
    opened = next(i for i, s in enumerate(steps) if "there is nothing in it" in s)
    said = next(i for i, s in enumerate(steps) if "It's in the" in s)
    assert opened < said and {opened, said} <= set(scored)
    assert not any("frames" in s or s[0].isdigit() for s in steps)
    # multimodal gives this agent the same words as track
    assert _shown("tomhmm-belief-0000", "multimodal").context == track.context
    # video: the track alone, every step one of the video's
    video = _shown("tomhmm-belief-0000", "video")
    steps, scored = observed_steps(video.context, people)
    assert steps == read_track(video.context)[1] and all(person in steps[i] for i in scored)
    # text: today's behaviour
    text = _shown("tomhmm-belief-0000", "text").context
    assert observed_steps(text, people) == (sentences(text), [i for i, s in enumerate(sentences(text)) if person in s])


def test_talk_in_the_video_comes_after_what_the_text_tells_as_earlier_and_before_what_it_tells_as_then():
    # belief of goal, the talk in the video: she tells him (video), then he looks (text, "Then ...")
    shown = _shown("tomhmm-belief_of_goal-0001", "track")
    steps, _ = observed_steps(shown.context, people_in(shown.context, dict(shown.options)))
    said = next(i for i, s in enumerate(steps) if "It's in the" in s)
    looked = next(i for i, s in enumerate(steps) if s.startswith("Then "))
    assert said < looked
    # social goal, the talk in the video: "Earlier, ... put the ..." comes before it
    shown = _shown("tomhmm-social_goal-0001", "track")
    steps, _ = observed_steps(shown.context, people_in(shown.context, dict(shown.options)))
    assert next(i for i, s in enumerate(steps) if s.startswith("Earlier")) < \
        next(i for i, s in enumerate(steps) if "It's in the" in s)


def test_the_agent_explains_the_tracks_steps_with_the_scorer():
    shown = _shown("tomhmm-belief-0000", "track")
    scorer = PlaceScorer()
    reply = InversePlanningAgent(scorer).answer(observation(shown, "tom", 30.0))
    assert reply.removeprefix("Final answer: ") in shown.options
    video_steps = read_track(shown.context)[1]
    scored_steps = [c[0].split(") ", 1)[1] for _, c in scorer.calls]
    assert any(step in scored_steps for step in video_steps)
    # every prefix is the story read so far: the track's steps without numbers or frames
    assert not any("(frames" in prefix for prefix, _ in scorer.calls)


@pytest.mark.model
def test_on_the_embedded_model_the_track_is_explained_with_exact_log_probabilities():
    from sdk import local_scorer

    scorer = local_scorer()
    shown = _shown("tomhmm-belief-0000", "track")
    options = dict(shown.options)
    seen = judge(shown.context, shown.question, options, scorer)
    video_steps = read_track(shown.context)[1]
    assert all(step in seen.story for step in video_steps)
    assert {seen.story.index(step) for step in video_steps} <= set(seen.steps)
    assert all(math.isfinite(x) for x in seen.scores.values()) and len(set(seen.scores.values())) == len(options)
    assert seen.choice in options
    # the same story read again (now from the model's cache) gives the same numbers
    assert judge(shown.context, shown.question, options, scorer).scores == pytest.approx(seen.scores, abs=1e-6)
    # the text alone explains fewer steps, none of them the video's
    told = judge(_shown("tomhmm-belief-0000", "text").context, shown.question, options, scorer)
    assert len(told.steps) < len(seen.steps) and not set(video_steps) & set(told.story)
