"""Who is the Spy: every rule, driven directly through pending()/submit() with scripts
(and through the runner where the agents matter)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from typing import TypeVar

import pytest

from sdk.agent import Agent
from sdk.observation import ABSTAIN, Observation
from space_app.core.events import Call, Event
from space_app.core.game import Outcome
from space_app.games.spy.events import (
    KINDS,
    Elimination,
    End,
    Foul,
    RoundStart,
    Start,
    Statement,
    Vote,
    VoteResult,
    WithheldStatement,
)
from space_app.games.spy.metrics import rescore
from space_app.games.spy.rules import CIVILIAN, SPY, SpyGame, SpySettings
from space_app.games.spy.words import WordPair
from space_app.runner import SeatAgent, play

E = TypeVar("E", bound=Event)
SEATS = [f"P{i}" for i in range(1, 7)]
PAIR = WordPair(civilian="tea", spy="coffee")
ZH_PAIR = WordPair(civilian="茶", spy="咖啡")


# -- helpers -------------------------------------------------------------------------
def make(seed: int = 0, **settings) -> SpyGame:
    settings.setdefault("pair", PAIR)
    return SpyGame(list(SEATS), seed, SpySettings(**settings))


def find_seed(pred, **settings) -> int:
    for seed in range(10_000):
        if pred(make(seed, **settings)):
            return seed
    raise AssertionError("no seed satisfies the predicate")


def civilians(game: SpyGame) -> list[str]:
    return [s for s in game.seats if s != game.spy]


def ring_from(seat: str) -> list[str]:
    i = SEATS.index(seat)
    return SEATS[i:] + SEATS[:i]


def default_statement(seat: str, rnd: int) -> str:
    return f"{seat} describes clue number {rnd}"


def step(game: SpyGame, speak: dict | None = None, vote: dict | None = None) -> list[str]:
    """One pending/submit step. Scripts are keyed (seat, round); a value is the reply text
    or an Outcome. Unscripted statements are unique and clean; unscripted votes abstain.
    Returns the seats that were asked."""
    speak, vote = speak or {}, vote or {}
    requests = game.pending()
    outcomes = []
    for r in requests:
        script = speak if r.verb == "speak" else vote
        default = default_statement(r.seat, game.round) if r.verb == "speak" else ABSTAIN
        value = script.get((r.seat, game.round), default)
        outcomes.append(value if isinstance(value, Outcome) else Outcome(r.seat, value))
    game.submit(outcomes)
    return [r.seat for r in requests]


def play_round(game: SpyGame, speak: dict | None = None, vote: dict | None = None) -> None:
    """Finish the current round's statements and (if the game goes on) its vote."""
    rnd = game.round
    while not game.over and game.phase == "describe" and game.round == rnd:
        step(game, speak, vote)
    if not game.over and game.phase == "vote" and game.round == rnd:
        step(game, speak, vote)


def drive(game: SpyGame, speak: dict | None = None, vote: dict | None = None) -> None:
    while not game.over:
        step(game, speak, vote)


def kinds(game: SpyGame, kind: type[E], rnd: int | None = None) -> list[E]:
    return [e for e in game.events if isinstance(e, kind) and (rnd is None or e.round == rnd)]


def speakers(game: SpyGame, rnd: int) -> list[str]:
    return [e.actor for e in game.events
            if isinstance(e, (Statement, Foul)) and e.round == rnd
            and not (isinstance(e, Statement) and e.foul)]


def history(obs: Observation) -> list[Event]:
    return [KINDS.from_history(h) for h in obs.history]


def eliminated(game: SpyGame) -> dict[str, str]:
    return {e.actor: e.reason for e in kinds(game, Elimination)}


# -- opener and speaking order -------------------------------------------------------
def test_opener_is_chosen_by_the_seed():
    openers = [make(seed).opener for seed in range(60)]
    assert len(set(openers)) >= 4, "different seeds must give different openers"
    for seed in (0, 1, 7, 123):
        assert make(seed).opener == make(seed).opener
        assert make(seed).spy == make(seed).spy
    assert set(openers) <= set(SEATS)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 11, 42])
