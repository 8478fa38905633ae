"""Seeded Who is the Spy matches that between them emit every kind of event the game has, in
every variant (clean, repeated, own-word, empty, skipped, timed-out and cut statements; cast,
abstained, refused and missing votes; ties and eliminations; English and Chinese), for the
event tests. `tests/fixtures/events/spy.json` holds the events these matches gave before the
events became models: python -m tests.spy_event_matches rewrites it."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from space_app.agents.wis import WiSAgent
from space_app.core.events import Call
from space_app.core.game import Outcome
from space_app.games.spy.agents import HeuristicSpyAgent, RandomAgent
from space_app.games.spy.rules import SpyGame, SpySettings
from space_app.runner import SeatAgent, play

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "events" / "spy.json"

# (seed, players, language, rounds)
SCRIPTED = [(1, 6, "en", 3), (2, 6, "en", 3), (3, 4, "en", 2), (4, 8, "zh", 3), (5, 6, "zh", 3),
            (6, 12, "en", 3), (7, 5, "en", 1), (8, 10, "en", 3), (9, 9, "zh", 3), (10, 12, "en", 3)]
HOUSE = [(11, 6, "en"), (12, 6, "zh"), (13, 7, "en")]


def _seats(n: int) -> list[str]:
    return [f"P{i}" for i in range(1, n + 1)]


def _speak(game: SpyGame, seat: str, rng: random.Random, said: list[str]) -> Outcome:
    pick = rng.random()
    word = game.words[seat]
    if pick < 0.7:
        text = f"{seat} hint {rng.randrange(10_000)} for round {game.round}"
        said.append(text)
        return Outcome(seat, text)
    if pick < 0.75:
        return Outcome(seat, f"My word is {word}, truly")
    if pick < 0.79 and said:
        return Outcome(seat, said[rng.randrange(len(said))].upper() + "!")
    if pick < 0.82:
        return Outcome(seat, "   ")
    if pick < 0.85:
        return Outcome(seat, "Pass")
    if pick < 0.88:
        return Outcome(seat, None, status="timeout", detail="no reply in 10 s")
    if pick < 0.91:
        return Outcome(seat, None, status="timeout", detail="no reply", seconds=45.0)
    if pick < 0.94:
        return Outcome(seat, None, status="error", detail="agent failed")
    text = f"{seat} a long story {rng.randrange(10_000)} " + "and so on " * 60
    return Outcome(seat, text)


def _vote(game: SpyGame, seat: str, options: list[str], rng: random.Random) -> Outcome | None:
    pick = rng.random()
    if pick < 0.6:
        # votes lean on one seat so that some rounds eliminate and others tie
        return Outcome(seat, options[0] if rng.random() < 0.5 else rng.choice(options))
    if pick < 0.7:
        return Outcome(seat, "abstain")
    if pick < 0.8:
        return Outcome(seat, "nobody in particular")
    if pick < 0.9:
        return Outcome(seat, None, status="timeout", detail="no reply in 10 s")
    return None  # no outcome at all


def scripted_match(seed: int, players: int, language: str, rounds: int) -> SpyGame:
    """A match driven through pending()/submit() with seeded replies of every sort."""
    game = SpyGame(_seats(players), seed, SpySettings(players=players, language=language, rounds=rounds))
    rng = random.Random(f"spy-events|{seed}")
    said: list[str] = []
    while not game.over:
        outcomes = []
        for request in game.pending():
            if request.verb == "speak":
                outcomes.append(_speak(game, request.seat, rng, said))
            else:
                outcome = _vote(game, request.seat, list(request.observation.options), rng)
                if outcome is not None:
                    outcomes.append(outcome)
        game.submit(outcomes)
    return game


def house_match(seed: int, players: int, language: str) -> SpyGame:
    """A match of the house agents through the runner (they read their history)."""
    game = SpyGame(_seats(players), seed, SpySettings(players=players, language=language))
    game.match_id = f"events-{seed}"
    heuristic, rand = HeuristicSpyAgent(), RandomAgent()
    seats = {s: SeatAgent(heuristic if i % 2 else rand, "house") for i, s in enumerate(game.seats)}
    outcome = asyncio.run(play(game, seats))
    assert outcome.status == "finished", outcome.error
    assert [e for e in outcome.events if not isinstance(e, Call)] == game.events
    return game


def every_match() -> dict[str, SpyGame]:
    out = {f"scripted-{seed}-{players}-{language}-{rounds}": scripted_match(seed, players, language, rounds)
           for seed, players, language, rounds in SCRIPTED}
    out |= {f"house-{seed}-{players}-{language}": house_match(seed, players, language)
            for seed, players, language in HOUSE}
    return out


def wis_bodies(game: SpyGame) -> dict[str, list[dict[str, Any] | None]]:
    """What a WiS agent in each seat would be sent for each item of its final history."""
    out = {}
    for seat in game.seats:
        obs = game.observe(seat, "speak", phase="describe", instruction="", round=game.round)
        out[seat] = [WiSAgent._map_item(obs, i) for i in range(len(obs.history))]
    return out


def stored(matches: dict[str, SpyGame]) -> dict[str, Any]:
    return {name: {"events": [e.to_dict() for e in game.events], "wis": wis_bodies(game)}
            for name, game in matches.items()}


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(stored(every_match()), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE}")
