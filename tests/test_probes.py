"""Belief probes: asked in private in every game, without changing the game, read tolerantly
and scored exactly (issue 24, acceptance 1)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from sdk.observation import Observation
from space_app.cli import main as cli_main
from space_app.core import get_game
from space_app.core.belief_reading import read_belief, uniform
from space_app.core.belief_scores import reliability, score_belief
from space_app.core.conformance import house_repliers, self_play
from space_app.core.events import Probe
from space_app.core.probes import probe_question
from space_app.games.spy.agents import survivors
from space_app.probe_report import scored_probes, summarise
from space_app.store import Store

GAMES = ("spy", "avalon", "mystery", "werewolf")


# -- reading a reply ----------------------------------------------------------------------------
def test_a_json_distribution_is_read_and_normalised() -> None:
    got = read_belief('I think {"P2": 3, "P3": 1}', ["P2", "P3", "P4"])
    assert got.belief == {"P2": 0.75, "P3": 0.25, "P4": 0.0}
    assert got.dropped == [] and got.unreadable == ""


def test_pairs_in_text_with_percentages_and_names_not_asked_about() -> None:
    got = read_belief("P2: 60%, P3 = 0.2, P9: 20%, P10 0.2", ["P1", "P2", "P3", "P10"])
    assert got.belief == pytest.approx({"P1": 0.0, "P2": 0.6 / 1.0, "P3": 0.2, "P10": 0.2})
    assert got.dropped == ["P9"]  # a name that is no candidate is dropped and reported


def test_a_single_name_takes_all_the_mass_and_p1_is_not_read_in_p10() -> None:
    assert read_belief("Definitely P10.", ["P1", "P10"]).belief == {"P1": 0.0, "P10": 1.0}


def test_an_unreadable_reply_has_no_belief_and_says_why() -> None:
    for text in ("I do not know.", "", None, '{"P7": 1}'):
        got = read_belief(text, ["P1", "P2"])
        assert got.belief is None and got.unreadable
    assert read_belief('{"P7": 1}', ["P1", "P2"]).dropped == ["P7"]


def test_each_shape_sums_to_the_known_count_and_caps_at_one() -> None:
    # two of four are evil: "P1 for sure" gives P1 1 and the other mass shared equally
    got = read_belief("P1", ["P1", "P2", "P3", "P4"], "each", 2)
    assert got.belief == pytest.approx({"P1": 1.0, "P2": 1 / 3, "P3": 1 / 3, "P4": 1 / 3})
    got = read_belief('{"P1": 0.9, "P2": 0.9, "P3": 0.1, "P4": 0.1}', ["P1", "P2", "P3", "P4"], "each", 2)
    assert got.belief == pytest.approx({"P1": 0.9, "P2": 0.9, "P3": 0.1, "P4": 0.1})
    assert sum(uniform(["a", "b", "c", "d"], "each", 2).values()) == pytest.approx(2.0)


# -- scoring --------------------------------------------------------------------------------------
def test_scores_of_one_belief_by_hand() -> None:
    score = score_belief({"P2": 0.5, "P3": 0.5, "P4": 0.0}, ["P3"])
    assert score is not None
    assert score.brier == pytest.approx((0.25 + 0.25 + 0.0) / 3)
    assert score.log_loss == pytest.approx((math.log(2) + math.log(2) - math.log(0.99)) / 3)
    assert score.top1 == 0.5  # a tie between P2 and P3, one of them right
    assert score_belief({"P2": 1.0}, ["P3"]) is None  # the truth is no candidate: not scored
    bins = reliability(score.pairs)
    assert [(b.low, b.n, b.hits) for b in bins] == [(0.0, 1, 0), (0.5, 2, 1)]


# -- in play ----------------------------------------------------------------------------------------
def _marked(seat: str, obs: Observation, counter: dict[str, int]) -> str:
    """A probe answer carrying a mark no other seat may ever be shown."""
    counter[seat] = counter.get(seat, 0) + 1
    first = [s for s in obs.seats if s != seat][0]
    return f'mark-{seat}-{counter[seat]} {{"{first}": 1}}'


@pytest.mark.parametrize("game", GAMES)
def test_no_probe_question_or_answer_reaches_another_seat(game: str) -> None:
    spec = get_game(game)
    n = spec.facts.default_players
    house = house_repliers(spec, n)
    counter: dict[str, int] = {}

    def replier(seat: str):
        return lambda s, obs: _marked(s, obs, counter) if probe_question(obs) else house[seat](s, obs)

    played = self_play(spec, 4, {seat: replier(seat) for seat in house}, settings={"probes": True})
    probes = [e for e in played.game.events if isinstance(e, Probe)]
    assert probes and {e.actor for e in probes} >= {played.game.seats[0]}
    assert all(e.visible_to == (e.actor,) and e.belief is not None for e in probes)
    for seat in played.game.seats:
        # no event of another seat's probe in what this seat may see
        assert not [e for e in played.game.visible_events(seat) if isinstance(e, Probe) and e.actor != seat]
        for obs in played.seen.get(seat, []):
            shown = obs.model_dump_json()
            assert not [item for item in obs.history if item.kind == "probe"]
            others_marks = [f"mark-{o}-" for o in played.game.seats if o != seat]
            assert not any(mark in shown for mark in others_marks)
            if not probe_question(obs):  # the game's own requests never show a probe question
                assert "Belief check" not in shown and "mark-" not in shown


def _without_probes(events: list[Any]) -> list[str]:
    """The game's own events, the `probes` setting left out of any settings they record."""
    out = []
    for e in events:
        if isinstance(e, Probe):
            continue
        row = e.to_dict()
        settings = row["data"].get("settings")
        if isinstance(settings, dict):
            settings.pop("probes", None)
        out.append(json.dumps(row, sort_keys=True, default=str))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_probes_leave_the_game_as_it_was(game: str) -> None:
    spec = get_game(game)
    on, off = self_play(spec, 6, settings={"probes": True}), self_play(spec, 6)
    assert any(isinstance(e, Probe) for e in on.game.events)
    assert _without_probes(on.game.events) == _without_probes(off.game.events)
    assert on.game.result() == off.game.result()
    # off by default: the stored settings do not even name it
    assert "probes" not in off.game.settings.model_dump(mode="json")
    assert on.game.settings.model_dump(mode="json")["probes"] is True


