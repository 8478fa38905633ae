"""Werewolf's rules, one test per rule and setting: the deal and default role counts, the night's
order of resolution (the wolves' vote and its ties, the Doctor's protection and its limits, the
Witch's potions, the Seer's vision), the day (reveal levels, each discussion protocol, the vote,
its ties and the run-off, last words), the Hunter, the win conditions and the limits; then the
events' visibility, the metrics, the replay panels and the conformance checks."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic import ValidationError

from sdk import Observation
from space_app.core import get_game
from space_app.core.conformance import check_game, self_play
from space_app.core.events import Event
from space_app.core.game import Outcome
from space_app.core.replies import outcome_text
from space_app.games.werewolf.events import (
    KINDS,
    Bids,
    Dawn,
    DayVote,
    DoctorProtect,
    Elimination,
    GameOver,
    HunterShot,
    NightResolution,
    SeerCheck,
    Silence,
    Statement,
    VoteResult,
    WerewolfInvalid,
    WitchAction,
    WolfChoice,
    WolfTalk,
)
from space_app.games.werewolf.metrics import records, row
from space_app.games.werewolf.roles import default_werewolves, role_list
from space_app.games.werewolf.rules import WerewolfGame, WerewolfSettings, dealt_roles
from space_app.games.werewolf.view import days, discussion, nights, role_board, why_won

SPEC = get_game("werewolf")
Reply = Callable[[WerewolfGame, str, Observation], str]


def first(game: WerewolfGame, seat: str, obs: Observation) -> str:
    """A plain reply: the first option, or a short statement."""
    return obs.options[0] if obs.options else f"{seat} speaks."


def play(reply: Reply, players: int = 7, seed: int = 0, steps: int | None = None,
         until: Callable[[WerewolfGame], object] | None = None, **settings) -> WerewolfGame:
    """A game driven by `reply`, every reply read as the runner reads it; `steps`, `until`: stop
    after so many steps, or once `until(game)` holds."""
    game = SPEC.make(players, seed, settings)
    assert isinstance(game, WerewolfGame)
    n = 0
    while not game.over and (steps is None or n < steps) and not (until and until(game)):
        outcomes = []
        for request in game.pending():
            text, status, detail = outcome_text(reply(game, request.seat, request.observation), request.observation)
            outcomes.append(Outcome(request.seat, text, status, detail))  # type: ignore[arg-type]
        game.submit(outcomes)
        n += 1
    return game


def of(game: WerewolfGame, kind: type[Event]) -> list:
    return [e for e in game.events if isinstance(e, kind)]


def holder(game: WerewolfGame, role: str) -> str:
    return next(s for s in game.seats if game.roles[s] == role)


def village(game: WerewolfGame) -> list[str]:
    return [s for s in game.seats if game.roles[s] != "werewolf"]


def night_plan(wolves_vote: Callable[[WerewolfGame], str | list[str]] | None = None,
               doctor: Callable[[WerewolfGame, list[str]], str] | None = None,
               seer: Callable[[WerewolfGame, list[str]], str] | None = None,
               witch: Callable[[WerewolfGame, list[str]], str] | None = None,
               day: Callable[[WerewolfGame, str, list[str]], str] | None = None) -> Reply:
    """A reply that follows a plan by role and phase (first option where it has none)."""

    def reply(game: WerewolfGame, seat: str, obs: Observation) -> str:
        role = game.roles[seat]
        if obs.phase == "night" and role == "werewolf" and wolves_vote:
            target = wolves_vote(game)
            if isinstance(target, list):
                return target[game.living_wolves.index(seat) % len(target)]
            return target
        if obs.phase == "night" and role == "doctor" and doctor:
            return doctor(game, obs.options)
        if obs.phase == "night" and role == "seer" and seer:
            return seer(game, obs.options)
        if obs.phase == "witch" and witch:
            return witch(game, obs.options)
        if obs.phase in ("day_vote", "runoff") and day:
            return day(game, seat, obs.options)
        return first(game, seat, obs)

    return reply


# -- the deal --------------------------------------------------------------------------------
def test_default_role_counts_per_table_size():
    assert [default_werewolves(n) for n in range(6, 16)] == [2, 2, 2, 3, 3, 3, 4, 4, 4, 4]
    for n in range(6, 16):
        roles = role_list(n)
        assert len(roles) == n and roles.count("seer") == 1 and roles.count("doctor") == 1
        assert roles.count("werewolf") == default_werewolves(n)
    with_both = role_list(8, witch=True, hunter=True)
    assert with_both.count("villager") == 2 and "witch" in with_both and "hunter" in with_both
    assert role_list(9, werewolves=2).count("werewolf") == 2


def test_settings_refuse_a_table_that_cannot_be_dealt():
    for bad in ({"players": 5}, {"players": 16}, {"players": 6, "werewolves": 3},
                {"players": 6, "werewolves": 2, "witch": True, "hunter": True, "discussion_rounds": 0}):
        with pytest.raises(ValidationError):
            WerewolfSettings(**bad)
    with pytest.raises(ValidationError, match="parity"):
        WerewolfSettings(players=8, werewolves=4)
    assert WerewolfSettings(players=7, werewolves=3, witch=True, hunter=True).roles().count("villager") == 0


def test_the_deal_hook_is_the_games_own_deal():
    for seed in range(20):
        settings = WerewolfSettings(players=9, witch=True)
        game = WerewolfGame([f"P{i}" for i in range(1, 10)], seed, settings)
        assert dealt_roles(game.seats, seed, settings) == [game.roles[s] for s in game.seats]
    assert len({tuple(SPEC.deal_roles(8, seed)) for seed in range(10)}) > 1


def test_each_seat_is_told_its_role_and_the_pack_each_other():
    game = SPEC.make(8, 4)
    wolves = [s for s in game.seats if game.roles[s] == "werewolf"]
    for seat in game.seats:
        obs = game.observe(seat, "speak", phase="x", instruction="x")
        assert obs.private.facts["role"] == game.roles[seat]
        assert ("werewolves" in obs.private.facts) == (seat in wolves)
        if seat in wolves:
            assert obs.private.facts["werewolves"] == wolves


# -- the night -------------------------------------------------------------------------------
def test_introductions_come_before_the_first_night_and_can_be_switched_off():
    game = play(first, steps=7)
    intros = [e for e in of(game, Statement) if e.phase == "introduction"]
    assert len(intros) == 7 and intros[0].actor == game.opener
    game = play(first, steps=1, introductions=False)
    assert not [e for e in of(game, Statement) if e.phase == "introduction"]


def test_the_wolves_talk_only_among_themselves_then_their_victim_dies():
    def reply(game, seat, obs):
        if obs.phase == "night" and game.roles[seat] == "werewolf":
            return village(game)[0]
        if obs.phase == "night" and game.roles[seat] == "doctor":
            return next(o for o in obs.options if o != village(game)[0])
        return first(game, seat, obs)

    game = play(reply, introductions=False, steps=3)  # talk, talk, the night's actions
    talk = of(game, WolfTalk)
    wolves = tuple(s for s in game.seats if game.roles[s] == "werewolf")
    assert len(talk) == 2 and all(e.visible_to == wolves for e in talk)
    choice = of(game, WolfChoice)[0]
    assert choice.target == village(game)[0] and choice.how == "votes" and choice.visible_to == wolves
    dawn = of(game, Dawn)[0]
    assert dawn.deaths == [village(game)[0]] and dawn.visible_to is None
    assert village(game)[0] not in game.alive
    resolution = of(game, NightResolution)[0]
    assert resolution.visible_to == () and resolution.causes == {village(game)[0]: "wolves"}


def test_no_wolf_talk_with_zero_rounds_or_a_lone_wolf():
    game = play(first, introductions=False, wolf_talk_rounds=0, steps=1)
    assert not of(game, WolfTalk) and of(game, WolfChoice)
    game = play(first, players=6, introductions=False, werewolves=1, steps=1)
    assert not of(game, WolfTalk)


def test_two_talk_rounds_give_each_wolf_two_lines():
    game = play(first, introductions=False, wolf_talk_rounds=2, steps=4)
    talk = [e.actor for e in of(game, WolfTalk)]
    assert len(talk) == 4 and talk[:2] == talk[2:]


@pytest.mark.parametrize("rule", ["lot", "no_kill"])
def test_a_tied_wolf_vote(rule):
    victims = {}

    def split(game):
        victims.setdefault("pair", village(game)[:2])
        return victims["pair"]

    game = play(night_plan(wolves_vote=split, doctor=lambda g, o: next(x for x in o if x not in victims["pair"])),
                introductions=False, wolf_talk_rounds=0, wolf_tie=rule, steps=1)
    choice = of(game, WolfChoice)[0]
    assert choice.tied == victims["pair"]
    if rule == "lot":
        assert choice.how == "lot" and choice.target in victims["pair"]
        assert of(game, Dawn)[0].deaths == [choice.target]
    else:
        assert choice.how == "no_kill_tie" and choice.target is None and of(game, Dawn)[0].deaths == []


def test_no_usable_wolf_vote_means_no_attack_and_an_invalid_action_for_each_wolf():
    def reply(game, seat, obs):
        if obs.phase == "night" and game.roles[seat] == "werewolf":
            return "nobody in particular"
        return first(game, seat, obs)

    game = play(reply, introductions=False, wolf_talk_rounds=0, steps=1)
    assert of(game, WolfChoice)[0].how == "no_votes"
    invalid = of(game, WerewolfInvalid)
    assert {e.seat for e in invalid} == set(game.wolves)
    assert all(e.visible_to == (e.seat,) and e.action == "wolf_vote" for e in invalid)


def test_the_doctors_protection_saves_the_victim():
    target = {}

    def wolves(game):
        target.setdefault("v", village(game)[0])
        return target["v"]

    game = play(night_plan(wolves_vote=wolves, doctor=lambda g, o: target["v"]), introductions=False,
                wolf_talk_rounds=0, steps=1)
    assert of(game, Dawn)[0].deaths == [] and of(game, NightResolution)[0].saved_by == "doctor"
    protect = of(game, DoctorProtect)[0]
    assert protect.visible_to == (holder(game, "doctor"),) and protect.target == target["v"]


@pytest.mark.parametrize("self_protect", [True, False])
def test_doctor_self_protection_setting(self_protect):
    game = play(first, introductions=False, wolf_talk_rounds=0, doctor_self_protect=self_protect, steps=0)
    doctor = holder(game, "doctor")
    ask = next(r for r in game.pending() if r.seat == doctor)
    assert (doctor in ask.observation.options) == self_protect


@pytest.mark.parametrize("repeat", [True, False])
def test_doctor_repeat_protection_setting(repeat):
    chosen = {}

    def doctor(game, options):
        chosen.setdefault("first", next(o for o in options if game.roles[o] == "villager"))
        return chosen["first"] if chosen["first"] in options else options[0]

    def wolves(game):
        return next(s for s in village(game) if s != chosen.get("first") and game.roles[s] != "doctor")

    game = play(night_plan(wolves_vote=wolves, doctor=doctor, day=lambda g, s, o: "abstain"), introductions=False,
                wolf_talk_rounds=0, doctor_repeat=repeat)
    protections = [e.target for e in of(game, DoctorProtect)]
    assert len(protections) >= 2
    if repeat:
        assert protections[0] == protections[1]
    else:
        assert all(a != b for a, b in zip(protections, protections[1:], strict=False))


def test_the_seer_learns_a_team_or_a_role():
    for sees, wolf_word in (("team", "werewolves"), ("role", "werewolf")):
        def seer(game, options):
            return next(o for o in options if game.roles[o] == "werewolf")

        game = play(night_plan(seer=seer), introductions=False, wolf_talk_rounds=0, seer_sees=sees, steps=1)
        check = of(game, SeerCheck)[0]
        assert check.werewolf and check.result == wolf_word and check.visible_to == (holder(game, "seer"),)


def test_the_witch_heals_then_poisons_and_poison_beats_protection():
    state = {}

    def wolves(game):
        return next(s for s in village(game) if game.roles[s] == "villager")

    def witch(game, options):
        if "save" in options:
            return "save"
        # the second night: poison the player the Doctor protects
        state["poisoned"] = state["protected"]
        return f"poison {state['protected']}"

    def doctor(game, options):
        if "poisoned" in state:
            return options[0]
        state["protected"] = next(o for o in options if game.roles[o] == "villager" and o != wolves(game))
        return state["protected"]

    game = play(night_plan(wolves_vote=wolves, witch=witch, doctor=doctor, day=lambda g, s, o: "abstain"),
                players=8, introductions=False, wolf_talk_rounds=0, witch=True)
    actions = of(game, WitchAction)
    assert [a.action for a in actions[:2]] == ["save", "poison"]
    first_night, second_night = of(game, NightResolution)[:2]
    assert first_night.saved_by == "witch" and first_night.causes == {}
    assert second_night.protected == state["poisoned"] and second_night.causes[state["poisoned"]] == "poison"
    assert all(a.visible_to == (holder(game, "witch"),) for a in actions)
    # potions used are not offered again
    later = [e for e in game.events if isinstance(e, WitchAction)][2:]
    assert all(a.action == "none" for a in later)


@pytest.mark.parametrize("self_save", [True, False])
def test_witch_self_save_setting(self_save):
    def wolves(game):
        return holder(game, "witch")

    game = play(night_plan(wolves_vote=wolves, doctor=lambda g, o: next(x for x in o if g.roles[x] == "villager")),
                players=8, introductions=False, wolf_talk_rounds=0, witch=True, witch_self_save=self_save, steps=1)
    witch = holder(game, "witch")
    ask = game.pending()[0] if game.phase == "witch" else None
    assert ask is not None and ask.seat == witch
    assert ("save" in ask.observation.options) == self_save


# -- the day ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("reveal", "shown"), [("none", None), ("team", "village"), ("role", "villager")])
def test_reveal_on_death(reveal, shown):
    def wolves(game):
        return next(s for s in village(game) if game.roles[s] == "villager")

    def doctor(game, options):
        return next(o for o in options if o != wolves(game))

    def day(game, seat, options):
        target = next(s for s in game.alive if game.roles[s] == "villager")
        return target if target in options else options[0]

    game = play(night_plan(wolves_vote=wolves, doctor=doctor, day=day), introductions=False, wolf_talk_rounds=0,
                reveal=reveal)
    dawn = next(e for e in of(game, Dawn) if e.deaths)
    elimination = of(game, Elimination)[0]
    if shown is None:
        assert dawn.revealed == {} and elimination.revealed is None
        assert "villager" not in dawn.text.casefold() and "was" not in elimination.text
    else:
        assert dawn.revealed == {dawn.deaths[0]: shown} and elimination.revealed == shown
    assert of(game, GameOver)[0].roles == game.roles  # every role at the end


def test_round_robin_gives_every_living_player_its_rounds_in_the_days_order():
    game = play(first, introductions=False, discussion_rounds=2, steps=30)
    day1 = [e for e in of(game, Statement) + of(game, Silence) if e.day == 1 and e.phase == "discussion"]
    alive = of(game, Dawn)[0].alive
    assert len(day1) == 2 * len(alive)
    speakers = [e.actor for e in day1]
    assert speakers[: len(alive)] == speakers[len(alive):] and sorted(speakers[: len(alive)]) == sorted(alive)
    assert [e.turn for e in day1] == [1] * len(alive) + [2] * len(alive)


def test_parallel_statements_are_asked_at_once_and_unseen_until_the_round_ends():
    game = play(first, introductions=False, protocol="parallel", steps=2)
    while game.phase != "discuss_parallel":
        game.submit([Outcome(r.seat, first(game, r.seat, r.observation)) for r in game.pending()])
    asks = game.pending()
    assert sorted(r.seat for r in asks) == sorted(game.alive)
    assert all(not [h for h in r.observation.history if h.kind == "statement" and h.round == game.day] for r in asks)
    game.submit([Outcome(r.seat, f"{r.seat} says round one.") for r in asks])
    second = game.pending()
    assert all(len([h for h in r.observation.history if h.kind == "statement" and h.round == game.day])
               == len(game.alive) for r in second)


def test_bidding_gives_the_floor_to_the_highest_bid_then_the_least_heard():
    bids_by_seat = {}

    def reply(game, seat, obs):
        if obs.phase == "bid":
            return bids_by_seat.setdefault(seat, str(game.seats.index(seat) % 3 + 1))
        return first(game, seat, obs)

    game = play(reply, introductions=False, protocol="bidding", discussion_rounds=1, steps=40)
    turns = [e for e in of(game, Bids) if e.day == 1]
    assert turns and all(e.visible_to is None for e in turns)
    first_turn = turns[0]
    top = max(first_turn.bids.values())
    assert first_turn.bids[first_turn.speaker] == top
    spoken = [e.actor for e in of(game, Statement) if e.day == 1 and e.phase == "discussion"]
    assert spoken == [t.speaker for t in turns if t.speaker]
    assert len(spoken) == len(set(spoken))  # one statement each with discussion_rounds=1
    assert len(turns[-1].bids) == 1  # the last turn: only the one who had not spoken still bids


def test_bidding_ends_when_everyone_passes():
    def reply(game, seat, obs):
        return "0" if obs.phase == "bid" else first(game, seat, obs)

    game = play(reply, introductions=False, protocol="bidding", until=lambda g: of(g, Bids))
    passing = of(game, Bids)[0]
    assert passing.speaker is None and not [e for e in of(game, Statement) if e.phase == "discussion"]
    assert game.phase in ("day_vote", "over") or of(game, DayVote)


def test_a_plurality_votes_a_player_out_and_it_says_last_words():
    def day(game, seat, options):
        target = next(s for s in game.alive if game.roles[s] == "werewolf")
        return target if target in options else options[0]

    game = play(night_plan(day=day), introductions=False, wolf_talk_rounds=0)
    result = of(game, VoteResult)[0]
    assert result.outcome == "eliminated" and game.roles[result.eliminated] == "werewolf"
    last = [e for e in of(game, Statement) if e.phase == "last_words"]
    assert last and last[0].actor == result.eliminated
    game = play(night_plan(day=day), introductions=False, wolf_talk_rounds=0, last_words=False)
    assert not [e for e in of(game, Statement) if e.phase == "last_words"]


def _tie(game, seat, options):
    """Split the day's votes over two players (each votes the first of the pair it is not)."""
    pair = sorted(game.alive)[:2]
    choice = pair[0] if seat != pair[0] else pair[1]
    if seat == pair[1]:
        choice = pair[0]
    if seat not in pair and game.alive.index(seat) % 2:
        choice = pair[1]
    return choice if choice in options else options[0]