def test_speaking_order_starts_with_the_opener(seed):
    game = make(seed)
    assert game.pending()[0].seat == game.opener
    start = kinds(game, RoundStart, 1)[0]
    assert start.order == ring_from(game.opener)
    play_round(game)
    assert speakers(game, 1) == ring_from(game.opener)
    # nobody fouled or was voted out: round 2 starts with the opener again
    assert game.round == 2
    assert game.pending()[0].seat == game.opener


def test_each_round_starts_with_the_original_opener_and_skips_the_eliminated():
    seed = find_seed(lambda g: g.opener != g.spy and ring_from(g.opener)[2] != g.spy)
    game = make(seed)
    fouler = ring_from(game.opener)[2]
    play_round(game, speak={(fouler, 1): ""})
    assert game.round == 2 and fouler not in game.alive
    play_round(game)
    assert speakers(game, 2) == [s for s in ring_from(game.opener) if s != fouler]
    assert speakers(game, 2)[0] == game.opener


@pytest.mark.parametrize("gone", [1, 2])
def test_opener_rotates_to_the_next_surviving_player_in_seat_order(gone):
    seed = find_seed(lambda g: g.spy not in ring_from(g.opener)[:gone])
    game = make(seed)
    out = ring_from(game.opener)[:gone]  # the opener (and the next seat) foul in round 1
    play_round(game, speak={(s, 1): f"I drink {PAIR.civilian} daily" for s in out})
    assert set(eliminated(game)) == set(out)
    assert game.round == 2
    expected_first = ring_from(game.opener)[gone]
    assert game.pending()[0].seat == expected_first
    play_round(game)
    assert speakers(game, 2) == [s for s in ring_from(expected_first) if s not in out]


def test_opener_rotation_wraps_around_the_table_and_follows_vote_eliminations():
    seed = find_seed(lambda g: g.opener == "P6" and g.spy not in ("P6", "P1"))
    game = make(seed)
    # round 1: P1 fouls; the vote puts the opener P6 out
    voters = [s for s in game.alive if s not in ("P6", "P1")][:3]
    play_round(game, speak={("P1", 1): "   "}, vote={(v, 1): "P6" for v in voters})
    assert eliminated(game) == {"P1": "foul", "P6": "vote"}
    assert game.round == 2
    assert game.pending()[0].seat == "P2"  # after P6 comes P1 (out), then P2


# -- fouls -------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["I drink TEA every morning", "tea", "Teas come in bags.",
                                  "Many people like tea!", "TEAS"])
def test_saying_your_own_word_is_a_foul_any_case_and_plural(text):
    game = make(find_seed(lambda g: g.opener != g.spy))
    seat = game.opener
    step(game, speak={(seat, 1): text})
    fouls = kinds(game, Foul, 1)
    assert [f.actor for f in fouls] == [seat]
    assert "own word" in fouls[0].reason


@pytest.mark.parametrize(("word", "statement", "foul"), [
    ("cherry", "Cherries grow on trees", True),
    ("cherry", "a CHERRY on top", True),
    ("hot dog", "Two hot dogs, please", True),
    ("box", "It comes in boxes", True),
    ("knife", "Chefs keep their knives sharp", True),
    ("wolf", "Wolves hunt in packs", True),
    ("leaf", "Leaves fall in autumn", True),
    ("mouse", "Cats chase mice", True),
    ("snowman", "Snowmen melt in spring", True),
    ("bigfoot", "Bigfeet are not real", True),
    ("human", "Humans built it", True),
    ("human", "Humen", False),
    ("die", "Roll the dice", True),
    ("chef", "Chefs cook", True),
    ("roof", "rooftops", False),
    ("tea", "Steam rises from it", False),       # a whole word, not any substring
    ("tea", "The team drinks it", False),
    ("cherry", "It is red and small", False),
])
def test_own_word_matching_in_english(word, statement, foul):
    from space_app.games.spy.rules import contains_word

    assert contains_word(statement, word, "en") is foul


