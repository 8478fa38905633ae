"""Seeded Avalon matches that between them emit every kind of event the game has, in every
variant (valid and invalid proposals, kept and changed revisions, statements with and without
intention notes, silences, approved, rejected and auto-approved teams, refused cards, the evil
conference, hit, missed and invalid assassinations, answered, unreadable and timed-out quiz
answers; 5 to 10 players, optional roles and settings), and what the game's readers make of
them (metrics records, quiz scores, the judges, replay panels, why_won, the quiz suite, each
seat's record and situation), for the event tests.

`tests/fixtures/events/avalon.json` holds the events these matches gave, and
`tests/fixtures/events/avalon-readers.json` what the readers made of them, both recorded
before the events became models: python -m tests.avalon_event_matches rewrites them."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sdk import scripted_caller
from space_app.core.game import Outcome, Request
from space_app.games.avalon import judge, metrics, quizset, study, view
from space_app.games.avalon.agents import RandomAvalonAgent, RuleAvalonAgent
from space_app.games.avalon.beliefs import read_record
from space_app.games.avalon.exemplar import exemplar_agent, exemplar_model
from space_app.games.avalon.intention_agent import situation_of
from space_app.games.avalon.intentions import load_catalogue
from space_app.games.avalon.rules import AvalonGame, AvalonSettings
from space_app.games.avalon.selfplay import play_local
from space_app.games.avalon.wrappers import intention_guided
from space_app.standings import derive

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "events"
FIXTURE = FIXTURES / "avalon.json"
READERS = FIXTURES / "avalon-readers.json"
CATALOGUE = load_catalogue()

# (seed, settings, how readily the seats approve a team)
SCRIPTED: list[tuple[int, dict[str, Any], float]] = [
    (1, {"players": 6}, 0.7),
    (2, {"players": 5, "invalid_proposal": "clockwise"}, 0.7),
    (3, {"players": 7, "roles": ["merlin", "percival", "servant", "servant", "mordred", "assassin", "oberon"]}, 0.7),
    (4, {"players": 8, "auto_approve_fifth": True}, 0.2),
    (5, {"players": 9, "leader_reconsideration": False, "evil_conference": False}, 0.75),
    (6, {"players": 10, "intention_quiz": False}, 0.7),
    (7, {"players": 6, "deduction_quiz": False}, 0.15),
    (8, {"players": 5, "intention_quiz": False, "deduction_quiz": False}, 0.8),
    (9, {"players": 7, "max_chars": 60}, 0.7),
    (10, {"players": 6, "roles": ["merlin", "servant", "servant", "servant", "assassin", "morgana"]}, 0.85),
]
# (seed, players, line-up: "rules" | "mixed" | "intentions")
HOUSE: list[tuple[int, int, str]] = [(11, 6, "rules"), (12, 7, "mixed"), (13, 5, "intentions"),
                                     (14, 8, "intentions"), (15, 10, "rules")]


def _seats(n: int) -> list[str]:
    return [f"P{i}" for i in range(1, n + 1)]


def _notes(rng: random.Random, seat: str) -> dict[str, Any]:
    pick = rng.random()
    ids = rng.sample(CATALOGUE.ids, rng.choice([2, 3]))
    if pick < 0.5:
        return {"intentions": ids, "modified": [], "think": f"{seat} thinks {rng.randrange(1000)}",
                "first_order": "no read", "second_order": "", "errors": [], "catalogue": CATALOGUE.version}
    if pick < 0.75:
        return {"intentions": ids, "modified": rng.sample(CATALOGUE.ids, 2), "think": 7,
                "errors": ["no THINK"], "catalogue": CATALOGUE.version}
    if pick < 0.9:
        return {"intentions": ["I999", *ids[:1]], "think": "odd ids", "errors": "not a list"}
    return {"mood": "quiet"}  # notes that take no part in intention play


def _team(rng: random.Random, seats: list[str], size: int) -> str:
    pick = rng.random()
    if pick < 0.78:
        return ", ".join(rng.sample(seats, size))
    if pick < 0.83:
        return ", ".join([*rng.sample(seats, size - 1), "Nobody"])
    if pick < 0.87:
        first = rng.choice(seats)
        return ", ".join([first, first.lower(), *rng.sample(seats, max(0, size - 2))])
    if pick < 0.91:
        return ", ".join(rng.sample(seats, max(1, size - 1)))
    return ""


def _reply(game: AvalonGame, request: Request, rng: random.Random, approve: float) -> Outcome | None:
    seat, o = request.seat, request.observation
    phase, pick = o.phase, rng.random()
    if pick < 0.03:
        return None  # no outcome at all
    if pick < 0.06:
        return Outcome(seat, None, status="timeout", detail="no reply in 30 s")
    if pick < 0.08:
        return Outcome(seat, None, status="error", detail="agent failed")
    if pick < 0.09:
        return Outcome(seat, None, status="unparseable", detail="not an option")
    if phase in ("propose", "revise"):
        if phase == "revise" and rng.random() < 0.5:
            return Outcome(seat, ", ".join(game.team))
        text = _team(rng, list(o.options), o.pick)
        return Outcome(seat, text or "   ")
    if phase == "discuss":
        kind = rng.random()
        if kind < 0.55:
            return Outcome(seat, f"{seat} speaks {rng.randrange(10_000)} on quest {game.quest}.")
        if kind < 0.8:
            return Outcome(seat, f"{seat} guided {rng.randrange(10_000)}.", notes=_notes(rng, seat))
        if kind < 0.87:
            return Outcome(seat, "   ", notes=_notes(rng, seat) if rng.random() < 0.5 else None)
        return Outcome(seat, f"{seat} rambles " + "on and on " * 80)
    if phase == "team_vote":
        kind = rng.random()
        if kind < 0.08:
            return Outcome(seat, "maybe")
        return Outcome(seat, "Approve" if kind < approve else "reject")
    if phase == "quest":
        kind = rng.random()
        if kind < 0.06:
            return Outcome(seat, "both")
        if game.sides[seat] == "evil":
            return Outcome(seat, "fail" if kind < 0.6 else "success")
        return Outcome(seat, "fail" if kind < 0.15 else "success")
    if phase == "conference":
        return Outcome(seat, "" if rng.random() < 0.2 else f"{seat} thinks Merlin is {rng.choice(game.seats)}.")
    if phase == "assassinate":
        kind = rng.random()
        merlin = game.holders("merlin")[0]
        if kind < 0.35:
            return Outcome(seat, merlin.lower())
        if kind < 0.55:
            return Outcome(seat, "Lancelot")
        return Outcome(seat, rng.choice(list(o.options)))
    # the quizzes
    kind = rng.random()
    options = list(o.options)
    if kind < 0.6:
        return Outcome(seat, ", ".join(rng.sample(options, o.pick)))
    if kind < 0.75:
        return Outcome(seat, ", ".join([*rng.sample(options, 1), "bogus"]))
    if kind < 0.85:
        return Outcome(seat, " , ")
    return Outcome(seat, ", ".join(rng.sample(options, min(len(options), o.pick + 1))))


def scripted_match(seed: int, settings: dict[str, Any], approve: float) -> tuple[AvalonGame, list[dict[str, Any]]]:
    """A match driven through pending()/submit() with seeded replies of every sort, and a
    call record per request (fixed latencies) as the runner would store them."""
    game = AvalonGame(_seats(settings["players"]), seed, AvalonSettings(**settings))
    rng = random.Random(f"avalon-events|{seed}")
    calls: list[dict[str, Any]] = []
    while not game.over:
        outcomes = []
        for request in game.pending():
            outcome = _reply(game, request, rng, approve)
            calls.append({"kind": "call", "actor": request.seat, "text": "", "round": game.quest, "visible_to": [],
                          "data": {"verb": request.verb, "status": outcome.status if outcome else "timeout",
                                   "latency_ms": float(len(calls) % 7 * 100)}})
            if outcome is not None:
                outcomes.append(outcome)
        game.submit(outcomes)
    return game, calls


def house_match(seed: int, players: int, line_up: str) -> AvalonGame:
    """A match of house agents played in process (they read their history)."""
    game = AvalonGame(_seats(players), seed, AvalonSettings(players=players))
    if line_up == "rules":
        agents = {s: RuleAvalonAgent() for s in game.seats}
    elif line_up == "mixed":
        agents = {s: RuleAvalonAgent() if i % 2 else RandomAvalonAgent() for i, s in enumerate(game.seats)}
    else:
        agents = {s: intention_guided(exemplar_agent()) for s in game.seats}
    play_local(game, agents)
    return game


def every_match() -> dict[str, tuple[AvalonGame, list[dict[str, Any]]]]:
    out = {f"scripted-{seed}": scripted_match(seed, settings, approve) for seed, settings, approve in SCRIPTED}
    out |= {f"house-{seed}-{players}-{line_up}": (house_match(seed, players, line_up), [])
            for seed, players, line_up in HOUSE}
    return out


def history(game: AvalonGame) -> dict[str, list[str]]:
    """The kinds of each seat's final history, as the agents are shown it."""
    out = {}
    for seat in game.seats:
        obs = game.observe(seat, "speak", phase="discuss", instruction="", round=game.quest)
        out[seat] = [i.kind for i in obs.history]
    return out