def test_a_tie_eliminates_nobody_by_default():
    game = play(night_plan(day=lambda g, s, o: "abstain" if s not in sorted(g.alive)[:2] else _tie(g, s, o)),
                introductions=False, wolf_talk_rounds=0, until=lambda g: of(g, VoteResult))
    result = of(game, VoteResult)[0]
    assert result.outcome == "tie" and result.eliminated is None and len(result.tied) == 2


def test_a_tie_goes_to_a_runoff_with_defences_and_only_the_others_vote():
    def day(game, seat, options):
        if len(options) == 2 and set(options) <= set(game.tied or []):  # the run-off
            return options[0]
        return "abstain" if seat not in sorted(game.alive)[:2] else _tie(game, seat, options)

    game = play(night_plan(day=day), introductions=False, wolf_talk_rounds=0, vote_tie="runoff",
                until=lambda g: len(of(g, VoteResult)) >= 2)
    first_count, runoff = of(game, VoteResult)[:2]
    assert first_count.outcome == "runoff"
    defences = [e.actor for e in of(game, Statement) if e.phase == "defence"]
    assert defences == first_count.tied
    runoff_votes = [e for e in of(game, DayVote) if e.runoff]
    assert {e.actor for e in runoff_votes} == set(game.seats) - set(first_count.tied) - set(
        s for s in game.seats if s not in of(game, Dawn)[0].alive)
    assert runoff.runoff and runoff.outcome == "eliminated" and runoff.eliminated == first_count.tied[0]


