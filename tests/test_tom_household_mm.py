"""The multi-modal household suite: seeded generation, the modality check (solvers over the
structured episode, each modality alone and both), the word-overlap baseline per condition,
the conditions `bench` shows, and the modality-ablation report over stored runs."""

from __future__ import annotations

import base64
import io
import subprocess
import sys

import pytest
from PIL import Image

from space_app.cli import main as cli_main
from space_app.suites import REPORTS, SUITES, open_suite
from space_app.suites.conditions import conditioned_item, with_condition
from space_app.suites.run import observation
from space_app.suites.tom_household_mm import (
    TYPES,
    Fact,
    ModalityCheckFailed,
    check,
    generate_episodes,
    generate_suite,
    stage,
)
from space_app.suites.tom_household_mm.episode import (
    ACTIONS_IN_VIDEO,
    FINDS_EMPTY,
    HELP,
    HINDER,
    INDIFFERENT,
    SAYS,
    TALK_IN_VIDEO,
    TEXT,
    VIDEO,
)
from space_app.suites.tom_household_mm.lexical import overlap_by_condition
from space_app.suites.tom_household_mm.reader import HouseholdReader, perceive
from space_app.suites.tom_household_mm.solver import BOTH, TEXT_ONLY, VIDEO_ONLY, consistent, question_parts, states
from space_app.suites.tom_household_mm.suite import serialise, shipped_items, to_item


