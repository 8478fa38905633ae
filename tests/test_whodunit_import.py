"""Importing the WhodunitBench release: a clean script round-trips (import, load, validate, a
faction match of naive agents played to the end), a messy one imports with each repair and drop
reported, an unplayable one is refused naming its file and key, and the command works on a
folder of script folders through `python -m space_app import-whodunit`."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from sdk import Agent
from space_app.core.game import Outcome
from space_app.games.mystery.agents import NaiveMysteryAgent
from space_app.games.mystery.events import GameOver, Start
from space_app.games.mystery.quizzes import suite_items
from space_app.games.mystery.rules import DRAW, INNOCENT, INNOCENTS, MURDERER, MysteryGame, MysterySettings
from space_app.games.mystery.scripts.problems import ScriptError
from space_app.games.mystery.scripts.script import Script
from space_app.games.mystery.scripts.validate import load_script, validate_script
from space_app.games.mystery.whodunit import ImportReport, import_release, main, script_id_for
from space_app.games.mystery.whodunit.command import REPORT_SUFFIX
from space_app.games.mystery.whodunit.media import read_image, sniff
from space_app.games.mystery.whodunit.parse import Unreadable, chain_level, depth_of, parse_answer, parse_question
from space_app.runner import outcome_text

RELEASE = Path(__file__).parent / "fixtures" / "whodunit" / "release"
CLEAN, MESSY, BROKEN = RELEASE / "雨夜书房", RELEASE / "messy_case", RELEASE / "broken_case"
# every reasoning-depth notation of the release, character-keyed clue pools, consistent and
# conflicting copies of questions, two- and three-option questions, and a second script of the
# same title (an early draft)
NOTATIONS = Path(__file__).parent / "fixtures" / "whodunit" / "notations"
FOG, FOG_DRAFT = NOTATIONS / "雾港疑案", NOTATIONS / "雾港疑案_初稿"
MYSTERY_FIXTURES = Path(__file__).parent / "fixtures" / "mystery"
ROOT = Path(__file__).resolve().parents[1]


def _import(folder: Path, out: Path) -> tuple[ImportReport, Path]:
    [report] = import_release(folder, out)
    return report, out / report.script_id


def _keys(entries: list[Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for e in entries:
        found.setdefault(e.key, []).append(e.message)
    return found


def _play(script: Script, seed: int = 2) -> MysteryGame:
    """A faction match offline: one naive agent for the innocents, another for the murderer."""
    agents: dict[str, Agent] = {INNOCENT: NaiveMysteryAgent(), MURDERER: NaiveMysteryAgent()}
    seats = [r.name for r in script.roles]
    game = MysteryGame(seats, seed, MysterySettings(players=len(seats), language="zh", rounds=2), script)
    while not game.over:
        outcomes = []
        for r in game.pending():
            raw = getattr(agents[game.roles[r.seat]], r.observation.verb)(r.observation)
            text = outcome_text(raw, r.observation)[0]
            outcomes.append(Outcome(r.seat, text, "ok" if text is not None else "unparseable"))
        game.submit(outcomes)
    return game


# ---- the clean script ------------------------------------------------------------------------

def test_the_clean_script_round_trips_and_plays_to_the_end(tmp_path):
    report, folder = _import(CLEAN, tmp_path)
    assert report.status == "imported" and report.script_id == script_id_for("雨夜书房")
    assert validate_script(folder) == []
    script = load_script(folder)
    assert script.title == "雨夜书房" and script.language == "zh"
    assert script.imported is not None and script.imported.file == "雨夜书房/env_p_all.json"
    assert [(r.name, r.murderer) for r in script.roles] == [("王伯", False), ("林晓", False), ("陈默", True),
                                                            ("周远", False)]
    assert script.role("王伯").introduction.startswith("我是林家的老管家")
    assert script.role("陈默").script.count("\n\n") == 3  # the private script kept whole
    assert script.background.startswith("雨夜") and script.tasks.others and script.tasks.murderer
    assert script.truth.murderer == "陈默" and script.truth.account.startswith("陈默在药费上")
    assert script.truth.motive is None and script.truth.method is None
    assert script.key_roles == ["王伯", "林晓"]
    assert list(script.reasoning_chain) == ["p", "1-step", "2-step"]
    # r_q and q/a hold the same two questions for 王伯: kept once
    assert len(script.questions.lsu) == 8 and sum(q.role == "王伯" for q in script.questions.lsu) == 2
    assert [q.hops for q in script.questions.mmr] == [1, 2, 3]  # depth = chain level: p 1, 1-step 2, 2-step 3
    assert script.questions.mmr[0].options.B == "湿的" and script.questions.mmr[0].answer == "B"
    assert [q.image for q in (*script.questions.tiu, *script.questions.miu)] == [None, None]
    images = [(c.id, c.file, c.caption, c.kind) for c in script.image_clues]
    assert images == [("img-01", "img-01.png", "书房平面图.png", "media-rich"),
                      ("img-02", "img-02.jpg", "便条.jpg", "media-rich")]
    assert (folder / "img-02.jpg").read_bytes() == (CLEAN / "img" / "便条.jpg").read_bytes()
    # only what the format has no place for is dropped; nothing needed repair; copies kept once
    assert set(_keys(report.dropped)) == {"role[1].answer", "role-q"} and report.repaired == []
    assert {e.key: e.message.split(":")[0] for e in report.merged} == {
        "role[0].q[0]": "exact copy", "role[0].q[1]": "exact copy", "key_clue_q.q[0]": "exact copy"}
    saved = ImportReport.model_validate_json((tmp_path / f"{report.script_id}{REPORT_SUFFIX}").read_text("utf-8"))
    assert saved == report

    game = _play(script)
    assert game.over and game.result()["winner"] in (INNOCENTS, MURDERER, DRAW)
    assert game.result()["truth"] == {"murderer": "陈默", "account": script.truth.account}
    start = next(e for e in game.events if isinstance(e, Start))
    assert "None" not in start.text and "- 王伯：我是林家的老管家" in start.text
    over = next(e for e in game.events if isinstance(e, GameOver))
    assert over.text.endswith("真相：" + script.truth.account)
    # its questions run as a quiz: a TIU/MIU question tied to no one image carries every image
    items = suite_items(script)
    tiu = next(i for i in items if i["types"] == ["tiu"])
    assert len(tiu["images"]) == 2 and "image" not in tiu["tags"]


# ---- the messy script ------------------------------------------------------------------------

MESSY_DROPPED = {
    "role[3]": "no private script ('back')",
    "role[1].q[2]": "'e' names option E, which is not among its options A-D",
    "role[2].r_q[2]": "answer: missing",
    "img/readme.txt": "not a readable image",
    "key_role[2]": "'钱多多' is a role left out",
    "key_role[3]": "'王五' is not among the roles",
    "key_clues_pool.extra": "is neither a reasoning depth ('p', '1-step', 'p-2', ...) nor a character's name",
    "cxi_q.key_q": "lists of different lengths (key_q has 2, key_ans has 1)",
    "role[4].answer": "the format has no place for one",
}
MESSY_REPAIRED = {
    "murder": "'乘客 孙强' read as role '孙强' (a title before the name)",
    "key_role[0]": "'李明' read as role '李 明'",
    "key_role[1]": "'赵 雪' read as role '赵雪'",
    "public_clue": "a list of 2 strings; joined with blank lines",
    "img/甲板.jpg": "its content is PNG but it is named .jpg; written as .png",
    "img/信.gif": "a GIF image; converted to PNG",
    "key_clues_pool.P": "'P' read as 'p'",
    "key_clues_pool.1step": "'1step' read as '1-step'",
    "role[0].r_q[0]": "markers written 'ａ．'",
    "role[1].q[0]": "options: on separate lines",
    "role[1].q[1]": "answer: '答案：c' read as C",
    "role[2].r_q[0]": "markers written '(a)'",
    "ei_q[0]": "markers written '（ａ）'",
}


def test_the_messy_script_imports_with_every_repair_and_drop_reported(tmp_path):
    report, folder = _import(MESSY, tmp_path)
    assert report.status == "imported", report.problems
    script = load_script(folder)  # valid as written
    dropped, repaired, notes = _keys(report.dropped), _keys(report.repaired), _keys(report.notes)
    assert set(dropped) == set(MESSY_DROPPED)
    for key, words in MESSY_DROPPED.items():
        assert any(words in m for m in dropped[key]), (key, dropped[key])
    assert set(repaired) == set(MESSY_REPAIRED)
    for key, words in MESSY_REPAIRED.items():
        assert any(words in m for m in repaired[key]), (key, repaired[key])
    assert "answer: 'b.' read as B" in repaired["role[1].q[0]"]
    assert "answer: 'Ａ' read as A" in repaired["role[0].r_q[0]"]
    # drafts and logs beside env_p_all.json are not read, and say so
    assert any("env_p_all_old.json, log_2024.json" in m for m in notes[""])
    assert {"task_m", "role[1].self", "version", "img"} <= set(notes)

    assert [r.name for r in script.roles] == ["李 明", "赵雪", "孙强", "吴芳"]  # 钱多多 has no script
    assert script.murderer.name == "孙强" and script.truth.murderer == "孙强"
    assert script.role("赵雪").introduction is None and script.tasks.murderer is None
    assert script.key_roles == ["李 明", "赵雪"]
    assert script.reasoning_chain == {"p": ["十点一刻有落水声。"], "1-step": ["孙强十点后去过甲板。"],
                                      "3-step": ["孙强是凶手。"]}
    lsu = [(q.role, q.question, q.answer) for q in script.questions.lsu]
    assert lsu == [("李 明", "李明十点在哪里？", "A"), ("李 明", "李明几点听见落水声？", "B"),
                   ("赵雪", "赵雪十点在做什么？", "B"), ("赵雪", "赵雪看见孙强拿着什么？", "C"),
                   ("孙强", "孙强说自己整晚在哪里？", "A"), ("孙强", "孙强做什么生意？", "A")]
    assert script.questions.lsu[-1].options.items() == [("A", "木材"), ("B", "茶叶"), ("C", "丝绸")]
    assert script.questions.lsu[0].options.A == "驾驶舱"
    # every question is kept: '1-Step' is depth 2, '9-step' depth 10 (an imported script may go past
    # 5), and one without a source keeps its question with depth unknown
    assert [(q.question, q.hops) for q in script.questions.mmr] == [
        ("落水声是几点？", 1), ("谁十点后去过甲板？", 2), ("凶手是谁？", 10), ("吴芳整晚在哪里？", "unknown")]
    assert "no source" in notes["key_clues_questions[3]"][0]
    assert [q.options.D for q in script.questions.tiu] == ["十二点"] and script.questions.miu == []
    files = {c.caption: c.file for c in script.image_clues}
    assert files == {"信.gif": "img-01.png", "甲板.jpg": "img-02.png"}
    for file in files.values():
        assert sniff((folder / file).read_bytes()) == "png"
    assert _play(script).over


# ---- refused ---------------------------------------------------------------------------------

def test_the_unplayable_script_is_refused_naming_file_and_key(tmp_path):
    [report] = import_release(BROKEN, tmp_path)
    assert report.status == "refused" and report.folder is None
    assert report.refused == (f"{BROKEN / 'env_p_all.json'}: murder: murderer '周七' is not among the roles "
                              "(甲, 乙, 丙)")
    assert not (tmp_path / report.script_id).exists()
    assert json.loads((tmp_path / f"{report.script_id}{REPORT_SUFFIX}").read_text("utf-8"))["status"] == "refused"


def _release(tmp_path: Path, data: Any, raw: bytes | None = None) -> Path:
    folder = tmp_path / "case"
    folder.mkdir()
    (folder / "env_p_all.json").write_bytes(raw if raw is not None else json.dumps(data).encode())
    return folder


ROLES = [{"name": "甲", "back": "你是甲。", "m": 0}, {"name": "乙", "back": "你是乙。", "m": 1}]


@pytest.mark.parametrize("data, raw, key, words", [
    ({"ju_name": "x"}, None, "role", "no roles"),
    ({"role": []}, None, "role", "no roles"),
    ({"role": [{"name": "甲", "m": 1}, {"name": "乙"}]}, None, "role", "no playable role"),
    ({"role": [{**r, "m": 0} for r in ROLES]}, None, "murder", "no role is flagged m = 1"),
    ({"role": ROLES, "murder": "甲"}, None, "role[1].m", "the murderer is ambiguous"),
    ({"role": [{"name": "甲", "back": "你是甲。", "m": 1}, {"name": "乙", "m": 0}], "murder": "甲"}, None, "role",
     "one playable role"),
    (None, b"{not json", "", "not valid JSON"),
    (None, b"\xff\xfe{}", "", "not UTF-8"),
])
def test_other_unplayable_scripts_are_refused_with_file_and_key(tmp_path, data, raw, key, words):
    folder = _release(tmp_path, data, raw)
    [report] = import_release(folder, tmp_path / "out")
    file = str(folder / "env_p_all.json")
    assert report.status == "refused" and report.refused.startswith(f"{file}: {key}: " if key else f"{file}: ")
    assert words in report.refused


def test_a_murderer_missing_from_murder_is_taken_from_the_one_m_flag(tmp_path):
    folder = _release(tmp_path, {"role": ROLES})
    report, out = _import(folder, tmp_path / "out")
    assert report.status == "imported" and load_script(out).murderer.name == "乙"
    assert "the one role flagged m = 1 ('乙') taken" in _keys(report.repaired)["murder"][0]


# ---- the command -----------------------------------------------------------------------------

def test_the_command_imports_a_folder_of_script_folders(tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "space_app", "import-whodunit", str(RELEASE), str(out)],
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert run.returncode == 1, run.stderr  # one of the three is refused
    lines = run.stdout.splitlines()
    assert lines[-1].startswith("3 script(s): 2 imported, 1 not")
    assert any(line.startswith("refused   ") and "broken_case" in line and "murder:" in line for line in lines)
    assert any(line.startswith("imported  messy_case/env_p_all.json") and "9 dropped" in line for line in lines)
    assert "  dropped   role[1].q[2]: answer: 'e' names option E" in run.stdout
    assert sorted(p.name for p in out.iterdir()) == sorted([
        "messy-case", "messy-case" + REPORT_SUFFIX, "broken-case" + REPORT_SUFFIX,
        script_id_for("雨夜书房"), script_id_for("雨夜书房") + REPORT_SUFFIX])
    check = subprocess.run([sys.executable, "-m", "space_app", "validate-scripts", str(out)],
                           capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert check.returncode == 0 and "2 of 2 script(s) valid" in check.stdout


def test_the_command_takes_one_folder_an_id_and_an_image_kind(tmp_path, capsys):
    out = tmp_path / "out"
    assert main([str(CLEAN), str(out), "--id", "rainy-study", "--image-kind", "text-rich"]) == 0
    assert "1 script(s): 1 imported, 0 not" in capsys.readouterr().out
    script = load_script(out / "rainy-study")
    assert {c.kind for c in script.image_clues} == {"text-rich"}
    # a second import replaces the first; a folder that is not an import is never overwritten
    assert main([str(CLEAN), str(out), "--id", "rainy-study"]) == 0
    shutil.copytree(MYSTERY_FIXTURES / "valid-minimal", out / "valid-minimal")
    assert main([str(CLEAN), str(out), "--id", "valid-minimal"]) == 1
    said = capsys.readouterr().out
    assert "not-written " in said and "is not an imported script; not overwritten" in said
    assert validate_script(out / "valid-minimal") == []
    assert main([str(tmp_path / "nothing"), str(out)]) == 2
    assert main([str(RELEASE), str(out), "--id", "one"]) == 2


# ---- the format's relaxation is for imported scripts only -------------------------------------

def test_an_original_script_still_needs_what_an_imported_one_may_lack(tmp_path):
    folder = tmp_path / "valid-minimal"
    shutil.copytree(MYSTERY_FIXTURES / "valid-minimal", folder)
    data = json.loads((folder / "script.json").read_text("utf-8"))
    del data["roles"][0]["introduction"], data["background"], data["truth"]["motive"]
    data["truth"]["account"] = "All of it."
    (folder / "script.json").write_text(json.dumps(data), encoding="utf-8")
    found = {p.key: p.message for p in validate_script(folder)}
    assert set(found) == {"roles[0].introduction", "background", "truth.motive", "truth.account"}
    assert "only an imported script may leave it out" in found["background"]
    data["imported"] = {"source": "whodunitbench", "file": "x/env_p_all.json"}
    data["reasoning_chain"] = {}
    (folder / "script.json").write_text(json.dumps(data), encoding="utf-8")
    assert validate_script(folder) == []
    data["imported"]["source"] = "elsewhere"  # the marker names a known release format
    (folder / "script.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ScriptError, match="imported.source"):
        load_script(folder)


# ---- reading the loose text ------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "几点？a. 三点 b. 四点 c. 五点 d. 六点",
    "几点？a.三点b.四点c.五点d.六点",
    "几点？ａ．三点ｂ．四点ｃ．五点ｄ．六点",
    "几点？\nA) 三点\nB) 四点\nC) 五点\nD) 六点",
    "几点？(a) 三点；(b) 四点；(c) 五点；(d) 六点",
    "几点？A、三点 B、四点 C、五点 D、六点",
])
def test_option_formats_read_alike(text):
    parsed = parse_question(text)
    assert parsed.stem == "几点？" and parsed.options == {"A": "三点", "B": "四点", "C": "五点", "D": "六点"}


@pytest.mark.parametrize("text, options", [
    ("几点？a. 三点 b. 四点 c. 五点", {"A": "三点", "B": "四点", "C": "五点"}),
    ("几点？(a) 三点 (b) 四点", {"A": "三点", "B": "四点"}),
    ("几点？\nA) 三点\nB) 四点\nC) 五点", {"A": "三点", "B": "四点", "C": "五点"}),
])
def test_two_and_three_option_questions_are_read(text, options):
    parsed = parse_question(text)
    assert parsed.stem == "几点？" and parsed.options == options
    assert parse_answer("c" if "C" in options else "b", options).letter == ("C" if "C" in options else "B")
    with pytest.raises(Unreadable, match="not among its options A-B"):
        parse_answer("d", {"A": "三点", "B": "四点"})


@pytest.mark.parametrize("text, words", [
    ("几点？a. 三点", "no a. / b. / c. / d. options"),
    ("几点？a. 三点 b. 四点 c、五点 d、六点", "a C marker in another style follows"),
    ("几点？a. 三点 b. 四点 c. 五点 d. 六点 e. 七点", "5 options"),
    ("几点？a. 三点 b. 三点 c. 五点 d. 六点", "options A and B are the same"),
    ("几点？", "no a. / b. / c. / d. options"),
    ("a. 三点 b. 四点 c. 五点 d. 六点", "no text before the options"),
])
def test_a_question_that_cannot_be_read_says_why(text, words):
    with pytest.raises(Unreadable, match=words):
        parse_question(text)


OPTIONS = {"A": "三点", "B": "四点", "C": "五点", "D": "六点"}


@pytest.mark.parametrize("answer, letter", [
    ("B", "B"), ("b", "B"), ("b.", "B"), ("(b)", "B"), ("Ｂ", "B"), ("答案：b", "B"), ("答案是B", "B"),
    ("b. 四点", "B"), ("四点", "B"), ("B选项", "B"), ("选b", "B"), ("答案：选项B。", "B"),
])
def test_answer_formats_read_alike(answer, letter):
    assert parse_answer(answer, OPTIONS).letter == letter


@pytest.mark.parametrize("answer, words", [
    ("e", "not among its options A-D"), ("b. 五点", "its text differs"), ("七点", "names no option"),
    (None, "missing"), ("  ", "empty"),
])
def test_an_answer_that_names_no_option_is_refused(answer, words):
    with pytest.raises(Unreadable, match=words):
        parse_answer(answer, OPTIONS)


def test_an_image_is_known_by_its_bytes_not_its_name(tmp_path):
    buf = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(buf, format="PNG")
    (tmp_path / "photo.jpg").write_bytes(buf.getvalue())
    image = read_image(tmp_path / "photo.jpg")
    assert image.suffix == ".png" and image.data == buf.getvalue() and "content is PNG" in image.repair
    (tmp_path / "cut.png").write_bytes(buf.getvalue()[:30])
    with pytest.raises(ValueError, match="not a readable image"):
        read_image(tmp_path / "cut.png")


# ---- every notation, clue pool, copy and option count ---------------------------------------

ROLE_NAMES = ["王伯", "林晓", "陈默", "周远"]


@pytest.mark.parametrize("source, depth, form", [
    ("p", 1, "p"), ("P", 1, "p"),
    ("p-1", 1, "p-N"), ("p-3", 3, "p-N"), ("P_2", 2, "p-N"), ("p4", 4, "p-N"),
    ("r-1", 1, "r-N"), ("b-1", 1, "b-N"), ("r-2", 2, "r-N"),
    ("1-step", 2, "N-step"), ("2-step", 3, "N-step"), ("1-Step", 2, "N-step"), ("3步", 4, "N-step"),
    ("2", 2, "N"), (3, 3, "N"),
    ("林晓-p-2", 2, "name+p-N"), ("p-1 林晓", 1, "name+p-N"), ("管家王伯-r-1", 1, "name+r-N"), ("林晓-2", 2, "name+N"),
    ("l", "unknown", "l"), ("x", "unknown", "x"), ("p-n", "unknown", "p-n"), ("p-N", "unknown", "p-n"),
    ("周远", "unknown", "name"), ("林晓-l", "unknown", "name+l"),
    ("p-0", "unknown", "p-N"), ("p-99", "unknown", "p-N"),
    (None, "unknown", "missing"), ("  ", "unknown", "missing"), ("whatever it is", "unknown", "unrecognised"),
    ([1], "unknown", "not text"),
])
def test_every_depth_notation_of_the_release_is_read(source, depth, form):
    found = depth_of(source, ROLE_NAMES)
    assert (found.depth, found.form) == (depth, form)
    assert (found.why != "") == (depth == "unknown")
    if form.startswith("name"):
        assert found.role in ROLE_NAMES


@pytest.mark.parametrize("key, level", [
    ("p", "p"), ("p-1", "p"), ("p-2", "1-step"), ("p-4", "3-step"), ("2-step", "2-step"), ("1step", "1-step"),
    ("p-0", None), ("林晓", None), ("r-1", None),
])
def test_a_pool_key_in_the_p_n_notation_is_a_chain_level(key, level):
    assert chain_level(key) == level


def test_every_sound_question_of_the_notations_script_is_kept(tmp_path):
    report, folder = _import(FOG, tmp_path)
    assert report.status == "imported" and validate_script(folder) == []
    script = load_script(folder)
    dropped, merged, notes = _keys(report.dropped), _keys(report.merged), _keys(report.notes)

    # depth per question, in the release's order (docs/script-format.md, "Reasoning depth")
    mmr = {q.question: q.hops for q in script.questions.mmr}
    assert mmr == {
        "码头的汽笛是几点响的？": 1,  # p
        "仓库门口的铜纽扣是谁的？": 3,  # p-3
        "谁在九点四十去过灯塔？": 1,  # r-1
        "死者约谁十点在仓库见面？": 1,  # b-1
        "凶手是谁？": "unknown",  # l
        "陈默为什么要去仓库？": 3,  # x, but its copy in key_clue_q gives key_sc p-3
        "仓库后门为什么开着？": "unknown",  # p-n
        "林晓看见灯塔上的人影时是几点？": 2,  # 林晓-p-2
        "周远几点才回到船上？": "unknown",  # a name alone
        "死者给周远的船票是去哪里的？": 2,  # p-2, two options
        "陈默的铜纽扣为什么会掉？": 3,  # 2-step, three options
        "死者发现了陈默的什么事？": "unknown",  # no source
        "陈默用什么打死了死者？": 4,  # p-4
    }
    assert "depth 3 from this copy's source 'p-3'" in merged["key_clue_q.q[0]"][0]
    assert merged["key_clue_q.q[0]"][0].startswith("reshuffled options:")
    assert merged["key_clue_q.q[1]"][0].startswith("exact copy:")
    assert "'l' names no level" in notes["key_clues_questions[4]"][0]
    assert "'p-n'" in notes["key_clues_questions[6]"][0] and "not a number" in notes["key_clues_questions[6]"][0]
    # a question whose copies give different correct answers: both left out, and said why
    for key in ("key_clues_questions[13]", "key_clue_q.q[2]"):
        assert "different correct answers ('仓库' and '灯塔')" in dropped[key][0]

    # character-keyed pools are the characters' clues; level keys (p-3 too) the chain
    assert {r.name: r.clues for r in script.roles} == {
        "王伯": ["王伯十点一刻在仓库门口捡到一枚铜纽扣。"],
        "林晓": ["九点四十林晓在灯塔上看见了陈默。", "仓库的后门开着一条缝。"],
        "陈默": ["陈默袖口少了一枚铜纽扣。"],
        "周远": ["死者给了周远一张去宁波的船票。"]}
    assert script.reasoning_chain == {"p": ["十点码头的汽笛响了一声。", "仓库门口有一枚铜纽扣。"],
                                      "1-step": ["陈默九点以后不在家。"], "2-step": ["陈默十点在仓库见了死者。"]}
    assert "'p-3' read as '2-step'" in _keys(report.repaired)["key_clues_pool.p-3"][0]
    assert "a title before the name" in _keys(report.repaired)["key_clues_pool.管家 王伯"][0]
    assert "neither a reasoning depth" in dropped["key_clues_pool.草稿"][0]

    # LSU copies: same correct answer kept once (reshuffled, other wrong options, exact); different
    # correct answers dropped both
    lsu = [(q.role, q.question, q.answer, len(q.options.items())) for q in script.questions.lsu]
    assert lsu == [("王伯", "王伯几点听见码头的汽笛？", "B", 4), ("王伯", "王伯在仓库门口捡到了什么？", "A", 3),
                   ("王伯", "王伯锁了仓库的后门吗？", "B", 2), ("林晓", "林晓在灯塔看见了谁？", "A", 4),
                   ("陈默", "陈默说自己九点以后在哪里？", "A", 4), ("周远", "周远替谁看管渔船？", "B", 2),
                   ("周远", "周远几点回到渔船？", "C", 3)]
    assert merged["role[0].q[0]"][0].startswith("reshuffled options:")
    assert merged["role[1].q[0]"][0].startswith("different wrong options:")
    assert merged["role[2].r_q[1]"][0].startswith("exact copy:")
    assert set(dropped) == {"role[1].r_q[1]", "role[1].q[1]", "key_clues_questions[13]", "key_clue_q.q[2]",
                            "key_clues_pool.草稿"}
    assert [len(q.options.items()) for q in script.questions.tiu] == [3]

    # the closing table: read = kept + merged + dropped, per kind
    table = {row.kind: row for row in report.table}
    got = {k: (r.read, r.kept, r.merged, r.dropped, r.fewer_options, r.unknown_depth) for k, r in table.items()}
    assert got == {"lsu": (12, 7, 3, 2, 4, 0), "tiu": (1, 1, 0, 0, 1, 0), "miu": (1, 1, 0, 0, 0, 0),
                   "mmr": (17, 13, 2, 2, 2, 4), "clues": (10, 9, 0, 1, 0, 0)}
    lines = report.summary().splitlines()
    assert lines[-6].split() == ["kind", "read", "kept", "merged", "dropped", "repaired", "2-3", "options", "depth",
                                 "unknown"]
    assert lines[-2].split()[:5] == ["MMR", "17", "13", "2", "2"] and lines[-1].split()[0] == "clues"
    assert "  merged    reshuffled options x2, different wrong options x1, exact copy x2 (each in the report)" in lines


def test_two_scripts_of_one_title_are_named(tmp_path, capsys):
    assert main([str(NOTATIONS), str(tmp_path)]) == 0
    out = capsys.readouterr().out
    reports = {r.source: r for r in (ImportReport.model_validate_json(p.read_text("utf-8"))
                                     for p in tmp_path.glob(f"*{REPORT_SUFFIX}"))}
    fog, draft = reports["雾港疑案/env_p_all.json"], reports["雾港疑案_初稿/env_p_all.json"]
    assert fog.same_title == ["雾港疑案_初稿/env_p_all.json"] and draft.same_title == ["雾港疑案/env_p_all.json"]
    assert "  title     '雾港疑案' is also the title of 雾港疑案_初稿/env_p_all.json" in out
    assert any(e.key == "ju_name" and draft.script_id in e.message for e in fog.notes)


def test_the_quiz_offers_each_question_its_own_options(tmp_path):
    _, folder = _import(FOG, tmp_path)
    items = {i["question"]: i for i in suite_items(load_script(folder))}
    assert items["王伯锁了仓库的后门吗？"]["options"] == {"A": "锁了", "B": "没锁"}
    assert list(items["陈默的铜纽扣为什么会掉？"]["options"]) == ["A", "B", "C"]
    assert items["凶手是谁？"]["tags"]["hops"] == "unknown" and items["陈默用什么打死了死者？"]["tags"]["hops"] == 4