def test_a_tied_runoff_eliminates_nobody():
    def day(game, seat, options):
        if len(options) == 2 and set(options) <= set(game.tied or []):
            return options[[s for s in game.alive if s not in game.tied].index(seat) % 2]
        return "abstain" if seat not in sorted(game.alive)[:2] else _tie(game, seat, options)

    game = play(night_plan(day=day), players=8, introductions=False, wolf_talk_rounds=0, vote_tie="runoff",
                until=lambda g: len(of(g, VoteResult)) >= 2)
    results = of(game, VoteResult)
    assert results[0].outcome == "runoff" and results[1].outcome == "tie" and results[1].runoff


@pytest.mark.parametrize("allowed", [True, False])
def test_abstaining(allowed):
    game = play(night_plan(day=lambda g, s, o: "abstain"), introductions=False, allow_abstain=allowed,
                wolf_talk_rounds=0, until=lambda g: of(g, VoteResult))
    votes = of(game, DayVote)
    assert votes and all(v.target is None for v in votes)
    invalid = [e for e in of(game, WerewolfInvalid) if e.action == "day_vote"]
    assert bool(invalid) != allowed
    assert of(game, VoteResult)[0].outcome == "no_votes"


# -- the Hunter ------------------------------------------------------------------------------
def test_the_hunter_shoots_when_killed_at_night():
    def wolves(game):
        return holder(game, "hunter")

    def reply(game, seat, obs):
        if obs.phase == "hunter":
            return next(o for o in obs.options if game.roles[o] == "werewolf")
        return night_plan(wolves_vote=wolves, doctor=lambda g, o: next(x for x in o if g.roles[x] == "villager"))(
            game, seat, obs)

    game = play(reply, players=8, introductions=False, wolf_talk_rounds=0, hunter=True, steps=2)
    shot = of(game, HunterShot)[0]
    assert shot.actor == holder(game, "hunter") and game.roles[shot.target] == "werewolf" and shot.when == "night"
    assert shot.target not in game.alive and shot.revealed == "werewolf"


