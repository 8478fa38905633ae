"""Murder-mystery scripts: the shipped ones validate and meet the content bar, a broken script is
refused with its file, key and problem named, huge role scripts stay intact, image clues
regenerate byte for byte, and the JSON schema file matches the models."""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from space_app.games.mystery.pictures.drawings import DRAWINGS_FILE, Drawings, load_drawings
from space_app.games.mystery.pictures.images import main as images_main
from space_app.games.mystery.pictures.images import regenerate
from space_app.games.mystery.scripts.problems import ScriptError
from space_app.games.mystery.scripts.script import LETTERS, SCHEMA_FILE, Script, schema_text, script_schema
from space_app.games.mystery.scripts.validate import (
    CONTENT_DIR,
    load_script,
    script_folders,
    validate_all,
    validate_script,
)
from space_app.games.mystery.scripts.validate import main as validate_main

FIXTURES = Path(__file__).parent / "fixtures" / "mystery"
SHIPPED = script_folders(CONTENT_DIR)


def _loadable() -> dict[str, Script]:
    # a broken script must fail test_every_shipped_script_validates with its problems listed,
    # not stop the whole module from being collected
    scripts = {}
    for folder in SHIPPED:
        try:
            scripts[folder.name] = load_script(folder)
        except ScriptError:
            pass
    return scripts


SCRIPTS = _loadable()


# ---- every shipped script -------------------------------------------------------------------

def test_every_shipped_script_validates():
    results = validate_all(CONTENT_DIR)
    assert len(results) >= 2
    assert {folder: [str(p) for p in problems] for folder, problems in results.items() if problems} == {}
    assert sum(s.language == "en" for s in SCRIPTS.values()) >= 2


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_shipped_script_meets_the_content_bar(name):
    script = SCRIPTS[name]
    q = script.questions
    assert 4 <= len(script.roles) <= 7
    assert len(script.image_clues) >= 3
    assert {c.kind for c in script.image_clues} == {"text-rich", "media-rich"}
    per_role = Counter(x.role for x in q.lsu)
    assert {r.name: per_role[r.name] >= 20 for r in script.roles} == {r.name: True for r in script.roles}
    assert len(q.tiu) >= 5 and len(q.miu) >= 5
    assert len(q.mmr) >= 15
    assert {x.hops for x in q.mmr} == {1, 2, 3, 4, 5}
    assert script.chain_depth >= 1 and script.key_roles
    assert all(script.role(name).clues for name in script.key_roles), "a key role lists its clue statements"
    assert script.murderer.name not in script.key_roles


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_role_scripts_are_long_private_stories(name):
    for role in SCRIPTS[name].roles:
        paragraphs = [p for p in role.script.split("\n\n") if p.strip()]
        assert len(paragraphs) >= 4, f"{role.name}: {len(paragraphs)} paragraphs"
        if SCRIPTS[name].language == "en":
            assert len(role.script.split()) >= 500, f"{role.name}: {len(role.script.split())} words"
        else:
            assert len(role.script) >= 1000, f"{role.name}: {len(role.script)} characters"
            assert re.search(r"[\u4e00-\u9fff]", role.script)


def test_at_least_one_script_needs_three_or_more_reasoning_steps():
    assert max(s.chain_depth for s in SCRIPTS.values()) >= 3


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_answer_letters_are_balanced_and_not_given_away_by_length(name):
    questions = [q for _, q in SCRIPTS[name].all_questions()]
    letters = Counter(q.answer for q in questions)
    for letter in LETTERS:
        assert 0.2 <= letters[letter] / len(questions) <= 0.3, dict(letters)
    for part in ("lsu", "tiu", "miu", "mmr"):
        assert set(LETTERS) <= {q.answer for q in getattr(SCRIPTS[name].questions, part)}, part
    # a correct option that is always the longest is a tell; allow no more than chance and a bit
    longest = sum(_strictly_longest(q.options.items(), q.answer) for q in questions)
    assert longest / len(questions) <= 1 / 3, f"{longest} of {len(questions)}"


def _strictly_longest(options: list[tuple[str, str]], answer: str) -> bool:
    lengths = {letter: len(text) for letter, text in options}
    top = max(lengths.values())
    return lengths[answer] == top and list(lengths.values()).count(top) == 1


# ---- refused, with file, key and problem named ----------------------------------------------

BROKEN = [
    ("missing-role-field", "roles[0].script", "required field 'script' is missing"),
    ("murderer-not-among-roles", "truth.murderer", "'Clara' is not among the roles"),
    ("answer-not-among-options", "questions.mmr[0].answer", "answer letter 'E' is not among its options"),
    ("missing-image-file", "image_clues[0].file", "missing image file"),
]


def test_the_valid_fixture_is_valid():
    assert validate_script(FIXTURES / "valid-minimal") == []


