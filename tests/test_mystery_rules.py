"""Murder mystery: the four phases in order on every shipped script, the win/draw rule, bad
input to the rule's default (recorded as invalid), private scripts that never reach another
character, a 50,000-character script delivered intact, the naive and random house agents,
the metrics and replay panels, and faction matches through the real arena."""

from __future__ import annotations

import os
import re
import string
import subprocess
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from pydantic import ValidationError

from sdk import Agent, Observation
from space_app.core import get_game
from space_app.core.events import Event, InvalidAction, Private
from space_app.core.game import Outcome
from space_app.core.records import AgentTotals, tallies_of_match, totals_from
from space_app.games.mystery.agents import NaiveMysteryAgent, RandomMysteryAgent, first_person, sentences
from space_app.games.mystery.catalog import (
    ShippedMysteryGame,
    ShippedSettings,
    catalog,
    get_script,
    image_path,
    seat_names,
    shipped_ids,
)
from space_app.games.mystery.events import (
    KINDS,
    Answer,
    Clue,
    GameOver,
    Introduction,
    MysterySetup,
    Phase,
    Question,
    QuestionTarget,
    Reasoning,
    Silence,
    Start,
    Statement,
    Vote,
    VoteResult,
)
from space_app.games.mystery.metrics import records, row
from space_app.games.mystery.phrases import PHRASES, RECORD_KEYS
from space_app.games.mystery.quizzes import suite_items as suite_dicts
from space_app.games.mystery.quizzes import to_jsonl
from space_app.games.mystery.rules import DRAW, INNOCENT, INNOCENTS, MURDERER, MysteryGame, MysterySettings, tally
from space_app.games.mystery.scripts.script import Script
from space_app.games.mystery.view import VIEW
from space_app.leaderboard import generic_row
from space_app.runner import SeatAgent, outcome_text
from space_app.service import Arena, MatchPlan
from space_app.standings import derive
from space_app.store import Store
from space_app.suites.items import SuiteItem
from space_app.suites.run import observation as suite_observation

SCRIPTS = shipped_ids()


def suite_items(script: Any, *, captions: bool = False) -> list[SuiteItem]:
    return [SuiteItem.model_validate(d) for d in suite_dicts(script, captions=captions)]
Reply = Callable[[MysteryGame, str, Observation], str | None]
E = TypeVar("E", bound=Event)


# -- helpers -------------------------------------------------------------------------------------
def make(script_id: str, seed: int = 0, **settings: Any) -> ShippedMysteryGame:
    script = get_script(script_id)
    values = {"script": script_id, "players": len(script.roles), **settings}
    return ShippedMysteryGame([r.name for r in script.roles], seed, ShippedSettings(**values))


def talk(game: MysteryGame, seat: str, obs: Observation) -> str | None:
    """Says something plain; questions the first option; votes for the first option."""
    return obs.options[0] if obs.options else f"{seat} speaks in {obs.phase}."


def drive(game: MysteryGame, reply: Reply = talk) -> list[Observation]:
    """Play to the end, feeding each request's reply (None: no usable reply); returns every
    observation the game sent."""
    seen: list[Observation] = []
    while not game.over:
        requests = game.pending()
        assert requests
        outcomes = []
        for r in requests:
            seen.append(r.observation)
            text = reply(game, r.seat, r.observation)
            outcomes.append(Outcome(r.seat, text, "ok" if text is not None else "unparseable"))
        game.submit(outcomes)
    assert game.pending() == []
    return seen


def agents_reply(agents: dict[str, Agent]) -> Reply:
    """Agents by role ("murderer"/"innocent"), their replies parsed as the runner parses them."""
    def reply(game: MysteryGame, seat: str, obs: Observation) -> str | None:
        raw = getattr(agents[game.roles[seat]], obs.verb)(obs)
        return outcome_text(raw, obs)[0]
    return reply


def voting(votes: dict[str, str]) -> Reply:
    """Plain talk, and the given final votes (by seat)."""
    def reply(game: MysteryGame, seat: str, obs: Observation) -> str | None:
        if obs.phase == "vote":
            return votes[seat]
        return talk(game, seat, obs)
    return reply


def events_of(game: MysteryGame, kind: type[E]) -> list[E]:
    """The game's events of one kind (a model, or a base such as `InvalidAction`)."""
    return [e for e in game.events if isinstance(e, kind)]


def setup_of(game: MysteryGame) -> MysterySetup:
    (setup,) = events_of(game, MysterySetup)
    return setup