@pytest.mark.parametrize("when_poisoned", [True, False])
def test_a_poisoned_hunter_shoots_only_when_the_setting_says_so(when_poisoned):
    def wolves(game):
        return next(s for s in village(game) if game.roles[s] == "villager")

    def witch(game, options):
        return f"poison {holder(game, 'hunter')}"

    game = play(night_plan(wolves_vote=wolves, witch=witch,
                           doctor=lambda g, o: wolves(g)), players=9, introductions=False, wolf_talk_rounds=0,
                witch=True, hunter=True, hunter_when_poisoned=when_poisoned, steps=2)
    assert of(game, NightResolution)[0].causes == {holder(game, "hunter"): "poison"}
    assert (game.phase == "hunter" or bool(of(game, HunterShot))) == when_poisoned


# -- winning and limits ----------------------------------------------------------------------
def test_the_village_wins_when_the_last_wolf_is_out():
    def day(game, seat, options):
        wolves = [s for s in game.alive if game.roles[s] == "werewolf"]
        return wolves[0] if wolves and wolves[0] in options else options[0]

    game = play(night_plan(day=day), introductions=False, wolf_talk_rounds=0)
    over = of(game, GameOver)[0]
    assert over.winner == "village" and over.reason == "wolves_out" and not game.living_wolves
    assert game.result()["scores"] == {s: float(game.teams[s] == "village") for s in game.seats}
    assert "removed the last werewolf" in why_won({"events": [e.to_dict() for e in game.events], "settings": {}})