def test_the_spy_saying_its_own_word_is_a_foul_and_the_other_word_is_not():
    game = make(find_seed(lambda g: g.opener == g.spy))
    spy = game.spy
    civ = ring_from(spy)[1]
    step(game, speak={(spy, 1): "Two coffees, please"})
    step(game, speak={(civ, 1): "Not the same as coffee at all"})  # not a civilian's own word
    assert [f.actor for f in kinds(game, Foul)] == [spy]
    assert [e.actor for e in kinds(game, Statement)] == [civ]


def test_repeating_a_statement_is_a_foul_ignoring_case_and_punctuation():
    seed = find_seed(lambda g: g.spy not in ring_from(g.opener)[:3])
    game = make(seed)
    a, b, c = ring_from(game.opener)[:3]
    step(game, speak={(a, 1): "It is hot and comes in a cup."})
    step(game, speak={(b, 1): "it is HOT, and comes in a cup!!"})
    step(game, speak={(c, 1): "It is hot and comes in a mug."})  # different: fine
    assert [f.actor for f in kinds(game, Foul)] == [b]
    assert "repeats" in kinds(game, Foul)[0].reason


def test_repeating_a_statement_from_an_earlier_round_is_a_foul():
    seed = find_seed(lambda g: g.spy not in ring_from(g.opener)[:2])
    game = make(seed)
    a, b = ring_from(game.opener)[:2]
    play_round(game, speak={(a, 1): "You can buy it at a cafe."})
    assert not kinds(game, Foul) and game.round == 2
    # a repeats its own round-1 statement, b repeats it again with other punctuation
    play_round(game, speak={(a, 2): "You can buy it at a cafe", (b, 2): "YOU can buy it, at a cafe?"})
    assert [f.actor for f in kinds(game, Foul, 2)] == [a, b]
    assert set(eliminated(game)) == {a, b}


@pytest.mark.parametrize("outcome_kw", [
    {"text": ""}, {"text": "   \n\t "}, {"text": None, "status": "error"},
    {"text": None, "status": "unparseable"},
])
def test_an_empty_or_skipped_statement_is_a_foul(outcome_kw):
    game = make(find_seed(lambda g: g.opener != g.spy))
    seat = game.opener
    step(game, speak={(seat, 1): Outcome(seat, **outcome_kw)})
    (foul,) = kinds(game, Foul)
    assert foul.actor == seat
    assert not kinds(game, Statement)


def test_no_answer_in_time_is_a_foul():
    game = make(find_seed(lambda g: g.opener != g.spy))
    seat = game.opener
    step(game, speak={(seat, 1): Outcome(seat, None, status="timeout", detail="no reply")})
    (foul,) = kinds(game, Foul)
    assert foul.actor == seat and foul.status == "timeout"
    assert "10 s" in foul.reason
    play_round(game)
    assert eliminated(game) == {seat: "foul"}


def test_foulers_are_eliminated_after_the_statements_and_before_the_vote_and_do_not_vote():
    seed = find_seed(lambda g: g.spy not in ring_from(g.opener)[:2])
    game = make(seed)
    first, second = ring_from(game.opener)[:2]
    speak = {(first, 1): "tea time", (second, 1): ""}
    # the foulers are not out while the round's statements go on
    step(game, speak=speak)
    assert first in game.alive
    while game.phase == "describe":
        step(game, speak=speak)
    assert game.phase == "vote"
    assert all(s in speakers(game, 1) for s in SEATS)  # everyone spoke, foulers included
    voters = [r.seat for r in game.pending()]
    assert set(voters) == set(SEATS) - {first, second}
    for r in game.pending():
        assert first not in r.observation.options and second not in r.observation.options
        assert r.seat not in r.observation.options
        assert r.observation.allow_abstain
    before_votes = list(game.events)
    last_statement = max(i for i, e in enumerate(before_votes) if isinstance(e, (Statement, Foul)))
    elim = [i for i, e in enumerate(before_votes) if isinstance(e, Elimination)]
    assert len(elim) == 2 and min(elim) > last_statement
    step(game, vote={(v, 1): first for v in voters})  # votes for a fouler are not on the list
    assert not [e for e in before_votes[: max(elim)] if isinstance(e, Vote)]
    assert {e.actor for e in kinds(game, Vote, 1)} == set(voters)
    assert all(e.target is None for e in kinds(game, Vote, 1))


