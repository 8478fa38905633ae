"""Each person their own leaderboard row, under an id no agent can take; seat choices by name and owner."""

from __future__ import annotations

import asyncio

import pytest

from space_app.agents.human import HumanAgent
from space_app.api import ArenaAPI
from space_app.config import ArenaConfig
from space_app.leaderboard import board
from space_app.people import ANONYMOUS, is_person, person_id
from space_app.runner import SeatAgent
from space_app.service import Arena, MatchPlan
from space_app.store import Store
from space_app.ui.play import agent_choices, agent_label


@pytest.mark.parametrize(("username", "nickname", "on_space", "expected"), [
    ("alice", "", True, "person:alice"),  # signed in on a Space: their Hub name
    ("alice", "Mallory", True, "person:alice"),  # a nickname does not replace a signed-in name
    (None, "Alice", True, ANONYMOUS),  # on a Space a typed name proves nothing: the anonymous pool
    (None, "Ada\u202e Lovelace", False, "person:ada-lovelace"),  # locally the nickname, cleaned
    (None, "   ", False, ANONYMOUS),
    (None, "../..", False, ANONYMOUS),  # nothing left of it
    (None, "Zoë 李", False, "person:zoë-李"),  # any script's letters
])
def test_a_persons_id_is_their_signed_in_name_on_a_space_and_their_nickname_locally(username, nickname, on_space,
                                                                                   expected):
    got = person_id(username, nickname, on_space)
    assert got == expected
    assert is_person(got)


def test_two_people_get_two_leaderboard_rows_and_guests_share_the_pool(tmp_path):
    store = Store(str(tmp_path / "arena.db"))

    async def play(seed: int, who: str) -> None:
        person = HumanAgent(name=f"{who} (person)")
        seat = SeatAgent(person, who, person.name, seconds=0.01)  # never answers: the timeout's outcome
        plan = MatchPlan(game="spy", seats=["house:heuristic"] * 5, seed=seed, tag="human")
        out = await Arena(store).run(plan, extra_agents={"P2": seat})
        assert out.status == "finished", out.error

    for seed, who in enumerate(["person:ada", "person:grace", ANONYMOUS, ANONYMOUS]):
        asyncio.run(play(seed, who))
    rows = {row["agent"]: row["matches"] for row in board(store, "spy", sources=["human"])}
    assert rows["person:ada"] == 1 and rows["person:grace"] == 1 and rows[ANONYMOUS] == 2


def test_seat_choices_name_each_agent_with_its_owner_and_tell_twins_apart_by_id(tmp_path):
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "arena.db"), demo_matches=0))
    api.store.upsert_agent("alice/bot", name="Bot", kind="remote", src="http://127.0.0.1:9/", owner="alice")
    api.store.upsert_agent("bob/bot", name="Bot", kind="remote", src="http://127.0.0.1:9/", owner="bob")
    api.store.upsert_agent("x/solo", name="Solo", kind="remote", src="http://127.0.0.1:9/", owner="ip:10.0.0.7")
    choices = dict((value, label) for label, value in agent_choices(api, "spy"))
    assert choices["alice/bot"] == "Bot · alice" and choices["bob/bot"] == "Bot · bob"
    assert choices["x/solo"] == "Solo · guest"  # an address is never shown as an owner
    assert choices["house:heuristic"] == "house:heuristic"
    assert agent_label({"id": "y/z", "name": "Z", "kind": "remote", "owner": "user:carol"}) == "Z · carol"
