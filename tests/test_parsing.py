"""sdk.parsing.parse_choice: free-text votes become exactly valid options, or a reason."""

from __future__ import annotations

import pytest

from sdk.parsing import Choice, parse_choice

P = [f"P{i}" for i in range(1, 11)]  # P1..P10: "P1" is a prefix of "P10"


def ok(choice: Choice, *picks: str) -> None:
    assert choice.ok, choice
    assert choice.picks == list(picks), choice
    assert not choice.abstain
    assert choice.reason == ""


def not_ok(choice: Choice) -> Choice:
    assert not choice.ok, choice
    assert choice.reason, "a failed parse must say why"
    return choice


# -- the P1 / P10 trap ------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("P10", "P10"),
    ("p10", "P10"),
    ("I vote P1.", "P1"),
    ("P10 is the spy", "P10"),
    ("P10 is the spy.\n", "P10"),
    ("I vote P1 because P10 lied", "P1"),
    ("Final answer: P10", "P10"),
    ("Final answer: P1", "P1"),
])
def test_p1_never_matches_inside_p10(text, expected):
    ok(parse_choice(text, P), expected)


def test_p10_is_the_spy_names_only_p10():
    choice = parse_choice("P10 is the spy", P)
    ok(choice, "P10")
    assert "P1" not in choice.picks


# -- reasoning followed by an explicit final answer ----------------------------------
@pytest.mark.parametrize("text, expected", [
    ("P2 was vague and P3 repeated P4, while P5 stayed quiet.\nFinal answer: P6", "P6"),
    ("P2 was vague and P3 repeated P4. Final answer: P5", "P5"),
    ("P1 accused P10, and P10 defended P7.\nMy vote is P7.", "P7"),
    ("Let me think: P3 seems honest, P4 does not.\nVote: P4", "P4"),
    ("P3 and P4 both hesitated. I will vote for P3.", "P3"),
])
def test_reasoning_naming_several_players_then_final_answer(text, expected):
    choice = parse_choice(text, P)
    ok(choice, expected)
    assert choice.via == "explicit"


@pytest.mark.parametrize("text, expected", [
    ("Final answer: P2\nHmm, no. P9 was worse.\nFinal answer: P9", "P9"),
    ("Final answer: P2. Hmm, actually, final answer: P7", "P7"),  # same line
    ("I vote P2. On reflection I vote for P9.", "P9"),
    ("Final answer: I vote P4", "P4"),
])
def test_several_explicit_answers_the_last_wins(text, expected):
    ok(parse_choice(text, P), expected)


def test_bare_keyword_in_reasoning_is_not_an_answer():
    # "a vote from P3" is not "vote: P3"; the last line decides
    ok(parse_choice("P2 got a vote from P3 last round.\nP5", P), "P5")


# -- JSON ---------------------------------------------------------------------------
def test_plain_json():
    choice = parse_choice('{"vote": "P3"}', P)
    ok(choice, "P3")
    assert choice.via == "json"


def test_json_in_a_fence_after_reasoning():
    text = 'P1 and P2 look suspicious, but P4 slipped.\n```json\n{"vote": "P4"}\n```'
    choice = parse_choice(text, P)
    ok(choice, "P4")
    assert choice.via == "json"


def test_json_in_a_bare_fence_and_case_insensitive_key():
    ok(parse_choice('```\n{"Final_Answer": "p10"}\n```', P), "P10")


def test_json_list_for_a_multi_pick():
    ok(parse_choice('{"team": ["P1", "P4"]}', P, pick=2), "P1", "P4")
    ok(parse_choice('["P2", "P10"]', P, pick=2), "P2", "P10")
    ok(parse_choice('Team proposal:\n```json\n{"team": ["P3", "P5", "P6"]}\n```', P, pick=3),
       "P3", "P5", "P6")


def test_json_naming_an_unknown_option_is_not_repaired():
    not_ok(parse_choice('{"vote": "P11"}', P))


def test_json_with_the_wrong_number_of_picks():
    choice = not_ok(parse_choice('{"team": ["P1"]}', P, pick=2))
    assert "2" in choice.reason


# -- multi-pick ------------------------------------------------------------------
def test_multi_pick_duplicates_are_removed():
    ok(parse_choice('{"team": ["P1", "P1", "P4"]}', P, pick=2), "P1", "P4")
    ok(parse_choice("Final answer: P1, P1, P4", P, pick=2), "P1", "P4")
    ok(parse_choice("Team: P10, P1, P10", P, pick=2), "P10", "P1")
    ok(parse_choice("P3 and P3 and P7", P, pick=2), "P3", "P7")


def test_multi_pick_with_too_few_is_not_ok():
    choice = not_ok(parse_choice("Final answer: P5", P, pick=2))
    assert choice.picks == ["P5"]


