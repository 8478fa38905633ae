"""MuMA-ToM's video half: the published `visual_data/<episode>/` files (fixtures in the release's
shape, with its quirks) read, turned into an action track and drawn keyframes, stored with the
imported questions, and shown per input condition (`bench --condition`)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from sdk import LLMAgent
from space_app.cli import main
from space_app.store import Store
from space_app.suites.conditions import conditioned_item, with_condition
from space_app.suites.items import load_suite
from space_app.suites.muma_import import import_muma_tom, write_suite
from space_app.suites.muma_keyframes import HEIGHT, WIDTH, draw
from space_app.suites.muma_track import action_track, keyframes, track_text
from space_app.suites.muma_visual import VisualDataError, contradictions, read_episode
from space_app.suites.registry import open_suite
from space_app.suites.run import run_suite

FIXTURES = Path(__file__).parent / "fixtures" / "muma"
VISUAL = FIXTURES / "visual_data"
PNG_URL = "data:image/png;base64,"


def imported(tmp_path: Path, visual: Path = VISUAL) -> tuple[dict[str, Any], str]:
    """The suite file's items by id and the import report."""
    out = tmp_path / "mumatom.jsonl"
    report = write_suite(import_muma_tom(FIXTURES / "clean_questions.json", visual_data=visual), out)
    return {item.id: item for item in load_suite(out).items}, report


def png(url: str) -> Image.Image:
    assert url.startswith(PNG_URL)
    return Image.open(io.BytesIO(base64.b64decode(url[len(PNG_URL):])))


def test_episodes_with_visual_data_import_with_keyframes_and_an_action_track(tmp_path):
    items, report = imported(tmp_path)
    assert "2 of 3 episodes with keyframes and an action track, 1 text-only" in report
    for item_id in ("ep01-1", "ep01-2", "ep01-3", "ep02-1", "ep02-2"):
        assert items[item_id].images and items[item_id].tags["action_track"]
        for url in items[item_id].images:
            assert png(url).size == (WIDTH, HEIGHT)
    # sampled frame numbers 0, 12, 25, 37, 50, 62, 75, 90: the first of each 20-frame window, and the last
    assert items["ep01-1"].tags["keyframes"] == [0, 2, 4, 5, 7]
    # without frame numbers each index is its own: 0 (a multiple of 20) and the last
    assert items["ep02-1"].tags["keyframes"] == [0, 4]
    assert len(items["ep01-1"].images) == 5


def test_the_action_track_follows_the_predicates_and_names_its_frames(tmp_path):
    items, _ = imported(tmp_path)
    assert items["ep01-1"].tags["action_track"] == [
        {"step": "The person is in the livingroom.", "frames": [0, 0]},
        {"step": "The person walks to the kitchen.", "frames": [0, 1]},
        {"step": "The person grabs the wineglass from the kitchentable.", "frames": [1, 2]},
        {"step": "The person opens the kitchencabinet.", "frames": [2, 3]},
        {"step": "The person puts the wineglass in the kitchencabinet.", "frames": [3, 4]},
        {"step": "The person closes the kitchencabinet.", "frames": [4, 5]},
        # the desk is usually a bedroom's; boxes.json puts it in the living room's box
        {"step": "The person walks to the livingroom.", "frames": [5, 6]},
    ]


def test_every_quirk_is_read_and_reported_never_fatal(tmp_path):
    visual = read_episode(VISUAL / "ep02", "ep02")
    assert visual is not None
    assert [f.index for f in visual.frames] == [0, 1, 2, 4]  # "2.0" read as frame 2
    assert visual.frames[1].holds == ["apple"]  # "a apple  ": trailing spaces gone
    assert visual.frames[2].close == ["bed", "nightstand"]
    first = read_episode(VISUAL / "ep01", "ep01")
    assert first is not None and first.frames[3].opened == ["kitchencabinet"]  # "kitchencabinet "
    assert "80" in first.frames[0].boxes and first.frames[0].boxes["80"].class_name == "desk"  # "80.0"
    _, report = imported(tmp_path)
    for line in ("episode 'ep02': inside.json missing: no inside predicates in this episode",
                 "episode 'ep02': frame 3 missing from every file",
                 "episode 'ep02': hold.json has no frame 2",
                 "episode 'ep03': no visual data"):
        assert line in report, line