def test_generation_is_seeded_and_byte_identical_across_processes(tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (first, second):
        subprocess.run([sys.executable, "-m", "space_app.suites.tom_household_mm", "--out", str(path), "--seed", "7",
                        "--per-type", "4"], check=True, capture_output=True)
    assert first.read_bytes() == second.read_bytes()
    assert first.read_text(encoding="utf-8") == serialise(generate_suite(seed=7, per_type=4))
    assert serialise(generate_suite(seed=8, per_type=4)) != first.read_text(encoding="utf-8")


def test_every_shipped_item_passes_the_modality_check():
    episodes = generate_episodes()
    assert len(episodes) == 300 and {ep.kind for ep in episodes} == set(TYPES)
    for ep in episodes:
        result = check(ep)
        assert result.passed, f"{ep.id}: {result.why()}"
        # the staged hidden state is one the solver keeps when it sees everything
        kept = states(ep, ep.facts)
        assert any(s.belief == ep.speaker_belief and s.goal == ep.speaker_goal for s in kept)
    items = shipped_items()
    assert all(i["tags"]["check"]["both"] == 1 and i["tags"]["check"]["text_only"] >= 2
               and i["tags"]["check"]["video_only"] >= 2 for i in items)
    # both splits, and both goals where the answer is a goal
    assert {ep.split for ep in episodes} == {ACTIONS_IN_VIDEO, TALK_IN_VIDEO}
    assert {ep.speaker_goal for ep in episodes if ep.kind == "social_goal"} == {HELP, HINDER}
    assert {ep.believed_goal for ep in episodes if ep.kind == "belief_of_goal"} == {HELP, HINDER}


def test_the_solvers_each_see_one_modality_and_need_both():
    ep = stage("belief", 0, seed=0)  # found one container empty (video), named another (text), while hindering
    empty = next(f.container for f in ep.facts if f.kind == FINDS_EMPTY)
    said = next(f.container for f in ep.facts if f.kind == SAYS)
    options, condition, answer = question_parts(ep)
    assert condition is not None and condition.value == HINDER
    assert {o.value for o in consistent(ep, options, TEXT_ONLY, condition)} == set(ep.containers) - {said}
    assert {o.value for o in consistent(ep, options, VIDEO_ONLY, condition)} == set(ep.containers) - {empty}
    assert consistent(ep, options, BOTH, condition) == [answer]
    assert answer.value not in (said, empty)

    # she volunteered a place (not indifferent, but helping or hindering?); she put it somewhere (any goal)
    talk, act = [HELP, HINDER], [HELP, HINDER, INDIFFERENT]
    for index, split, text_half, video_half in ((0, ACTIONS_IN_VIDEO, talk, act), (1, TALK_IN_VIDEO, act, talk)):
        goal_ep = stage("social_goal", index, seed=0)
        opts, _, goal = question_parts(goal_ep)
        assert goal_ep.split == split
        assert [o.value for o in consistent(goal_ep, opts, TEXT_ONLY)] == text_half
        assert [o.value for o in consistent(goal_ep, opts, VIDEO_ONLY)] == video_half
        assert consistent(goal_ep, opts, BOTH) == [goal]


def test_an_episode_with_both_facts_in_one_modality_fails_the_check():
    ep = stage("social_goal", 0, seed=0)
    leaky = ep.__class__(**{**ep.__dict__, "facts": tuple(Fact(f.kind, f.container, TEXT) for f in ep.facts)})
    result = check(leaky)
    assert not result.passed and result.text == [result.answer]
    with pytest.raises(ModalityCheckFailed, match=f"{ep.id}: fails the modality check: .*text only: {ep.speaker_goal}"):
        to_item(leaky, 0)


def test_the_word_overlap_baseline_is_near_chance_in_every_condition():
    for score in overlap_by_condition(shipped_items()):
        low, high = score.all.interval
        assert score.all.n == 300 and low <= 1 / 3 <= high, (score.condition, score.all)
        for kind, rate in score.by_type.items():
            assert rate.n == 100 and rate.interval[0] <= 1 / 3 <= rate.interval[1], (score.condition, kind, rate)


def test_each_condition_shows_only_its_half():
    suite = open_suite("tom-household-mm")
    assert SUITES["tom-household-mm"].game == "tom" and len(suite.loaded.items) == 300 and not suite.loaded.dropped
    item = next(i for i in suite.loaded.items if i.tags["split"] == ACTIONS_IN_VIDEO and "belief" in i.types)
    empty_step = item.tags["action_track"][1]["step"]
    assert "nothing in it" in empty_step and "nothing in it" not in item.context and '" ' in item.context
    text = conditioned_item(item, "text", vision=False)
    assert text is not None and not text.images and text.context == item.context
    video_words = conditioned_item(item, "video", vision=False)
    assert video_words is not None and empty_step in video_words.context and "says" not in video_words.context
    video_images = conditioned_item(item, "video", vision=True)
    assert video_images is not None and video_images.context == "" and len(video_images.images) == 3
    both = conditioned_item(item, "multimodal", vision=True)
    assert both is not None and both.context == item.context and both.images == item.images
    png = base64.b64decode(item.images[1].removeprefix("data:image/png;base64,"))
    assert Image.open(io.BytesIO(png)).size == (480, 300)
    # nothing has to be left out: every item has its video half
    assert with_condition(suite, "video", vision=False).left_out == 0
    reverse = next(i for i in suite.loaded.items if i.tags["split"] == TALK_IN_VIDEO and "belief" in i.types)
    assert "nothing in it" in reverse.context and any("says" in s["step"] for s in reverse.tags["action_track"])
    assert {f["modality"] for f in reverse.tags["facts"]} == {TEXT, VIDEO}


def test_bench_per_condition_and_the_modality_ablation_report(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    for agent, condition in (("house:overlap", "text"), ("house:overlap", "video"),
                             ("house:household-reader", "multimodal")):
        assert cli_main(["--db", db, "bench", "tom-household-mm", "--agent", agent, "--condition", condition,
                         "--limit", "12"]) == 0
    capsys.readouterr()
    assert "household-modality" in REPORTS
    assert cli_main(["--db", db, "report", "household-modality"]) == 0
    out = capsys.readouterr().out
    assert "modality ablation: house:overlap" in out and "modality ablation: house:household-reader" in out
    for row in ("multi-modal", "text only", "video only", "text + action track"):
        assert row in out
    assert "n=12" in out and "not run" in out
    reader = out.split("modality ablation: house:household-reader", 1)[1]
    assert "| multi-modal |" in reader and "100.0 [" in reader.split("| multi-modal |", 1)[1].split("\n", 1)[0]


def test_the_reader_perceives_the_facts_and_needs_both_halves():
    episodes = {ep.id: ep for ep in generate_episodes()}
    suite = open_suite("tom-household-mm")
    reader = HouseholdReader()
    right: dict[str, list[bool]] = {c: [] for c in ("multimodal", "text", "video", "track")}
    for item in suite.loaded.items:
        ep = episodes[item.id]
        both = conditioned_item(item, "multimodal", vision=False)
        assert both is not None
        containers, facts = perceive(both.context)
        assert set(containers) == set(ep.containers)
        assert sorted((f.kind, f.container) for f in facts) == sorted((f.kind, f.container) for f in ep.facts)
        for condition in right:
            shown = conditioned_item(item, condition, vision=False)
            assert shown is not None
            right[condition].append(reader.answer(observation(shown, "tom", 30.0)) == item.answer)
    assert all(right["multimodal"]) and all(right["track"])
    for condition in ("text", "video"):  # one half leaves two or three options: about chance among them
        share = sum(right[condition]) / len(right[condition])
        assert 0.25 < share < 0.65, (condition, share)


def test_the_human_quiz_shows_the_keyframes(tmp_path):
    from space_app.api import ArenaAPI
    from space_app.config import ArenaConfig
    from space_app.ui.suites_tab import keyframes_html

    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "q.db"), demo_matches=0))
    question = api.quiz_question("tom-household-mm", "visitor-1")
    item = next(i for i in open_suite("tom-household-mm").loaded.items if i.id == question["item_id"])
    assert question["images"] == item.images and len(item.images) >= 2
    shown = keyframes_html(question["images"], "Keyframe")
    assert shown.count("<img src='data:image/png;base64,") == len(item.images) and "Keyframe 2" in shown
    # a suite whose images are references, not inline pictures, shows none
    assert api.quiz_question("tom-household", "visitor-1")["images"] == [] and keyframes_html([], "Keyframe") == ""


def test_a_vision_agent_gets_the_keyframes_and_a_text_only_agent_the_track(tmp_path):
    import asyncio
    import json

    from sdk import LLMAgent
    from space_app.store import Store
    from space_app.suites.run import run_suite

    store = Store(tmp_path / "arena.db")
    sent: dict[bool, list[str]] = {True: [], False: []}
    for vision in (True, False):
        def caller(messages: list, vision: bool = vision) -> str:
            sent[vision].append(json.dumps(messages))
            return "A"

        conditioned = with_condition(open_suite("tom-household-mm"), "video", vision)
        assert conditioned.suite.id == "tom-household-mm@video" and conditioned.left_out == 0
        agent = LLMAgent(caller, name=f"viewer-{vision}", vision=vision)
        scores = asyncio.run(run_suite(store, conditioned.suite, agent, f"viewer-{vision}", limit=6))
        assert scores.answered == 6
    png = "data:image/png;base64,"
    assert len(sent[True]) == len(sent[False]) == 6
    # images, and none of the text half or the track's words; the track's words, and no image
    assert all(png in m and "share a home" not in m and "The video shows" not in m for m in sent[True])
    assert all(png not in m and "The video shows" in m and "share a home" not in m for m in sent[False])
    assert len(store.answered("tom-household-mm@video", "viewer-True")) == 6