def test_multi_pick_with_too_many_is_not_ok():
    choice = not_ok(parse_choice("P1 P2 P3", P, pick=2))
    assert choice.picks == ["P1", "P2", "P3"]


# -- abstention ------------------------------------------------------------------
@pytest.mark.parametrize("text", ["abstain", "Abstain.", "Final answer: abstain", '{"vote": null}',
                                  '{"vote": "abstain"}', "I think I will pass this round"])
def test_abstention_allowed(text):
    choice = parse_choice(text, P, allow_abstain=True)
    assert choice.ok and choice.abstain and choice.picks == [], choice
    assert choice.as_text() == "abstain"


@pytest.mark.parametrize("text", ["abstain", "Final answer: abstain", '{"vote": null}',
                                  '{"vote": "abstain"}', "I think I will pass this round"])
def test_abstention_not_allowed(text):
    choice = not_ok(parse_choice(text, P, allow_abstain=False))
    assert not choice.abstain and choice.picks == []


def test_abstention_reason_says_it_is_not_allowed():
    assert "abstention is not allowed" in parse_choice("abstain", P).reason
    assert "abstention is not allowed" in parse_choice('{"vote": "abstain"}', P).reason


def test_an_option_still_wins_when_abstention_is_allowed():
    ok(parse_choice("Final answer: P3", P, allow_abstain=True), "P3")


# -- garbage -----------------------------------------------------------------------
@pytest.mark.parametrize("text, reason", [
    ("", "empty"),
    ("   \n\t ", "empty"),
    ("asdkj qwe zzz", "none of the options"),
    ("{not json", "none of the options"),
    (None, "NoneType"),
    (3, "int"),
    (["P1"], "list"),
    ({"vote": "P1"}, "dict"),
    (b"P1", "bytes"),
])
def test_garbage_empty_and_non_text(text, reason):
    choice = not_ok(parse_choice(text, P))
    assert reason in choice.reason
    assert choice.picks == []


def test_no_options_is_not_ok():
    not_ok(parse_choice("P1", []))


# -- Chinese ----------------------------------------------------------------------
def test_chinese_vote_without_spaces():
    choice = parse_choice("我投张三", ["张三", "李四"])
    ok(choice, "张三")


def test_chinese_reasoning_then_vote():
    ok(parse_choice("张三和李四都可疑，但李四更像卧底。我投李四", ["张三", "李四"]), "李四")
    ok(parse_choice("最终答案：张三", ["张三", "李四"]), "张三")
    ok(parse_choice("李四", ["张三", "李四"]), "李四")


def test_chinese_ambiguous():
    choice = not_ok(parse_choice("我觉得张三和李四都很可疑", ["张三", "李四"]))
    assert "张三" in choice.reason and "李四" in choice.reason


# -- options that are prefixes of each other ------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("Anna", "Anna"),
    ("Ann", "Ann"),
    ("I vote Ann", "Ann"),
    ("I vote Anna.", "Anna"),
    ("Final answer: Anna", "Anna"),
    ("ANNA did it", "Anna"),
    ("Annabel is a nice name, but vote: Ann", "Ann"),
])
def test_prefix_options(text, expected):
    ok(parse_choice(text, ["Ann", "Anna"]), expected)
    ok(parse_choice(text, ["Anna", "Ann"]), expected)  # option order does not matter


def test_prefix_options_both_named_is_ambiguous():
    choice = not_ok(parse_choice("Ann and Anna both lied", ["Ann", "Anna"]))
    assert sorted(choice.picks) == ["Ann", "Anna"]


# -- case-insensitivity ------------------------------------------------------------
@pytest.mark.parametrize("text", ["final ANSWER: p3", "FINAL ANSWER: P3", "i VOTE p3", "p3",
                                  '{"VOTE": "p3"}'])
def test_case_insensitive(text):
    ok(parse_choice(text, P), "P3")  # the option comes back spelled as given


def test_case_insensitive_names():
    ok(parse_choice("final answer: alice", ["Alice", "Bob"]), "Alice")


# -- ambiguity without a final answer ----------------------------------------------------
def test_two_names_without_final_answer_is_ambiguous_and_lists_them():
    choice = not_ok(parse_choice("P2 seems suspicious, but P3 also does.", P))
    assert "ambiguous" in choice.reason
    assert "P2" in choice.reason and "P3" in choice.reason
    assert choice.picks == ["P2", "P3"]


def test_ambiguity_across_lines_is_settled_by_the_last_line():
    ok(parse_choice("P2 seems suspicious, and so does P3.\nP3", P), "P3")


def test_as_text_for_multi_pick():
    assert parse_choice('{"team": ["P4", "P1"]}', P, pick=2).as_text() == "P4, P1"
