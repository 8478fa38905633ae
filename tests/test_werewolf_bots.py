"""Werewolf's house agents: the rule bots make no invalid move in any role or protocol, a pack
votes as one, the Seer claims what it saw, and the rule bots beat random seats on both sides
(the full measurement: benchmarks/werewolf_bots.py, figures in benchmarks/RESULTS.md); and the
discussion-protocol study runs and reports every protocol from its stored matches."""

from __future__ import annotations

import pytest

from sdk import Agent
from space_app.core import get_game
from space_app.core.game import Outcome
from space_app.core.replies import outcome_text
from space_app.games.werewolf.agents import RandomWerewolfAgent, RuleWerewolfAgent
from space_app.games.werewolf.events import SeerCheck, Statement, WerewolfInvalid, WolfVote
from space_app.games.werewolf.rules import WerewolfGame
from space_app.service import Arena
from space_app.store import Store

SPEC = get_game("werewolf")
RULES, RANDOM = RuleWerewolfAgent(), RandomWerewolfAgent()


def play(players: int, seed: int, village: Agent, wolves: Agent, **settings) -> WerewolfGame:
    game = SPEC.make(players, seed, settings)
    assert isinstance(game, WerewolfGame)
    while not game.over:
        outcomes = []
        for r in game.pending():
            agent = wolves if game.roles[r.seat] == "werewolf" else village
            text, status, detail = outcome_text(agent.act(r.observation).text, r.observation)
            outcomes.append(Outcome(r.seat, text, status, detail))  # type: ignore[arg-type]
        game.submit(outcomes)
    return game


@pytest.mark.parametrize("settings", [
    {},
    {"players": 12, "witch": True, "hunter": True, "vote_tie": "runoff"},
    {"players": 9, "protocol": "bidding", "reveal": "team", "language": "zh"},
    {"players": 6, "protocol": "parallel", "reveal": "none", "doctor_self_protect": False},
])
def test_the_rule_bots_make_no_invalid_move(settings):
    settings = dict(settings)
    players = settings.pop("players", 8)
    for seed in range(4):
        game = play(players, seed, RULES, RULES, **settings)
        assert not [e for e in game.events if isinstance(e, WerewolfInvalid)], (seed, settings)


def test_the_pack_votes_as_one_and_the_seer_says_what_it_saw():
    split = claims = 0
    for seed in range(10):
        game = play(8, seed, RULES, RULES)
        nights: dict[int, set[str | None]] = {}
        for e in game.events:
            if isinstance(e, WolfVote):
                nights.setdefault(e.night, set()).add(e.target)
        split += sum(len(targets) > 1 for targets in nights.values())
        seer = next(s for s in game.seats if game.roles[s] == "seer")
        spoken = [i for i, e in enumerate(game.events) if isinstance(e, Statement) and e.actor == seer]
        # the werewolves the Seer found while it still had a statement to make
        found = {e.target for i, e in enumerate(game.events)
                 if isinstance(e, SeerCheck) and e.werewolf and any(j > i for j in spoken)}
        said = " ".join(e.text for e in game.events if isinstance(e, Statement) and e.actor == seer)
        claims += int(bool(found) and "I am the Seer" in said)
        for wolf in found:
            if "I am the Seer" in said:
                assert f"{wolf} is a werewolf" in said
    assert split == 0
    assert claims >= 3


def test_the_rule_bots_beat_random_seats_on_both_sides():
    games = 40

    def village_wins(village: Agent, wolves: Agent) -> int:
        return sum(play(7, seed, village, wolves).winner == "village" for seed in range(games))

    # the village: rule bots against random werewolves win far more than random villagers do
    assert village_wins(RULES, RANDOM) >= village_wins(RANDOM, RANDOM) + 8
    # the werewolves: rule bots against random villagers win more than random werewolves do
    assert games - village_wins(RANDOM, RULES) >= games - village_wins(RANDOM, RANDOM) + 3
    # and against the rule-bot village too
    assert games - village_wins(RULES, RULES) >= games - village_wins(RULES, RANDOM) + 5


def test_the_protocol_study_runs_every_protocol_on_the_same_seeds(tmp_path):
    store = Store(str(tmp_path / "study.db"))
    try:
        arena = Arena(store)
        study = SPEC.extras.studies["protocol"]
        rows = arena.run_in_own_loop(study.run(arena, games=2, seed=5, settings={"players": 6}))
        assert [r["condition"] for r in rows] == ["round-robin", "bidding", "parallel"]
        assert all(r["games"] == 2 and r["seeds"] == rows[0]["seeds"] for r in rows)
        assert all(r["village_win_rate_n"] == 2 and r["identification_precision"] is not None for r in rows)
        assert [r["condition"] for r in study.newest(store)] == [r["condition"] for r in rows]
        assert len(study.chart(store)) >= 3
    finally:
        store.close()