def test_an_episode_with_missing_or_empty_visual_data_is_kept_text_only_and_reported(tmp_path):
    visual = tmp_path / "visual_data"
    shutil.copytree(VISUAL, visual)
    shutil.rmtree(visual / "ep01")
    (visual / "ep01").mkdir()  # empty folder
    (visual / "ep99").mkdir()  # and a folder no episode asks for
    for kind in ("on", "hold"):  # and ep02's files with no frame at all
        (visual / "ep02" / f"{kind}.json").write_text(json.dumps({"ep02": {}}))
    for name in ("opened", "closeness"):
        (visual / "ep02" / f"{name}.json").write_text(json.dumps({"ep02": {}}))
    items, report = imported(tmp_path, visual)
    assert len(items) == 7  # nothing dropped
    assert all(not item.images and "action_track" not in item.tags for item in items.values())
    assert "0 of 3 episodes with keyframes and an action track, 3 text-only" in report
    assert f"episode 'ep01': no visual data ({visual / 'ep01'} empty (no frame in any file)); kept text-only" in report
    assert f"episode 'ep02': no visual data ({visual / 'ep02'} empty" in report
    assert f"episode 'ep03': no visual data ({visual / 'ep03'} missing); kept text-only" in report
    assert "visual_data/ep99: no episode 'ep99' in clean_questions.json (not used)" in report


def test_a_frame_with_an_object_in_two_places_is_drawn_as_given_and_reported(tmp_path):
    visual = read_episode(VISUAL / "ep02", "ep02")
    assert visual is not None
    frame = visual.frames[2]
    assert contradictions(frame) == ["frame 2: apple is in 2 places at once (on the coffeetable; on the nightstand): "
                                     "drawn as given"]
    one_place = type(frame)(frame.index, on=[("apple", "nightstand")], close=frame.close)
    both, single = draw(visual, frame), draw(visual, one_place)
    assert both != single  # the second place is drawn too
    assert draw(visual, frame) == both  # and the same frame always gives the same picture
    _, report = imported(tmp_path)
    assert "episode 'ep02': frame 2: apple is in 2 places at once" in report
    steps = track_text(action_track(visual))
    assert "4. The person puts the apple on the nightstand and on the coffeetable. (frames 1-2)" in steps


def test_an_open_container_is_outlined_in_red():
    visual = read_episode(VISUAL / "ep01", "ep01")
    assert visual is not None

    def red(frame_index: int) -> int:
        img = Image.open(io.BytesIO(draw(visual, visual.frames[frame_index]))).convert("RGB")
        return sum(1 for pixel in img.getdata() if pixel == (200, 0, 0))

    assert red(3) > 50 and red(5) == 0  # opened in frame 3, closed again by frame 5
    assert [f.index for f in keyframes(visual)] == [0, 2, 4, 5, 7]


@pytest.mark.parametrize(("file", "content", "key"), [
    ("hold.json", {"ep01": {"0": "The character is holding a mug"}}, "key 'ep01/0': expected a list of strings"),
    ("on.json", {"ep01": {"0": ["the book sits somewhere"]}},
     "key 'ep01/0': 'the book sits somewhere' is not an on.json predicate"),
    ("boxes.json", {"ep01": {"0": {"80.0": {"class_name": "desk", "x_min": 1}}}}, "key 'ep01/0/80.0': x_max"),
    ("opened.json", {"ep01": {"first": []}}, "key 'first' is not a frame index"),
    ("closeness.json", {"episode 1": {"0": []}}, "no key 'ep01'"),
    ("frames.json", ["0", "12"], "expected an object keyed by the episode id"),
])
def test_a_file_not_in_the_documented_shape_is_refused_naming_file_and_key(tmp_path, file, content, key):
    visual = tmp_path / "visual_data"
    shutil.copytree(VISUAL, visual)
    (visual / "ep01" / file).write_text(json.dumps(content))
    with pytest.raises(VisualDataError) as err:
        read_episode(visual / "ep01", "ep01")
    assert str(visual / "ep01" / file) in str(err.value) and key in str(err.value)
    items, report = imported(tmp_path, visual)
    assert not items["ep01-1"].images and items["ep02-1"].images  # only that episode is text-only
    assert f"episode 'ep01': refused: {visual / 'ep01' / file}" in report and "kept text-only" in report