def test_a_statement_with_the_speakers_word_is_withheld_from_the_other_seats():
    seed = find_seed(lambda g: g.opener != g.spy)
    game = make(seed)
    seat = game.opener
    secret = "I always have my tea with milk"
    step(game, speak={(seat, 1): secret})
    for r_seat in SEATS:
        obs = game.observe(r_seat, "speak", phase="describe", instruction="x", round=1)
        dump = obs.model_dump_json()
        assert secret not in dump and "with milk" not in dump
        assert not [e for e in history(obs) if isinstance(e, Statement) and e.actor == seat]
        assert [e for e in history(obs) if isinstance(e, Foul) and e.actor == seat]
    nxt = game.pending()[0].observation
    assert "with milk" not in nxt.model_dump_json()
    (withheld,) = kinds(game, WithheldStatement)
    assert withheld.text == secret and withheld.visible_to == () and withheld.actor == seat


def test_a_repeated_statement_is_shown_but_marked_as_a_foul():
    seed = find_seed(lambda g: g.spy not in ring_from(g.opener)[:2])
    game = make(seed)
    a, b = ring_from(game.opener)[:2]
    step(game, speak={(a, 1): "Warm drink"})
    step(game, speak={(b, 1): "warm drink."})
    statements = kinds(game, Statement)
    assert [(e.actor, e.foul) for e in statements] == [(a, False), (b, True)]


# -- truncation ---------------------------------------------------------------------
def test_statements_are_cut_to_400_characters_in_english():
    game = make(find_seed(lambda g: g.opener != g.spy))
    seat = game.opener
    long = " ".join(f"w{i}" for i in range(400)) + " ENDMARKER tea"  # word only past the cut
    step(game, speak={(seat, 1): long})
    (st,) = kinds(game, Statement)
    assert st.text == long[:400].strip() and len(st.text) <= 400 and len(long) > 1000
    assert st.truncated is True
    assert not kinds(game, Foul), "only the first 400 characters are judged"
    nxt = game.pending()[0].observation
    assert nxt.limits.max_chars == 400
    dump = nxt.model_dump_json()
    assert long[:400].strip() in dump and "ENDMARKER" not in dump


def test_statements_are_cut_to_120_characters_in_chinese():
    game = make(find_seed(lambda g: g.opener != g.spy, language="zh", pair=ZH_PAIR),
                language="zh", pair=ZH_PAIR)
    seat = game.opener
    assert game.pending()[0].observation.limits.max_chars == 120
    assert game.pending()[0].observation.language == "zh"
    long = "".join(f"第{i}个描述很好" for i in range(60)) + "尾巴标记"
    step(game, speak={(seat, 1): long})
    (st,) = kinds(game, Statement)
    assert st.text == long[:120] and len(st.text) == 120
    dump = json.dumps(game.pending()[0].observation.model_dump(), ensure_ascii=False)
    assert long[:120] in dump and "尾巴标记" not in dump


def test_chinese_own_word_is_a_foul_anywhere_in_the_statement():
    game = make(find_seed(lambda g: g.opener != g.spy, language="zh", pair=ZH_PAIR),
                language="zh", pair=ZH_PAIR)
    step(game, speak={(game.opener, 1): "我每天都喝绿茶"})
    assert [f.actor for f in kinds(game, Foul)] == [game.opener]


# -- voting ------------------------------------------------------------------------
def test_a_tie_eliminates_nobody():
    game = make(3)
    c = civilians(game)
    vote = {(c[0], 1): c[2], (c[1], 1): c[2], (c[2], 1): c[0], (c[3], 1): c[0]}
    play_round(game, vote=vote)
    (result,) = kinds(game, VoteResult, 1)
    assert result.eliminated is None and result.tally == {c[2]: 2, c[0]: 2}
    assert not kinds(game, Elimination) and len(game.alive) == 6 and game.round == 2


def test_all_abstain_eliminates_nobody():
    game = make(4)
    play_round(game)
    (result,) = kinds(game, VoteResult, 1)
    assert result.eliminated is None and result.tally == {}
    assert len(game.alive) == 6


