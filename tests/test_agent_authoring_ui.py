"""What an agent's author sees in the arena: a failing turn's reason in the transcript line,
the Watch filter by name, the Agents tab's example observations, match links and try call."""

from __future__ import annotations

import asyncio

from sdk import Agent, Observation
from space_app.agent_examples import examples
from space_app.api import ArenaAPI
from space_app.config import ArenaConfig
from space_app.core import get_game
from space_app.core.events import Event
from space_app.core.transcript import call_reasons
from space_app.runner import SeatAgent, play
from space_app.ui.agents_tab import example_choices, example_json, match_links, read_as_markdown
from space_app.ui.replay import transcript_html, visible


class Crashing(Agent):
    games = ("spy",)

    def speak(self, obs: Observation) -> str:
        raise KeyError("word")


class Plain(Agent):
    games = ("spy",)

    def speak(self, obs: Observation) -> str:
        return f"{obs.you} in round {obs.round}: found in most kitchens"

    def vote(self, obs: Observation) -> str:
        return obs.options[0]


class Garbled(Plain):
    def vote(self, obs: Observation) -> str:
        return "nobody in particular"


def stored_events(seed: int = 3) -> list[Event]:
    spec = get_game("spy")
    game = spec.make(6, seed)
    agents = {"P1": Crashing(), "P2": Garbled()}
    seats = {s: SeatAgent(agents.get(s, Plain()), s) for s in game.seats}
    out = asyncio.run(play(game, seats))
    return spec.rules.events.parse_all({"seq": i, **e.to_dict()} for i, e in enumerate(out.events))


def test_a_failed_turn_shows_its_reason_in_the_transcript_line():
    events = stored_events()
    html = transcript_html(visible(events, None), reasons=call_reasons(events))
    assert "agent_failed: KeyError" in html  # from the spectator-only call record
    assert "da-reason" in html
    # a seat's own view never shows call records, so not their details either
    assert "agent_failed" not in transcript_html(visible(events, "P2"))


def test_an_unreadable_vote_shows_why_in_its_line():
    events = stored_events()
    html = transcript_html(visible(events, None), reasons=call_reasons(events))
    assert "P2 abstains.</span> <span class='da-reason'>— unparseable: the reply names none of the options" in html


def test_the_watch_filter_takes_a_name_as_well_as_an_id(tmp_path):
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "a.db"), demo_matches=0))
    seats = ["house:heuristic", "house:random", "house:random", "house:random", "house:random", "house:random"]
    match = asyncio.run(api.run_match({"game": "spy", "seats": seats, "seed": 2}))
    by_id = api.list_matches(agent="house:heuristic")
    by_name = api.list_matches(agent="HOUSE:Heuristic")
    assert [m["id"] for m in by_id] == [m["id"] for m in by_name] == [match["match_id"]]
    assert api.list_matches(agent="nobody-at-all") == []
    assert "?agent=house%3Aheuristic" in match_links(api)
    api.store.close()


def test_the_agents_tab_offers_every_example_and_reads_replies(tmp_path):
    assert [key for _, key in example_choices()] == [e.key for e in examples()]
    first = examples()[0]
    assert Observation.model_validate_json(example_json(first.key)) == first.observation
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "a.db"), demo_matches=0))
    vote = next(e for e in examples() if e.key == "spy/vote/vote")
    got = asyncio.run(api.try_agent("house:heuristic", example_json(vote.key)))
    assert got["status"] == "ok" and got["read_as"] in vote.observation.options and got["reply"]
    assert "read as" in read_as_markdown(got)
    bad = read_as_markdown({"status": "unparseable", "detail": "the reply names none of the options",
                            "verb": "vote", "read_as": None, "latency_ms": 3})
    assert "unparseable" in bad and "names none" in bad
    api.store.close()