def test_the_wolves_win_at_parity():
    def day(game, seat, options):
        target = next(s for s in game.alive if game.roles[s] != "werewolf" and s != seat)
        return target if target in options else options[0]

    game = play(night_plan(day=day, doctor=lambda g, o: next(x for x in o if g.roles[x] == "werewolf")),
                introductions=False, wolf_talk_rounds=0)
    over = of(game, GameOver)[0]
    assert over.winner == "werewolves" and over.reason == "parity"
    wolves = len(game.living_wolves)
    assert wolves >= len(game.alive) - wolves and wolves >= 1
    assert "reached parity" in why_won({"events": [e.to_dict() for e in game.events], "settings": {}})


def test_the_day_limit_goes_to_the_wolves():
    def wolves(game):
        return holder(game, "doctor") if holder(game, "doctor") in game.alive else village(game)[0]

    game = play(night_plan(wolves_vote=wolves, doctor=lambda g, o: holder(g, "doctor"),
                           day=lambda g, s, o: "abstain"),
                introductions=False, wolf_talk_rounds=0, doctor_repeat=True, max_days=3)
    over = of(game, GameOver)[0]
    assert over.reason == "day_limit" and over.winner == "werewolves" and over.day == 3 == game.day


def test_statements_are_cut_to_the_limit_and_empty_ones_are_silences():
    def reply(game, seat, obs):
        if obs.verb == "speak":
            return "" if seat == game.seats[0] else "x" * 500
        return first(game, seat, obs)

    game = play(reply, max_chars=50, steps=7)
    said = of(game, Statement)
    assert said and all(len(e.text) <= 50 for e in said)
    assert [e.actor for e in of(game, Silence)] == [game.seats[0]]


