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

from sdk import Observation
from sdk.observation import ABSTAIN
from space_app.core.game import Outcome
from space_app.games.mystery.agents import NaiveMysteryAgent, RandomMysteryAgent
from space_app.games.mystery.catalog import ShippedMysteryGame, ShippedSettings, get_script
from space_app.games.mystery.rules import MysteryGame, MysterySettings
from space_app.games.mystery.script import Script
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


if __name__ == "__main__":
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(snapshot(), ensure_ascii=False, indent=1) + "\n")
    sys.exit(0)
