"""The human seat: the page's reply reaches the runner once, and an answered question
is never shown again."""

from __future__ import annotations

import asyncio

import pytest

from sdk import Observation
from space_app.agents.human import HumanAgent


def observation() -> Observation:
    return Observation.model_validate({
        "game": "spy", "phase": "speak", "verb": "speak", "you": "P1",
        "private": {"facts": {"word": "tea"}, "text": "Your secret word is 'tea'."},
        "instruction": "Describe your word.", "seats": ["P1", "P2", "P3"],
        "match_id": "m-human", "round": 1,
    })


def test_a_reply_is_taken_once_and_the_question_closes_at_once():
    human = HumanAgent("you")
    assert human.submit("too early", "") == "closed"  # nothing asked yet

    async def go() -> str:
        asking = asyncio.create_task(human.aact(observation()))
        while human.waiting is None:
            await asyncio.sleep(0)
        assert human.waiting.you == "P1"
        question = human.question()
        assert question is not None and question.number == 1 and question.turn == "m-human-1"
        # the page's send runs in another thread in the arena; the effect is the same
        assert human.submit("it is brewed", question.turn) == "sent"
        assert human.waiting is None  # before the runner's loop has even resumed
        assert human.submit("a second click", question.turn) == "closed"
        return (await asking).text

    assert asyncio.run(go()) == "it is brewed"
    assert human.waiting is None


def test_a_reply_for_an_answered_question_never_answers_the_next_one():
    """The page showed question 1 again after it was answered (a live update drawn just
    before the answer arrived) and the person replied to it: that reply names turn 1, so it
    is refused while question 2 is open, and question 2 takes only a reply naming it."""
    human = HumanAgent("you")

    async def go() -> list[str]:
        replies = []
        first = asyncio.create_task(human.aact(observation()))
        while human.question() is None:
            await asyncio.sleep(0)
        one = human.question()
        assert human.submit("my statement", one.turn) == "sent"
        replies.append((await first).text)
        vote = observation().model_copy(update={"verb": "vote", "phase": "vote", "options": ["P2", "P3"]})
        second = asyncio.create_task(human.aact(vote))
        while human.question() is None:
            await asyncio.sleep(0)
        two = human.question()
        assert two.turn != one.turn and two.number == 2 and two.obs.verb == "vote"
        assert human.submit("a second statement", one.turn) == "stale"  # typed under the old question
        assert human.submit("P2", "") == "stale"  # a reply with no turn is no answer either
        assert human.question() is two  # still open, still waiting for its own reply
        assert human.submit("P3", two.turn) == "sent"
        replies.append((await second).text)
        return replies

    assert asyncio.run(go()) == ["my statement", "P3"]


def test_turn_ids_differ_between_seats_and_matches():
    """A reply from an earlier match's page (the same question number) is refused."""
    earlier, now = HumanAgent("you"), HumanAgent("you")

    async def ask(human: HumanAgent, obs: Observation) -> str:
        task = asyncio.create_task(human.aact(obs))
        while human.question() is None:
            await asyncio.sleep(0)
        turn = human.question().turn
        human.submit("x", turn)
        await task
        return turn

    other_match = observation().model_copy(update={"match_id": "m-other"})
    assert asyncio.run(ask(earlier, other_match)) != asyncio.run(ask(now, observation()))
    no_match = observation().model_copy(update={"match_id": ""})
    assert asyncio.run(ask(HumanAgent(), no_match)) != asyncio.run(ask(HumanAgent(), no_match))


def test_an_unanswered_question_closes_when_the_time_limit_cancels_it():
    human = HumanAgent("you")

    async def go() -> None:
        await asyncio.wait_for(human.aact(observation()), timeout=0.05)

    with pytest.raises(TimeoutError):
        asyncio.run(go())
    assert human.waiting is None
    assert human.submit("late", "m-human-1") == "closed"


def test_a_human_seat_cannot_be_called_outside_the_arena_page():
    with pytest.raises(RuntimeError, match="arena page"):
        HumanAgent().act(observation())


def test_a_person_who_runs_out_of_time_is_told_their_own_limit_not_the_games():
    """A seat with its own limit (a person's) times out on it; the foul quotes that limit, and
    the call record keeps it so the match replays to the same events."""
    from space_app.core import get_game
    from space_app.runner import SeatAgent, call_agent

    game = get_game("spy").make(4, seed=1, settings={"seconds": 30})
    request = next(r for r in game.pending() if r.observation.verb == "speak")
    outcome, record = asyncio.run(call_agent(HumanAgent("you"), request, seconds=0.05))
    assert outcome.status == "timeout" and outcome.seconds == 0.05
    assert record.seconds == 0.05 and "0.05 s" in record.detail
    game.submit([outcome])
    foul = next(e for e in game.events if e.kind == "foul")
    assert "within 0.05 s" in foul.reason and "30 s" not in foul.text
    assert SeatAgent(HumanAgent("you"), "human", seconds=0.05).seconds == 0.05


def test_the_open_question_counts_down_from_the_seats_own_limit():
    human = HumanAgent("you")
    assert human.seconds_left() is None
    obs = observation().model_copy(update={"limits": observation().limits.model_copy(update={"seconds": 180})})

    async def go() -> float | None:
        asking = asyncio.create_task(human.aact(obs))
        while human.waiting is None:
            await asyncio.sleep(0)
        left = human.seconds_left()
        human.submit("done", human.question().turn)
        await asking
        return left

    left = asyncio.run(go())
    assert left is not None and 179 < left <= 180
    assert human.seconds_left() is None
