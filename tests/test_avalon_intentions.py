"""Intention-guided Avalon: the catalogue, the SDK agent's pipeline (well-behaved and bad
models, no real model needed), the end-of-game quizzes, the metrics and judges computed
from events, privacy of the notes through the real runner, and verify."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from typing import Any

import pytest

from sdk import Agent, AgentError, Observation, scripted_caller
from space_app.core import get_game
from space_app.core.game import Outcome
from space_app.core.records import tallies_of_match, totals_from
from space_app.games.avalon.agents import RandomAvalonAgent, RuleAvalonAgent
from space_app.games.avalon.events import (
    KINDS,
    GameOver,
    Intentions,
    Proposal,
    QuestResult,
    QuizAnswer,
    QuizQuestion,
    Quizzes,
    Statement,
    VoteResult,
)
from space_app.games.avalon.exemplar import offered_options
from space_app.games.avalon.intention_agent import AvalonIntentionAgent, read_ids, sections_of
from space_app.games.avalon.intentions import (
    CATEGORIES,
    ROLES,
    Situation,
    catalogue_for,
    load_catalogue,
    parse_catalogue,
    selected_ids,
    situation_from,
)
from space_app.games.avalon.judge import (
    heuristic_following,
    heuristic_reasonableness,
    intention_statements,
    judge_match,
    read_scores,
)
from space_app.games.avalon.metrics import records
from space_app.games.avalon.quiz import f1
from space_app.games.avalon.rules import AvalonGame, AvalonSettings
from space_app.games.avalon.selfplay import play_local
from space_app.runner import SeatAgent
from space_app.service import Arena, MatchPlan
from space_app.store import Store
from space_app.ui.replay import visible
from space_app.verify import verify_match

CATALOGUE = load_catalogue()
SECRET = "ZQX"  # in every THINK the fake model writes: it must never reach another seat


# -- a fake model that follows the markers -------------------------------------------------------
def _offered(messages: list[dict[str, Any]]) -> list[str]:
    """The intentions the prompt offers (in a review: the list after the draft)."""
    text = str(messages[1]["content"])
    return re.findall(r"^(I\d+): ", text.split("from this list")[-1], re.MULTILINE)


def fake_model(messages: list[dict[str, Any]]) -> str:
    """Plans with the first two offered intentions and switches to the second and third on
    review; votes and answers name the first options asked for."""
    last = str(messages[-1]["content"])
    you = re.search(r"You are (P\d+)", str(messages[1]["content"]))
    seat = you.group(1) if you else "?"
    offered = _offered(messages)
    if "Plan your statement" in last:
        return (f"FIRST-ORDER: everyone else looks good to {seat} so far.\n"
                f"INTENTIONS: {', '.join(offered[:2])}\n"
                f"THINK: {SECRET}-draft-{seat}: ask why the team was chosen.\n"
                "SPEAK: Why did the leader choose this team? I trust it for now.")
    if "read your SPEAK" in last:
        return ("SECOND-ORDER: they will read me as a careful good player.\n"
                f"INTENTIONS: {', '.join(offered[1:3])}\n"
                f"THINK: {SECRET}-final-{seat}: keep asking, stay calm.\n"
                "SPEAK: Why this team? Tell us who you trust and whom you doubt.")
    labels, k = offered_options(last)
    if labels:
        return "Final answer: " + ", ".join(labels[:k])
    return "I have nothing to add."


def discussion_obs(n: int = 6, seed: int = 3, seat_role: str | None = None) -> Observation:
    """The first discussion request of a fresh game (of the seat holding `seat_role`, if given)."""
    game = AvalonGame([f"P{i}" for i in range(1, n + 1)], seed, AvalonSettings(players=n))
    bots = {s: RuleAvalonAgent() for s in game.seats}
    while True:
        requests = game.pending()
        if game.phase == "discuss" and (seat_role is None or game.roles[requests[0].seat] == seat_role):
            return requests[0].observation
        play_local(game, bots, steps=1)


# -- the catalogue -------------------------------------------------------------------------------
def test_the_catalogue_has_enough_distinct_intentions_over_all_seven_categories():
    assert len(CATALOGUE) >= 30
    assert set(CATALOGUE.categories) == set(CATEGORIES) and len(CATEGORIES) == 7
    per_category = Counter(i.category for i in CATALOGUE.intentions)
    assert set(per_category) == set(CATEGORIES) and min(per_category.values()) >= 4
    assert all(re.fullmatch(r"I\d+", i.id) for i in CATALOGUE.intentions)
    assert len({i.id for i in CATALOGUE.intentions}) == len(CATALOGUE)
    assert len({i.text.casefold() for i in CATALOGUE.intentions}) == len(CATALOGUE)
    for i in CATALOGUE.intentions:
        assert i.roles and i.roles <= set(ROLES) and i.keywords and 20 <= len(i.text) <= 120, i
    for role in ROLES:  # every role has a real choice, and only what suits it
        mine = catalogue_for(role)
        assert len(mine) >= 10 and all(i.suits(role) for i in mine)
        assert len({i.category for i in mine}) >= 5, role
    assert not any(i.suits("merlin") for i in CATALOGUE.intentions if i.category == "deception")


def test_a_bad_catalogue_is_refused_naming_the_entry():
    good = {"id": "I1", "category": "defence", "text": "Explain my vote.", "roles": ["good"]}
    assert len(parse_catalogue({"intentions": [good]})) == 1
    for bad, message in [({**good, "roles": ["wizard"]}, "unknown role"),
                         ({**good, "category": "magic"}, "unknown category"),
                         ({**good, "situations": ["midnight"]}, "unknown situation"),
                         ({**good, "text": " "}, "text is empty")]:
        with pytest.raises(ValueError, match=message):
            parse_catalogue({"intentions": [bad]})
    with pytest.raises(ValueError, match="used twice"):
        parse_catalogue({"intentions": [good, good]})


def test_situations_and_selections_are_read_the_same_way_everywhere():
    items = [Proposal(leader="P2", team=["P1", "P2"], quest=3), Statement(text="hm"), VoteResult(),
             QuestResult(success=False), QuestResult(success=True)]
    s = situation_from("P1", items)
    assert s == Situation(leader=False, on_team=True, voted=True, failed=True, last_success=True, quest=3)
    assert s.holds("late") and s.holds("not_leader") and not s.holds("off_team")
    assert selected_ids({"intentions": ["I1", "I2"], "modified": ["I3", "I99"]}) == ["I3"]
    assert selected_ids({"intentions": ["I1", "I1", "I2"], "modified": []}) == ["I1", "I2"]
    assert selected_ids({"intentions": "I1"}) == [] and selected_ids(None) == []


# -- the agent's pipeline --------------------------------------------------------------------------
def test_a_well_behaved_model_gives_a_statement_with_catalogue_intentions_in_its_notes():
    obs = discussion_obs(seat_role="merlin")
    caller = scripted_caller(fake_model)
    agent = AvalonIntentionAgent(caller, name="intent")
    reply = agent.act(obs)
    assert reply.text == "Why this team? Tell us who you trust and whom you doubt."
    notes = reply.meta["notes"]
    assert set(notes) >= {"intentions", "modified", "think", "first_order", "second_order", "errors"}
    offered = {i.id for i in agent.offered(obs)}
    assert len(notes["intentions"]) == 2 and set(notes["intentions"]) <= offered
    assert notes["modified"] and set(notes["modified"]) <= offered and notes["modified"] != notes["intentions"]
    assert all(CATALOGUE.get(i).suits("merlin") for i in notes["intentions"] + notes["modified"])
    assert notes["think"].startswith(f"{SECRET}-final-") and "good" in notes["first_order"]
    assert "careful" in notes["second_order"] and notes["errors"] == []
    assert len(caller.calls) == 2, "two model calls a statement"
    assert reply.usage is not None and reply.usage.completion_tokens > 20  # both calls counted
    assert len(json.dumps(notes)) < 8000


def test_markers_are_read_leniently_and_ids_checked_against_the_catalogue():
    text = "**Intentions:** I3, i7\n2. THINK - quiet\nSpeak： hello there\nFIRST ORDER: x"
    assert sections_of(text) == {"INTENTIONS": "I3, i7", "THINK": "quiet", "SPEAK": "hello there",
                                 "FIRST-ORDER": "x"}
    allowed = {i.id: i for i in CATALOGUE.intentions[:5]}
    ids, problems = read_ids("I1, I2, I99, I40, I3, I4", allowed, CATALOGUE)
    assert ids == ["I1", "I2", "I3"]
    assert any("not in the catalogue: I99" in p for p in problems)
    assert any("not offered" in p and "I40" in p for p in problems)
    assert any("first 3 kept" in p for p in problems)


def test_intentions_outside_the_catalogue_and_a_review_without_markers_still_speak():
    obs = discussion_obs()
    caller = scripted_caller(["INTENTIONS: I99, I100\nTHINK: hmm\nSPEAK: I back this team.", "no idea"],
                             cycle=False)
    reply = AvalonIntentionAgent(caller).act(obs)
    assert reply.text == "I back this team."
    notes = reply.meta["notes"]
    assert notes["intentions"] == [] and notes["modified"] == []
    errors = " | ".join(notes["errors"])
    assert "not in the catalogue: I99, I100" in errors and "review: no markers" in errors
    assert "plan: missing FIRST-ORDER" in errors


def test_a_model_without_markers_falls_back_to_a_plain_statement():
    obs = discussion_obs()
    caller = scripted_caller(["I do not understand.", "Still no format.", "P2 seems fine to me.\nmore text"],
                             cycle=False)
    reply = AvalonIntentionAgent(caller).act(obs)
    assert reply.text == "P2 seems fine to me."  # LLMAgent's own statement: the first line
    errors = " | ".join(reply.meta["notes"]["errors"])
    assert "plan: no markers" in errors and "plain statement" in errors
    assert len(caller.calls) == 3


def test_a_failing_second_call_keeps_the_draft():
    obs = discussion_obs()
    calls = {"n": 0}

    def flaky(messages: list[dict[str, Any]]) -> str:
        calls["n"] += 1
        if calls["n"] == 2:
            raise ConnectionError("endpoint went away")
        return fake_model(messages)

    reply = AvalonIntentionAgent(flaky).act(obs)
    assert reply.text == "Why did the leader choose this team? I trust it for now."
    notes = reply.meta["notes"]
    assert len(notes["intentions"]) == 2 and notes["modified"] == []
    assert notes["think"].startswith(f"{SECRET}-draft-")
    assert any("review: the model failed" in e and "endpoint went away" in e for e in notes["errors"])


def test_a_model_that_always_fails_is_the_turns_error_and_other_phases_are_plain():
    def down(messages: list[dict[str, Any]]) -> str:
        raise ConnectionError("down")

    with pytest.raises(AgentError):
        AvalonIntentionAgent(down).act(discussion_obs())
    conference = discussion_obs().model_copy(update={"phase": "conference"})
    caller = scripted_caller(["P3 is Merlin."])
    reply = AvalonIntentionAgent(caller).act(conference)
    assert reply.text == "P3 is Merlin." and "notes" not in reply.meta and len(caller.calls) == 1


def test_votes_and_answers_are_llm_agents():
    game = AvalonGame([f"P{i}" for i in range(1, 7)], 5, AvalonSettings(players=6))
    (request,) = game.pending()
    agent = AvalonIntentionAgent(scripted_caller(fake_model))
    reply = agent.act(request.observation)
    assert len(reply.text.split(", ")) == request.observation.pick and "notes" not in reply.meta
    assert AvalonIntentionAgent.games == ("avalon",)


# -- the quizzes in the game ---------------------------------------------------------------------
def notes_for(seat: str, ids: list[str], modified: list[str] | None = None) -> dict[str, Any]:
    return {"intentions": ids, "modified": modified or [], "think": f"{SECRET} private plan of {seat}",
            "first_order": "", "second_order": "", "errors": []}


class Scripted:
    """Drives a game directly: clean teams, approve, evil fails, the Assassin misses; two seats
    attach notes to their statements; quiz answers come from `answers` (seat, quiz) -> text."""

    def __init__(self, game: AvalonGame, speakers: dict[str, dict[str, Any]],
                 answers: dict[tuple[str, str], str | None]) -> None:
        self.game, self.speakers, self.answers = game, speakers, answers

    def outcome(self, request: Any) -> Outcome:
        g, seat, obs = self.game, request.seat, request.observation
        good = [s for s in g.seats if g.sides[s] == "good"]
        if obs.phase in ("propose", "revise"):
            return Outcome(seat, ", ".join(good[: obs.pick]))
        if obs.phase == "discuss":
            return Outcome(seat, f"{seat} talks in quest {g.quest}.", notes=self.speakers.get(seat))
        if obs.phase == "team_vote":
            return Outcome(seat, "approve")
        if obs.phase == "quest":
            return Outcome(seat, "fail" if g.sides[seat] == "evil" else "success")
        if obs.phase == "conference":
            return Outcome(seat, "no idea")
        if obs.phase == "assassinate":
            return Outcome(seat, next(s for s in good if g.roles[s] != "merlin"))
        text = self.answers.get((seat, obs.phase))
        return Outcome(seat, text) if text is not None else Outcome(seat, None, "timeout", "slow")

    def play(self) -> AvalonGame:
        while not self.game.over:
            self.game.submit([self.outcome(r) for r in self.game.pending()])
        return self.game


def as_match(game: AvalonGame) -> dict[str, Any]:
    """The game as the store returns a finished match."""
    return {"id": "m1", "game": "avalon", "seed": game.seed, "status": "finished",
            "seats": [{"seat": s, "agent_id": f"agent-{s}"} for s in game.seats],
            "events": [{**e.to_dict(), "seq": n} for n, e in enumerate(game.events)], "result": game.result()}


def constructed() -> tuple[AvalonGame, dict[str, list[str]]]:
    game = AvalonGame([f"P{i}" for i in range(1, 7)], 8, AvalonSettings(players=6))
    a, b = "P2", "P5"
    speakers = {a: notes_for(a, ["I1", "I4"], ["I4", "I9", "I15"]), b: notes_for(b, ["I32", "I38"])}
    evil = [s for s in game.seats if game.sides[s] == "evil"]
    answers: dict[tuple[str, str], str | None] = {
        (a, "summarise"): "I4, I9, I1",  # 2 of 3 right: F1 2/3
        (b, "summarise"): "I32, I38",  # both right: F1 1
        (a, "guess"): "I32, I1",  # about b: 1 of 2: F1 1/2
        (b, "guess"): None,  # times out: F1 0
    }
    for seat in game.seats:
        others = [s for s in game.seats if s != seat]
        if seat == "P1":  # everything wrong: two good players named as evil
            wrong = [s for s in others if s not in evil][: len([x for x in evil if x != seat])]
            answers[(seat, "deduce")] = ", ".join(wrong)
        elif seat != "P3":  # P3 does not answer
            answers[(seat, "deduce")] = ", ".join(s for s in evil if s != seat)
    return Scripted(game, speakers, answers).play(), {"a": [a], "b": [b], "evil": evil}


def test_the_quizzes_come_after_the_decision_and_before_the_reveal_and_never_change_the_result():
    game, who = constructed()
    events = game.events
    decided = next(n for n, e in enumerate(events) if isinstance(e, Quizzes))
    assert isinstance(events[-1], GameOver) and not any(isinstance(e, QuizQuestion) for e in events[:decided])
    assert all(isinstance(e, (QuizQuestion, QuizAnswer)) for e in events[decided + 1:-1])
    last = events[-1]
    assert game.result()["winner"] == "good" and isinstance(last, GameOver) and last.winner == "good"
    questions = [e for e in events if isinstance(e, QuizQuestion)]
    assert all(e.visible_to == (e.actor,) for e in questions + [e for e in events if isinstance(e, QuizAnswer)])
    by = {(e.actor, e.quiz): e for e in questions}
    a, b = who["a"][0], who["b"][0]
    assert set(q for _, q in by) == {"summarise", "guess", "deduce"}
    assert {s for s, q in by if q == "summarise"} == {a, b} == {s for s, q in by if q == "guess"}
    summary = by[(a, "summarise")]
    assert summary.pick == 3 and f"{SECRET} private plan of {a}" in summary.text  # the final selection
    assert by[(a, "guess")].about == b and by[(b, "guess")].about == a  # next clockwise
    assert SECRET not in by[(a, "guess")].text, "a guess shows the other's SPEAK only"
    assert by[(a, "guess")].options == CATALOGUE.ids
    deduce = by[("P1", "deduce")]
    evil_others = [s for s in who["evil"] if s != "P1"]
    assert deduce.pick == len(evil_others) and "P1" not in deduce.options
    timed_out = next(e for e in events if isinstance(e, QuizAnswer) and e.actor == b and e.quiz == "guess")
    assert timed_out.picks == [] and timed_out.status == "timeout"


def test_the_metrics_score_the_quizzes_against_the_selections_and_the_truth():
    game, who = constructed()
    match = as_match(game)
    by_seat = {r.seat: r for r in records(match)}
    a, b = who["a"][0], who["b"][0]
    assert by_seat[a].stats["summary_f1"] == pytest.approx(2 / 3) and by_seat[b].stats["summary_f1"] == 1.0
    assert by_seat[a].stats["guess_f1"] == pytest.approx(0.5) and by_seat[b].stats["guess_f1"] == 0.0
    assert by_seat[a].stats["guess_asked"] == by_seat[b].stats["guess_asked"] == 1
    assert by_seat["P1"].stats["deduce_correct"] == 5 - 2 * len([s for s in who["evil"] if s != "P1"])
    assert by_seat["P3"].stats["deduce_correct"] == 0 and by_seat["P3"].stats["deduce_judged"] == 5
    for seat in ("P4", "P6"):
        assert by_seat[seat].stats["deduce_correct"] == by_seat[seat].stats["deduce_judged"] == 5
    totals = totals_from(tallies_of_match(by_seat.values()))
    row = get_game("avalon").metrics.row(totals[f"agent-{a}"])
    assert row["summarisation_f1"] == pytest.approx(2 / 3) and row["guessing_f1"] == pytest.approx(0.5)
    assert row["deduction_accuracy"].value == 1.0 or a == "P1"
    assert 1.0 <= row["selection_reasonableness"] <= 5.0 and 1.0 <= row["following_score"] <= 5.0
    keys = {c.key for c in get_game("avalon").metrics.columns}
    assert {"summarisation_f1", "guessing_f1", "deduction_accuracy", "selection_reasonableness",
            "following_score"} <= keys
    for column in get_game("avalon").metrics.columns:
        if column.key in ("selection_reasonableness", "following_score"):
            assert "heuristic judge" in column.label and "heuristic judge" in column.meaning
    assert f1(["I1"], []) == 0.0 and f1([], ["I1"]) == 0.0 and f1(["I1", "I2"], ["I2", "I1"]) == 1.0


def test_quizzes_follow_the_settings_and_bad_answers_never_block_the_end():
    off = AvalonGame([f"P{i}" for i in range(1, 6)], 2,
                     AvalonSettings(players=5, intention_quiz=False, deduction_quiz=False))
    Scripted(off, {"P1": notes_for("P1", ["I1", "I4"])}, {}).play()
    assert not [e for e in off.events if isinstance(e, (Quizzes, QuizQuestion, QuizAnswer))]
    assert isinstance(off.events[-1], GameOver)
    only = AvalonGame([f"P{i}" for i in range(1, 6)], 2, AvalonSettings(players=5, deduction_quiz=False))
    Scripted(only, {"P1": notes_for("P1", ["I1", "I4"])}, {("P1", "summarise"): "garbage, I1"}).play()
    quizzes = [e.quiz for e in only.events if isinstance(e, QuizQuestion)]
    assert quizzes == ["summarise"]  # nobody else recorded intentions: nothing to guess
    (answer,) = [e for e in only.events if isinstance(e, QuizAnswer)]
    assert answer.picks == ["I1"] and answer.status == "invalid"
    assert "garbage" in answer.problem and answer.why() == answer.problem
    # every answer missing: the game still ends, with its winner
    silent = AvalonGame([f"P{i}" for i in range(1, 6)], 2, AvalonSettings(players=5))
    Scripted(silent, {}, {}).play()
    answers = [e for e in silent.events if isinstance(e, QuizAnswer)]
    assert len(answers) == 5 and {e.status for e in answers} == {"timeout"}
    assert silent.result()["winner"] == "good" and isinstance(silent.events[-1], GameOver)
    # stored settings of an older version lack the keys: the defaults (on) apply, hence rules version 2
    # (3 since: the auto_approve_fifth opening text, and the judged scores in the seats' stats)
    assert AvalonSettings.model_validate({"players": 5}).deduction_quiz is True
    assert get_game("avalon").rules.rules_version == 3


def test_rule_bots_answer_the_deduction_quiz_from_their_beliefs_and_random_seats_at_random():
    right = total = 0
    for seed in range(6):
        game = AvalonGame([f"P{i}" for i in range(1, 8)], seed, AvalonSettings(players=7))
        play_local(game, {s: RuleAvalonAgent() for s in game.seats})
        evil = {s for s in game.seats if game.sides[s] == "evil"}
        for e in game.events:
            if isinstance(e, QuizAnswer):
                picks = set(e.picks)
                if game.roles[e.actor] == "merlin":  # no Mordred in the default set: he sees them all
                    assert picks == evil
                if game.sides[e.actor] == "evil" and game.roles[e.actor] != "oberon":
                    assert picks == evil - {e.actor}
                right += len(picks & evil)
                total += len(evil - {e.actor})
    assert right / total > 0.8
    game = AvalonGame([f"P{i}" for i in range(1, 7)], 1, AvalonSettings(players=6))
    play_local(game, {s: RandomAvalonAgent() for s in game.seats})
    assert all(e.status == "ok" for e in game.events if isinstance(e, QuizAnswer))


# -- the judges -----------------------------------------------------------------------------------
def test_the_heuristic_judge_scores_role_fit_moment_fit_and_key_words():
    game, who = constructed()
    statements = intention_statements(as_match(game))
    a = next(s for s in statements if s.seat == who["a"][0])
    assert a.chosen == ("I4", "I9", "I15") and a.ids == a.chosen and a.think.startswith(SECRET)
    first = a if a.quest == 1 else next(s for s in statements if s.seat == a.seat and s.quest == 1)
    # I4 any role any time (1), I9 any time (1), I15 not when leading
    expected = 1 + 4 * (1 + 1 + (0.5 + 0.5 * (not first.situation.leader))) / 3
    assert heuristic_reasonableness(first) == pytest.approx(expected)
    bogus = first.__class__(**{**first.__dict__, "chosen": ("I99", "I4")})
    assert heuristic_reasonableness(bogus) == pytest.approx(1 + 4 * 0.5)
    talk = first.__class__(**{**first.__dict__, "chosen": ("I1", "I15"), "speak": "Why did you choose P3?",
                              "think": "I would vote to reject it"})
    assert heuristic_following(talk) == pytest.approx(1 + 4 * (1 + 0.5) / 2)
    mute = first.__class__(**{**first.__dict__, "speak": ""})
    assert heuristic_following(mute) == 1.0


def test_the_llm_judge_scores_each_statement_and_reports_what_it_could_not_read():
    game, _ = constructed()
    match = as_match(game)
    replies = iter(["REASONABLENESS: 4\nFOLLOWING: 2", "I like it", RuntimeError("quota")])

    def judge(messages: list[dict[str, Any]]) -> str:
        assert "REASONABLENESS" in messages[0]["content"] and SECRET in messages[0]["content"]
        nxt = next(replies, "REASONABLENESS: 5\nFOLLOWING: 5")
        if isinstance(nxt, Exception):
            raise nxt
        return nxt

    rows = judge_match(match, judge)
    assert len(rows) == len(intention_statements(match)) >= 3
    assert rows[0]["reasonableness"] == 4 and rows[0]["following"] == 2 and rows[0]["judge"] == "llm"
    assert rows[0]["agent"].startswith("agent-") and rows[0]["heuristic"]["judge"] == "heuristic"
    assert rows[1]["reasonableness"] is None and "unreadable" in rows[1]["error"]
    assert "quota" in rows[2]["error"]
    assert read_scores("**Reasonableness**: 3 ... following = 5") == (3, 5)


# -- through the real runner: privacy, quizzes, metrics, verify ------------------------------------
class Recorder(Agent):
    def __init__(self, base: Agent) -> None:
        super().__init__(base.name)
        self.base, self.games = base, base.games
        self.seen: list[Observation] = []
        self.lock = threading.Lock()

    def _keep(self, obs: Observation) -> None:
        with self.lock:
            self.seen.append(obs)

    def speak(self, obs: Observation) -> str:
        self._keep(obs)
        return self.base.speak(obs)

    def vote(self, obs: Observation) -> str:
        self._keep(obs)
        return self.base.vote(obs)

    def answer(self, obs: Observation) -> str:
        self._keep(obs)
        return self.base.answer(obs)


def arena_match(tmp_path: Any, intent_seats: tuple[str, ...], seed: int) -> tuple[dict[str, Any], dict[str, Recorder]]:
    store = Store(tmp_path / f"intent-{seed}.db")
    arena = Arena(store)
    spec = get_game("avalon")
    seats = spec.facts.seat_names(6)
    recorders: dict[str, Recorder] = {}
    extra: dict[str, SeatAgent] = {}
    for seat in seats:
        if seat in intent_seats:
            base: Agent = AvalonIntentionAgent(scripted_caller(fake_model), name="test:intent")
            extra[seat] = SeatAgent(recorders.setdefault(seat, Recorder(base)), "test:intent")
        else:
            extra[seat] = SeatAgent(recorders.setdefault(seat, Recorder(RuleAvalonAgent())), "house:avalon-rules")
    plan = MatchPlan("avalon", ["house:avalon-rules"] * 6, seed=seed)
    outcome = arena.run_in_own_loop(arena.run(plan, extra_agents=extra))
    record = store.get_match(outcome.match_id)
    store.close()
    assert record["status"] == "finished", record.get("error")
    return record, recorders


def test_intentions_reach_only_their_seat_and_spectators_through_the_runner(tmp_path):
    record, recorders = arena_match(tmp_path, ("P2",), seed=4)
    events = record["events"]
    parsed = KINDS.parse_all(events)
    notes = [e for e in parsed if isinstance(e, Intentions)]
    assert notes and all(e.actor == "P2" and e.visible_to == ("P2",) for e in notes)
    assert all(SECRET in e.notes["think"] and e.notes["intentions"] for e in notes)
    def shown(seat: str | None) -> str:
        return json.dumps([e.to_dict() for e in visible(parsed, seat)])

    assert SECRET in shown(None) and SECRET in shown("P2")
    for seat in ("P1", "P3", "P4", "P5", "P6"):
        assert SECRET not in shown(seat), f"{seat}'s replay shows P2's THINK"
        seen = " ".join(o.model_dump_json() for o in recorders[seat].seen)
        assert seen and SECRET not in seen, f"{seat} was shown P2's THINK"
        assert '"intentions"' not in seen
    statements = [e for e in parsed if isinstance(e, Statement) and e.actor == "P2"]
    assert statements and all(SECRET not in e.text for e in statements)
    quiz = [(e.actor, e.quiz) for e in parsed if isinstance(e, QuizQuestion)]
    assert ("P2", "summarise") in quiz and not [q for q in quiz if q[1] == "guess"]  # one intention agent
    assert {s for s, q in quiz if q == "deduce"} == {f"P{i}" for i in range(1, 7)}
    by_seat = {r.seat: r for r in get_game("avalon").metrics.records(record)}
    assert by_seat["P2"].stats["summary_asked"] == 1 and by_seat["P2"].stats["intent_statements"] == len(notes)
    assert 0.0 <= by_seat["P2"].stats["summary_f1"] <= 1.0
    assert verify_match(record).verdict == "identical"


def test_two_intention_agents_guess_each_other_and_the_match_verifies(tmp_path):
    record, _ = arena_match(tmp_path, ("P1", "P4"), seed=7)
    guesses = {e.actor: e.about for e in KINDS.parse_all(record["events"])
               if isinstance(e, QuizQuestion) and e.quiz == "guess"}
    assert guesses == {"P1": "P4", "P4": "P1"}
    by_seat = {r.seat: r for r in get_game("avalon").metrics.records(record)}
    for seat in ("P1", "P4"):
        stats = by_seat[seat].stats
        assert stats["guess_asked"] == 1 and stats["summary_asked"] == 1
        # the fake model names the first options: I1 and I2, never its own (second and third offered)
        assert 0.0 <= stats["guess_f1"] <= 1.0
    assert verify_match(record).verdict == "identical"
    tampered = json.loads(json.dumps(record))
    at = next(n for n, e in enumerate(KINDS.parse_all(tampered["events"])) if isinstance(e, QuizAnswer))
    answer = KINDS.parse(tampered["events"][at])
    tampered["events"][at] = {**tampered["events"][at], **answer.model_copy(update={"picks": ["P9"]}).to_dict()}
    assert verify_match(tampered).verdict == "differs"


def test_the_house_intention_agent_is_registered_but_never_fills_a_seat_at_random():
    spec = get_game("avalon")
    house = spec.house.agents["house:avalon-intent-local"]
    assert house.random_fill is False and "house:avalon-intent-local" not in spec.house.demo
    agent = house.build()  # builds without loading the model (that happens in prepare)
    assert isinstance(agent, AvalonIntentionAgent) and agent.name == "house:avalon-intent-local"
    assert agent.games == ("avalon",)


def test_the_replay_panels_show_intentions_and_quizzes_to_spectators_and_only_its_own_to_a_seat():
    game, who = constructed()
    events = KINDS.parse_all(as_match(game)["events"])
    view = get_game("avalon").presentation.view
    panels = {p.title.split(" ")[0]: p for p in view.panels}
    a, b = who["a"][0], who["b"][0]
    everything = panels["Intentions"].build(visible(events, None), None)
    assert set(everything["seat"]) == {a, b} and everything["THINK"].str.contains(SECRET).all()
    own = panels["Intentions"].build(visible(events, a), None)
    assert set(own["seat"]) == {a}
    assert panels["Intentions"].build(visible(events, "P1" if a != "P1" else "P3"), None).empty
    quizzes = panels["End-of-game"].build(visible(events, None), None)
    guess = quizzes[(quizzes["seat"] == a) & (quizzes["quiz"] == "guess")].iloc[0]
    assert guess["answered"] == "I32, I1" and guess["true answer"] == "I32, I38"
    mine = panels["End-of-game"].build(visible(events, a), None)
    assert mine[mine["quiz"] == "guess"].iloc[0]["true answer"] == "", "a seat never sees another's selection"
    assert mine[mine["quiz"] == "summarise"].iloc[0]["true answer"] == "I4, I9, I15"


def test_a_short_list_spreads_over_the_categories():
    obs = discussion_obs(seat_role="servant")
    agent = AvalonIntentionAgent(scripted_caller(fake_model), max_offered=7)
    offered = agent.offered(obs)
    full = AvalonIntentionAgent(scripted_caller(fake_model)).offered(obs)
    assert len(offered) == 7 and set(offered) <= set(full)
    assert len({i.category for i in offered}) == len({i.category for i in full})


def test_the_turns_time_is_shared_between_plan_and_review():
    from sdk.deadline import time_left, turn

    obs = discussion_obs()
    seen: list[float] = []

    def timed(messages: list[dict[str, Any]]) -> str:
        seen.append(time_left() or 0.0)
        return fake_model(messages)

    with turn(100.0):  # the plan may take about half of it, the review the rest
        reply = AvalonIntentionAgent(timed).speak(obs)
    assert len(seen) == 2 and seen[0] < 60 < seen[1] and reply.notes["modified"]
    seen.clear()
    with turn(2.0):  # too little left after the plan: the review is skipped, the draft stands
        reply = AvalonIntentionAgent(timed).speak(obs)
    assert len(seen) == 1 and reply == "Why did the leader choose this team? I trust it for now."
    assert any("review: skipped" in e for e in reply.notes["errors"])
    with turn(2.0):  # no readable SPEAK and no time for a plain statement: a neutral line
        reply = AvalonIntentionAgent(scripted_caller(["nothing useful"])).speak(obs)
    assert reply and any("neutral line" in e for e in reply.notes["errors"])
