"""The interface's catalogues: every language has every key with the same placeholders,
every key the interface asks for exists, and the transcript and result table speak the
match's language."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from space_app.core.events import GENERIC
from space_app.ui import i18n
from space_app.ui.replay import result_markdown, transcript_html

UI = Path(i18n.__file__).parent


def placeholders(words: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(words) if name}


@pytest.mark.parametrize("language", [code for code in i18n.LANGUAGES if code != i18n.DEFAULT_LANGUAGE])
def test_every_catalogue_has_every_key_with_the_same_placeholders(language):
    default, other = i18n.catalogue(i18n.DEFAULT_LANGUAGE), i18n.catalogue(language)
    assert set(other) == set(default), set(other) ^ set(default)
    for key, words in default.items():
        assert placeholders(other[key]) == placeholders(words), key
        assert other[key].strip(), key


def test_every_key_the_interface_asks_for_exists():
    asked = set()
    for module in UI.glob("*.py"):
        source = module.read_text(encoding="utf-8")
        asked |= set(re.findall(r"""\btext\([^,()]+,\s*["']([a-z_]+\.[a-z_0-9]+)["']""", source))
        asked |= set(re.findall(r"""=\s*["']([a-z]+\.[a-z_0-9]+)["']""", source)) & set(i18n.catalogue("en"))
    assert asked, "no catalogue lookups found"
    missing = sorted(asked - set(i18n.catalogue("en")))
    assert not missing, missing
    assert len(asked) > 60


def test_an_unknown_language_falls_back_and_an_unknown_key_is_an_error():
    assert i18n.text("fr", "play.start") == i18n.text("en", "play.start") == "Start match"
    assert i18n.text("zh", "play.seat", name="P2") == "座位 P2"
    with pytest.raises(KeyError):
        i18n.text("en", "play.no_such_key")


def test_a_chinese_match_reads_in_chinese_around_the_games_own_lines():
    match = {"id": "abc123", "seed": 7, "status": "finished", "settings": {"language": "zh"},
             "seats": [{"seat": "P1", "agent_name": "a"}, {"seat": "P2", "agent_name": "b"}],
             "result": {"winner": "spy", "scores": {"P1": 12, "P2": 0}, "roles": {"P1": "spy", "P2": "civilian"}}}
    table = result_markdown(match, (("role", "roles"),))
    assert "胜方" in table and "| 座位 | 智能体 | role | 得分 |" in table
    assert i18n.language_of(match) == "zh" and i18n.language_of({"settings": {"language": "xx"}}) == "en"
    events = [{"seq": 1, "kind": "private", "actor": "P1", "round": 1, "visible_to": ["P1"],
               "text": "你的词是「苹果」。", "data": {}}]
    html = transcript_html(GENERIC.parse_all(events), {"P1": "a"}, language="zh")
    assert "只有 <b>P1</b>" in html and "苹果" in html
    assert "还没有事件" in transcript_html([], language="zh")
    told = [{"seq": 2, "kind": "private", "actor": "host", "round": 0, "visible_to": ["P2", "P4"],
             "text": "The evil team: P2, P4.", "data": {}}]
    html = transcript_html(GENERIC.parse_all(told), {"P2": "b"})
    assert "(only <b>P2</b>, <b>P4</b> saw this)" in html and "host" not in html
    assert "No events yet" in transcript_html([])


def test_a_games_result_table_uses_its_own_words_in_the_matchs_language():
    from space_app.core import get_game
    from space_app.ui.replay import game_result

    spy = get_game("spy")
    match = {"id": "m1", "seed": 3, "status": "finished", "settings": {"language": "zh"}, "events": [],
             "seats": [{"seat": "P1", "agent_name": "a"}, {"seat": "P2", "agent_name": "b"}],
             "result": {"winner": "civilian", "spy": "P1", "scores": {"P1": 0, "P2": 12},
                        "roles": {"P1": "spy", "P2": "civilian"}, "words": {"P1": "茶", "P2": "咖啡"},
                        "eliminated_round": {"P1": 1}}}
    table = game_result(match, spy)
    assert "**胜方：平民**" in table and "| 身份 | 词语 |" in table and "| P1 | a | 卧底 | 茶 | 0 |" in table
    assert "卧底 P1 在第 1 轮被投出" in table  # the game's own line on why, in Chinese
    english = game_result({**match, "settings": {"language": "en"}}, spy)
    assert "**Winner: civilian**" in english and "| P1 | a | spy | 茶 | 0 |" in english
    assert spy.facts.title_in("zh") == "谁是卧底" and spy.facts.title_in("fr") == spy.title == "Who is the Spy"


def test_an_empty_marker_table_says_there_is_nothing_in_the_page_language():
    from space_app.ui.replay import MARKER_COLUMNS
    from space_app.ui.watch import marker_frame

    for lang, words in (("en", "none up to this step"), ("zh", "到这一步为止没有")):
        frame = marker_frame([], lang)
        assert list(frame.columns) == MARKER_COLUMNS and frame.to_dict("records") == [
            {"round": "", "seat": "", "marker": words, "verb": "", "reason": "", "latency_ms": ""}]
    foul = {"round": 1, "seat": "P2", "marker": "foul", "verb": "speak", "reason": "said the word", "latency_ms": 12}
    assert marker_frame([foul], "en").to_dict("records") == [foul]