def test_every_request_carries_the_settings_turn_limits():
    """`seconds` and `max_chars` reach every request (the runner waits that long, agents cut to it),
    at night and by day; the defaults are 30 s and 400 characters."""
    seen: list[Observation] = []

    def reply(game, seat, obs):
        seen.append(obs)
        return first(game, seat, obs)

    play(reply, seconds=12.5, max_chars=80, steps=12)
    phases = {obs.phase for obs in seen}
    assert {"introduction", "night", "discuss"} <= phases
    assert {(obs.limits.seconds, obs.limits.max_chars) for obs in seen} == {(12.5, 80)}
    default = SPEC.make(7, 0).pending()[0].observation.limits
    assert (default.seconds, default.max_chars) == (30.0, 400)


# -- language, visibility, metrics, panels -----------------------------------------------------
def test_chinese_rules_and_lines():
    game = play(first, language="zh", steps=8)
    assert "狼人杀" in game.rules_text() and "预言家" in game.rules_text()
    assert any("第 1 夜" in e.text for e in game.events)
    obs = game.pending()[0].observation
    assert obs.language == "zh" and "最终答案" in (obs.reply_format or "") or obs.verb == "speak"


def test_the_rules_text_follows_the_settings():
    text = SPEC.make(9, 0, {"witch": True, "hunter": True, "vote_tie": "runoff", "reveal": "none",
                            "protocol": "bidding", "doctor_self_protect": False}).rules_text()
    for said in ("Witch", "Hunter", "run-off", "roles stay hidden", "bidding", "may not protect themself"):
        assert said in text
    plain = SPEC.make(7, 0).rules_text()
    assert "Witch" not in plain and "round-robin" in plain and "role of each dead player" in plain


