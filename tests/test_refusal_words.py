"""Refusals a visitor meets on a page are worded in the page's language: raised in English
deep in the arena (admission, the agent catalogue, the API's checks), they carry the key of
their words and the values that fill them; a Chinese page shows the Chinese words, an
English page and every other client the refusal's own message."""

from __future__ import annotations

import asyncio
import re
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest

from space_app.admission import MatchSlots
from space_app.api import ApiError, ArenaAPI
from space_app.config import ArenaConfig
from space_app.refusal import Refusal
from space_app.store import Store
from space_app.ui import i18n

ROOT = Path(__file__).resolve().parents[1]
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture()
def api(tmp_path):
    return ArenaAPI(ArenaConfig(db=str(tmp_path / "arena.db"), demo_matches=0, max_turn_seconds=60))


def refused(call) -> ApiError:
    with pytest.raises(ApiError) as caught:
        call()
    return caught.value


def test_seating_refusals_read_in_chinese_on_a_chinese_page(api):
    cases = {
        "not_playing": lambda: api.plan({"game": "avalon", "seats": ["house:heuristic"]}),
        "unknown_agent": lambda: api.plan({"game": "spy", "seats": ["no-such-agent"]}),
        "too_many_seats": lambda: api.plan({"game": "spy", "seats": ["house:random"] * 9,
                                            "settings": {"players": 6}}),
        "turn_seconds": lambda: api.plan({"game": "spy", "seats": [], "settings": {"seconds": 600}}),
        "no_running_match": lambda: api.cancel_match("m-that-is-not-running", "someone"),
    }
    for key, call in cases.items():
        exc = refused(call)
        assert exc.key == key, (key, str(exc))
        chinese = i18n.refusal("zh", exc)
        assert HAN.search(chinese) and chinese != str(exc), (key, chinese)
        assert "{" not in chinese, chinese  # every placeholder filled
        assert i18n.refusal("en", exc) == str(exc)  # English pages and clients: the message itself
        for value in exc.values.values():  # the Chinese words name what the English names
            if isinstance(value, str) and value and value != "—":
                assert value in chinese, (key, value, chinese)


def test_a_full_arena_and_a_visitors_own_cap_are_said_in_chinese(tmp_path):
    store = Store(tmp_path / "slots.db")
    slots = MatchSlots(store.leases, total=2, per_visitor=1, refuse=ApiError)

    async def entered(slot: AbstractAsyncContextManager[None]) -> ApiError:
        with pytest.raises(ApiError) as caught:
            async with slot:
                pass
        return caught.value

    async def refusals() -> tuple[ApiError, ApiError, ApiError]:
        async with slots.now("ann"):
            mine = await entered(slots.now("ann"))
            async with slots.now("bob"):
                return mine, await entered(slots.now("cy")), await entered(slots.batch("cy"))

    mine, full, batch = asyncio.run(refusals())
    store.close()
    assert (mine.key, full.key, batch.key) == ("your_matches", "arena_full", "arena_full")
    assert i18n.refusal("zh", mine) == "你已有 1 场对局在进行（上限 1）；请等其中一场结束。"
    assert i18n.refusal("zh", full) == "竞技场正在进行 2 场对局，已达上限；请一分钟后再试。"
    assert str(mine) == "You already have 1 matches running (limit 1); wait for one to finish."


def test_a_refusal_without_words_and_one_passed_on_keep_what_they_say():
    plain = ValueError("something odd")
    assert i18n.refusal("zh", plain) == "something odd"  # no words: its own message, never nothing
    worded = Refusal("agent 'x' does not play 'avalon' (it declares: spy)", "not_playing",
                     agent="x", game="avalon", declared="spy")
    passed = ApiError.carrying(worded)
    assert (str(passed), passed.key, passed.values) == (str(worded), worded.key, worded.values)
    assert ApiError.carrying(plain).key is None


def test_every_worded_refusal_is_raised_somewhere_and_has_words_in_every_language():
    keys = {k.split(".", 1)[1] for k in i18n.catalogue("en") if k.startswith("refusal.")}
    assert len(keys) >= 10
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "space_app").rglob("*.py"))
    for key in keys:
        assert re.search(rf"""["']{key}["'][,)]""", source), f"no refusal raises {key!r}"
        for language in i18n.LANGUAGES:
            assert f"refusal.{key}" in i18n.catalogue(language), (language, key)
