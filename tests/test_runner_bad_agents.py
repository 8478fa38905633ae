"""The runner against misbehaving agents: every fault becomes the rule's outcome, is
recorded in the seat's `call` event, and the match goes on for everybody else."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator

import pytest

from sdk.agent import Agent, Reply
from sdk.errors import AgentError
from sdk.observation import ABSTAIN, Observation
from space_app.core.game import Event
from space_app.games.spy.rules import SpyGame, SpySettings
from space_app.games.spy.words import WordPair
from space_app.runner import MatchOutcome, SeatAgent, play

SEATS = [f"P{i}" for i in range(1, 7)]
PAIR = WordPair(civilian="tea", spy="coffee")
SECONDS = 0.5
# A hanging agent waits for this until its test ends: had the runner waited for it, the
# call would have come back "ok" with "too late", never as a timeout.
RELEASE = threading.Event()
HUGE = "".join(f"block {i} of a very long statement. " for i in range(4000))[:100 * 1024]


class Good(Agent):
    """Unique clean statements; votes abstain so that the game runs its three rounds."""

    def speak(self, obs: Observation) -> str:
        return f"{obs.you} gives clue {obs.round}"

    def vote(self, obs: Observation) -> str:
        return ABSTAIN


class Bad(Good):
    def __init__(self, verb: str, behaviour) -> None:
        super().__init__(f"bad-{verb}")
        self.verb, self.behaviour = verb, behaviour

    def act(self, obs: Observation) -> Reply:
        if obs.verb == self.verb:
            return Reply(text=self.behaviour(obs))
        return super().act(obs)


@pytest.fixture(autouse=True)
def release_hanging_agents() -> Iterator[None]:
    RELEASE.clear()
    yield
    RELEASE.set()


def hangs(obs: Observation) -> str:
    RELEASE.wait(60)
    return "too late"


def raiser(obs: Observation) -> str:
    raise RuntimeError("my model endpoint is down")


def agent_error(kind: str):
    def f(obs: Observation) -> str:
        raise AgentError(kind, "from the agent")
    return f


SPEAK_FAULTS = {
    # name: (behaviour, call status, detail snippet)
    "timeout": (hangs, "timeout", "no reply within 0.5 s"),
    "raises": (raiser, "error", "agent_failed: RuntimeError"),
    "agent_error_timeout": (agent_error("timeout"), "timeout", "timeout: from the agent"),
    "agent_error_unreachable": (agent_error("unreachable"), "error", "unreachable"),
    "non_str": (lambda obs: 42, "error", "bad_reply"),
    "none": (lambda obs: None, "error", "bad_reply"),
    "empty": (lambda obs: "", "ok", ""),
}
VOTE_FAULTS = {
    "timeout": (hangs, "timeout", "no reply within 0.5 s"),
    "raises": (raiser, "error", "agent_failed"),
    "garbage": (lambda obs: "I like turtles and the weather today.", "unparseable", "none"),
    "not_on_list": (lambda obs: "P9", "unparseable", ""),
    "itself": (lambda obs: obs.you, "unparseable", ""),
    "huge": (lambda obs: "blah " * 20_000, "unparseable", ""),
    "non_str": (lambda obs: {"vote": obs.options[0]}, "error", "bad_reply"),
}


def setup_match(seed: int = 5) -> tuple[SpyGame, str]:
    game = SpyGame(list(SEATS), seed, SpySettings(pair=PAIR, seconds=SECONDS))
    game.match_id = f"bad{seed}"
    bad_seat = next(s for s in SEATS if s != game.spy)
    return game, bad_seat


def run(game: SpyGame, agents: dict[str, Agent]) -> MatchOutcome:
    seats = {s: SeatAgent(a, a.name) for s, a in agents.items()}
    return asyncio.run(play(game, seats))


def with_one_bad_civilian(verb: str, behaviour) -> tuple[SpyGame, str, MatchOutcome]:
    """A match of good agents where one civilian misbehaves on `verb`."""
    game, bad = setup_match()
    agents: dict[str, Agent] = {s: Good(f"good-{s}") for s in SEATS}
    agents[bad] = Bad(verb, behaviour)
    return game, bad, run(game, agents)


def calls(outcome: MatchOutcome, seat: str, verb: str) -> list[Event]:
    return [e for e in outcome.events if e.kind == "call" and e.actor == seat and e.verb == verb]


def assert_others_completed(game: SpyGame, outcome: MatchOutcome, bad_seat: str) -> None:
    assert outcome.status == "finished" and outcome.error == ""
    assert not [e for e in outcome.events if e.kind == "error"]
    assert game.over and outcome.result["scores"]
    assert sum(outcome.result["scores"].values()) == pytest.approx(12)
    assert game.round == 3, "nobody but the faulty seat was disturbed: three full rounds"
    for seat in SEATS:
        if seat == bad_seat:
            continue
        assert len(calls(outcome, seat, "speak")) == 3
        assert len(calls(outcome, seat, "vote")) == 3
        assert all(e.status == "ok" for e in outcome.events
                   if e.kind == "call" and e.actor == seat)


@pytest.mark.parametrize("fault", list(SPEAK_FAULTS))
def test_a_faulty_statement_is_a_foul_and_the_match_goes_on(fault):
    behaviour, status, detail = SPEAK_FAULTS[fault]
    game, bad, outcome = with_one_bad_civilian("speak", behaviour)

    (call,) = calls(outcome, bad, "speak")  # fouled out in round 1: asked once
    assert call.status == status
    assert detail in call.detail
    assert isinstance(call.latency_ms, float)
    assert call.visible_to == ()
    fouls = [e for e in outcome.events if e.kind == "foul"]
    assert [(f.actor, f.round) for f in fouls] == [(bad, 1)]
    assert fouls[0].status == status
    assert [e.actor for e in outcome.events if e.kind == "elimination"] == [bad]
    assert bad not in game.alive
    assert outcome.result["scores"][bad] == 0.0
    assert_others_completed(game, outcome, bad)


@pytest.mark.parametrize("fault", list(VOTE_FAULTS))
def test_a_faulty_vote_is_an_abstention_and_the_match_goes_on(fault):
    behaviour, status, detail = VOTE_FAULTS[fault]
    game, bad, outcome = with_one_bad_civilian("vote", behaviour)

    vote_calls = calls(outcome, bad, "vote")
    assert len(vote_calls) == 3
    for call in vote_calls:
        assert call.status == status
        assert detail in call.detail
        assert call.parsed is None
        assert call.latency_ms >= 0
    votes = [e for e in outcome.events if e.kind == "vote" and e.actor == bad]
    assert len(votes) == 3 and all(v.target is None for v in votes)
    assert all(e.tally == {} for e in outcome.events if e.kind == "vote_result")
    assert bad in game.alive
    assert_others_completed(game, outcome, bad)


@pytest.mark.parametrize(("language", "limit"), [("en", 400), ("zh", 120)])
def test_a_100kb_statement_is_cut_to_the_language_limit(language, limit):
    pair = PAIR if language == "en" else WordPair(civilian="茶", spy="咖啡")
    game = SpyGame(list(SEATS), 5, SpySettings(pair=pair, seconds=SECONDS, language=language))
    game.match_id = "huge"
    bad = next(s for s in SEATS if s != game.spy)
    agents: dict[str, Agent] = {s: Good(f"good-{s}") for s in SEATS}
    agents[bad] = Bad("speak", lambda obs: f"{obs.round} " + HUGE)
    assert len(HUGE) == 100 * 1024
    outcome = run(game, agents)
    statements = [e for e in outcome.events if e.kind == "statement" and e.actor == bad]
    assert len(statements) == 3
    for st in statements:
        assert len(st.text) == limit
        assert st.text == (f"{st.round} " + HUGE)[:limit]
        # (the runner cuts before the game sees the reply, so the game's own
        # `truncated` flag cannot tell; the call record says it)
    for call in calls(outcome, bad, "speak"):
        assert call.status == "ok"
        assert "truncated from" in call.detail
        assert len(call.reply) <= 2000
    # nobody is ever shown more than the limit
    assert HUGE[:limit + 50] not in json.dumps([e.to_dict() for e in outcome.events
                                                if e.visible_to is None], ensure_ascii=False)
    assert_others_completed(game, outcome, bad)


def test_whitespace_padding_does_not_count_against_the_limit():
    _, bad, outcome = with_one_bad_civilian(
        "speak", lambda obs: "\n" * 500 + f"A warm drink, round {obs.round}.  \n")
    statements = [e.text for e in outcome.events if e.kind == "statement" and e.actor == bad]
    assert statements == [f"A warm drink, round {r}." for r in (1, 2, 3)]
    assert not [e for e in outcome.events if e.kind == "foul"]


def test_a_vote_naming_a_player_in_prose_is_understood():
    """The other side of the coin: a valid choice in free text is a vote, not garbage."""
    _, bad, outcome = with_one_bad_civilian(
        "vote", lambda obs: f"Thinking...\nFinal answer: {obs.options[-1].lower()}")
    for call in calls(outcome, bad, "vote"):
        assert call.status == "ok" and call.parsed in SEATS
    assert outcome.status == "finished"


def test_several_faulty_agents_at_once_do_not_stop_the_match():
    game, _ = setup_match(seed=9)
    civ = [s for s in SEATS if s != game.spy]
    agents: dict[str, Agent] = {s: Good(f"good-{s}") for s in SEATS}
    agents[civ[0]] = Bad("speak", raiser)
    agents[civ[1]] = Bad("vote", lambda obs: "P9")
    agents[civ[2]] = Bad("vote", raiser)
    agents[game.spy] = Bad("vote", lambda obs: 3.14)
    outcome = run(game, agents)
    assert outcome.status == "finished"
    assert sum(outcome.result["scores"].values()) == pytest.approx(12)
    assert game.round == 3


class MeetingVoter(Good):
    """Votes only once all six voters are inside `vote` at the same moment: a runner
    that asked them one after another would break the barrier (an agent failure)."""

    def __init__(self, name: str, meeting: threading.Barrier) -> None:
        super().__init__(name)
        self.meeting = meeting

    def vote(self, obs: Observation) -> str:
        self.meeting.wait()
        return ABSTAIN


def test_simultaneous_votes_are_requested_concurrently():
    game = SpyGame(list(SEATS), 1, SpySettings(pair=PAIR, rounds=1))
    game.match_id = "concurrent"
    meeting = threading.Barrier(len(SEATS), timeout=20)
    seats = {s: SeatAgent(MeetingVoter(f"meet-{s}", meeting), s, seconds=30) for s in SEATS}
    outcome = asyncio.run(play(game, seats))
    assert outcome.status == "finished"
    votes = [e for e in outcome.events if e.kind == "call" and e.verb == "vote"]
    assert len(votes) == 6
    assert [e.status for e in votes] == ["ok"] * 6, [e.text for e in votes]
    assert not meeting.broken