def test_abstentions_and_names_not_on_the_list_count_as_abstentions():
    game = make(5)
    c = civilians(game)
    target = c[4]
    vote = {
        (c[0], 1): target, (c[1], 1): target,           # 2 valid votes
        (c[2], 1): "P9",                                  # not a seat
        (c[3], 1): c[3],                                  # itself: not on its list
        (target, 1): "abstain",
        (game.spy, 1): "I think it is the one with the hat",
    }
    while game.phase == "describe":
        step(game)
    for r in game.pending():
        assert r.seat not in r.observation.options
        assert sorted(r.observation.options) == sorted(s for s in SEATS if s != r.seat)
    step(game, vote=vote)
    votes = {e.actor: e.target for e in kinds(game, Vote, 1)}
    assert votes == {c[0]: target, c[1]: target, c[2]: None, c[3]: None, target: None,
                     game.spy: None}
    (result,) = kinds(game, VoteResult, 1)
    assert result.tally == {target: 2} and result.eliminated == target
    assert eliminated(game) == {target: "vote"}


def test_a_failed_or_missing_vote_is_an_abstention():
    game = make(6)
    c = civilians(game)
    while game.phase == "describe":
        step(game)
    outcomes = [Outcome(c[0], None, "timeout"), Outcome(c[1], None, "error"),
                Outcome(c[2], None, "unparseable"), Outcome(c[3], c[0])]
    game.submit(outcomes)  # c[4] and the spy sent nothing at all
    votes = {e.actor: e.target for e in kinds(game, Vote, 1)}
    assert votes == {c[0]: None, c[1]: None, c[2]: None, c[3]: c[0], c[4]: None, game.spy: None}
    assert eliminated(game) == {c[0]: "vote"}


# -- end conditions -------------------------------------------------------------------
def test_the_game_ends_when_the_spy_is_voted_out():
    game = make(7)
    play_round(game, vote={(c, 1): game.spy for c in civilians(game)})
    assert game.over and game.pending() == []
    assert eliminated(game) == {game.spy: "vote"}
    assert game.result()["winner"] == CIVILIAN
    assert not kinds(game, RoundStart, 2)
    assert kinds(game, End)[0].winner == CIVILIAN
    with pytest.raises(RuntimeError):
        game.submit([])


def test_the_game_ends_when_the_spy_fouls_without_a_vote():
    seed = find_seed(lambda g: g.opener == g.spy)
    game = make(seed)
    play_round(game, speak={(game.spy, 1): "coffee"})
    assert game.over
    assert speakers(game, 1) == ring_from(game.opener)  # the round's statements all happen
    assert not kinds(game, Vote) and eliminated(game) == {game.spy: "foul"}
    assert game.result()["scores"] == {s: (0.0 if s == game.spy else 2.4) for s in SEATS}


def test_the_game_ends_when_fewer_than_three_survive_the_fouls():
    game = make(8)
    c = civilians(game)
    play_round(game, speak={(s, 1): "" for s in c[:4]})
    assert game.over and len(game.alive) == 2
    assert not kinds(game, Vote)
    res = game.result()
    assert res["winner"] == SPY
    assert res["scores"] == {s: (12.0 if s == game.spy else 0.0) for s in SEATS}


def test_three_survivors_play_on_and_two_end_the_game():
    game = make(9)
    c = civilians(game)
    # round 1: two foul (4 left), the vote puts a third civilian out: exactly 3 survive
    play_round(game, speak={(c[0], 1): "", (c[1], 1): ""},
               vote={(c[3], 1): c[2], (c[4], 1): c[2]})
    assert len(game.alive) == 3 and not game.over and game.round == 2
    # round 2: a civilian fouls: 2 survive, the game ends before any vote
    play_round(game, speak={(c[3], 2): "tea"})
    assert game.over and len(game.alive) == 2
    assert not kinds(game, Vote, 2)
    assert game.result()["winner"] == SPY


def test_the_game_ends_after_three_rounds():
    game = make(10)
    drive(game)
    assert game.over and game.round == 3
    assert len(kinds(game, RoundStart)) == 3 and len(kinds(game, VoteResult)) == 3
    assert game.result()["winner"] == SPY and game.result()["rounds_played"] == 3