def test_no_seat_sees_anothers_night():
    game = play(first, seed=3, witch=True, players=8)
    for e in game.events:
        if isinstance(e, (WolfTalk, WolfChoice)):
            assert set(e.visible_to or ()) == set(game.wolves)
        if isinstance(e, (SeerCheck, DoctorProtect, WitchAction)):
            assert e.visible_to == (e.actor,)
    villager = next(s for s in game.seats if game.roles[s] == "villager")
    seen = [KINDS.parse(e.to_dict()) for e in game.events if e.visible_for(villager)]
    assert not [e for e in seen if isinstance(e, (WolfTalk, WolfChoice, SeerCheck, NightResolution))]


def test_events_round_trip_through_the_stored_shape():
    game = play(first, seed=5, witch=True, hunter=True, players=9)
    again = KINDS.parse_all([{"seq": i, **e.to_dict()} for i, e in enumerate(game.events)])
    assert [type(e) for e in again] == [type(e) for e in game.events]
    assert [e.to_dict() for e in again] == [e.to_dict() for e in game.events]


def test_records_count_identification_voting_and_key_roles():
    played = self_play(SPEC, 7, players=8)
    match = played.record()
    recs = {r.seat: r for r in records(match)}
    game = played.game
    assert {r.role for r in recs.values()} <= {"village", "werewolves"}
    for seat, r in recs.items():
        assert r.won == (game.teams[seat] == game.winner) and r.stats[f"as_{game.roles[seat]}"] == 1
    village_votes = [e for e in game.events if isinstance(e, DayVote) and e.target and game.teams[e.actor] == "village"]
    assert sum(r.stats.get("votes_cast", 0) for r in recs.values() if r.team == "village") == len(village_votes)
    assert sum(r.stats.get("votes_on_wolves", 0) for r in recs.values()) == len(
        [e for e in game.events if isinstance(e, DayVote) and e.target and game.roles[e.target] == "werewolf"])
    seer = holder(game, "seer")
    assert recs[seer].stats["seer_days"] == game.day
    from space_app.core.records import AgentTotals, tallies_of_match, totals_from

    totals = totals_from(tallies_of_match(recs.values()))
    figures = row(next(iter(totals.values())) if len(totals) == 1 else AgentTotals("x"))
    assert set(figures) == {c.key for c in SPEC.metrics.columns}