def stored(matches: dict[str, tuple[AvalonGame, list[dict[str, Any]]]]) -> dict[str, Any]:
    return {name: {"events": [e.to_dict() for e in game.events], "history": history(game)}
            for name, (game, _) in matches.items()}


def as_match(name: str, game: AvalonGame, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The match as the store gives it back: rows with their seq, the call records after the game's events."""
    rows = [{**e.to_dict(), "seq": n} for n, e in enumerate(game.events)]
    rows += [{**c, "seq": len(rows) + n} for n, c in enumerate(calls)]
    return {"id": name, "game": "avalon", "seed": game.seed, "seats": [{"seat": s, "agent_id": f"agent-{s}"}
                                                                         for s in game.seats],
            "events": rows, "result": game.result()}


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return _plain(value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _frame(f: Any) -> list[dict[str, Any]]:
    return _plain(json.loads(f.to_json(orient="records")))


def seat_views(game: AvalonGame) -> dict[str, Any]:
    """What each seat's house-agent reading makes of its final observation."""
    out = {}
    for seat in game.seats:
        obs = game.observe(seat, "speak", phase="discuss", instruction="", round=game.quest)
        out[seat] = {"record": _plain(read_record(obs)), "situation": _plain(situation_of(obs))}
    return out


def reader_outputs(matches: dict[str, tuple[AvalonGame, list[dict[str, Any]]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    judge_caller = scripted_caller(exemplar_model)
    for name, (game, calls) in matches.items():
        match = as_match(name, game, calls)
        rows = match["events"]
        everyone = [r for r in rows if r["kind"] != "call"]
        seat = game.seats[0]
        mine = [r for r in everyone if r["visible_to"] is None or seat in r["visible_to"]]
        panels = {}
        for panel in view.VIEW.panels:
            panels[panel.title] = {"spectators": _frame(panel.build(everyone, None)),
                                   "seat": _frame(panel.build(mine, None)),
                                   "halfway": _frame(panel.build(everyone, len(everyone) // 2))}
        out[name] = {
            # the game's stats and the facts every game has (calls, latency, invalid actions)
            "records": [_plain(r) for r in derive({**match, "game": "avalon"})],
            "quiz_results": [_plain(q) for q in metrics.quiz_results(match)],
            "statements": [_plain(s) for s in judge.intention_statements(match)],
            "judged": _plain(judge.judge_match(match, judge_caller)),
            "study_row": _plain(study.study_row([match])),
            "quiz_items": _plain(quizset.items_of(match, CATALOGUE)),
            "panels": panels,
            "why_won": view.why_won(match),
            "seats": seat_views(game),
        }
    return out


if __name__ == "__main__":
    played = every_match()
    FIXTURES.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(stored(played), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    READERS.write_text(json.dumps(reader_outputs(played), ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE} and {READERS}")