def test_rounds_is_a_setting():
    game = make(10, rounds=1)
    drive(game)
    assert game.over and len(kinds(game, RoundStart)) == 1


# -- scoring -----------------------------------------------------------------------
def test_score_spy_voted_out_in_round_one():
    game = make(11)
    c = civilians(game)
    drive(game, vote={**{(x, 1): game.spy for x in c}, (game.spy, 1): c[0]})
    s = game.result()["scores"]
    assert s[game.spy] == -5.0  # 0 - 5 civilian votes
    assert all(s[x] == pytest.approx(12 / 5 + 1) for x in c)
    assert sum(s.values()) == pytest.approx(12)


def test_score_spy_voted_out_in_round_two():
    game = make(12)
    c = civilians(game)
    drive(game, vote={(c[0], 2): game.spy, (c[1], 2): game.spy, (c[2], 2): game.spy})
    s = game.result()["scores"]
    assert game.spy_out_round == 2
    assert s[game.spy] == pytest.approx(4 - 3)
    assert [s[x] for x in c] == pytest.approx([2.6, 2.6, 2.6, 1.6, 1.6])
    assert sum(s.values()) == pytest.approx(12)


def test_score_spy_voted_out_in_round_three_with_an_eliminated_civilian():
    game = make(13)
    c = civilians(game)
    vote = {(c[1], 1): c[0], (c[2], 1): c[0], (c[3], 1): c[0],  # round 1: c0 out
            (c[1], 2): c[2], (c[2], 2): c[1],                  # round 2: a tie
            (c[1], 3): game.spy, (c[2], 3): game.spy, (c[4], 3): game.spy}
    drive(game, vote=vote)
    assert eliminated(game) == {c[0]: "vote", game.spy: "vote"}
    s = game.result()["scores"]
    assert s[game.spy] == pytest.approx(8 - 3)
    assert s[c[0]] == 0.0  # eliminated civilians do not share
    assert [s[x] for x in c[1:]] == pytest.approx([2.0, 2.0, 1.0, 2.0])  # 4/4 + vote points
    assert sum(s.values()) == pytest.approx(12)


def test_score_spy_eliminated_by_foul_in_round_two():
    game = make(find_seed(lambda g: g.opener != g.spy))
    c = civilians(game)
    drive(game, speak={(game.spy, 2): "I like coffee", (c[0], 1): ""})
    s = game.result()["scores"]
    assert game.over and game.spy_out_round == 2
    assert s[game.spy] == 4.0 and s[c[0]] == 0.0
    assert [s[x] for x in c[1:]] == pytest.approx([2.0] * 4)


def test_score_spy_wins_with_vote_points():
    game = make(14)
    c = civilians(game)
    vote = {(c[0], 1): game.spy, (c[1], 1): game.spy, (c[2], 1): c[4], (c[3], 1): c[4],
            (game.spy, 1): c[0]}  # a 2-2 tie: nobody out
    drive(game, vote=vote)
    s = game.result()["scores"]
    assert game.result()["winner"] == SPY
    assert s == {**{x: 0.0 for x in c}, game.spy: 10.0, c[0]: 1.0, c[1]: 1.0}
    assert sum(s.values()) == pytest.approx(12)


def test_score_spy_wins_outright():
    game = make(15)
    drive(game)
    assert game.result()["scores"] == {s: (12.0 if s == game.spy else 0.0) for s in SEATS}


def test_vote_points_accumulate_over_rounds():
    game = make(16)
    c = civilians(game)
    # c0 votes for the spy in rounds 1 and 2 (ties), the spy survives round 3
    vote = {(c[0], 1): game.spy, (c[1], 1): c[2],
            (c[0], 2): game.spy, (c[1], 2): c[3]}
    drive(game, vote=vote)
    s = game.result()["scores"]
    assert s[c[0]] == 2.0 and s[game.spy] == 10.0
    assert sum(s.values()) == pytest.approx(12)