KNOWN = {"round 1": {"P1": 0.1, "P2": 0.1, "P4": 0.3, "P5": 0.3, "P6": 0.3}}


def test_brier_of_a_known_belief_stand_in_is_exact() -> None:
    """Every seat answers 0.5 on each of the first two seats it is asked about. With P3 the spy,
    in round 1 (every seat alive): P1 and P2 name P3 among their two, Brier
    (0.5² + 0.5² + 0 + 0 + 0)/5 = 0.1; P4, P5 and P6 do not, (0.5² + 0.5² + 1)/5 = 0.3; the spy
    P3 is asked about the others, none of them the spy: not scored."""
    spec = get_game("spy")
    house = house_repliers(spec, 6)

    def stand_in(seat: str):
        def reply(s: str, obs: Observation) -> str:
            if not probe_question(obs):
                return house[seat](s, obs)
            alive = survivors(obs)  # the seats it is asked about
            named = [c for c in obs.seats if c in alive]  # in seat order
            return json.dumps({named[0]: 0.5, named[1]: 0.5})
        return reply

    settings = {"probes": True, "deal": {"spy": 2, "pair": "tea/coffee"}}
    played = self_play(spec, 1, {seat: stand_in(seat) for seat in house}, settings=settings)
    scored = scored_probes(played.record())
    first = {p.seat: p for p in scored if p.moment == "round 1"}
    assert set(first) == {"P1", "P2", "P3", "P4", "P5", "P6"}
    assert first["P3"].role == "spy" and first["P3"].score is None
    for seat, brier in KNOWN["round 1"].items():
        assert first[seat].score is not None
        assert first[seat].score.brier == pytest.approx(brier, abs=1e-12)
    row = next(r for r in summarise(scored, ("moment",)) if r["moment"] == "round 1")
    assert row["brier"] == pytest.approx((0.1 + 0.1 + 0.3 + 0.3 + 0.3) / 5, abs=1e-12)
    assert row["brier_n"] == 5 and row["asked"] == 6 and row["unreadable"] == 0
    assert row["top1"] == pytest.approx((0.5 + 0.5) / 5)


