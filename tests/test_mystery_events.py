"""The murder mystery's events as models: every kind a few seeded matches emit reads back as its
own model, stores exactly what the game stored before its events were models (the fixture
`fixtures/events/mystery.json` was written by that code), and agents are shown the same kinds
and history items as before.

`python tests/test_mystery_events.py` rewrites the fixture from the current code: only for a
deliberate change of what the game stores (old stores would no longer verify)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sdk import Observation
from sdk.observation import ABSTAIN
from space_app.core import get_game
from space_app.core.events import ENVELOPE, Event, InvalidAction, Private
from space_app.core.game import Outcome
from space_app.games.mystery.agents import NaiveMysteryAgent, RandomMysteryAgent
from space_app.games.mystery.catalog import ShippedMysteryGame, ShippedSettings, get_script
from space_app.games.mystery.coe.matrix import faction, outcome
from space_app.games.mystery.coe.scores import seat_of
from space_app.games.mystery.events import (
    KINDS,
    SPEECH,
    Clue,
    GameOver,
    MysterySetup,
    Phase,
    Silence,
    Start,
    Statement,
    Vote,
    VoteResult,
)
from space_app.games.mystery.metrics import records
from space_app.games.mystery.rules import MysteryGame, MysterySettings
from space_app.games.mystery.scripts.script import Script
from space_app.games.mystery.view import VIEW
from space_app.runner import outcome_text

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "events" / "mystery.json"
Reply = Callable[[MysteryGame, str, Observation], str | None]


# -- the matches ---------------------------------------------------------------------------------
def shipped(script_id: str, seed: int, **settings: Any) -> ShippedMysteryGame:
    script = get_script(script_id)
    values = {"script": script_id, "players": len(script.roles), **settings}
    return ShippedMysteryGame([r.name for r in script.roles], seed, ShippedSettings(**values))


def small_script() -> Script:
    """Three characters, one without an introduction, a text clue and an image clue."""
    roles = [
        {"name": "Ada", "introduction": "The cook.", "script": "You were in the garden from nine to ten.",
         "murderer": False},
        {"name": "Ben", "script": "You struck the lord with the candlestick at ten.", "murderer": True},
        {"name": "Cy", "introduction": "The gardener.", "script": "You were in the shed all night.",
         "murderer": False},
    ]
    return Script.model_validate({
        "id": "small", "title": "A small case", "language": "en", "background": "The lord is dead.",
        "roles": roles, "reasoning_chain": {"p": ["The candlestick is missing."]}, "key_roles": ["Ada"],
        "text_clues": [{"id": "t1", "title": "The pantry", "text": "The candlestick is gone."}],
        "image_clues": [{"id": "i1", "file": "plan.png", "caption": "The floor plan", "kind": "media-rich"}],
        "truth": {"murderer": "Ben", "motive": "Debts.", "method": "A candlestick."},
        "tasks": {"murderer": "Hide it."}})


def agents(by_role: dict[str, Any]) -> Reply:
    """Agents by role ("murderer"/"innocent"), their replies read as the runner reads them."""
    def reply(game: MysteryGame, seat: str, obs: Observation) -> str | None:
        raw = getattr(by_role[game.roles[seat]], obs.verb)(obs)
        return outcome_text(raw, obs)[0]
    return reply


def unruly(game: MysteryGame, seat: str, obs: Observation) -> str | None:
    """Every way a turn can go wrong: silence (empty or unusable), questioning oneself or no
    character, an empty question, an unanswered one, a vote for no character, an abstention."""
    first = obs.round in (None, 1)
    if obs.phase == "introduction":
        return {"Ada": "I am Ada, the cook.", "Ben": "  ", "Cy": None}[seat]
    if obs.phase == "share":
        return "   " if seat == "Ada" and first else f"{seat} shares in round {obs.round}."
    if obs.phase == "choose":
        if first:
            return {"Ada": "ada", "Ben": "nobody at all", "Cy": None}[seat]
        return obs.options[-1]
    if obs.phase == "ask":
        return "" if seat == "Ada" and first else f"{seat} asks: where were you at ten?"
    if obs.phase == "answer":
        return None if first else f"{seat} was in the hall."
    if obs.phase == "reasoning":
        return None if seat == "Cy" else f"{seat} suspects Ben: debts, a candlestick."
    return {"Ada": "Ben", "Ben": ABSTAIN, "Cy": "the lord himself"}[seat]


def play(game: MysteryGame, reply: Reply) -> tuple[MysteryGame, list[Observation]]:
    seen: list[Observation] = []
    while not game.over:
        requests = game.pending()
        outcomes = []
        for r in requests:
            seen.append(r.observation)
            text = reply(game, r.seat, r.observation)
            outcomes.append(Outcome(r.seat, text, "ok" if text is not None else "unparseable"))
        game.submit(outcomes)
    return game, seen


def matches() -> dict[str, tuple[MysteryGame, list[Observation]]]:
    naive, random = NaiveMysteryAgent(), RandomMysteryAgent()
    small = small_script()
    return {
        "alder-playhouse naive": play(shipped("alder-playhouse", 3, rounds=1),
                                      agents({"murderer": naive, "innocent": naive})),
        "tingyu-teahouse random and naive": play(shipped("tingyu-teahouse", 1, rounds=1),
                                                 agents({"murderer": random, "innocent": naive})),
        "small unruly": play(MysteryGame([r.name for r in small.roles], 5, MysterySettings(players=3, rounds=2),
                                         small), unruly),
    }


def snapshot() -> dict[str, Any]:
    """Each match's stored events and the history its first seat was last shown."""
    out = {}
    for name, (game, seen) in matches().items():
        last = [o for o in seen if o.you == game.seats[0]][-1]
        out[name] = {"events": [e.to_dict() for e in game.events],
                     "history": [h.model_dump(mode="json") for h in last.history]}
    return out