def _random_reply(rng: random.Random, game: SpyGame, seat: str, verb: str, obs: Observation):
    if verb == "speak":
        roll = rng.random()
        word = game.words[seat]
        said = [e.text for e in history(obs) if isinstance(e, Statement)]
        if roll < 0.06:
            return Outcome(seat, None, "timeout")
        if roll < 0.10:
            return Outcome(seat, "")
        if roll < 0.16:
            return Outcome(seat, f"my {word} is nice")
        if roll < 0.22 and said:
            return Outcome(seat, rng.choice(said).upper())
        return Outcome(seat, f"{seat} says {rng.randrange(10**9)}")
    roll = rng.random()
    if roll < 0.1:
        return Outcome(seat, ABSTAIN)
    if roll < 0.15:
        return Outcome(seat, "nobody at all")
    if roll < 0.2:
        return Outcome(seat, None, "timeout")
    if roll < 0.45 and game.spy in obs.options:
        return Outcome(seat, game.spy)
    return Outcome(seat, rng.choice(obs.options))


def test_scores_always_sum_to_twelve_and_rescoring_from_events_agrees():
    outcomes = {"spy": 0, "civilian": 0}
    for seed in range(400):
        rng = random.Random(seed * 7 + 1)
        game = make(seed)
        while not game.over:
            game.submit([_random_reply(rng, game, r.seat, r.verb, r.observation)
                         for r in game.pending()])
        res = game.result()
        assert sum(res["scores"].values()) == pytest.approx(12), seed
        assert res["winner"] == (CIVILIAN if game.spy not in game.alive else SPY)
        outcomes[res["winner"]] += 1
        match = {"id": f"m{seed}", "seats": [{"seat": s, "agent_id": s} for s in SEATS],
                 "events": [e.to_dict() for e in game.events]}
        assert rescore(match).scores == pytest.approx(res["scores"]), seed
    assert outcomes["spy"] > 20 and outcomes["civilian"] > 20


@pytest.mark.parametrize("players", [4, 5, 8])
def test_scores_sum_to_twelve_with_other_table_sizes(players):
    seats = [f"P{i}" for i in range(1, players + 1)]
    for seed in range(60):
        rng = random.Random(seed)
        game = SpyGame(seats, seed, SpySettings(players=players, pair=PAIR))
        while not game.over:
            game.submit([_random_reply(rng, game, r.seat, r.verb, r.observation)
                         for r in game.pending()])
        assert sum(game.result()["scores"].values()) == pytest.approx(12)


# -- determinism through the runner ---------------------------------------------------
class ScriptedAgent(Agent):
    """Deterministic in the observation only: some clean statements, some fouls, votes
    by a hash of (seat, round)."""

    def speak(self, obs: Observation) -> str:
        word = obs.private.facts["word"]
        h = int(hashlib.sha256(f"{obs.you}{obs.round}".encode()).hexdigest(), 16)
        if h % 9 == 0:
            return f"it is {word}"
        if h % 11 == 0 and obs.history:
            said = [e.text for e in history(obs) if isinstance(e, Statement)]
            if said:
                return said[0]
        return f"{obs.you} round {obs.round} clue {h % 1000}"

    def vote(self, obs: Observation) -> str:
        h = int(hashlib.sha256(f"v{obs.you}{obs.round}".encode()).hexdigest(), 16)
        if h % 5 == 0:
            return ABSTAIN
        return f"I vote for {obs.options[h % len(obs.options)]}"


def _run(seed: int) -> list[dict]:
    game = make(seed)
    game.match_id = "fixed-id"
    agent = ScriptedAgent("scripted")
    seats = {s: SeatAgent(agent, "scripted") for s in SEATS}
    outcome = asyncio.run(play(game, seats))
    assert outcome.status == "finished"
    return [e.to_dict() for e in outcome.events if not isinstance(e, Call)]


def test_same_seed_and_agents_give_identical_events():
    for seed in (1, 2, 3):
        first, second = _run(seed), _run(seed)
        assert first == second
        assert any(isinstance(e, Vote) for e in KINDS.parse_all(first))
    assert _run(1) != _run(2)


