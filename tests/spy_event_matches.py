"""Seeded Who is the Spy matches that between them emit every kind of event the game has, in
every variant (clean, repeated, own-word, empty, skipped, timed-out and cut statements; cast,
abstained, refused and missing votes; ties and eliminations; English and Chinese), for the
event tests. `tests/fixtures/events/spy.json` holds the events these matches gave before the
events became models, and `spy-readers.json` what the game's readers (metrics, replay panels,
why_won, replay_note) made of them and of the matches of an old store
(`tests/fixtures/stores/before-migrations.db`, with call records) before the readers read
models: python -m tests.spy_event_matches rewrites both."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

from space_app.core.events import Call
from space_app.core.game import Outcome
from space_app.games.spy.agents import HeuristicSpyAgent, RandomAgent
from space_app.games.spy.rules import SpyGame, SpySettings
from space_app.games.spy.wis import WiSAgent
from space_app.runner import SeatAgent, play

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE = FIXTURES / "events" / "spy.json"
READERS = FIXTURES / "events" / "spy-readers.json"
OLD_STORE = FIXTURES / "stores" / "before-migrations.db"

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


def as_match(name: str, game: SpyGame) -> dict[str, Any]:
    """A finished match as the store gives it (events as stored rows, with their seq)."""
    return {"id": name, "game": "spy", "seed": game.seed, "status": "finished", "finished_at": 1.0,
            "settings": game.settings.model_dump(exclude={"pair"}), "result": game.result(),
            "seats": [{"seat": s, "agent_id": f"agent-{s}", "agent_name": s} for s in game.seats],
            "events": [{**e.to_dict(), "seq": i} for i, e in enumerate(game.events)]}


def old_store_matches() -> list[dict[str, Any]]:
    """The matches of the store an earlier arena wrote, read as the store reads them."""
    db = sqlite3.connect(f"file:{OLD_STORE}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        out = []
        for m in db.execute("SELECT * FROM matches ORDER BY created_at, id"):
            seats = db.execute("SELECT * FROM seats WHERE match_id = ? ORDER BY position", (m["id"],))
            rows = db.execute("SELECT * FROM events WHERE match_id = ? ORDER BY seq", (m["id"],))
            out.append({
                "id": m["id"], "game": m["game"], "seed": m["seed"], "status": m["status"],
                "finished_at": m["finished_at"], "settings": json.loads(m["settings"]),
                "result": json.loads(m["result"]) if m["result"] else None,
                "seats": [{"seat": s["seat"], "agent_id": s["agent_id"], "agent_name": s["agent_name"]}
                          for s in seats],
                "events": [{"seq": r["seq"], "kind": r["kind"], "actor": r["actor"], "round": r["round"],
                            "visible_to": json.loads(r["visible_to"]) if r["visible_to"] else None,
                            "text": r["text"], "data": json.loads(r["data"])} for r in rows]})
        return out
    finally:
        db.close()


def reader_outputs(matches: list[dict[str, Any]]) -> dict[str, Any]:
    """What the game's readers make of stored matches."""
    from space_app.games.spy import replay_note
    from space_app.games.spy.metrics import study_row
    from space_app.games.spy.view import rounds_table, votes_frame, why_won
    from space_app.standings import derive

    def frame(f: Any) -> list[dict[str, Any]]:
        return json.loads(f.to_json(orient="records", force_ascii=False))

    out: dict[str, Any] = {}
    for m in matches:
        events = m["events"]
        out[m["id"]] = {
            "records": [r.model_dump() for r in derive(m)],  # the game's stats and the generic facts
            "why_won": why_won(m),
            "replay_note": replay_note(m),
            "rounds": frame(rounds_table(events)),
            "rounds_upto": frame(rounds_table(events, upto=len(events) // 2)),
            "votes": frame(votes_frame(events)),
            "votes_upto": frame(votes_frame(events, upto=len(events) * 2 // 3)),
        }
    out["study_row"] = {k: v for k, v in study_row(matches).items()}
    return out


def all_stored_matches() -> list[dict[str, Any]]:
    return [as_match(name, game) for name, game in every_match().items()] + old_store_matches()


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(stored(every_match()), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    READERS.write_text(json.dumps(reader_outputs(all_stored_matches()), ensure_ascii=False, indent=1) + "\n",
                       encoding="utf-8")
    print(f"wrote {FIXTURE} and {READERS}")