@pytest.mark.parametrize("folder, key, words", BROKEN)
def test_a_broken_fixture_is_refused_naming_file_key_and_problem(folder, key, words):
    problems = validate_script(FIXTURES / folder)
    assert len(problems) == 1, [str(p) for p in problems]
    problem = problems[0]
    assert problem.file == str(FIXTURES / folder / "script.json")
    assert problem.key == key and words in problem.message
    with pytest.raises(ScriptError) as err:
        load_script(FIXTURES / folder)
    assert f"{FIXTURES / folder / 'script.json'}: {key}: " in str(err.value) and words in str(err.value)


def _with(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    """A defect made by editing the valid fixture's script.json."""
    def apply(folder: Path) -> None:
        path = folder / "script.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        change(data)
        path.write_text(json.dumps(data), encoding="utf-8")
    return apply


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        target = data
        for part in parents:
            target = target[part]
        target[last] = value
    return change


def _add_image(kind: str, question_part: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["image_clues"] = [{"id": "plan", "file": "plan.png", "caption": "A plan.", "kind": kind}]
        data["questions"][question_part] = [{"image": "plan", "question": "What?",
                                             "options": {k: f"option {k}" for k in LETTERS}, "answer": "A"}]
    return change


MORE_DEFECTS = [
    (_with(_set("questions.lsu.0.role", "Zed")), "questions.lsu[0].role", "unknown role 'Zed'"),
    (_with(_set("key_roles", ["Ada", "Zed"])), "key_roles[1]", "'Zed' is not among the roles"),
    (_with(_set("reasoning_chain", {})), "reasoning_chain", "the reasoning chain is empty"),
    (_with(_set("reasoning_chain.1-step", [])), "reasoning_chain.1-step", "no clue statements"),
    (_with(_set("reasoning_chain.3-step", ["a leap"])), "reasoning_chain", "'3-step' without '2-step'"),
    (_with(_set("roles.1.name", "Ada")), "roles[1].name", "duplicate role name 'Ada'"),
    (_with(_set("roles.0.murderer", True)), "roles", "2 roles are flagged murderer"),
    (_with(_set("roles.1.murderer", False)), "roles", "no role is flagged"),
    (_with(_set("truth.murderer", "Ada")), "truth.murderer", "disagrees with the role flagged murderer"),
    (_with(_set("id", "another-name")), "id", "differs from its folder name"),
    (_with(_set("questions.lsu.0.options.B", "In the greenhouse")), "questions.lsu[0].options",
     "options A and B are the same"),
    (_with(_set("questions.mmr.0.hops", 6)), "questions.mmr[0].hops", "less than or equal to 5"),
    (_with(_set("roles.0.scirpt", "typo")), "roles[0].scirpt", "unknown field 'scirpt'"),
    (_with(_set("language", "fr")), "language", "'en' or 'zh'"),
    (_with(_set("title", "   ")), "title", "must not be blank"),
    (_with(lambda d: d["text_clues"].append({"id": "boots", "title": "Again", "text": "Twice."})),
     "text_clues[1].id", "duplicate clue id 'boots'"),
    (_with(_add_image("media-rich", "tiu")), "questions.tiu[0].image", "TIU asks about text-rich images"),
    (_with(lambda d: d["image_clues"].append({"id": "x", "file": "../escape.png", "caption": "c",
                                               "kind": "media-rich"})),
     "image_clues[0].file", "must be a file name inside the script folder"),
]


@pytest.mark.parametrize("defect, key, words", MORE_DEFECTS)
def test_each_defect_is_named(tmp_path, defect, key, words):
    folder = tmp_path / "valid-minimal"
    shutil.copytree(FIXTURES / "valid-minimal", folder)
    defect(folder)
    problems = validate_script(folder)
    assert any(p.key == key and words in p.message for p in problems), [str(p) for p in problems]
    assert all(p.file == str(folder / "script.json") for p in problems)


@pytest.mark.parametrize("content, words", [
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "expected a JSON object"),
    (b"\xff\xfe\x00junk", "not UTF-8"),
])
def test_a_malformed_file_is_a_problem_not_a_crash(tmp_path, content, words):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "script.json").write_bytes(content)
    [problem] = validate_script(folder)
    assert words in problem.message and problem.file == str(folder / "script.json")
    assert "missing file" in validate_script(tmp_path / "nothing-here")[0].message


def test_an_unreadable_image_is_named(tmp_path):
    folder = tmp_path / "missing-image-file"
    shutil.copytree(FIXTURES / "missing-image-file", folder)
    (folder / "plan.png").write_bytes(b"not a png at all")
    [problem] = validate_script(folder)
    assert problem.key == "image_clues[0].file" and "not a readable image" in problem.message


def test_a_huge_role_script_is_accepted_intact(tmp_path):
    folder = tmp_path / "valid-minimal"
    shutil.copytree(FIXTURES / "valid-minimal", folder)
    paragraph = "At a quarter past nine the clock in the hall struck, and Ada counted the spoons again. "
    huge = "\n\n".join(paragraph * 12 for _ in range(50))[:50_000] + "\n\nThe end, with nothing trimmed.  "
    assert len(huge) > 50_000
    _with(_set("roles.0.script", huge))(folder)
    script = load_script(folder)
    assert script.role("Ada").script == huge


# ---- command line ----------------------------------------------------------------------------

