"""Avalon: every rule, driven directly through pending()/submit() with scripts, for every
player count; and what each role may know, checked on the observations seats receive."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from pydantic import ValidationError

from space_app.core.events import Event, Private
from space_app.core.game import SPECTATORS, Outcome, Request
from space_app.games.avalon.events import (
    KINDS,
    Assassination,
    AssassinationPhase,
    AvalonInvalidAction,
    AvalonSetup,
    EvilReveal,
    EvilTalk,
    GameOver,
    Proposal,
    QuestCard,
    QuestResult,
    QuestStart,
    QuizAnswer,
    QuizQuestion,
    Quizzes,
    Revision,
    Silence,
    Start,
    Statement,
    TeamVote,
    VoteResult,
)
from space_app.games.avalon.rules import AvalonGame, AvalonSettings, resolve_team
from space_app.games.avalon.selfplay import outcome_for
from space_app.games.avalon.table import (
    ROLES,
    SIDES,
    TEAM_SIZES,
    default_roles,
    fails_needed,
    side_of,
    team_size,
)

COUNTS = range(5, 11)
E = TypeVar("E", bound=Event)
Reply = Callable[[AvalonGame, str], "str | Outcome"]


# -- helpers -------------------------------------------------------------------------------
def seats(n: int) -> list[str]:
    return [f"P{i}" for i in range(1, n + 1)]


def make(n: int = 5, seed: int = 0, **settings: Any) -> AvalonGame:
    return AvalonGame(seats(n), seed, AvalonSettings(players=n, **settings))


def good(game: AvalonGame) -> list[str]:
    return [s for s in game.seats if game.sides[s] == "good"]


def evil(game: AvalonGame) -> list[str]:
    return [s for s in game.seats if game.sides[s] == "evil"]


def clean_team(game: AvalonGame, _seat: str = "") -> str:
    return ", ".join(good(game)[: game.size])


def dirty_team(game: AvalonGame, _seat: str = "") -> str:
    """As many evil players as it takes to fail the quest, then good ones."""
    bad = evil(game)[: game.needed]
    return ", ".join(bad + good(game)[: game.size - len(bad)])


def evil_fails(game: AvalonGame, seat: str) -> str:
    return "fail" if game.sides[seat] == "evil" else "success"


def miss(game: AvalonGame, _seat: str) -> str:
    return next(s for s in good(game) if game.roles[s] != "merlin")


def hit(game: AvalonGame, _seat: str) -> str:
    return game.holders("merlin")[0]


def quiz_first(game: AvalonGame, seat: str) -> str:
    """An end-of-game quiz answer: the first options, as many as asked."""
    question = next(q for q in game.quiz_steps[0] if q.seat == seat)
    return ", ".join(question.options[: question.pick])


def quiz_truth(game: AvalonGame, seat: str) -> str:
    """The deduction quiz answered with the truth."""
    return ", ".join(s for s in evil(game) if s != seat)


class Script:
    """Answers each request from the callable for its phase (game, seat) -> reply."""

    def __init__(self, **replies: Reply) -> None:
        self.replies: dict[str, Reply] = {
            "propose": clean_team, "revise": lambda g, s: ", ".join(g.team),
            "discuss": lambda g, s: f"{s} speaks in quest {g.quest}, proposal {g.attempt}.",
            "team_vote": lambda g, s: "approve", "quest": evil_fails,
            "conference": lambda g, s: f"{s} has a guess.", "assassinate": miss,
            "summarise": quiz_first, "guess": quiz_first, "deduce": quiz_truth,
        }
        self.replies.update(replies)

    def outcome(self, game: AvalonGame, request: Request) -> Outcome:
        value = self.replies[request.observation.phase](game, request.seat)
        return value if isinstance(value, Outcome) else Outcome(request.seat, value)


def step(game: AvalonGame, script: Script) -> list[Request]:
    requests = game.pending()
    game.submit([script.outcome(game, r) for r in requests])
    return requests


def drive(game: AvalonGame, script: Script, until: Callable[[AvalonGame], bool] | None = None) -> AvalonGame:
    for _ in range(5000):
        if game.over or (until is not None and until(game)):
            return game
        step(game, script)
    raise AssertionError("the game did not end")


def kinds(game: AvalonGame, model: type[E]) -> list[E]:
    return [e for e in game.events if isinstance(e, model)]


def invalid(game: AvalonGame, action: str | None = None) -> list[AvalonInvalidAction]:
    return [e for e in kinds(game, AvalonInvalidAction) if action is None or e.action == action]


def at_phase(phase: str) -> Callable[[AvalonGame], bool]:
    return lambda g: g.phase == phase


# -- the tables ------------------------------------------------------------------------------
def test_tables_match_the_official_rules():
    assert SIDES == {5: (3, 2), 6: (4, 2), 7: (4, 3), 8: (5, 3), 9: (6, 3), 10: (6, 4)}
    assert TEAM_SIZES[5] == (2, 3, 2, 3, 3) and TEAM_SIZES[6] == (2, 3, 4, 3, 4)
    assert TEAM_SIZES[7] == (2, 3, 3, 4, 4)
    assert TEAM_SIZES[8] == TEAM_SIZES[9] == TEAM_SIZES[10] == (3, 4, 4, 5, 5)
    for n in COUNTS:
        assert [fails_needed(n, q) for q in range(1, 6)] == ([1, 1, 1, 2, 1] if n >= 7 else [1] * 5)
        roles = default_roles(n)
        assert sum(side_of(r) == "evil" for r in roles) == SIDES[n][1] and len(roles) == n
    assert default_roles(5) == ["merlin", "percival", "servant", "morgana", "assassin"]


@pytest.mark.parametrize("roles, message", [
    (["merlin", "percival", "servant", "morgana"], "5 players need 5 roles"),
    (["merlin", "percival", "servant", "servant", "assassin"], "3 good and 2 evil"),
    (["merlin", "merlin", "servant", "morgana", "assassin"], "exactly one Merlin"),
    (["merlin", "percival", "servant", "morgana", "minion"], "exactly one Assassin"),
    (["merlin", "percival", "servant", "wizard", "assassin"], "unknown role"),
    (["merlin", "percival", "percival", "assassin", "minion"], "exist once"),
])
def test_a_bad_role_set_is_refused_naming_the_problem(roles, message):
    with pytest.raises(ValidationError, match=message):
        AvalonSettings(players=5, roles=roles)


def test_role_names_are_normalised_and_a_player_count_outside_the_table_is_refused():
    s = AvalonSettings(players=5, roles=["Merlin", "Percival", "Loyal Servant", "Morgana", "assassin"])
    assert s.roles == ["merlin", "percival", "servant", "morgana", "assassin"]
    assert AvalonSettings.model_validate(s.model_dump(mode="json")) == s  # a stored setting reloads
    for n in (4, 11):
        with pytest.raises(ValidationError):
            AvalonSettings(players=n)
    with pytest.raises(ValueError, match="needs 5 seats"):
        AvalonGame(seats(6), 0, AvalonSettings(players=5))


def test_roles_and_first_leader_are_dealt_with_the_seed():
    deals = {tuple(make(7, seed).roles.values()) for seed in range(30)}
    leaders = {make(7, seed).first_leader for seed in range(30)}
    assert len(deals) > 10 and len(leaders) >= 5
    assert make(7, 3).roles == make(7, 3).roles and make(7, 3).first_leader == make(7, 3).first_leader
    game = make(7, 3)
    assert sorted(game.roles.values()) == sorted(default_roles(7))
    setup = kinds(game, AvalonSetup)[0]
    assert setup.visible_to == SPECTATORS and setup.roles == game.roles
    assert setup.sides == game.sides


# -- full games for every count ---------------------------------------------------------------
@pytest.mark.parametrize("n", COUNTS)
def test_good_wins_three_quests_and_the_assassin_misses(n):
    game = drive(make(n, seed=n), Script())
    result = game.result()
    assert result["winner"] == "good" and result["reason"] == "merlin_survived"
    assert result["scores"] == {s: float(game.sides[s] == "good") for s in game.seats}
    assert [q["size"] for q in result["quests"]] == list(TEAM_SIZES[n][:3])
    assert [e.size for e in kinds(game, QuestStart)] == list(TEAM_SIZES[n][:3])
    assert all(len(e.team) == team_size(n, e.quest) for e in kinds(game, Proposal))
    (shot,) = kinds(game, Assassination)
    assert shot.visible_to is None and shot.hit is False and shot.valid is True
    assert kinds(game, GameOver)[0].winner == "good"
    assert game.pending() == [] and not invalid(game)


@pytest.mark.parametrize("n", COUNTS)
def test_the_assassin_naming_merlin_wins_for_evil(n):
    game = drive(make(n, seed=100 + n), Script(assassinate=hit))
    result = game.result()
    assert result["winner"] == "evil" and result["reason"] == "merlin_assassinated"
    assert result["good_wins"] == 3 and result["assassination"]["hit"] is True
    assert result["scores"] == {s: float(game.sides[s] == "evil") for s in game.seats}


@pytest.mark.parametrize("n", COUNTS)
def test_three_failed_quests_win_for_evil(n):
    game = drive(make(n, seed=200 + n), Script(propose=dirty_team))
    result = game.result()
    assert result["winner"] == "evil" and result["reason"] == "three_fails"
    assert [q["success"] for q in result["quests"]] == [False, False, False]
    assert not kinds(game, Assassination) and not kinds(game, AssassinationPhase)
    fails = [e.fails for e in kinds(game, QuestResult)]
    assert fails == [1, 1, 1]
    cards = kinds(game, QuestCard)
    assert cards and all(e.visible_to == SPECTATORS for e in cards)


@pytest.mark.parametrize("n", COUNTS)
def test_five_rejections_in_a_row_win_for_evil(n):
    game = drive(make(n, seed=300 + n), Script(team_vote=lambda g, s: "reject"))
    result = game.result()
    assert result["winner"] == "evil" and result["reason"] == "five_rejections"
    results = kinds(game, VoteResult)
    assert [e.attempt for e in results] == [1, 2, 3, 4, 5]
    assert [e.rejected_in_row for e in results] == [1, 2, 3, 4, 5]
    assert not kinds(game, QuestResult)


# -- the fourth quest with 7+ ---------------------------------------------------------------------
def _to_quest_four(n: int, seed: int) -> AvalonGame:
    """Quests 1 and 3 succeed, quest 2 fails: the game is open at quest 4."""
    def propose(g: AvalonGame, s: str) -> str:
        return dirty_team(g) if g.quest == 2 else clean_team(g)
    return drive(make(n, seed), Script(propose=propose), until=lambda g: g.quest == 4)


@pytest.mark.parametrize("n", [7, 8, 9, 10])
def test_the_fourth_quest_fails_only_with_two_fail_cards_from_seven_players(n):
    one = _to_quest_four(n, seed=n)
    two_evil = ", ".join(evil(one)[:2] + good(one)[: one.size - 2])
    first_only = evil(one)[0]
    drive(one, Script(propose=lambda g, s: two_evil if g.quest == 4 else clean_team(g),
                      quest=lambda g, s: "fail" if s == first_only else "success"),
          until=lambda g: g.quest == 5 or g.over)
    q4 = [e for e in kinds(one, QuestResult) if e.quest == 4][0]
    assert q4.fails == 1 and q4.fails_needed == 2 and q4.success is True

    two = _to_quest_four(n, seed=n)
    drive(two, Script(propose=lambda g, s: two_evil if g.quest == 4 else clean_team(g)),
          until=lambda g: g.quest == 5 or g.over)
    q4 = [e for e in kinds(two, QuestResult) if e.quest == 4][0]
    assert q4.fails == 2 and q4.success is False
    assert kinds(two, QuestStart)[3].fails_needed == 2


@pytest.mark.parametrize("n", [5, 6])
def test_below_seven_players_one_fail_card_fails_the_fourth_quest(n):
    game = _to_quest_four(n, seed=n)
    drive(game, Script(propose=lambda g, s: dirty_team(g) if g.quest == 4 else clean_team(g)),
          until=lambda g: g.quest == 5 or g.over)
    q4 = [e for e in kinds(game, QuestResult) if e.quest == 4][0]
    assert q4.fails == 1 and q4.fails_needed == 1 and q4.success is False


# -- proposals, leaders, votes ------------------------------------------------------------------
@pytest.mark.parametrize("n", COUNTS)
def test_leadership_passes_clockwise_after_every_proposal(n):
    votes = iter(["reject", "reject", "approve"] * 20)
    decided: dict[tuple[int, int], str] = {}

    def vote(g: AvalonGame, s: str) -> str:
        key = (g.quest, g.attempt)
        if key not in decided:
            decided[key] = next(votes)
        return decided[key]

    game = drive(make(n, seed=400 + n), Script(team_vote=vote))
    leaders = [e.leader for e in kinds(game, Proposal)]
    assert leaders[0] == game.first_leader
    for a, b in zip(leaders, leaders[1:], strict=False):
        assert game.seats.index(b) == (game.seats.index(a) + 1) % n
    attempts = [e.attempt for e in kinds(game, Proposal)]
    assert attempts[:6] == [1, 2, 3, 1, 2, 3]
    assert kinds(game, QuestStart)[1].leader == leaders[3]


def test_discussion_starts_with_the_leader_then_seat_order():
    game = make(7, seed=5)
    step(game, Script())  # the proposal
    spoken = []
    while game.phase == "discuss":
        spoken += [r.seat for r in step(game, Script())]
    i = game.seats.index(game.leader)
    assert spoken == game.seats[i:] + game.seats[:i]
    statements = kinds(game, Statement)
    assert [e.actor for e in statements] == spoken
    assert all(e.visible_to is None and e.payload() == {"quest": 1, "attempt": 1} for e in statements)


@pytest.mark.parametrize("n", [6, 8, 10])
def test_a_tie_rejects(n):
    game = make(n, seed=1)
    half = set(game.seats[: n // 2])
    drive(game, Script(team_vote=lambda g, s: "approve" if s in half else "reject"),
          until=lambda g: len(kinds(g, VoteResult)) == 1)
    result = kinds(game, VoteResult)[0]
    assert result.approve == result.reject == n // 2 and result.approved is False
    assert result.grid == {s: ("approve" if s in half else "reject") for s in game.seats}
    assert game.phase == "propose" and game.attempt == 2
    votes = kinds(game, TeamVote)
    assert [e.actor for e in votes] == game.seats and all(e.visible_to is None for e in votes)


def test_a_strict_majority_approves():
    game = make(5, seed=2)
    drive(game, Script(team_vote=lambda g, s: "approve" if s in ("P1", "P2", "P3") else "reject"),
          until=at_phase("quest"))
    assert kinds(game, VoteResult)[0].approved is True


def test_auto_approve_fifth_sends_the_fifth_proposal_without_a_vote():
    game = make(6, seed=3, auto_approve_fifth=True)
    asked: list[str] = []

    def vote(g: AvalonGame, s: str) -> str:
        asked.append(f"{g.quest}.{g.attempt}")
        return "reject"

    drive(game, Script(team_vote=vote), until=at_phase("quest"))
    assert set(asked) == {"1.1", "1.2", "1.3", "1.4"}  # nobody is asked about the fifth
    fifth = kinds(game, VoteResult)[-1]
    assert fifth.auto is True and fifth.approved is True and fifth.attempt == 5 and fifth.grid == {}
    assert not game.over and game.team == kinds(game, Proposal)[-1].team
    drive(game, Script(team_vote=vote))
    assert game.result()["reason"] != "five_rejections"


def test_without_the_variant_a_fifth_proposal_is_voted_on():
    game = make(6, seed=3)
    drive(game, Script(team_vote=lambda g, s: "reject"))
    assert game.result()["reason"] == "five_rejections" and len(kinds(game, TeamVote)) == 5 * 6


def test_the_leader_revises_the_team_after_the_discussion():
    game = make(5, seed=4)
    leader = game.leader
    first = [s for s in game.seats if s != leader][:2]
    second = [leader, next(s for s in game.seats if s not in (leader, *first))]
    drive(game, Script(propose=lambda g, s: ", ".join(first), revise=lambda g, s: ", ".join(second)),
          until=at_phase("quest"))
    (revision,) = kinds(game, Revision)
    assert revision.actor == leader and revision.visible_to is None
    assert revision.old_team == [s for s in game.seats if s in first]
    assert revision.team == [s for s in game.seats if s in second] and revision.changed is True
    assert kinds(game, VoteResult)[0].team == revision.team
    assert sorted(r.seat for r in game.pending()) == sorted(second)  # the revised team goes


def test_keeping_the_team_and_no_reconsideration():
    game = make(5, seed=4)
    drive(game, Script(), until=at_phase("team_vote"))
    assert kinds(game, Revision)[0].changed is False
    off = make(5, seed=4, leader_reconsideration=False)
    phases = []
    while off.phase != "team_vote":
        phases.append(off.phase)
        step(off, Script())
    assert "revise" not in phases and not kinds(off, Revision)


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize("reply, expected_named, problem", [
    ("P2", ["P2"], "needs 2 different players, named 1"),
    ("P2, P2", ["P2"], "named twice"),
    ("P2, Bob", ["P2"], "unknown name"),
    ("P4, P2, P3", ["P4", "P2"], "named 3"),
    (None, [], "no usable reply"),
])
def test_an_invalid_proposal_is_completed_from_the_leader_clockwise(reply, expected_named, problem):
    game = make(5, seed=0)
    leader = game.leader
    i = game.seats.index(leader)
    clockwise = game.seats[i:] + game.seats[:i]
    expected = (expected_named + [s for s in clockwise if s not in expected_named])[:2]
    outcome = Outcome(leader, reply) if reply is not None else Outcome(leader, None, "timeout", "slow")
    game.submit([outcome])
    (proposal,) = kinds(game, Proposal)
    assert proposal.team == [s for s in game.seats if s in expected]
    (bad,) = invalid(game, "proposal")
    assert bad.visible_to == (leader,) and bad.seat == leader and problem in bad.reason


def test_the_clockwise_setting_ignores_the_names_of_an_invalid_proposal():
    team, problems = resolve_team("P3", seats(5), 2, "P4", "clockwise")
    assert team == ["P4", "P5"] and problems
    team, problems = resolve_team("P3, P1", seats(5), 2, "P4", "clockwise")
    assert team == ["P1", "P3"] and not problems
    assert resolve_team("p3 , P1", seats(5), 2, "P4") == (["P1", "P3"], [])


def test_the_runners_multi_pick_text_is_what_the_game_reads():
    game = make(5, seed=0)
    (request,) = game.pending()
    outcome = outcome_for(request, "I propose P2 and P5.\nFinal answer: P2, P5")
    assert outcome.text == "P2, P5"
    game.submit([outcome])
    assert kinds(game, Proposal)[0].team == ["P2", "P5"] and not invalid(game)
    short = outcome_for(request, "Final answer: P2")  # one name for a team of two: the parser refuses it
    assert short.text is None and short.status == "unparseable"


def test_an_invalid_revision_keeps_the_discussed_team():
    game = make(5, seed=0)
    drive(game, Script(revise=lambda g, s: "P1, nobody"), until=at_phase("team_vote"))
    revision = kinds(game, Revision)[0]
    assert revision.team == revision.old_team and revision.changed is False
    assert invalid(game, "revision")[0].visible_to == (game.team_leader,)


@pytest.mark.parametrize("reply", ["approve, reject", "maybe", "", Outcome("?", None, "unparseable", "ambiguous"),
                                   Outcome("?", None, "timeout", "slow")])
def test_an_unreadable_team_vote_counts_as_reject(reply):
    game = make(5, seed=6)
    target = game.seats[0]

    def vote(g: AvalonGame, s: str) -> str | Outcome:
        if s != target:
            return "approve"
        return Outcome(s, reply.text, reply.status, reply.detail) if isinstance(reply, Outcome) else reply

    drive(game, Script(team_vote=vote), until=lambda g: bool(kinds(g, VoteResult)))
    assert kinds(game, VoteResult)[0].grid[target] == "reject"
    (bad,) = invalid(game, "team vote")
    assert bad.visible_to == (target,) and "reject" in bad.reason


def test_a_good_players_fail_is_refused_and_counted_as_success():
    game = make(5, seed=7)
    drive(game, Script(quest=lambda g, s: "fail"), until=lambda g: bool(kinds(g, QuestResult)))
    result = kinds(game, QuestResult)[0]
    assert result.fails == 0 and result.success is True  # the clean team's cards all count success
    refused = invalid(game, "quest card")
    assert {e.actor for e in refused} == set(result.team)
    assert all(e.visible_to == (e.actor,) and "only play success" in e.reason for e in refused)
    cards = kinds(game, QuestCard)
    assert all(e.card == "success" and e.played == "fail" and e.refused for e in cards)


def test_an_unreadable_quest_card_is_success_for_either_side():
    game = make(5, seed=8)
    drive(game, Script(propose=dirty_team, quest=lambda g, s: Outcome(s, None, "error", "crash")),
          until=lambda g: bool(kinds(g, QuestResult)))
    assert kinds(game, QuestResult)[0].fails == 0
    assert len(invalid(game, "quest card")) == game.quests[0]["size"]


@pytest.mark.parametrize("target", ["teammate", "nobody", "timeout", "self"])
def test_an_invalid_assassination_is_a_miss(target):
    game = make(7, seed=9)

    def shoot(g: AvalonGame, s: str) -> str | Outcome:
        if target == "teammate":
            return next(x for x in evil(g) if x != s)
        if target == "self":
            return s
        return "Nobody" if target == "nobody" else Outcome(s, None, "timeout", "slow")

    drive(game, Script(assassinate=shoot))
    assert game.result()["winner"] == "good" and game.result()["reason"] == "merlin_survived"
    (bad,) = invalid(game, "assassination")
    assassin = game.holders("assassin")[0]
    assert bad.visible_to == (assassin,) and "miss" in bad.reason
    assert kinds(game, Assassination)[0].hit is False


def test_assassination_options_are_the_other_seats():
    game = make(6, seed=10, evil_conference=False)
    drive(game, Script(), until=at_phase("assassinate"))
    (request,) = game.pending()
    assert request.seat == game.holders("assassin")[0]
    assert request.observation.options == [s for s in game.seats if s != request.seat]


def test_empty_and_failed_statements_are_public_silence():
    game = make(5, seed=11)
    step(game, Script())
    first, second = game.order[0], game.order[1]
    step(game, Script(discuss=lambda g, s: "   "))
    step(game, Script(discuss=lambda g, s: Outcome(s, None, "timeout", "slow")))
    silences = kinds(game, Silence)
    assert [e.actor for e in silences] == [first, second]
    assert all(e.visible_to is None for e in silences)
    assert silences[0].reason == "empty statement" and "timeout" in silences[1].reason


def test_statements_are_cut_to_max_chars():
    game = make(5, seed=11, max_chars=20)
    step(game, Script())
    step(game, Script(discuss=lambda g, s: "x" * 100))
    assert kinds(game, Statement)[0].text == "x" * 20
    assert game.pending()[0].observation.limits.max_chars == 20


# -- the evil conference ---------------------------------------------------------------------------
def test_the_evil_conference_is_private_to_the_evil_team_and_the_assassin_speaks_last():
    game = make(7, seed=12, roles=["merlin", "percival", "servant", "servant", "assassin", "oberon", "minion"])
    drive(game, Script(), until=at_phase("conference"))
    evil_seats = tuple(evil(game))
    (reveal,) = kinds(game, EvilReveal)
    assert reveal.visible_to == evil_seats and reveal.evil == list(evil_seats)
    order = []
    while game.phase == "conference":
        order += [r.seat for r in step(game, Script())]
    assert set(order) == set(evil_seats) and order[-1] == game.holders("assassin")[0]
    assert all(e.visible_to == evil_seats for e in kinds(game, EvilTalk))
    (request,) = game.pending()
    assert any(isinstance(KINDS.from_history(h), EvilReveal) for h in request.observation.history)
    good_view = game.observe(good(game)[0], "speak", phase="check", instruction="")
    assert not any(isinstance(KINDS.from_history(h), (EvilReveal, EvilTalk)) for h in good_view.history)
    assert game.phase == "assassinate"


# -- what each role knows ---------------------------------------------------------------------------
def role_sets(n: int) -> list[list[str]]:
    g, e = SIDES[n]
    goods = ["merlin", "percival"] + ["servant"] * (g - 2)
    sets = [default_roles(n),
            goods + ["assassin", "mordred"] + ["minion"] * (e - 2),
            goods + ["assassin", "oberon"] + ["morgana"] * (e - 2 > 0) + ["minion"] * max(0, e - 3),
            ["merlin"] + ["servant"] * (g - 1) + ["assassin"] + ["minion"] * (e - 1)]
    if e >= 3:
        sets.append(goods + ["assassin", "mordred", "oberon"] + ["morgana"] * (e - 3))
    return sets


def expected_facts(game: AvalonGame, seat: str) -> dict[str, Any]:
    role, roles = game.roles[seat], game.roles
    facts: dict[str, Any] = {"role": role, "side": game.sides[seat]}
    if role == "merlin":
        facts["known_evil"] = [s for s in game.seats if game.sides[s] == "evil" and roles[s] != "mordred"]
    if role == "percival":
        facts["merlin_candidates"] = [s for s in game.seats if roles[s] in ("merlin", "morgana")]
    if game.sides[seat] == "evil" and role != "oberon":
        facts["evil_team"] = [s for s in game.seats if game.sides[s] == "evil" and roles[s] != "oberon"]
    return facts


def named(text: str, game: AvalonGame) -> set[str]:
    return {s for s in game.seats if re.search(rf"(?<![A-Za-z0-9]){re.escape(s)}(?![A-Za-z0-9])", text)}


def check_knowledge(game: AvalonGame, seat: str, obs: Any) -> None:
    role = game.roles[seat]
    facts = obs.private.facts
    assert facts == expected_facts(game, seat), (seat, role)
    text = obs.private.text
    mentioned = named(text, game)
    assert role.replace("servant", "Loyal Servant").lower() in text.lower()
    if role == "merlin":
        assert mentioned == set(facts["known_evil"])
        assert not mentioned & set(game.holders("mordred"))
    elif role == "percival":
        assert mentioned == set(facts["merlin_candidates"])
        if len(facts["merlin_candidates"]) == 2:  # seat order, never which is which
            assert facts["merlin_candidates"] == sorted(facts["merlin_candidates"], key=game.seats.index)
            a, b = facts["merlin_candidates"]
            assert f"one of {a}, {b}" in text and "Merlin is P" not in text
    elif game.sides[seat] == "evil" and role != "oberon":
        assert mentioned == set(facts["evil_team"])
        assert set(obs.private.shared_with) == set(facts["evil_team"]) - {seat}
    else:  # servants and Oberon are told about nobody
        assert mentioned == set() and obs.private.shared_with == []
    if game.sides[seat] == "good":
        assert obs.private.shared_with == []
    for item in obs.history:  # the public record names nobody's role or side before the end
        assert not isinstance(KINDS.from_history(item), AvalonInvalidAction) or item.who == seat
        assert "roles" not in item.data and "sides" not in item.data and "evil" not in item.data


@pytest.mark.parametrize("n", COUNTS)
def test_every_role_knows_exactly_what_it_should(n):
    checked: dict[str, int] = {}
    percival_first = set()
    for roles in role_sets(n):
        for seed in range(8):
            game = make(n, seed=seed, roles=roles)
            for seat in game.seats:  # at the start
                check_knowledge(game, seat, game.observe(seat, "speak", phase="check", instruction=""))
                checked[game.roles[seat]] = checked.get(game.roles[seat], 0) + 1
            if "morgana" in roles and "percival" in roles:
                cands = [s for s in game.seats if game.roles[s] in ("merlin", "morgana")]
                percival_first.add(game.roles[cands[0]])
            # and in every request until the assassination phase, with random replies
            rng = random.Random(seed)
            while not game.over and game.phase not in ("conference", "assassinate"):
                requests = game.pending()
                for r in requests:
                    check_knowledge(game, r.seat, r.observation)
                game.submit([Outcome(r.seat, ", ".join(rng.sample(r.observation.options, r.observation.pick))
                                     if r.observation.options else "hello") for r in requests])
    assert set(checked) == set(ROLES)
    assert percival_first == {"merlin", "morgana"}, "Merlin must not always be listed first (or second)"


def test_each_private_event_reaches_exactly_its_seats():
    game = make(10, seed=1, roles=["merlin", "percival", "servant", "servant", "servant", "servant",
                                   "assassin", "mordred", "oberon", "morgana"])
    privates = kinds(game, Private)
    assert [e.visible_to for e in privates[:10]] == [(s,) for s in game.seats]
    (group,) = privates[10:]
    assert set(group.visible_to) == {s for s in evil(game) if game.roles[s] != "oberon"}
    oberon = game.holders("oberon")[0]
    assert not any(oberon in (e.visible_to or ()) for e in privates if e.visible_to != (oberon,))
    assert all(e.visible_to is None for e in game.events if isinstance(e, (Start, QuestStart)))


def test_same_seed_and_replies_give_the_same_events():
    def run(seed: int) -> list[dict]:
        return [e.to_dict() for e in drive(make(8, seed=seed), Script(propose=dirty_team)).events]
    assert run(21) == run(21)
    assert run(21) != run(22)


# -- the end-of-game quizzes ------------------------------------------------------------------------
@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("ending", ["merlin_survived", "merlin_assassinated", "three_fails", "five_rejections"])
def test_every_ending_asks_the_deduction_quiz_before_the_reveal_without_changing_the_result(n, ending):
    script = {"merlin_survived": Script(), "merlin_assassinated": Script(assassinate=hit),
              "three_fails": Script(propose=dirty_team),
              "five_rejections": Script(team_vote=lambda g, s: "reject")}[ending]
    game = drive(make(n, seed=500 + n), script, until=at_phase("quiz"))
    decided = dict(winner=game.winner, reason=game.reason)
    assert decided["reason"] == ending and not game.over and not kinds(game, GameOver)
    requests = game.pending()
    assert sorted(r.seat for r in requests) == sorted(game.seats)
    for r in requests:
        obs = r.observation
        others = [s for s in game.seats if s != r.seat]
        assert obs.verb == "answer" and obs.phase == "deduce" and obs.options == others
        assert obs.pick == sum(game.sides[s] == "evil" for s in others)
        assert not any("roles" in h.data or "sides" in h.data for h in obs.history), "asked before the reveal"
    drive(game, Script(deduce=lambda g, s: "nobody"))  # unreadable answers: the game ends all the same
    assert game.over and kinds(game, GameOver)[0].reason == ending
    assert dict(winner=game.result()["winner"], reason=game.result()["reason"]) == decided
    answers = kinds(game, QuizAnswer)
    assert len(answers) == n and all(e.status == "invalid" and e.visible_to == (e.actor,) for e in answers)
    assert isinstance(game.events[-1], GameOver)


def test_no_quiz_when_the_settings_say_so():
    game = drive(make(5, seed=1, deduction_quiz=False), Script())
    assert not kinds(game, Quizzes) and not kinds(game, QuizQuestion)
    assert isinstance(game.events[-1], GameOver)
