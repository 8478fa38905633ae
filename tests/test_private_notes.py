"""Private notes (`with_notes`): they travel from an agent Space to the arena, are bounded,
kept in the spectator-only call record (so `verify` replays them) and recorded by Avalon
where only the speaking seat and spectators see them."""

from __future__ import annotations

import asyncio
import json

from sdk import Agent, Observation, RemoteAgent, serve, with_notes
from space_app.core import get_game
from space_app.core.game import Request
from space_app.runner import MAX_NOTES, SeatAgent, bounded_notes, call_agent, play
from space_app.verify import verify_match

THINK = "P3 rejected every team with P5 on it; I will lean on that without saying why"


class Noting(Agent):
    """Speaks with private notes; votes the first options."""

    games = ("avalon",)

    def speak(self, obs: Observation) -> str:
        return with_notes(f"{obs.you}: I trust the last quest's team.", {"intentions": ["I1"], "think": THINK})

    def vote(self, obs: Observation) -> str:
        return ", ".join(obs.options[: obs.pick])

    def answer(self, obs: Observation) -> str:
        return ", ".join(obs.options[: obs.pick]) if obs.options else "no idea"


def test_notes_are_bounded_json():
    assert bounded_notes({"a": [1, "x"]}) == {"a": [1, "x"]}
    assert bounded_notes(None) is None and bounded_notes("text") is None and bounded_notes({}) is None
    assert bounded_notes({"a": object()}) is None
    assert bounded_notes({"a": "x" * (MAX_NOTES + 1)}) is None


def test_notes_cross_http_from_a_served_agent(launch):
    url = launch(serve(Noting("noting")))
    spec = get_game("avalon")
    game = spec.make(6, 1, {})
    request = next(r for r in game.pending())
    speak_obs = request.observation.model_copy(update={"verb": "speak", "options": [], "option_texts": {},
                                                       "pick": 1})
    remote = RemoteAgent(url, timeout=20)
    try:
        outcome, record = asyncio.run(call_agent(remote, Request(request.seat, speak_obs)))
    finally:
        remote.close()
    assert outcome.ok and outcome.notes == {"intentions": ["I1"], "think": THINK}
    assert record.notes == outcome.notes and record.visible_to == ()


def test_avalon_records_notes_for_the_seat_alone_and_verify_replays_them(tmp_path):
    from space_app.service import Arena, MatchPlan
    from space_app.store import Store

    store = Store(tmp_path / "n.db")
    arena = Arena(store)
    arena.catalogue.add("noting", Noting("noting"))
    seats = ["noting"] + ["house:avalon-rules"] * 5
    outcome = arena.run_sync(MatchPlan("avalon", seats, seed=4))
    assert outcome.status == "finished"
    match = store.get_match(outcome.match_id)
    notes = [e for e in match["events"] if e["kind"] == "intentions"]
    assert notes and all(e["visible_to"] == ["P1"] and e["data"]["notes"]["think"] == THINK for e in notes)
    # the THINK text is only in events that P1 alone or spectators alone may see
    holding = [e for e in match["events"] if THINK in json.dumps(e["data"])]
    assert holding and all(e["visible_to"] in (["P1"], []) for e in holding)
    assert verify_match(match).verdict == "identical"


def test_a_seat_never_sees_another_seats_notes():
    spec = get_game("avalon")
    game = spec.make(6, 9, {})
    seats = {s: SeatAgent(Noting(f"n{s}"), f"n{s}") for s in game.seats}
    asyncio.run(play(game, seats))
    for seat in game.seats:
        for other in game.seats:
            if other == seat:
                continue
            view = game._view(other)
            seen = " ".join(h.text for h in view.history) + " ".join(view.texts) + str(view.facts)
            assert THINK not in seen
    assert any(e.kind == "intentions" for e in game.events)
