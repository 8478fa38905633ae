"""Avalon's events are models: each kind the game emits reads back as its own model, the stored
fields are exactly the ones the game stored before its events were models, rows stored then
read through the same models, agents see exactly the kinds they saw before, and the game's
readers (metrics, quiz scores, the judges, the quiz suite, replay panels, why_won, the house
agents' record and situation) make the same of them as before."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from typing import Any

from space_app.core import get_game
from space_app.core.events import Event, InvalidAction, Private
from space_app.core.facts import COMPLETION_TOKENS, PROMPT_TOKENS, REASKS, TRUNCATED, UNREADABLE
from space_app.games.avalon import view
from space_app.games.avalon.events import (
    KINDS,
    Assassination,
    AssassinationPhase,
    AvalonInvalidAction,
    AvalonSetup,
    EvilReveal,
    EvilTalk,
    GameOver,
    Intentions,
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
from space_app.games.avalon.rules import AvalonGame
from tests.avalon_event_matches import FIXTURE, READERS, as_match, every_match, reader_outputs, stored
from tests.golden import same

# the kinds agents saw as history before the kinds were models (the game's `history_kinds`)
FORMER_HISTORY_KINDS = {
    "start", "quest_start", "proposal", "statement", "silence", "revision", "team_vote", "vote_result",
    "quest_result", "assassination_phase", "evil_reveal", "evil_talk", "assassination", "quizzes", "game_over",
    "invalid_action",
}
OWN_MODELS = (AvalonSetup, Start, QuestStart, Proposal, Intentions, Statement, Silence, Revision, TeamVote,
              VoteResult, QuestCard, QuestResult, AssassinationPhase, EvilReveal, EvilTalk, Assassination, Quizzes,
              QuizQuestion, QuizAnswer, GameOver, AvalonInvalidAction)


@cache
def matches() -> dict[str, Any]:
    return every_match()


def emitted() -> list[Event]:
    return [e for game, _ in matches().values() for e in game.events]


def of(model: type[Any]) -> list[Any]:
    return [e for e in emitted() if isinstance(e, model)]


def test_the_game_names_its_kinds_in_its_spec():
    spec = get_game("avalon")
    assert spec.rules.events is KINDS
    assert {m.kind_name() for m in OWN_MODELS} | {"private", "call", "error", "degraded", "probe"} == set(KINDS.by_kind)
    assert all(KINDS.model_of(m.kind_name()) is m for m in OWN_MODELS)
    assert issubclass(AvalonInvalidAction, InvalidAction) and AvalonInvalidAction.kind_name() == "invalid_action"
    assert getattr(AvalonGame, "history_kinds", frozenset()) == frozenset()  # each model says it itself


def test_the_matches_emit_every_kind_and_every_variant():
    assert {type(e) for e in emitted()} == {*OWN_MODELS, Private}
    assert {e.auto for e in of(VoteResult)} == {True, False} and {e.approved for e in of(VoteResult)} == {True, False}
    assert {e.changed for e in of(Revision)} == {True, False}
    assert {e.refused for e in of(QuestCard)} == {True, False} and None in {e.played for e in of(QuestCard)}
    assert {e.success for e in of(QuestResult)} == {True, False}
    assert {(e.hit, e.valid) for e in of(Assassination)} == {(True, True), (False, True), (False, False)}
    assert None in {e.target for e in of(Assassination)}
    assert {e.silent for e in of(EvilTalk)} == {True, False}
    assert {e.quiz for e in of(QuizQuestion)} == {"summarise", "guess", "deduce"}
    assert {"ok", "invalid", "timeout", "missing"} <= {e.status for e in of(QuizAnswer)}
    assert {e.reason for e in of(GameOver)} == {"five_rejections", "three_fails", "merlin_assassinated",
                                                 "merlin_survived"}
    assert {e.action for e in of(AvalonInvalidAction)} == {"proposal", "revision", "team vote", "quest card",
                                                           "assassination"}
    assert "empty statement" in {e.reason for e in of(Silence)}


def test_the_stored_events_are_exactly_what_the_game_stored_before():
    before = json.loads(FIXTURE.read_text(encoding="utf-8"))
    now = stored(matches())
    assert set(now) == set(before)
    for name, match in before.items():
        assert now[name]["events"] == match["events"], name  # envelope and payload, field by field
        assert now[name]["history"] == match["history"], name  # each seat's history, kind by kind


def test_fields_left_out_stay_left_out_and_none_is_stored_where_it_was():
    intention_quiz = {"quiz", "options", "pick", "about", "quest", "attempt", "catalogue"}
    for e in of(QuizQuestion):
        assert set(e.payload()) == ({"quiz", "options", "pick", "evil_total"} if e.quiz == "deduce"
                                    else intention_quiz)
    for e in of(QuestCard):
        assert "played" in e.payload()
    for e in of(Assassination):
        assert set(e.payload()) == {"assassin", "target", "hit", "valid", "merlin"}
    for e in of(QuizAnswer):
        assert "given" in e.payload() and "problem" in e.payload()
    for e in of(AvalonInvalidAction):
        assert set(e.payload()) == {"seat", "action", "reason", "given"}
    for e in of(Statement):
        assert set(e.payload()) == {"quest", "attempt"}


def test_rows_stored_before_read_as_their_models():
    before = json.loads(FIXTURE.read_text(encoding="utf-8"))
    for match in before.values():
        for n, row in enumerate(match["events"]):
            e = KINDS.parse({**row, "seq": n})
            assert type(e) is not Event and e.kind == row["kind"] and e.seq == n
            assert e.to_dict() == row


def test_history_holds_exactly_the_former_history_kinds():
    assert {k for k, model in KINDS.by_kind.items() if model.in_history} == FORMER_HISTORY_KINDS
    seen: set[str] = set()
    for game, _ in matches().values():
        for seat in game.seats:
            obs = game.observe(seat, "speak", phase="discuss", instruction="", round=game.quest)
            for item in obs.history:
                model = KINDS.from_history(item)
                assert type(model).in_history and type(model) is not Event
                assert model.payload() == item.data and model.actor == item.who and model.text == item.text
                seen.add(item.kind)
    assert seen == FORMER_HISTORY_KINDS


def test_each_kind_says_how_it_is_shown():
    styles = {m.kind_name(): m.style for m in OWN_MODELS}
    assert styles["statement"] == "said" and Statement.icon == "💬"
    assert styles["setup"] == "spoiler" and AvalonSetup.icon == "🔒"
    assert {k for k, s in styles.items() if s == "heading"} == {"quest_start", "assassination_phase"}
    assert {k for k, s in styles.items() if s == "secret"} == {"intentions", "quest_card", "evil_reveal", "evil_talk",
                                                               "quiz_answer"}
    # a quiz question is its seat's prompt, asked in the prompt box: no transcript line
    assert {k for k, s in styles.items() if s == "hidden"} == {"quiz_question"}
    assert (Start.icon, TeamVote.icon, VoteResult.icon, GameOver.icon) == ("🎬", "🗳️", "📊", "🏁")
    assert all(m.icon != "•" for m in OWN_MODELS)
    # a kind's own `reason` or `problem` is what the transcript adds after its line
    silence = next(e for e in of(Silence) if e.reason == "empty statement")
    assert silence.why() == "empty statement"
    answer = next(e for e in of(QuizAnswer) if e.problem)
    assert answer.why() == answer.problem
    invalid = of(AvalonInvalidAction)[0]
    assert invalid.why() == invalid.reason and invalid.marker() is None
    over = of(GameOver)[0]
    assert over.says_why and over.why() == over.reason  # its line says why in words
    assert all(e.why() == "" for e in of(Statement) + of(Proposal))
    assert {e.marker() for e in emitted()} == {None}  # no kind of its own is a replay marker


ACCOUNTING = {PROMPT_TOKENS, COMPLETION_TOKENS, REASKS, UNREADABLE, TRUNCATED}


def test_the_readers_make_the_same_of_the_events_as_before():
    before = json.loads(READERS.read_text(encoding="utf-8"))
    now = json.loads(json.dumps(reader_outputs(matches()), ensure_ascii=False))
    assert set(now) == set(before)
    def summed(records: list[dict]) -> list[dict]:  # a stat of 0 adds what an absent one adds
        # (the accounting counts came after these outputs were recorded: read apart, below)
        return [{**r, "stats": {k: v for k, v in r["stats"].items() if v and k not in ACCOUNTING}} for r in records]

    for name, outputs in before.items():
        for reader, value in outputs.items():
            if reader == "records":
                unreadable = Counter(e["actor"] for e in as_match(name, *matches()[name])["events"]
                                     if e["kind"] == "call" and (e["data"] or {}).get("status") == "unparseable")
                assert {r["seat"]: r["stats"].get(UNREADABLE, 0) for r in now[name][reader]} == \
                    {r["seat"]: unreadable[r["seat"]] for r in now[name][reader]}
                now[name][reader], value = summed(now[name][reader]), summed(value)
            if reader == "quiz_results":  # a result has since gained where its question came from
                assert all((q["about"] is None) == (q["quiz"] == "deduce") for q in now[name][reader])
                now[name][reader] = [{k: q[k] for k in ("seat", "quiz", "score", "judged")}
                                     for q in now[name][reader]]
            assert same(now[name][reader], value), (name, reader, now[name][reader], value)


def test_the_panels_read_models_and_stored_rows_alike():
    for name, (game, calls) in list(matches().items())[:4]:
        rows = [r for r in as_match(name, game, calls)["events"] if r["kind"] != "call"]
        models = KINDS.parse_all(rows)
        for panel in view.VIEW.panels:
            assert panel.build(models, None).equals(panel.build(rows, None)), (name, panel.title)
