"""The MuMA-ToM importer: the published files (questions.json, texts.json) become a suite file
that loads with nothing dropped; every quirk is reported with its episode, question and key;
--strict refuses what non-strict mode flags; the command's exit codes."""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

import pytest

from space_app.suites.items import load_suite
from space_app.suites.muma_import import (
    Decoded,
    Unreadable,
    absent_names,
    capitalised_names,
    configure,
    decode_bytes_text,
    import_muma_tom,
    main,
    parse_answer,
    parse_question,
    phrasing,
    write_suite,
)

FIXTURES = Path(__file__).parent / "fixtures" / "muma"
CLEAN_Q, CLEAN_T = FIXTURES / "clean_questions.json", FIXTURES / "clean_texts.json"
MESSY_Q, MESSY_T = FIXTURES / "messy_questions.json", FIXTURES / "messy_texts.json"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _by_id(path: Path) -> dict[str, dict]:
    return {row["id"]: row for row in _lines(path)}


def _expected_clean() -> dict[str, dict]:
    """What the clean fixture says, read independently of the importer (its layout is canonical)."""
    out = {}
    for episode, entry in json.loads(CLEAN_Q.read_text(encoding="utf-8")).items():
        context = ast.literal_eval(entry["description"]).decode("utf-8")
        for n, question in entry["questions"].items():
            stem, *option_lines = question.split("\n")
            out[f"{episode}-{n}"] = {
                "context": context, "question": stem,
                "options": {line[0]: line[3:] for line in option_lines},
                "answer": entry["answers"][n][0], "types": [entry["labels"][n]],
                "tags": {"episode": episode, "phrasing": "least" if "LEAST" in stem else "most", "source": "muma-tom"},
            }
    return out


# ---------------------------------------------------------------- the clean pair

def test_the_clean_pair_round_trips_exactly(tmp_path):
    out = tmp_path / "clean.jsonl"
    assert main([str(CLEAN_Q), "--texts", str(CLEAN_T), str(out)]) == 0
    expected = _expected_clean()
    written = _by_id(out)
    assert list(written) == list(expected) and len(written) == 7
    for item_id, want in expected.items():
        got = written[item_id]
        assert got["suite"] == "muma-tom" and got["images"] == []
        for key, value in want.items():
            assert got[key] == value, (item_id, key)
    loaded = load_suite(out)
    assert len(loaded.items) == 7 and loaded.dropped == [] and loaded.repaired == []
    report = (tmp_path / "clean.jsonl.report.txt").read_text(encoding="utf-8")
    assert "7 written (0 flagged), 0 dropped, 0 repaired" in report
    assert "belief: 3 / 0" in report and "social_goal: 2 / 0" in report and "belief_of_goal: 2 / 0" in report
    assert "load_suite reads 7 items, 0 dropped, 0 repaired" in report