def test_the_import_command_takes_the_visual_data_folder(tmp_path, capsys):
    out = tmp_path / "m.jsonl"
    assert main(["import-muma-tom", str(FIXTURES / "clean_questions.json"), "--visual-data", str(VISUAL),
                 str(out)]) == 0
    assert "2 of 3 episodes with keyframes" in capsys.readouterr().out
    assert main(["import-muma-tom", str(FIXTURES / "clean_questions.json"), "--visual-data",
                 str(tmp_path / "nowhere"), str(tmp_path / "n.jsonl")]) == 2
    assert "--visual-data is not a folder" in capsys.readouterr().err


def test_each_condition_shows_what_it_says(tmp_path):
    items, _ = imported(tmp_path)
    item, text_only = items["ep01-1"], items["ep03-1"]
    track = "1. The person is in the livingroom. (frames 0-0)"
    for vision in (True, False):
        shown = conditioned_item(item, "text", vision)
        assert shown is not None and shown.context == item.context and not shown.images
        shown = conditioned_item(item, "track", vision)
        assert shown is not None and not shown.images
        assert shown.context.startswith(item.context) and track in shown.context
    seen = conditioned_item(item, "multimodal", True)
    assert seen is not None and seen.images == item.images and seen.context == item.context
    told = conditioned_item(item, "multimodal", False)
    assert told is not None and not told.images and item.context in told.context and track in told.context
    video = conditioned_item(item, "video", True)
    assert video is not None and video.images == item.images and video.context == ""
    video = conditioned_item(item, "video", False)
    assert video is not None and not video.images and video.context.startswith("What the video shows") \
        and item.context not in video.context
    assert conditioned_item(text_only, "video", True) is None
    shown = conditioned_item(text_only, "multimodal", False)
    assert shown is not None and shown.context == text_only.context
    with pytest.raises(ValueError, match="unknown condition 'audio'"):
        conditioned_item(item, "audio", True)


def test_a_vision_agent_gets_the_keyframes_and_a_text_only_agent_the_track(tmp_path):
    out = tmp_path / "mumatom.jsonl"
    write_suite(import_muma_tom(FIXTURES / "clean_questions.json", visual_data=VISUAL), out)
    store = Store(tmp_path / "arena.db")
    sent: dict[bool, list[str]] = {True: [], False: []}
    for vision in (True, False):
        def caller(messages: list[dict[str, Any]], vision: bool = vision) -> str:
            sent[vision].append(json.dumps(messages))
            return "A"

        conditioned = with_condition(open_suite(str(out)), "video", vision)
        assert conditioned.suite.id == "file:mumatom@video" and conditioned.left_out == 2  # ep03 has no video
        agent = LLMAgent(caller, name=f"reader-{vision}", vision=vision)
        scores = asyncio.run(run_suite(store, conditioned.suite, agent, f"reader-{vision}"))
        assert scores.answered == 5
    assert len(sent[True]) == len(sent[False]) == 5
    assert all(PNG_URL in m and "walks to the kitchen" not in m for m in sent[True])
    assert all(PNG_URL not in m for m in sent[False])
    assert sum("The person walks to the kitchen." in m for m in sent[False]) == 3  # ep01's three questions
    assert len(store.answered("file:mumatom@video", "reader-True")) == 5  # stored apart from other conditions
    assert not store.answered("file:mumatom", "reader-True")


def test_bench_takes_the_condition_and_stores_each_apart(tmp_path, capsys):
    out = tmp_path / "mumatom.jsonl"
    assert main(["import-muma-tom", str(FIXTURES / "clean_questions.json"), "--visual-data", str(VISUAL),
                 str(out)]) == 0
    capsys.readouterr()
    db = str(tmp_path / "arena.db")
    assert main(["--db", db, "bench", str(out), "--agent", "house:overlap", "--condition", "text", "--json"]) == 0
    text = json.loads(capsys.readouterr().out)
    assert main(["--db", db, "bench", str(out), "--agent", "house:overlap", "--condition", "video", "--json"]) == 0
    captured = capsys.readouterr()
    video = json.loads(captured.out)
    assert (text["suite"], text["answered"]) == ("file:mumatom@text", 7)
    assert (video["suite"], video["answered"]) == ("file:mumatom@video", 5)
    assert "2 questions have no visual data and are left out" in captured.err