# -- the checks ----------------------------------------------------------------------------------
# the kinds agents were shown as history before the kinds were models (the rules' `history_kinds`)
FORMER_HISTORY_KINDS = {"start", "clue", "phase", "introduction", "statement", "question", "answer", "reasoning",
                        "silence", "question_target", "vote", "vote_result", "game_over", "invalid_action"}
OWN_KINDS = {"setup", "start", "clue", "phase", "introduction", "statement", "question", "answer", "reasoning",
             "silence", "question_target", "vote", "vote_result", "game_over", "invalid_action"}


@pytest.fixture(scope="module")
def played() -> dict[str, tuple[MysteryGame, list[Observation]]]:
    return matches()


@pytest.fixture(scope="module")
def stored() -> dict[str, Any]:
    return json.loads(FIXTURE.read_text())


def test_the_spec_names_the_games_kinds():
    assert get_game("mystery").rules.events is KINDS
    assert OWN_KINDS <= set(KINDS.by_kind)
    assert all(KINDS.model_of(k) is not Event for k in OWN_KINDS)


def test_every_kind_is_emitted_and_reads_back_as_its_own_model(played):
    emitted = {e.kind for game, _ in played.values() for e in game.events}
    assert emitted == OWN_KINDS | {"private"}
    for game, _ in played.values():
        for e in game.events:
            assert type(e) is not Event and KINDS.model_of(e.kind) is type(e)
            back = KINDS.parse(e.to_dict())
            assert type(back) is type(e) and back == e and back.payload() == e.payload()
            assert KINDS.parse(e) is e


def test_what_is_stored_is_what_the_game_stored_before(played, stored):
    """Same events, same fields in the same order, same values: old stores verify unchanged."""
    assert set(stored) == set(played)
    for name, (game, _) in played.items():
        rows = stored[name]["events"]
        assert len(rows) == len(game.events), name
        for row, e in zip(rows, game.events, strict=True):
            now = json.loads(json.dumps(e.to_dict(), ensure_ascii=False))
            assert {k: now[k] for k in ENVELOPE if k in now} == {k: row[k] for k in ENVELOPE if k in row}, row
            assert json.dumps(now["data"], ensure_ascii=False) == json.dumps(row["data"], ensure_ascii=False), row


def test_stored_rows_read_as_their_models(stored):
    for match in stored.values():
        for i, row in enumerate(match["events"]):
            e = KINDS.parse({**row, "seq": i})
            assert type(e) is KINDS.model_of(row["kind"]) and type(e) is not Event, row["kind"]
            assert e.payload() == row["data"] and e.seq == i and e.text == row["text"]


def test_agents_are_shown_the_same_history(played, stored):
    assert {k for k, model in KINDS.by_kind.items() if model.in_history} == FORMER_HISTORY_KINDS
    for name, (game, seen) in played.items():
        last = [o for o in seen if o.you == game.seats[0]][-1]
        assert [h.model_dump(mode="json") for h in last.history] == stored[name]["history"], name
        assert {h.kind for h in last.history} <= FORMER_HISTORY_KINDS
        for h in last.history:  # a house agent reads each item as the event it was
            e = KINDS.from_history(h)
            assert type(e) is KINDS.model_of(h.kind) and e.actor == h.who and e.images == h.images


def test_each_kind_says_how_it_is_shown(played):
    game, _ = played["small unruly"]
    by_kind = {e.kind: e for e in game.events}
    assert all(model.style == "said" for model in SPEECH) and Statement.icon == "💬"
    assert Phase.style == "heading" and MysterySetup.style == "spoiler" and Private.style == "secret"
    assert Vote.icon == "🗳️" and VoteResult.icon == "📊" and Start.icon == "🎬" and GameOver.icon == "🏁"
    silence = by_kind["silence"]
    assert isinstance(silence, Silence) and silence.why() == silence.reason != ""
    invalid = by_kind["invalid_action"]
    assert isinstance(invalid, InvalidAction) and invalid.why() == invalid.reason != ""
    assert all(e.marker() is None for e in game.events)
    clue = next(e for e in game.events if isinstance(e, Clue) and e.images)
    assert clue.pictures() == ["mystery/small/plan.png"] and clue.caption == "The floor plan"


def test_readers_give_the_same_from_stored_rows_and_from_models(played):
    game, _ = played["alder-playhouse naive"]
    seats = [{"seat": s, "agent_id": f"agent-{i % 2}"} for i, s in enumerate(game.seats)]
    rows = {"id": "m", "status": "finished", "seats": seats, "settings": game.settings.model_dump(),
            "events": [{**e.to_dict(), "seq": i} for i, e in enumerate(game.events)]}
    models = {**rows, "events": KINDS.parse_all(rows["events"])}
    assert records(rows) == records(models)
    for panel in VIEW.panels:
        assert panel.build(rows["events"], None).equals(panel.build(models["events"], None)), panel.title
    assert outcome(rows) == outcome(models) != "error" and faction(rows) == faction(models)
    for seat in game.seats:
        assert seat_of(rows, seat) == seat_of(models, seat)
    assert get_game("mystery").rules.replay_note(rows) is None


if __name__ == "__main__":
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(snapshot(), ensure_ascii=False, indent=1) + "\n")
    sys.exit(0)