def test_validate_command_reports_each_script(capsys):
    assert validate_main([str(CONTENT_DIR)]) == 0
    out = capsys.readouterr().out
    assert all(f"ok    {folder}" in out for folder in SHIPPED)
    assert validate_main([str(FIXTURES)]) == 1
    out = capsys.readouterr().out
    assert "ok    " + str(FIXTURES / "valid-minimal") in out
    for folder, key, words in BROKEN:
        assert f"FAIL  {FIXTURES / folder}" in out and key in out and words in out
    assert "1 of 5 script(s) valid" in out
    assert validate_main([str(FIXTURES / "no-such-folder")]) == 1


# ---- images ----------------------------------------------------------------------------------

@pytest.mark.parametrize("folder", SHIPPED, ids=lambda f: f.name)
def test_image_clues_regenerate_byte_for_byte(folder):
    outcomes = regenerate(folder, check=True)
    assert outcomes, f"{folder} has no {DRAWINGS_FILE}"
    assert [(o.file.name, o.status) for o in outcomes if o.status != "current"] == []
    drawn = {o.file.name for o in outcomes}
    assert {c.file for c in SCRIPTS[folder.name].image_clues} <= drawn, "every shipped image is drawn by code"


def test_images_command_writes_and_checks(tmp_path, capsys):
    folder = tmp_path / "larkspur"
    shutil.copytree(CONTENT_DIR / "larkspur", folder)
    target = folder / "floor_plan.png"
    target.write_bytes(target.read_bytes()[:-10] + b"0123456789")
    assert images_main(["--check", str(folder)]) == 1
    assert "differs" in capsys.readouterr().out
    target.unlink()
    assert images_main(["--check", str(folder)]) == 1
    assert images_main([str(folder)]) == 0
    assert target.read_bytes() == (CONTENT_DIR / "larkspur" / "floor_plan.png").read_bytes()
    assert images_main(["--check", str(folder)]) == 0


def test_a_drawing_refuses_what_the_font_cannot_draw():
    note = {"drawer": "note", "file": "n.png", "lines": ["caf\u00e9 at nine"]}
    with pytest.raises(ValidationError, match="cannot draw"):
        Drawings.model_validate({"drawings": [note]})
    with pytest.raises(ValidationError, match="unknown colour"):
        Drawings.model_validate({"drawings": [{**note, "lines": [{"text": "hi", "ink": "octarine"}]}]})


def test_a_broken_images_file_is_a_script_problem(tmp_path):
    folder = tmp_path / "valid-minimal"
    shutil.copytree(FIXTURES / "valid-minimal", folder)
    (folder / DRAWINGS_FILE).write_text(json.dumps({"drawings": [{"drawer": "note", "file": "n.png"}]}))
    problems = validate_script(folder)
    assert any(p.file.endswith(DRAWINGS_FILE) and "lines" in p.key for p in problems), [str(p) for p in problems]
    assert load_drawings(FIXTURES / "valid-minimal") is None


# ---- schema ----------------------------------------------------------------------------------

def test_the_schema_file_is_current():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "regenerate it: python -m space_app.games.mystery.scripts.script")
    schema = script_schema()
    assert set(schema["required"]) >= {"id", "title", "language", "roles", "reasoning_chain", "truth", "tasks"}
    assert schema["$defs"]["Role"]["additionalProperties"] is False


def test_the_models_round_trip_a_shipped_script():
    for folder in SHIPPED:
        data = json.loads((folder / "script.json").read_text(encoding="utf-8"))
        # optional fields a shipped script leaves unset (an imported script's relaxations) stay out
        again = Script.model_validate(copy.deepcopy(data)).model_dump(mode="json", exclude_none=True)
        assert again == data


def test_only_an_imported_script_may_leave_a_depth_unknown_or_give_three_options(tmp_path):
    folder = tmp_path / "valid-minimal"
    shutil.copytree(FIXTURES / "valid-minimal", folder)
    data = json.loads((folder / "script.json").read_text("utf-8"))
    data["questions"]["mmr"][0]["hops"] = "unknown"
    data["questions"]["lsu"][0]["options"] = {"A": "One", "B": "Two", "C": "Three"}
    data["questions"]["lsu"][0]["answer"] = "D"
    data["questions"]["mmr"][0]["options"].pop("C")
    (folder / "script.json").write_text(json.dumps(data), encoding="utf-8")
    found = {p.key: p.message for p in validate_script(folder)}
    assert "only an imported script" in found["questions.mmr[0].hops"]
    assert found["questions.lsu[0].answer"] == "answer letter 'D' is not among its options A, B, C"
    assert "a letter is skipped" in found["questions.mmr[0].options"]
    data["imported"] = {"source": "whodunitbench", "file": "x/env_p_all.json"}
    data["questions"]["lsu"][0]["answer"] = "C"
    data["questions"]["mmr"][0]["options"] = {"A": "One", "B": "Two"}
    data["questions"]["mmr"][0]["answer"] = "B"
    (folder / "script.json").write_text(json.dumps(data), encoding="utf-8")
    assert validate_script(folder) == []