def plain_script(chars: int = 0) -> Script:
    """A small valid script built in code; `chars` > 0 makes the first role's script that long."""
    body = "You were in the garden from nine to ten. You saw the gardener by the shed."
    if chars:
        filler = " ".join(f"Line {i}: the long memory of the house goes on." for i in range(chars // 40 + 1))
        body = (body + "\n\n" + filler)[:chars]
    roles = [
        {"name": "Ada", "introduction": "The cook.", "script": body, "murderer": False},
        {"name": "Ben", "introduction": "The butler.", "script": "You struck the lord with the candlestick at "
         "ten.\n\nYou hid the candlestick in the pantry.", "murderer": True},
        {"name": "Cy", "introduction": "The gardener.", "script": "You were in the shed all night.",
         "murderer": False},
    ]
    return Script.model_validate({
        "id": "plain", "title": "A plain case", "language": "en", "background": "The lord is dead.",
        "roles": roles, "reasoning_chain": {"p": ["The candlestick is missing."]}, "key_roles": ["Ada"],
        "truth": {"murderer": "Ben", "motive": "Debts.", "method": "A candlestick."},
        "tasks": {"murderer": "Hide it.", "others": "Find the murderer."}})


def plain_game(script: Script | None = None, seed: int = 0, **settings: Any) -> MysteryGame:
    script = script or plain_script()
    return MysteryGame([r.name for r in script.roles], seed,
                       MysterySettings(players=len(script.roles), **settings), script)


# -- the shipped scripts and settings --------------------------------------------------------------
def test_the_catalogue_ships_english_and_chinese_scripts_of_four_to_seven_characters():
    assert shipped_ids("en") and shipped_ids("zh")
    for script_id in SCRIPTS:
        assert 4 <= len(get_script(script_id).roles) <= 7
    defaults = ShippedSettings(players=len(get_script(shipped_ids("en")[0]).roles))
    assert defaults.script == shipped_ids("en")[0] and defaults.rounds == 3 and defaults.seconds == 60
    assert defaults.max_chars == 1000
    zh = shipped_ids("zh")[0]
    assert ShippedSettings(language="zh", players=len(get_script(zh).roles)).script == zh


@pytest.mark.parametrize("script_id", SCRIPTS)
def test_seats_are_the_scripts_characters(script_id):
    names = [r.name for r in get_script(script_id).roles]
    assert seat_names(len(names), {"script": script_id}) == names
    assert make(script_id).seats == names


def test_settings_refuse_a_wrong_player_count_or_an_unknown_script_clearly():
    script_id = SCRIPTS[0]
    n = len(get_script(script_id).roles)
    with pytest.raises(ValidationError, match=f"has {n} characters .*players must be {n}, got {n + 1}"):
        ShippedSettings(script=script_id, players=n + 1)
    with pytest.raises(ValidationError, match="unknown murder-mystery script 'no-such-case'; shipped: "):
        ShippedSettings(script="no-such-case", players=n)
    with pytest.raises(ValidationError, match="no shipped 'en' script has 12 characters"):
        ShippedSettings(players=12)
    zh = shipped_ids("zh")[0]
    with pytest.raises(ValidationError, match=f"script '{zh}' is in 'zh', not 'en'"):
        ShippedSettings(script=zh, language="en", players=len(get_script(zh).roles))
    assert seat_names(12, {}) == [f"P{i}" for i in range(1, 13)]  # the match itself is refused


def test_the_rules_refuse_seats_that_are_not_the_characters():
    with pytest.raises(ValueError, match="seats are the script's characters"):
        MysteryGame(["P1", "P2", "P3"], 0, MysterySettings(players=3), plain_script())


# -- the four phases ----------------------------------------------------------------------------
def expected_phases(order_len: int, rounds: int) -> list[str]:
    out = ["introduction"] * order_len
    for _ in range(rounds):
        out += ["share"] * order_len + ["choose", "ask", "answer"] * order_len
    return out + ["reasoning"] * order_len + ["vote"] * order_len


@pytest.mark.parametrize("script_id", SCRIPTS)
def test_phases_come_in_order_on_every_shipped_script(script_id):
    game = make(script_id, seed=4, rounds=2)
    n = len(game.seats)
    seen = drive(game)
    assert [o.phase for o in seen] == expected_phases(n, 2)
    verbs = {o.phase: o.verb for o in seen}
    assert verbs == {"introduction": "speak", "share": "speak", "choose": "vote", "ask": "speak", "answer": "speak",
                     "reasoning": "speak", "vote": "vote"}
    for o in seen:
        if o.phase == "choose":
            assert o.you not in o.options and len(o.options) == n - 1
        if o.phase == "vote":
            assert o.options == game.seats and o.allow_abstain
    # each phase speaks in an order drawn with the seed: everyone once per phase
    for phase in ("introduction", "reasoning"):
        assert sorted(o.you for o in seen if o.phase == phase) == sorted(game.seats)
    assert [e.phase for e in events_of(game, Phase)] == ["introduction", "discussion", "discussion",
                                                                   "reasoning", "vote"]
    kinds = [type(e) for e in game.events]
    assert kinds[:2] == [MysterySetup, Start] and kinds[-1] is GameOver
    assert kinds.index(Private) < kinds.index(Introduction)
    result = game.result()
    assert set(result["scores"]) == set(game.seats) and result["winner"] in (INNOCENTS, MURDERER, DRAW)
    assert result["roles"][get_script(script_id).truth.murderer] == MURDERER
    assert result["truth"]["murderer"] == get_script(script_id).truth.murderer


def test_the_seed_draws_the_speaking_orders():
    orders = {tuple(setup_of(make(SCRIPTS[0], seed=s)).orders["round 1"]) for s in range(8)}
    assert len(orders) > 1
    assert setup_of(make(SCRIPTS[0], seed=3)).orders == setup_of(make(SCRIPTS[0], seed=3)).orders


@pytest.mark.parametrize("script_id", SCRIPTS)
def test_initialisation_delivers_the_case_every_clue_and_each_characters_own_script(script_id):
    script = get_script(script_id)
    game = make(script_id)
    first = {r.seat: r.observation for r in game.pending()}
    (seat, obs), = first.items()
    assert obs.phase == "introduction"
    history = [KINDS.from_history(h) for h in obs.history]
    start = next(e for e in history if isinstance(e, Start))
    assert script.background in start.text
    assert [c["name"] for c in start.characters] == game.seats
    clues = [e for e in history if isinstance(e, Clue)]
    assert len(clues) == len(script.text_clues) + len(script.image_clues)
    refs = [f"mystery/{script.id}/{c.file}" for c in script.image_clues]
    assert obs.images == refs
    for clue, ref in zip(script.image_clues, refs, strict=True):
        shown = next(e for e in clues if e.clue == clue.id)
        assert shown.images == [ref] and clue.caption in shown.text
        assert image_path(ref) == catalog().folders[script.id] / clue.file and image_path(ref).is_file()
    assert image_path("mystery/../../etc/passwd") is None and image_path(f"mystery/{script.id}/script.json") is None
    role = script.role(seat)
    (doc,) = obs.private.documents
    assert doc.kind == "script" and doc.text == role.script and doc.shared_with == []
    assert doc.data["chars"] == len(role.script)
    assert f"{len(role.script):,}" in doc.title or str(len(role.script)) in doc.title
    assert obs.private.facts["role"] == (MURDERER if role.murderer else INNOCENT)
    task = script.tasks.murderer if role.murderer else script.tasks.others
    assert task in obs.private.text
    told = "you are the murderer" in obs.private.text or "你就是凶手" in obs.private.text
    assert told == role.murderer


# -- winning, losing, drawing --------------------------------------------------------------------
def test_tally_strict_majority_of_the_innocents_draw_at_half():
    seats = ["A", "B", "C", "D", "M"]
    assert tally({"A": "M", "B": "M", "C": "M", "D": "A", "M": "A"}, "M") == (INNOCENTS, 3, 4)
    assert tally({"A": "M", "B": "M", "C": "B", "D": None, "M": "A"}, "M") == (DRAW, 2, 4)
    assert tally({"A": "M", "B": "C", "C": "B", "D": None, "M": "M"}, "M") == (MURDERER, 1, 4)
    # the murderer's own vote never counts for the innocents
    assert tally({"A": "M", "B": "M", "C": "B", "D": "A", "M": "M"}, "M") == (DRAW, 2, 4)
    assert tally({s: None for s in seats}, "M") == (MURDERER, 0, 4)


@pytest.mark.parametrize("named, winner, scores", [
    (3, INNOCENTS, (1.0, 0.0)),
    (2, DRAW, (0.5, 0.5)),
    (1, MURDERER, (0.0, 1.0)),
])
def test_the_final_vote_decides_on_a_shipped_script(named, winner, scores):
    script_id = next(i for i in SCRIPTS if len(get_script(i).roles) == 5)
    game = make(script_id, seed=2, rounds=1)
    murderer = game.murderer
    innocents = [s for s in game.seats if s != murderer]
    votes = {s: (murderer if i < named else innocents[(i + 1) % len(innocents)]) for i, s in enumerate(innocents)}
    votes[murderer] = murderer  # voting for oneself helps nobody
    drive(game, voting(votes))
    result = game.result()
    assert result["winner"] == winner and result["named"] == named
    assert {result["scores"][s] for s in innocents} == {scores[0]} and result["scores"][murderer] == scores[1]
    over = events_of(game, GameOver)[0]
    assert over.visible_to is None and over.winner == winner and game.script.truth.motive in over.text
    assert events_of(game, VoteResult)[0].counts[murderer] == named + 1


# -- bad input: the rule's default, recorded as invalid -----------------------------------------
def test_questioning_oneself_goes_to_the_next_character_clockwise_and_is_recorded():
    game = plain_game(rounds=1)

    def reply(g: MysteryGame, seat: str, obs: Observation) -> str | None:
        if obs.phase == "choose":
            return {"Ada": "Ada", "Ben": "nobody at all", "Cy": None}[seat]
        return talk(g, seat, obs)

    drive(game, reply)
    targets = {e.asker: (e.target, e.chosen) for e in events_of(game, QuestionTarget)}
    assert targets == {"Ada": ("Ben", False), "Ben": ("Cy", False), "Cy": ("Ada", False)}
    invalid = {e.actor: e for e in events_of(game, InvalidAction)}
    assert set(invalid) == {"Ada", "Ben", "Cy"}
    assert "cannot question itself" in invalid["Ada"].reason and "Ben" in invalid["Ada"].reason
    assert "'nobody at all' is not another character" in invalid["Ben"].reason
    assert "no usable reply (unparseable)" in invalid["Cy"].reason
    assert all(e.visible_to == (e.actor,) for e in invalid.values())
    # the questioned character still answered
    assert {e.actor for e in events_of(game, Answer)} == {"Ben", "Cy", "Ada"}


def test_a_vote_for_a_non_character_is_an_abstention_recorded_as_invalid():
    game = plain_game(rounds=1)
    drive(game, voting({"Ada": "Ben", "Cy": "the lord himself", "Ben": "abstain"}))
    assert game.votes == {"Ada": "Ben", "Ben": None, "Cy": None}
    (invalid,) = events_of(game, InvalidAction)
    assert invalid.actor == "Cy" and invalid.action == "final vote"
    assert "'the lord himself' is not a character; counted as an abstention" in invalid.reason
    assert game.result()["winner"] == DRAW  # 1 of 2 innocents named Ben


def test_silence_is_recorded_and_an_unasked_question_is_not_answered():
    game = plain_game(rounds=1)

    def reply(g: MysteryGame, seat: str, obs: Observation) -> str | None:
        return "   " if obs.phase in ("ask", "share") else talk(g, seat, obs)

    seen = drive(game, reply)
    assert not [o for o in seen if o.phase == "answer"]
    silences = events_of(game, Silence)
    assert len(silences) == 6 and {e.phase for e in silences} == {"share", "question"}


def test_replies_are_cut_to_max_chars():
    game = plain_game(rounds=1, max_chars=20)
    drive(game, lambda g, seat, obs: obs.options[0] if obs.options else "x" * 500)
    assert {len(e.text) for e in events_of(game, Statement)} == {20}


# -- private scripts stay private -------------------------------------------------------------------
def _sentences_of(text: str) -> list[str]:
    return [s for s in sentences(text) if len(s) >= 30]


@pytest.mark.parametrize("script_id", SCRIPTS)
def test_no_observation_holds_another_characters_script(script_id):
    """Generic talkers: no sentence of another character's script reaches a seat, unless the
    public case says it too (a clue may quote a line a character also knows)."""
    game = make(script_id, seed=1, rounds=1)
    seen = drive(game)
    script = get_script(script_id)
    case = "\n".join(e.text for e in game.events if e.visible_to is None)
    for seat in game.seats:
        view = "\n".join(o.private_text() + o.history_text() + o.instruction for o in seen if o.you == seat)
        for role in script.roles:
            if role.name == seat:
                continue
            assert role.script not in view
            leaked = [s for s in _sentences_of(role.script) if s in view and s not in case]
            assert not leaked, f"{seat} saw {role.name}'s script: {leaked[:2]}"


@pytest.mark.parametrize("script_id", SCRIPTS)
def test_naive_agents_only_reveal_what_is_said_in_public(script_id):
    """Naive agents quote their own scripts aloud; what another seat sees of a script is only
    what was said in public, never the rest of it."""
    game = make(script_id, seed=2, rounds=2)
    naive = NaiveMysteryAgent()
    seen = drive(game, agents_reply({MURDERER: naive, INNOCENT: naive}))
    public = "\n".join(e.text for e in game.events if e.visible_to is None)
    script = get_script(script_id)
    for seat in game.seats:
        observed = [o for o in seen if o.you == seat]
        texts = [o.private_text() + "\n" + o.history_text() + "\n" + o.instruction for o in observed]
        for role in script.roles:
            if role.name == seat:
                continue
            assert all(role.script not in t for t in texts)
            for s in _sentences_of(role.script):
                if s not in public:
                    assert all(s not in t for t in texts), f"{seat} saw {role.name}'s unspoken {s!r}"


def test_a_huge_script_is_delivered_intact_with_its_length_stated():
    script = plain_script(chars=50_000)
    assert len(script.roles[0].script) == 50_000
    game = plain_game(script)
    first = None
    while not game.over:
        requests = game.pending()
        for r in requests:
            if r.seat == "Ada" and first is None:
                first = r.observation
        game.submit([Outcome(r.seat, r.observation.options[0] if r.observation.options else "hello")
                     for r in requests])
    assert first is not None
    (doc,) = first.private.documents
    assert doc.text == script.roles[0].script and doc.data["chars"] == 50_000
    assert "50,000 characters" in doc.title and "50,000 characters" in first.private.text
    # as JSON for an agent on this SDK, and folded into the private text for an older one
    assert Observation.model_validate(first.dump_for("0.9.0")).private.documents[0].text == doc.text
    assert script.roles[0].script in first.dump_for("0.1.0")["private"]["text"]
    # the other seats never get it
    others = [e for e in events_of(game, Private) if e.visible_to != ("Ada",)]
    assert all(e.document is None or script.roles[0].script != e.document.text for e in others)


# -- the naive agent -----------------------------------------------------------------------------
def obs_for(game: MysteryGame, seat: str, phase: str, instruction: str = "") -> Observation:
    verb = "vote" if phase in ("choose", "vote") else "speak"
    options = [s for s in game.seats if s != seat] if phase == "choose" else (game.seats if phase == "vote" else None)
    return game.observe(seat, verb, phase=phase, instruction=instruction, options=options, language=game.lang)


def test_the_naive_agent_answers_from_its_own_script_or_says_it_does_not_know():
    game = plain_game()
    naive = NaiveMysteryAgent()
    said = naive.speak(obs_for(game, "Ada", "answer", 'Ben asks you: "Where were you from nine to ten, in the '
                                                            'garden?" Answer Ben.'))
    assert said == "I was in the garden from nine to ten."
    assert naive.speak(obs_for(game, "Cy", "answer", "Did anyone feed the parrot on Tuesday?")) == "I don't know."


def test_the_naive_murderer_admits_a_clue_its_script_confirms_and_hides_otherwise():
    game = plain_game()
    naive = NaiveMysteryAgent()
    confronted = naive.speak(obs_for(game, "Ben", "answer", "Ada asks you: \"Ben, you struck the lord with the "
                                                            "candlestick at ten, did you not?\" Answer Ada."))
    assert confronted.startswith("I admit it:") and "candlestick" in confronted
    vague = naive.speak(obs_for(game, "Ben", "answer", "Where is the candlestick?"))
    assert not vague.startswith("I admit")


def test_the_naive_agent_introduces_itself_shares_questions_suspects_and_votes():
    script_id = shipped_ids("en")[0]
    game = make(script_id, seed=5, rounds=1)
    naive = NaiveMysteryAgent()
    drive(game, agents_reply({MURDERER: naive, INNOCENT: naive}))
    script = get_script(script_id)
    intros = {e.actor: e.text for e in events_of(game, Introduction)}
    assert all(script.role(s).introduction in intros[s] for s in game.seats)
    statements = events_of(game, Statement)
    assert len(statements) == len(game.seats) and not events_of(game, Silence)
    assert all(e.chosen for e in events_of(game, QuestionTarget))
    assert len(events_of(game, Question)) == len(game.seats) and not events_of(game, InvalidAction)
    reasoning = {e.actor: e.text for e in events_of(game, Reasoning)}
    for e in events_of(game, Vote):
        assert e.vote in game.seats and e.vote != e.actor
        assert f"suspect {e.vote}" in reasoning[e.actor]  # it votes for whom it said it suspects
    # the murderer never speaks of its own killing
    murderer_said = " ".join(e.text for e in game.events if e.actor == game.murderer and not isinstance(e, Private))
    assert "I admit" not in murderer_said


def test_the_naive_agent_plays_in_chinese():
    zh = shipped_ids("zh")[0]
    game = make(zh, seed=1, rounds=1)
    naive = NaiveMysteryAgent()
    drive(game, agents_reply({MURDERER: naive, INNOCENT: naive}))
    assert game.result()["winner"] in (INNOCENTS, MURDERER, DRAW)
    intro = events_of(game, Introduction)[0].text
    assert intro.startswith("我是") and re.search(r"[\u4e00-\u9fff]", events_of(game, Reasoning)[0].text)
    assert all(e.text.startswith("我怀疑") for e in events_of(game, Reasoning))


def test_the_phrasebook_speaks_both_languages_and_a_chinese_match_uses_its_chinese_lines():
    assert set(PHRASES.languages) == {"en", "zh"}  # same keys and placeholders: checked when the book is built
    assert set(RECORD_KEYS) <= PHRASES.keys()
    game = make(shipped_ids("zh")[0], seed=1, rounds=1)
    naive = NaiveMysteryAgent()
    seen = drive(game, agents_reply({MURDERER: naive, INNOCENT: naive}))
    lines = [e.text for e in game.events if e.visible_to is None] + [o.instruction for o in seen]
    english = [piece.strip() for key in ("phase_discussion", "will_question", "game_over", "share")
               for piece, *_ in string.Formatter().parse(PHRASES.say("en", key)) if len(piece.strip()) > 8]
    assert english and not [p for p in english if any(p in line for line in lines)]
    chinese = [PHRASES.say("zh", "phase_vote"), PHRASES.say("zh", "reason")]
    assert all(any(c in line for line in lines) for c in chinese)


def test_first_person_turns_a_script_sentence_into_speech():
    assert first_person("You told him you were late, and you left.") == "I told him I was late, and I left."
    assert first_person("He gave you your coat.") == "He gave me my coat."
    assert first_person("你看见他上了楼。") == "我看见他上了楼。"


def test_the_naive_agent_answers_quizzes_by_retrieval_well_above_chance():
    naive = NaiveMysteryAgent()
    right = total = 0
    for script_id in SCRIPTS:
        for item in suite_items(get_script(script_id)):
            if item.types == ["lsu"]:
                got = naive.answer(suite_observation(item, "mystery", 30))
                right += got == item.answer
                total += 1
    assert total >= 80 and right / total > 0.6


def test_the_random_agent_plays_within_the_options():
    game = plain_game(rounds=1)
    randomly = RandomMysteryAgent()
    drive(game, agents_reply({MURDERER: randomly, INNOCENT: randomly}))
    assert not events_of(game, InvalidAction) and game.result()["winner"]


# -- quizzes as suite items ------------------------------------------------------------------------
@pytest.mark.parametrize("script_id", SCRIPTS)
def test_a_scripts_questions_become_suite_items(script_id):
    script = get_script(script_id)
    items = suite_items(script)
    q = script.questions
    assert len(items) == len(q.lsu) + len(q.tiu) + len(q.miu) + len(q.mmr)
    assert len({i.id for i in items}) == len(items)
    by_type = {t: [i for i in items if i.types == [t]] for t in ("lsu", "tiu", "miu", "mmr")}
    assert all(i.tags["role"] in [r.name for r in script.roles] for i in by_type["lsu"])
    assert all(i.tags["image"] and len(i.images) == 1 for i in by_type["tiu"] + by_type["miu"])
    assert all(1 <= i.tags["hops"] <= 5 for i in by_type["mmr"])
    assert not any(c.caption in i.context for i in by_type["tiu"] for c in script.image_clues)
    captioned = suite_items(script, captions=True)
    assert all(i.tags["captions"] for i in captioned)
    assert len(to_jsonl(suite_dicts(script)).splitlines()) == len(items)


# -- metrics and the replay --------------------------------------------------------------------------
def as_record(game: MysteryGame, agents: dict[str, str] | None = None) -> dict[str, Any]:
    """The game as the store returns a finished match."""
    agents = agents or {}
    return {"seats": [{"seat": s, "agent_id": agents.get(s, f"agent-{s}")} for s in game.seats],
            "events": [{**e.to_dict(), "seq": i} for i, e in enumerate(game.events)]}


def test_records_count_questions_key_roles_votes_and_invalid_actions():
    game = plain_game(rounds=2)

    def reply(g: MysteryGame, seat: str, obs: Observation) -> str | None:
        if obs.phase == "choose":
            return {"Ada": "Ben", "Ben": "Ada", "Cy": "Cy"}[seat]  # Cy questions itself: Ada by default
        if obs.phase == "vote":
            return {"Ada": "Ben", "Ben": "Ada", "Cy": "Ben"}[seat]
        return talk(g, seat, obs)

    drive(game, reply)
    recs = {r.seat: r for r in derive({**as_record(game), "game": "mystery"})}  # with the generic facts
    assert recs["Ben"].role == recs["Ben"].team == MURDERER and recs["Ada"].role == INNOCENTS
    assert recs["Ada"].won and recs["Cy"].won and not recs["Ben"].won and recs["Ben"].score == 0.0
    ben = recs["Ben"].stats
    assert ben["key_roles_questioned"] == 1 and ben["key_roles_available"] == 1  # Ada is the key role
    assert recs["Cy"].stats["key_roles_questioned"] == 0  # a default question is not a choice
    assert recs["Cy"].stats["invalid_actions"] == 2 and recs["Ada"].stats["named_murderer"] == 1
    assert recs["Ada"].stats["questions_asked"] == 2
    assert recs["Ada"].stats["key_roles_available"] == 0
    totals = totals_from(tallies_of_match(records(as_record(game, {"Ada": "x", "Cy": "x", "Ben": "y"}))))
    mystery = get_game("mystery")

    def full(t: AgentTotals) -> dict[str, Any]:  # the leaderboard's row: every game's columns and the game's
        return {**generic_row(mystery, t), **row(t)}

    x, y = full(totals["x"]), full(totals["y"])
    assert x["win_rate_innocents"].value == 1.0 and x["vote_accuracy"].value == 1.0
    assert x["win_rate_murderer"].value is None and x["win_rate_innocents"].n == 2  # Ada and Cy
    assert y["win_rate_murderer"].value == 0.0 and y["itd"].value == 1.0
    assert x["statement_chars"] > 0 and x["draw_rate"].value == 0.0
    assert full(AgentTotals("nobody"))["win_rate"].value is None


def test_a_draw_scores_half_and_is_won_by_nobody():
    game = plain_game(rounds=1)
    drive(game, voting({"Ada": "Ben", "Ben": "Ada", "Cy": "Ada"}))
    recs = records(as_record(game))
    assert game.result()["winner"] == DRAW
    assert {r.score for r in recs} == {0.5} and not any(r.won for r in recs) and all(r.stats["draws"] for r in recs)


def test_the_replay_panels_show_discussion_questions_votes_and_images():
    script_id = SCRIPTS[0]
    game = make(script_id, seed=1, rounds=1)
    drive(game)
    events = as_record(game)["events"]
    frames = {p.title: p.build(events, None) for p in VIEW.panels}
    for panel in VIEW.panels:
        assert list(frames[panel.title].columns) == list(panel.columns)
    n = len(game.seats)
    assert len(frames["Who questioned whom"]) == n
    assert len(frames["Final votes"]) == n and set(frames["Final votes"]["right"]) <= {"✅", "❌"}
    images = frames["Image clues"]
    assert list(images["caption"]) == [c.caption for c in get_script(script_id).image_clues]
    assert len(frames["Discussion"]) == n * 3 + n * 2  # introductions, shares, questions, answers, reasoning
    # a seat's view before the end shows no verdict
    upto = next(i for i, e in enumerate(KINDS.parse_all(events)) if isinstance(e, Vote)) + 1
    assert set(VIEW.panels[2].build(events, upto)["right"]) == {""}


# -- through the arena -------------------------------------------------------------------------------
def test_the_game_is_registered_with_the_characters_as_seats():
    spec = get_game("mystery")
    assert spec.title == "Murder mystery" and spec.facts.roles == (MURDERER, INNOCENT)
    assert spec.facts.sides == (MURDERER, INNOCENTS) and (spec.facts.min_players, spec.facts.max_players) == (4, 7)
    default = get_script(shipped_ids("en")[0])
    assert spec.facts.default_players == len(default.roles)
    assert spec.facts.seat_names(spec.facts.default_players) == [r.name for r in default.roles]
    assert {"house:mystery-naive", "house:mystery-random"} <= set(spec.house.agents)


@pytest.mark.parametrize("script_id", SCRIPTS)
def test_naive_agents_finish_a_match_through_the_runner_on_every_shipped_script(tmp_path, script_id):
    store = Store(tmp_path / "m.db")
    arena = Arena(store)
    n = len(get_script(script_id).roles)
    plan = MatchPlan("mystery", ["house:mystery-naive"] * n, seed=3, settings={"script": script_id})
    outcome = arena.run_sync(plan)
    assert outcome.status == "finished", outcome.error
    record = store.get_match(outcome.match_id)
    assert [s["seat"] for s in record["seats"]] == [r.name for r in get_script(script_id).roles]
    assert record["settings"]["script"] == script_id
    assert record["result"]["winner"] in (INNOCENTS, MURDERER, DRAW)
    store.close()


def test_a_faction_match_puts_one_agent_on_every_innocent_and_another_on_the_murderer(tmp_path):
    store = Store(tmp_path / "f.db")
    arena = Arena(store)
    outcomes = arena.run_in_own_loop(arena.tournament(
        "mystery", ["house:mystery-naive"], games=2, seed=1, role_specs={MURDERER: "house:mystery-random"}))
    assert [o.status for o in outcomes] == ["finished", "finished"]
    for o in outcomes:
        record = store.get_match(o.match_id)
        murderer = record["result"]["murderer"]
        agents = {s["seat"]: s["agent_id"] for s in record["seats"]}
        assert agents[murderer] == "house:mystery-random"
        assert {a for s, a in agents.items() if s != murderer} == {"house:mystery-naive"}
    store.close()


def test_through_the_arena_a_seat_is_shown_its_own_script_only(tmp_path):
    """A seat of its own (random play, observations kept) among naive agents: every
    observation it gets holds its script and no other."""
    class Keep(RandomMysteryAgent):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[Observation] = []

        def speak(self, obs: Observation) -> str:
            self.seen.append(obs)
            return super().speak(obs)

    script = get_script(SCRIPTS[0])
    seat = script.roles[0].name
    keep = Keep()
    store = Store(tmp_path / "h.db")
    arena = Arena(store)
    plan = MatchPlan("mystery", ["house:mystery-naive"] * len(script.roles), seed=8, settings={"script": script.id})
    outcome = arena.run_in_own_loop(arena.run(plan, extra_agents={seat: SeatAgent(keep, "keep")}))
    assert outcome.status == "finished"
    assert keep.seen and all([d.text for d in o.private.documents] == [script.roles[0].script] for o in keep.seen)
    store.close()


DIGEST_OF_A_GAME = """
import hashlib, json
from space_app.games.mystery.agents import NaiveMysteryAgent
from space_app.games.mystery.catalog import ShippedMysteryGame, ShippedSettings, get_script
from space_app.core.game import Outcome
from space_app.runner import outcome_text
script = get_script({script!r})
game = ShippedMysteryGame([r.name for r in script.roles], 3, ShippedSettings(script=script.id,
                          players=len(script.roles), rounds=1))
naive = NaiveMysteryAgent()
while not game.over:
    requests = game.pending()
    game.submit([Outcome(r.seat, outcome_text(naive.act(r.observation).text, r.observation)[0])
                 for r in requests])
print(hashlib.sha256(json.dumps([e.to_dict() for e in game.events], sort_keys=True).encode()).hexdigest())
"""


def test_the_naive_agent_plays_the_same_match_in_every_process():
    """No set order or hash seed decides anything: the same seed replays the same match."""
    code = DIGEST_OF_A_GAME.format(script=SCRIPTS[0])
    digests = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(digests) == 1 and next(iter(digests)).strip()


def test_a_match_on_an_edited_or_withdrawn_script_says_why_it_cannot_replay():
    spec = get_game("mystery")
    game = make(SCRIPTS[0], rounds=1)
    drive(game)
    match = {"settings": game.settings.model_dump(), "events": as_record(game)["events"]}
    assert spec.rules.replay_note(match) is None
    match["events"][0] = setup_of(game).model_copy(update={"digest": "0" * 16}).to_dict()
    assert "has been edited" in spec.rules.replay_note(match)
    assert "no longer shipped" in spec.rules.replay_note({"settings": {"script": "gone"}, "events": []})