def test_the_panels_show_a_seat_only_what_it_saw():
    played = self_play(SPEC, 4, players=8, settings={"witch": True})
    game = played.game
    rows = [{"seq": i, **e.to_dict()} for i, e in enumerate(game.events)]
    villager = next(s for s in game.seats if game.roles[s] == "villager")
    mine = [r for r, e in zip(rows, game.events, strict=True) if e.visible_for(villager)]
    spectator = nights(rows)
    assert spectator["werewolves chose"].astype(bool).any()
    assert not nights(mine)["werewolves chose"].astype(bool).any()
    assert not [x for x in discussion(mine)["where"] if "werewolves only" in x]
    assert [x for x in discussion(rows)["where"] if "werewolves only" in x]
    board = role_board(mine, upto=len(mine) // 4)
    assert board.set_index("seat").loc[villager, "role"] == "villager"
    hidden = [s for s in game.seats if s != villager and game.roles[s] == "werewolf"]
    assert all(board.set_index("seat").loc[s, "role"] == "?" for s in hidden if s in set(board["seat"]))
    assert set(role_board(rows)["role"]) <= set(game.roles.values())
    assert len(days(rows)) >= 1


def test_the_conformance_checks():
    check_game(SPEC)
    for settings in ({"protocol": "bidding", "vote_tie": "runoff", "witch": True, "hunter": True},
                     {"protocol": "parallel", "reveal": "none", "language": "zh"}):
        played = self_play(SPEC, 2, players=12, settings=settings)
        assert played.game.over and played.game.result()["winner"]