def test_a_probed_match_is_stored_verified_and_reported(tmp_path, capsys) -> None:
    db = str(tmp_path / "arena.db")
    assert cli_main(["--db", db, "match", "spy", "--probes", "--seed", "3", "--language", "zh"]) == 0
    store = Store(db)
    match = next(iter(store.iter_matches("spy")))
    assert match["settings"]["probes"] is True
    probes = [e for e in get_game("spy").rules.events.parse_all(match["events"]) if isinstance(e, Probe)]
    assert probes and all("信念调查" in e.text for e in probes)
    capsys.readouterr()
    assert cli_main(["--db", db, "verify", "--all"]) == 0
    assert "1 identical" in capsys.readouterr().out
    assert cli_main(["--db", db, "probes", "--by", "agent", "--calibration"]) == 0
    out = capsys.readouterr().out
    assert "house:heuristic" in out and "Brier" in out and "reliability: house:heuristic" in out
    assert cli_main(["--db", db, "probes", "--by", "seat"]) == 2  # a clear refusal, naming the choices


def test_a_spec_with_probes_needs_the_setting_and_a_game_without_them_refuses_it() -> None:
    from dataclasses import replace

    from pydantic import BaseModel

    from space_app.core.probes import with_probes
    from space_app.core.spec import GameSpecError, check_spec

    class NoProbes(BaseModel):
        players: int = 6

    spec = get_game("spy")
    with pytest.raises(GameSpecError, match="'probes' setting"):
        check_spec(replace(spec, rules=replace(spec.rules, settings_class=NoProbes)))
    with pytest.raises(ValueError, match="has no belief probes"):
        with_probes(spec.make(6, 1), None, "spy")


def test_chinese_replies_are_read() -> None:
    names = ["林舒", "周岩", "陈默"]
    assert read_belief("我认为周岩是凶手。", names).belief == {"林舒": 0.0, "周岩": 1.0, "陈默": 0.0}
    got = read_belief("林舒：20％，周岩：0.8，王五：0.1", names)
    assert got.belief == pytest.approx({"林舒": 0.2, "周岩": 0.8, "陈默": 0.0})
    assert got.dropped == ["王五"]


@pytest.mark.parametrize("game", ["avalon", "mystery", "werewolf"])
def test_probed_matches_of_every_game_replay_identically(game: str, tmp_path, capsys) -> None:
    db = str(tmp_path / "arena.db")
    assert cli_main(["--db", db, "match", game, "--probes", "--seed", "2"]) == 0
    capsys.readouterr()
    assert cli_main(["--db", db, "verify", "--all"]) == 0
    assert "1 identical" in capsys.readouterr().out
    assert cli_main(["--db", db, "probes", "--game", game, "--by", "question"]) == 0
    assert "unreadable" in capsys.readouterr().out


def test_avalons_rule_bot_answers_from_its_own_belief_state() -> None:
    from space_app.games.avalon.beliefs import belief, knowledge_of, read_record

    spec = get_game("avalon")
    bot = spec.house.agents["house:avalon-rules"].build()
    repliers = {seat: (lambda s, obs: bot.act(obs).text) for seat in spec.facts.seat_names(6)}
    played = self_play(spec, 3, repliers, settings={"probes": True})
    asked = [obs for seat in played.game.seats for obs in played.seen[seat] if probe_question(obs) == "evil"]
    answered = {(e.actor, e.moment): e for e in played.game.events if isinstance(e, Probe) and e.question == "evil"}
    assert asked and len(answered) == len(asked)
    for obs in asked:
        record = read_record(obs)
        held = belief(record, knowledge_of(obs, record)).p_evil()
        moment = f"after quest {len(record.quests)}"
        got = answered[(obs.you, moment)]
        assert got.belief == pytest.approx({s: held.get(s, 0.0) for s in obs.seats if s != obs.you}, abs=1e-3)
        assert sum(got.belief.values()) == pytest.approx(got.count)
