"""Who is the Spy's events are models: each kind the game emits reads back as its own model, the
stored fields are exactly the ones the game stored before its events were models, old stores
read through the same models, and the game's readers (metrics, replay panels, why_won,
replay_note, the house agents, the WiS adapter) make the same of them as before."""

from __future__ import annotations

import json
from functools import cache

import pytest

from space_app.core import get_game
from space_app.core.events import Call, Event, InvalidAction, Private
from space_app.games.spy.events import (
    KINDS,
    Elimination,
    End,
    Foul,
    RoundStart,
    SpySetup,
    Start,
    Statement,
    Vote,
    VoteResult,
    WithheldStatement,
)
from space_app.games.spy.rules import SpyGame
from tests.golden import same
from tests.spy_event_matches import (
    FIXTURE,
    READERS,
    all_stored_matches,
    every_match,
    old_store_matches,
    reader_outputs,
    stored,
)

# the kinds agents saw as history before the kinds were models (the game's `history_kinds`)
FORMER_HISTORY_KINDS = {"start", "round_start", "statement", "foul", "elimination", "vote", "vote_result", "end"}
OWN_MODELS = (SpySetup, Start, RoundStart, Statement, Foul, WithheldStatement, Elimination, Vote, VoteResult, End)


@cache
def matches() -> dict[str, SpyGame]:
    return every_match()


def emitted() -> list[Event]:
    return [e for game in matches().values() for e in game.events]


def test_the_game_names_its_kinds_in_its_spec():
    spec = get_game("spy")
    assert spec.rules.events is KINDS
    shared = {"private", "call", "error", "invalid_action", "degraded", "probe"}  # every game's kinds
    assert {m.kind_name() for m in OWN_MODELS} | shared == set(KINDS.by_kind)
    assert all(KINDS.model_of(m.kind_name()) is m for m in OWN_MODELS)
    assert getattr(SpyGame, "history_kinds", frozenset()) == frozenset()  # each model says it itself


def test_the_matches_emit_every_kind_and_every_variant():
    events = emitted()
    assert {type(e) for e in events} == {*OWN_MODELS, Private}
    statements = [e for e in events if isinstance(e, Statement)]
    assert any(e.foul for e in statements) and any(e.truncated for e in statements)
    assert {e.status for e in events if isinstance(e, Foul)} == {"ok", "timeout", "error"}
    assert {e.reason for e in events if isinstance(e, Elimination)} == {"foul", "vote"}
    votes = [e for e in events if isinstance(e, Vote)]
    assert any(e.target for e in votes) and any(e.target is None and e.reason == "abstained" for e in votes)
    results = [e for e in events if isinstance(e, VoteResult)]
    assert any(e.eliminated for e in results) and any(e.eliminated is None for e in results)
    assert {e.language for e in events if isinstance(e, End)} == {"en", "zh"}


def test_the_stored_events_are_exactly_what_the_game_stored_before():
    before = json.loads(FIXTURE.read_text(encoding="utf-8"))
    now = stored(matches())
    assert set(now) == set(before)
    for name, match in before.items():
        assert now[name]["events"] == match["events"], name  # envelope and payload, field by field


def test_fields_left_out_stay_left_out():
    """A field the rule did not pass is not stored (a statement is either cut or a foul)."""
    for e in emitted():
        if isinstance(e, Statement):
            assert set(e.payload()) in ({"truncated"}, {"foul"})
        if isinstance(e, WithheldStatement):
            assert e.payload() == {}
        if isinstance(e, VoteResult) and e.eliminated is None:
            assert e.payload() == {"tally": e.tally, "eliminated": None}  # None is stored, as before
        if isinstance(e, Vote) and e.target is None:
            assert "target" in e.payload()


def test_history_holds_exactly_the_former_history_kinds():
    # the core's invalid action is in every game's history; the spy never emits one
    emitted = {e.kind for game in matches().values() for e in game.events}
    assert "invalid_action" not in emitted
    assert {k for k, model in KINDS.by_kind.items() if model.in_history} - {"invalid_action"} == FORMER_HISTORY_KINDS
    seen: set[str] = set()
    for game in matches().values():
        for seat in game.seats:
            obs = game.observe(seat, "speak", phase="describe", instruction="", round=game.round)
            for item in obs.history:
                model = KINDS.from_history(item)
                assert type(model).in_history and type(model) is not Event
                assert model.payload() == {k: v for k, v in item.data.items()}
                seen.add(item.kind)
    assert seen == FORMER_HISTORY_KINDS