def test_importing_twice_gives_byte_identical_files(tmp_path):
    first, second = tmp_path / "a" / "s.jsonl", tmp_path / "b" / "s.jsonl"
    for out in (first, second):
        out.parent.mkdir()
        assert main([str(CLEAN_Q), "--texts", str(CLEAN_T), "--context", "texts", str(out)]) == 0
    assert first.read_bytes() == second.read_bytes()
    assert Path(f"{first}.report.txt").read_bytes().replace(b"/a/", b"/b/") == Path(f"{second}.report.txt").read_bytes()
    # and the messy pair, whose report lists everything, is stable too
    assert main([str(MESSY_Q), str(first)]) == 0 and main([str(MESSY_Q), str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()


def test_the_texts_can_be_the_context(tmp_path):
    result = import_muma_tom(CLEAN_Q, CLEAN_T, context="texts")
    texts = json.loads(CLEAN_T.read_text(encoding="utf-8"))
    assert [i.context for i in result.items] == [texts[i.tags["episode"]] for i in result.items]
    assert not any(o.flags or o.dropped or o.repairs for o in result.outcomes) and result.notes == []


# ---------------------------------------------------------------- the messy pair

def test_every_messy_case_is_reported_with_its_id_and_reason(tmp_path, capsys):
    out = tmp_path / "messy.jsonl"
    assert main([str(MESSY_Q), "--texts", str(MESSY_T), str(out)]) == 0
    report = capsys.readouterr().out
    assert report == Path(f"{out}.report.txt").read_text(encoding="utf-8")
    where = "(messy_questions.json, episode '{}', question {}): "
    for item_id, reason in [
        ("ep11-1", "options: written as (A); read as A, B, C"),
        ("ep11-1", "answer: given as the letter only ('B')"),
        ("ep11-2", "answer: its text 'José was trying to help Zoë.' disagrees with option B"),
        ("ep11-3", "label: unknown label 'intention'"),
        ("ep12-1", "description: not a valid bytes literal (unterminated string literal"),
        ("ep12-2", "options: no A) / B) / C) options found"),
        ("ep13-1", "options: written on one line; read as A, B, C"),
        ("ep13-2", "options: written in lower case; read as A, B, C"),
        ("ep13-2", "names: the question names Sophia, never found in the context"),
        ("ep14-1", "label: missing"),
        ("ep14-1", "options: written as A.; read as A, B, C"),
    ]:
        episode, n = item_id.split("-")
        assert f"{item_id} {where.format(episode, n)}{reason}" in report, (item_id, reason)
    assert "4 episodes, 9 entries: 8 written (5 flagged), 1 dropped, 4 repaired" in report
    assert "messy_texts.json: episode 'ep99' has no entry in messy_questions.json" in report
    assert "ep14-2" not in report  # sound: its answer only lacks a space
    assert "intention: 1 / 0" in report and "(no label): 1 / 0" in report and "social_goal: 2 / 1" in report


def test_the_messy_pair_loads_with_what_was_meant_and_its_flags(tmp_path):
    out = tmp_path / "messy.jsonl"
    assert main([str(MESSY_Q), str(out)]) == 0
    loaded = load_suite(out)
    assert loaded.dropped == [] and loaded.repaired == []  # even with a U+2028 inside a context
    rows = _by_id(out)
    assert list(rows) == ["ep11-1", "ep11-2", "ep11-3", "ep12-1", "ep13-1", "ep13-2", "ep14-1", "ep14-2"]
    # non-ASCII names escaped as UTF-8 bytes come back, and are found in the question: no flag
    assert rows["ep11-1"]["context"].startswith("José and Zoë are in the kitchen.")
    assert "\u2028Zoë: \"Where is the cake?\"\nJosé: \"It's on the table.\"" in rows["ep11-1"]["context"]
    assert rows["ep11-1"]["options"] == {"A": "José believed the cake was on the table.",
                                         "B": "José believed the cake was in the oven.",
                                         "C": "José did not know where the cake was."}
    assert rows["ep11-1"]["answer"] == "B" and "flags" not in rows["ep11-1"]["tags"]
    # the letter is trusted over a disagreeing text, and flagged
    assert rows["ep11-2"]["answer"] == "B" and rows["ep11-2"]["tags"]["flags"][0].startswith("answer: its text")
    assert rows["ep11-3"]["types"] == ["intention"] and rows["ep11-3"]["tags"]["flags"][0].startswith("label: unknown")
    # a broken literal falls back to its text, escapes decoded, flagged
    assert rows["ep12-1"]["context"] == ("Olivia put the keys in the drawer and went out.\nLucas: Where are my keys?"
                                         "\nOlivia: On the shelf.")
    assert rows["ep12-1"]["tags"]["flags"][0].startswith("description: not a valid bytes literal")
    # options on one line, Windows newlines, a lower-case answer letter with extra spaces
    assert rows["ep13-1"]["question"] == "Judging by how Harper responded, which of the following is LEAST likely?"
    assert rows["ep13-1"]["options"]["C"] == "Harper thinks Mason was acting independently."
    assert rows["ep13-1"]["answer"] == "C" and rows["ep13-1"]["tags"]["phrasing"] == "least"
    assert rows["ep13-2"]["tags"]["flags"] == ["names: the question names Sophia, never found in the context"]
    assert rows["ep14-1"]["types"] == [] and rows["ep14-1"]["tags"]["flags"] == ["label: missing"]
    assert rows["ep14-2"]["tags"] == {"episode": "ep14", "phrasing": "most", "source": "muma-tom"}
    assert rows["ep14-2"]["answer"] == "A"


def test_with_texts_as_context_a_missing_episode_is_flagged(tmp_path):
    result = import_muma_tom(MESSY_Q, MESSY_T, context="texts")
    flags = {o.item_id: o.flags for o in result.outcomes}
    assert flags["ep13-1"] == ["context: episode missing from messy_texts.json; used its description"]
    assert "context: episode missing from messy_texts.json; used its description" in flags["ep13-2"]
    assert flags["ep12-1"] == []  # the broken description is not used: a note, not a flag
    assert any(n.startswith("messy_questions.json: episode 'ep12': description: not a valid bytes literal")
               for n in result.notes)
    contexts = {i.id: i.context for i in result.items}
    assert contexts["ep14-1"] == "Aria: Could you help me find my phone?\nLeo: Sure, it is under the pillow."
    assert contexts["ep11-1"] == json.loads(MESSY_T.read_text(encoding="utf-8"))["ep11"]


# ---------------------------------------------------------------- strict

@pytest.mark.parametrize("context, kept", [
    ("description", ["ep11-1", "ep13-1", "ep14-2"]),
    ("texts", ["ep11-1", "ep12-1", "ep14-2"]),
])
def test_strict_refuses_what_non_strict_flags(tmp_path, context, kept):
    lenient = import_muma_tom(MESSY_Q, MESSY_T, context=context)
    strict = import_muma_tom(MESSY_Q, MESSY_T, context=context, strict=True)
    assert [i.id for i in strict.items] == kept
    flagged = {o.item_id for o in lenient.outcomes if o.flags and o.item is not None}
    assert {i.id for i in lenient.items} == set(kept) | flagged
    refused = {o.item_id: o.dropped for o in strict.outcomes if o.item is None}
    assert set(refused) == flagged | {"ep12-2"}
    for item_id in flagged:
        assert all(why.startswith("refused (--strict): ") for why in refused[item_id])
    out = tmp_path / "strict.jsonl"
    report = write_suite(strict, out)
    assert "flagged (written with tags.flags)" not in report
    assert f"dropped ({len(flagged)} refused as flagged)" in report
    assert "ep11-2 (messy_questions.json, episode 'ep11', question 2): refused (--strict): answer:" in report
    rows = _lines(out)
    assert [r["id"] for r in rows] == kept and not any("flags" in r["tags"] for r in rows)
    assert load_suite(out).dropped == []


# ---------------------------------------------------------------- the command

def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_exit_codes(tmp_path, capsys):
    out = tmp_path / "out.jsonl"
    assert main([str(MESSY_Q), "--texts", str(MESSY_T), "--context", "texts", "--strict", str(out)]) == 0
    unusable = _write(tmp_path / "q.json", {"e1": {"description": "b'Ann and Bo.'", "questions": {"1": "Why?"},
                                                   "answers": {"1": "A"}, "labels": {"1": "belief"}}})
    fresh = tmp_path / "none.jsonl"
    assert main([str(unusable), str(fresh)]) == 1  # nothing usable: nothing written, but a report
    assert not fresh.exists()
    assert "e1-1 (q.json, episode 'e1', question 1): options: no A) / B) / C) options found" in \
        Path(f"{fresh}.report.txt").read_text(encoding="utf-8")
    flagged_only = _write(tmp_path / "f.json", {"e1": {"description": "b'Ann and Bo.'",
                                                       "questions": {"1": "Is Cy here?\nA) yes\nB) no"},
                                                       "answers": {"1": "B"}}})
    assert main([str(flagged_only), str(tmp_path / "f.jsonl")]) == 0
    assert main([str(flagged_only), "--strict", str(tmp_path / "g.jsonl")]) == 1
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    assert main([str(tmp_path / "bad.json"), str(out)]) == 2
    assert main([str(_write(tmp_path / "list.json", [1, 2])), str(out)]) == 2
    assert main([str(tmp_path / "missing.json"), str(out)]) == 2
    assert main([str(CLEAN_Q), "--context", "texts", str(out)]) == 2  # texts as context, but no texts
    assert main([str(CLEAN_Q), "--context", "video", str(out)]) == 2  # argparse's usage error
    assert main([str(CLEAN_Q)]) == 2  # no OUT
    err = capsys.readouterr().err
    assert "not JSON" in err and "expected an object mapping episode ids" in err and "--context texts needs" in err


def test_the_subcommand_wires_into_a_parser_in_one_call(tmp_path):
    parser = argparse.ArgumentParser(prog="python -m space_app")
    configure(parser.add_subparsers(dest="command", required=True).add_parser("import-muma-tom"))
    out = tmp_path / "s.jsonl"
    args = parser.parse_args(["import-muma-tom", str(CLEAN_Q), "--texts", str(CLEAN_T), "--strict", str(out)])
    assert args.func(args) == 0 and len(load_suite(out).items) == 7


# ---------------------------------------------------------------- the pieces

def test_a_description_is_never_evaluated(tmp_path):
    canary = tmp_path / "canary"
    decoded = decode_bytes_text(f"b'' if open({str(canary)!r}, 'w') else b''")
    assert not canary.exists()
    assert decoded.problem and decoded.problem.startswith("not a valid bytes literal (not a single bytes literal)")
    assert decode_bytes_text("__import__('os')").problem == "not a bytes literal (b'...'); used as plain text"


@pytest.mark.parametrize("raw, text, problem", [
    ("b'Ren\\xc3\\xa9e said \\'hi\\'\\nthen left'", "Renée said 'hi'\nthen left", None),
    ('b"It\'s here"', "It's here", None),
    ("b'Jos\\xe9'", "José", "its bytes are not UTF-8; read as Windows-1252"),
    ("b'\\x81\\x8d'", "\ufffd\ufffd", "its bytes are not UTF-8; undecodable bytes replaced by U+FFFD"),
    ("b'bad \\x4 escape'", "bad \\x4 escape", "not a valid bytes literal"),
    ("b'Zo\\xc3\\xab at home", "Zoë at home", "not a valid bytes literal"),
    ("Ann went home.", "Ann went home.", "not a bytes literal"),
    ("  ", "", "empty"),
    (None, "", "not text"),
])
def test_decoding_descriptions(raw, text, problem):
    decoded = decode_bytes_text(raw)
    assert decoded.text == text
    if problem is None:
        assert decoded.problem is None
    else:
        assert decoded.problem is not None and decoded.problem.startswith(problem)


def test_plain_text_is_fine_where_a_literal_is_not_required():
    assert decode_bytes_text("Ann: hi", expect_literal=False).problem is None
    assert decode_bytes_text("b'Ann:\\nhi'", expect_literal=False).text == "Ann:\nhi"
    assert decode_bytes_text("B's house", expect_literal=False) == Decoded("B's house")
    assert decode_bytes_text("B'Ann' left", expect_literal=False).problem is None


@pytest.mark.parametrize("question, stem, options", [
    ("Q?\nA) one\nB) two\nC) three", "Q?", {"A": "one", "B": "two", "C": "three"}),
    ("Q?\r\n(A) one\r\n(B) two", "Q?", {"A": "one", "B": "two"}),
    ("Q?\n  a)   one \n  b)  two", "Q?", {"A": "one", "B": "two"}),
    ("Q?\nA. one\nB. two\nC.three", "Q?", {"A": "one", "B": "two", "C": "three"}),
    ("Q? A) one B) two C) three", "Q?", {"A": "one", "B": "two", "C": "three"}),
    ("Lead.\nQ?\nA) one, longer\nwrapped\nB) two", "Lead.\nQ?", {"A": "one, longer wrapped", "B": "two"}),
    ("At 9 A.M. Ann left.\nQ?\nA) one\nB) two", "At 9 A.M. Ann left.\nQ?", {"A": "one", "B": "two"}),
])
def test_options_in_the_tolerated_layouts(question, stem, options):
    parsed = parse_question(question)
    assert (parsed.stem, parsed.options) == (stem, options)


@pytest.mark.parametrize("question, why", [
    ("Q?\n1. one\n2. two", "options: no A) / B) / C) options found"),
    ("Q?\nA) only one", "options: no A) / B) / C) options found"),
    ("Q? A) one B) two or B) three", "options: 'B)' appears 2 times on one line; the split is ambiguous"),
    ("A) one\nB) two", "question: no text before the options"),
    ("Q?\nA)\nB) two", "options: option A is empty"),
    (["Q?"], "question: not text"),
])
def test_questions_without_usable_options_are_unreadable(question, why):
    with pytest.raises(Unreadable, match=r"^" + why.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")):
        parse_question(question)


OPTIONS = {"A": "Ann was helping.", "B": "Ann was hindering.", "C": "Ann was indifferent."}


@pytest.mark.parametrize("answer, letter, flagged, repaired", [
    ("B) Ann was hindering.", "B", False, False),
    ("  b )Ann  was hindering ", "B", False, False),
    ("(B) Ann was hindering.", "B", False, False),
    ("B", "B", False, True),
    ("b.", "B", False, True),
    ("Ann was hindering.", "B", False, True),
    ("B) Ann was helping.", "B", True, False),
    ("D) Ann was hindering.", "B", True, False),
])
def test_answers(answer, letter, flagged, repaired):
    read = parse_answer(answer, OPTIONS)
    assert (read.letter, bool(read.flags), bool(read.repairs)) == (letter, flagged, repaired)


@pytest.mark.parametrize("answer", ["D", "D) Ann left.", "", None, 2, "Ann left."])
def test_answers_that_name_no_option_are_unreadable(answer):
    with pytest.raises(Unreadable, match=r"^answer: "):
        parse_answer(answer, OPTIONS)


def test_phrasing_and_names():
    assert phrasing("Which is MOST likely?") == "most" and phrasing("which is least likely?") == "least"
    assert phrasing("What did Ann do?") is None
    assert phrasing("Of the most common, which is LEAST likely?") == "least"
    names = capitalised_names("If José's friend Mary-Ann helped, which is MOST likely? Suppose Émile left.")
    assert names == ["José", "Mary-Ann", "Émile"]
    assert absent_names(names, "josé met MARY-ANN.") == ["Émile"]
