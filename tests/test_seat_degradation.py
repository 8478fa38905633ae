"""A seat whose calls keep failing the same way is marked failing and no longer called; its
skipped turns count as infrastructure, and the record, the replay and `verify` say so."""

from __future__ import annotations

import pytest
from hostile_servers import Server, http_server

from sdk import RemoteAgent
from space_app.config import ArenaConfig, failing_after_setting
from space_app.core.events import GENERIC, Call, SeatDegraded
from space_app.core.facts import INFRA_FAILURES
from space_app.runner import SeatAgent
from space_app.seat_health import SeatHealth, failure_signature
from space_app.service import Arena, MatchPlan
from space_app.standings import unreachable_calls
from space_app.store import Store
from space_app.verify import verify_match

SEAT = "P1"


def acts(server: Server) -> int:
    """Turns the agent's server was asked to play (its `info` reads are not turns)."""
    return sum(1 for path in server.paths() if path.rstrip("/").endswith("/act"))


def play_against(tmp_path, server: Server, failing_after: int) -> tuple[Store, dict]:
    store = Store(tmp_path / "failing.db")
    arena = Arena(store, failing_after=failing_after)
    agent = RemoteAgent(server.url + "any/", timeout=5)  # plays any game
    try:
        # Avalon: a seat that fails its turns stays in the game (its votes count as rejects)
        plan = MatchPlan("avalon", ["house:avalon-rules"] * 5, seed=3)
        outcome = arena.run_in_own_loop(arena.run(plan, extra_agents={SEAT: SeatAgent(agent, "broken-agent")}))
    finally:
        agent.close()
    assert outcome.status == "finished", outcome.error
    match = store.get_match(outcome.match_id)
    assert match is not None
    return store, match


def seat_calls(match: dict) -> list[Call]:
    return [e for e in GENERIC.parse_all(match["events"]) if isinstance(e, Call) and e.actor == SEAT]


def test_a_seat_failing_alike_three_times_is_called_three_times_and_then_skipped(tmp_path):
    with http_server() as server:
        server.fail_act = 500  # the agent's server answers every turn with a bare 500
        store, match = play_against(tmp_path, server, failing_after=3)
        assert acts(server) == 3

    calls = seat_calls(match)
    assert len(calls) > 3, "the seat must have had turns left to skip"
    made, skipped = calls[:3], calls[3:]
    assert all(c.status == "error" and "HTTP 500" in c.detail and not c.skipped for c in made)
    assert all(c.skipped and c.status == "error" and c.detail.startswith("failing: not called") for c in skipped)
    assert all(c.infrastructure for c in skipped) and not any(c.infrastructure for c in made)

    # one event says when and why, right after the third failure, for the replay's markers
    events = GENERIC.parse_all(match["events"])
    (notice,) = [e for e in events if isinstance(e, SeatDegraded)]
    assert notice.state == "failing" and notice.seat == SEAT and notice.after == 3
    assert "3 calls in a row failed the same way" in notice.reason and "HTTP 500" in notice.reason
    assert notice.visible_to == ()  # spectators only: no seat is told
    assert events.index(notice) > events.index(calls[2])
    marker = notice.marker()
    assert marker is not None and marker.marker == "failing"

    # the record counts the skipped turns as infrastructure, and the match still replays
    (record,) = [r for r in store.records("avalon") if r["match_id"] == match["id"] and r["seat"] == SEAT]
    assert record["stats"][INFRA_FAILURES] == len(skipped)
    assert unreachable_calls(match) == {SEAT: len(skipped)}
    checked = verify_match(match)
    assert checked.verdict == "identical", checked.detail
    store.close()


def test_with_failing_after_zero_every_turn_is_called(tmp_path):
    with http_server() as server:
        server.fail_act = 500
        store, match = play_against(tmp_path, server, failing_after=0)
        assert acts(server) == len(seat_calls(match)) > 3
    assert not any(e.get("kind") == "degraded" for e in match["events"])
    store.close()


def test_a_seat_that_answers_keeps_being_called_even_when_its_reply_is_unreadable(tmp_path):
    with http_server() as server:  # it answers every turn with the first option (a team may need more)
        store, match = play_against(tmp_path, server, failing_after=1)
        assert acts(server) == len(seat_calls(match))
    statuses = {c.status for c in seat_calls(match)}
    assert "ok" in statuses and statuses <= {"ok", "unparseable"}
    assert not any(e.get("kind") == "degraded" for e in match["events"])
    store.close()


def call(status: str, detail: str = "") -> Call:
    return Call(actor=SEAT, status=status, detail=detail)


def test_only_failures_alike_in_a_row_mark_a_seat():
    health = SeatHealth(failing_after=2)
    # different kinds of failure, an answer between, an unreadable reply: none is a streak
    assert not health.note(call("error", "agent_failed: HTTP 500: boom"))
    assert not health.note(call("error", "agent_failed: HTTP 502: proxy"))
    assert not health.note(call("ok"))
    assert not health.note(call("error", "agent_failed: HTTP 500: boom"))
    assert not health.note(call("unparseable", "no option named"))
    assert not health.note(call("timeout", "no reply within 10 s"))
    assert health.note(call("timeout", "timeout: no reply within 9.8s"))
    assert health.failing.startswith("2 calls in a row failed the same way (timeout")
    assert not health.note(call("timeout", "again"))  # marked once
    assert failure_signature(call("ok")) is None
    assert failure_signature(call("error", "agent_failed: model endpoint answered 429: slow down")) == \
        "error agent_failed 429"


def test_the_setting_is_read_from_the_environment_and_bad_values_are_named(monkeypatch):
    monkeypatch.delenv("ARENA_FAILING_AFTER", raising=False)
    assert failing_after_setting() == 3
    monkeypatch.setenv("ARENA_FAILING_AFTER", "5")
    assert ArenaConfig.from_env().failing_after == 5
    for bad in ("three", "-1", "2.5"):
        monkeypatch.setenv("ARENA_FAILING_AFTER", bad)
        with pytest.raises(ValueError, match="ARENA_FAILING_AFTER must be a whole number"):
            failing_after_setting()
    with pytest.raises(ValueError, match="failing_after must be 0 or more"):
        Arena(Store(":memory:"), failing_after=-2)


def test_a_person_who_lets_turns_pass_is_never_marked_failing(tmp_path):
    from space_app.agents.human import HumanAgent

    store = Store(tmp_path / "person.db")
    arena = Arena(store, failing_after=1)
    plan = MatchPlan("avalon", ["house:avalon-rules"] * 5, seed=3)
    # a person away from the keyboard: every turn runs out (a short limit keeps the test quick)
    away = SeatAgent(HumanAgent("away"), "human", seconds=0.05)
    outcome = arena.run_in_own_loop(arena.run(plan, extra_agents={SEAT: away}))
    assert outcome.status == "finished", outcome.error
    match = store.get_match(outcome.match_id)
    calls = seat_calls(match)
    assert len(calls) > 3 and all(c.status == "timeout" and not c.skipped for c in calls)
    assert not any(e["kind"] == "degraded" for e in match["events"])
    store.close()