def test_rows_of_a_store_written_long_before_read_as_their_models():
    matches_ = old_store_matches()
    assert matches_
    for match in matches_:
        for row in match["events"]:
            e = KINDS.parse(row)
            assert type(e) is not Event and e.kind == row["kind"], row
            assert e.payload() == row["data"] and e.seq == row["seq"]
        assert any(isinstance(e, Call) for e in KINDS.parse_all(match["events"]))


def test_the_readers_make_the_same_of_stored_matches_as_before():
    before = json.loads(READERS.read_text(encoding="utf-8"))
    now = json.loads(json.dumps(reader_outputs(all_stored_matches()), ensure_ascii=False))
    assert set(now) == set(before)

    def summed(records: list[dict]) -> list[dict]:  # a stat of 0 adds what an absent one adds
        return [{**r, "stats": {k: v for k, v in r["stats"].items() if v}} for r in records]

    for key in before:
        if key != "study_row":
            now[key]["records"], before[key]["records"] = summed(now[key]["records"]), summed(before[key]["records"])
        assert same(now[key], before[key]), (key, now[key], before[key])
    per_match = [v for k, v in before.items() if k != "study_row"]
    assert not any(v["replay_note"] for v in per_match)  # every pair a built-in one: each can be drawn again
    assert len({v["why_won"].split(" ", 3)[-1] for v in per_match}) > 2  # the spy voted out, fouled, survived


def test_readers_take_models_as_well_as_stored_rows():
    from space_app.games.spy.metrics import records
    from space_app.games.spy.view import rounds_table, votes_frame, why_won

    for match in all_stored_matches()[:4] + old_store_matches()[:2]:
        models = {**match, "events": KINDS.parse_all(match["events"])}
        assert [r.model_dump() for r in records(models)] == [r.model_dump() for r in records(match)]
        assert why_won(models) == why_won(match)
        assert rounds_table(models["events"]).equals(rounds_table(match["events"]))
        assert votes_frame(models["events"], upto=30).equals(votes_frame(match["events"], upto=30))


def test_the_wis_adapter_sends_what_it_sent_before():
    before = json.loads(FIXTURE.read_text(encoding="utf-8"))
    now = stored(matches())
    for name, match in before.items():
        assert now[name]["wis"] == match["wis"], name


def test_the_wis_adapter_reads_the_line_when_a_history_item_has_no_fields():
    """An item without its structured fields (e.g. from an older observation) falls back to its line."""
    from sdk.observation import HistoryItem, Observation
    from space_app.games.spy.wis import WiSAgent

    history = [HistoryItem(who="P1", kind="vote", text="P1 votes for P3.", round=1),
               HistoryItem(who="host", kind="vote_result", text="P3 is voted out with 2 vote(s).", round=1)]
    obs = Observation.model_validate({"game": "spy", "phase": "describe", "verb": "speak", "you": "P2",
                                      "seats": ["P1", "P2", "P3"], "match_id": "m", "round": 2,
                                      "history": [h.model_dump() for h in history]})
    assert WiSAgent._map_item(obs, 0) == {"status": "vote", "round": 1, "name": "P1", "message": "P3"}
    assert WiSAgent._map_item(obs, 1) == {"status": "vote_result", "round": 1, "name": "P3", "message": "P3"}


@pytest.mark.parametrize(("model", "icon", "style"), [
    (Statement, "💬", "said"), (RoundStart, "🔔", "heading"), (WithheldStatement, "🙈", "secret"),
    (SpySetup, "🔒", "spoiler"), (Foul, "🚩", "line"), (Elimination, "❌", "line"), (Vote, "🗳️", "line"),
    (VoteResult, "📊", "line"), (Start, "🎬", "line"), (End, "🏁", "line"),
])
def test_each_kind_says_how_it_is_shown(model, icon, style):
    assert (model.icon, model.style) == (icon, style)


def test_reasons_and_markers():
    foul = Foul(actor="P2", round=1, text="P2 fouled.", reason="empty statement", status="ok", shown="", seq=5)
    assert Foul.says_why and Elimination.says_why and not Vote.says_why
    assert foul.why() == "empty statement"
    marker = foul.marker()
    assert marker is not None and (marker.seat, marker.marker, marker.verb, marker.reason, marker.seq) == (
        "P2", "foul", "speak", "empty statement", 5)
    assert Foul(actor="P2", text="P2 fouled.").marker().reason == "P2 fouled."  # no reason: its line
    assert Vote(actor="P1", reason="timeout: no reply").why() == "timeout: no reply"
    assert Elimination(actor="P1", reason="foul").why() == "foul"
    assert all(e.marker() is None for e in emitted() if not isinstance(e, Foul))
    assert InvalidAction in KINDS.by_kind.values()  # the generic kinds stay in the vocabulary