# -- the built-in word pairs (content files shipped in space_app/games/spy/content) ----
@pytest.mark.parametrize(("language", "minimum"), [("en", 300), ("zh", 150)])
def test_builtin_pairs_load_and_are_well_formed(language, minimum):
    import csv

    from space_app.games.spy.words import CONTENT_DIR, load_builtin_pairs

    pairs = load_builtin_pairs(language)
    assert len(pairs) >= minimum
    for p in pairs:
        assert p.civilian.casefold() != p.spy.casefold(), p
        assert p.difficulty in ("easy", "medium", "hard")
    # every row names its difficulty itself (not just the loader's default)
    path = CONTENT_DIR / f"pairs_{language}.csv"
    rows = list(csv.DictReader(path.read_text(encoding="utf-8-sig").splitlines()))
    assert len(rows) == len(pairs)
    assert all((r.get("difficulty") or "").strip() in ("easy", "medium", "hard") for r in rows)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_games_draw_from_the_builtin_pairs_by_seed_and_difficulty(language):
    from space_app.games.spy.words import load_builtin_pairs

    pairs = load_builtin_pairs(language)
    known = {(p.civilian, p.spy) for p in pairs}
    drawn = {(g.pair.civilian, g.pair.spy)
             for g in (SpyGame(list(SEATS), seed, SpySettings(language=language)) for seed in range(40))}
    assert drawn <= known and len(drawn) > 10
    again = SpyGame(list(SEATS), 3, SpySettings(language=language))
    assert again.pair == SpyGame(list(SEATS), 3, SpySettings(language=language)).pair
    for level in ("easy", "hard"):
        if any(p.difficulty == level for p in pairs):
            g = SpyGame(list(SEATS), 5, SpySettings(language=language, difficulty=level))
            assert g.pair.difficulty == level
    game = SpyGame(list(SEATS), 9, SpySettings(language=language))
    assert set(game.words.values()) == {game.pair.civilian, game.pair.spy}
    assert list(game.words.values()).count(game.pair.spy) == 1


def test_a_chinese_game_speaks_chinese_and_keeps_english_reasons_in_its_record():
    """The transcript's own lines (start, rounds, fouls, votes, results, the end) are in the
    game's language; the foul reason the record keeps for metrics stays the English one."""
    game = make(find_seed(lambda g: g.opener != g.spy, language="zh", pair=ZH_PAIR),
                language="zh", pair=ZH_PAIR)
    step(game, speak={(game.opener, 1): "我每天都喝绿茶"})  # the civilians' word: a foul
    others = [x for x in game.seats if x != game.spy]
    play_round(game, vote={(x, 1): game.spy for x in others})
    (start,), (first_round,), (foul,) = kinds(game, Start), kinds(game, RoundStart, 1), kinds(game, Foul)
    assert start.text.startswith("6 名玩家") and "卧底" in start.text
    assert first_round.text.startswith("第 1 轮开始")
    assert "犯规" in foul.text and foul.reason == "the statement contains the speaker's own word"
    assert "[已隐藏" in foul.shown
    assert "投票给" in next(e.text for e in kinds(game, Vote) if e.target)
    assert game.over and kinds(game, End)[0].text.startswith("游戏结束")
    english = make(find_seed(lambda g: g.opener != g.spy), pair=ZH_PAIR)
    assert kinds(english, Start)[0].text.startswith("6 players:")


def test_every_phrasebook_line_exists_in_every_language_with_the_same_placeholders():
    from space_app.core.phrasebook import Phrasebook
    from space_app.games.spy.phrases import PHRASES

    assert set(PHRASES.languages) == {"en", "zh"} and "votes_for" in PHRASES.keys()
    with pytest.raises(ValueError, match="differ"):
        Phrasebook({"en": {"a": "x", "b": "y"}, "zh": {"a": "x"}})
    with pytest.raises(ValueError, match="placeholders"):
        Phrasebook({"en": {"a": "{seat} votes"}, "zh": {"a": "{who} 投票"}})
    # a language may leave a value unsaid
    assert Phrasebook({"en": {"a": "Round {round} of {rounds}"}, "zh": {"a": "第{round}轮"}}).say(
        "zh", "a", round=2, rounds=3) == "第2轮"
    assert PHRASES.say("fr", "tie") == PHRASES.say("en", "tie")
