"""The robustness study's strategy wrappers (attacker, defender-injection, reasoning) in
real games, and the experiments harness: its tables come from stored games and agree
with a recomputation from their events."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from sdk import LLMAgent, Observation
from sdk.callers.scripted import scripted_caller
from space_app.agents.catalogue import AgentCatalogue
from space_app.api import ArenaAPI
from space_app.cli import main as cli_main
from space_app.config import ArenaConfig
from space_app.core import get_game
from space_app.core.events import Call
from space_app.games.spy.events import KINDS, Foul, Statement, Vote
from space_app.games.spy.metrics import study_row
from space_app.games.spy.strategies import ATTACK, DEFEND, REASONING_INSTRUCTION, AttackerAgent
from space_app.games.spy.studies import ATTACK_CONDITIONS, REASONING_CONDITIONS
from space_app.safe_text import markdown_text
from space_app.service import Arena
from space_app.store import Store
from space_app.ui.leaderboard import study_markdown

GAMES = 12


@pytest.fixture
def arena(tmp_path) -> Iterator[Arena]:
    store = Store(str(tmp_path / "strategies.db"))
    yield Arena(store)
    store.close()


def spy_games(arena: Arena, spy_spec: str, games: int = GAMES, language: str = "en") -> list[dict]:
    tag = f"t:{spy_spec}:{language}"
    arena.run_in_own_loop(arena.tournament("spy", ["house:heuristic"], games, seed=3, tag=tag,
                                           role_specs={"spy": spy_spec},
                                           settings={"language": language}))
    return list(arena.store.iter_matches("spy", tag=tag))


def spy_statements(match: dict) -> list[str]:
    spy = match["result"]["spy"]
    return [e.text for e in KINDS.parse_all(match["events"]) if isinstance(e, Statement) and e.actor == spy]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_attacker_spy_appends_the_whole_injection_and_never_repeats_itself(arena, language):
    matches = spy_games(arena, "house:heuristic+attacker", language=language)
    notice = ATTACK[language].strip()
    said = [s for m in matches for s in spy_statements(m)]
    assert len(said) >= GAMES
    assert all(s.endswith(notice) and len(s) > len(notice) for s in said)  # a description, then the notice
    for m in matches:
        fouls = [e for e in KINDS.parse_all(m["events"]) if isinstance(e, Foul)]
        # the base agent sees its own earlier statements without the notice, so it moves on
        # to a new description instead of repeating one (which would be a foul)
        assert not [f for f in fouls if "repeat" in f.reason]


def test_defender_injection_names_its_own_seat(arena):
    matches = spy_games(arena, "house:heuristic+defender")
    for m in matches:
        spy = m["result"]["spy"]
        for text in spy_statements(m):
            assert text.endswith(DEFEND["en"].format(you=spy).strip())
        assert not [e for e in KINDS.parse_all(m["events"]) if isinstance(e, Foul)]


def test_the_notice_stays_whole_when_the_description_is_long():
    obs = Observation.model_validate({
        "game": "spy", "phase": "speak", "verb": "speak", "you": "P2",
        "instruction": "Describe your word.", "seats": ["P1", "P2", "P3"], "match_id": "m", "round": 1,
        "limits": {"max_chars": 400, "seconds": 10},
    })
    long_base = LLMAgent(scripted_caller(["x" * 1000]), name="long")
    reply = AttackerAgent(long_base).act(obs)
    text = reply.text
    assert len(text) == 400 and text.endswith(ATTACK["en"]) and text.startswith("x")
    assert reply.usage is not None and reply.usage.completion_tokens == 1  # the base's usage is kept


def test_reasoning_civilians_explain_then_vote_for_a_listed_player(arena):
    tag = "t:reasoning"
    arena.run_in_own_loop(arena.tournament("spy", ["house:heuristic+reasoning"], 6, seed=5, tag=tag,
                                           role_specs={"spy": "house:heuristic"}))
    for m in arena.store.iter_matches("spy", tag=tag):
        events = KINDS.parse_all(m["events"])
        calls = [e for e in events if isinstance(e, Call) and e.verb == "vote"]
        roles = m["result"]["roles"]
        civilian_calls = [c for c in calls if roles[c.actor] == "civilian"]
        assert civilian_calls
        for call in civilian_calls:
            raw = call.reply or ""
            assert "spy" in raw.lower() and len(raw) > 60  # an analysis, not a bare name
            assert re.search(r"Final answer: P\d", raw)
        votes = [e for e in events if isinstance(e, Vote) and roles[e.actor] == "civilian"]
        assert votes and all(e.target in roles for e in votes)


def test_reasoning_asks_an_llm_agent_for_an_analysis_with_room_for_it():
    caller = scripted_caller(["P1 fits least: the others talk of leaves. Final answer: P1"])
    agent = AgentCatalogue().resolve("house:heuristic+reasoning")
    agent.base = LLMAgent(caller, name="llm")
    obs = Observation.model_validate({
        "game": "spy", "phase": "vote", "verb": "vote", "you": "P2", "options": ["P1", "P3"],
        "instruction": "Vote for the spy.", "seats": ["P1", "P2", "P3"], "match_id": "m", "round": 1,
        "limits": {"max_chars": 100, "seconds": 10},
    })
    reply = agent.act(obs).text
    # the analysis is kept in the reply (the record shows it); the arena reads the final answer
    assert reply == "P1 fits least: the others talk of leaves. Final answer: P1"
    prompt = "\n".join(m["content"] for m in caller.calls[0] if isinstance(m["content"], str))
    assert REASONING_INSTRUCTION.strip()[:40] in prompt


def test_an_llm_reasoning_vote_that_names_nobody_is_re_asked_once():
    caller = scripted_caller(["I cannot tell who it is.", "P3"])
    agent = AgentCatalogue().resolve("house:heuristic+reasoning")
    agent.base = LLMAgent(caller, name="llm")
    obs = Observation.model_validate({
        "game": "spy", "phase": "vote", "verb": "vote", "you": "P2", "options": ["P1", "P3"],
        "instruction": "Vote for the spy.", "seats": ["P1", "P2", "P3"], "match_id": "m", "round": 1,
    })
    assert agent.act(obs).text == "P3"
    assert len(caller.calls) == 2


def test_experiment_tables_come_from_stored_games(tmp_path, capsys):
    db = tmp_path / "exp.db"
    assert cli_main(["--db", str(db), "experiment", "all", "--games", "4", "--seed", "2",
                     "--concurrency", "2"]) == 0
    out = capsys.readouterr().out
    assert "Attack / defence study (base agent house:heuristic, 4 games per condition)" in out
    assert "Reasoning study (base agent house:heuristic, 4 games per condition)" in out
    store = Store(str(db))
    tags = {m["tag"] for m in store.list_matches(game="spy", limit=100)}
    conditions = {t.split(":")[1] + ":" + t.split(":")[2] for t in tags}
    assert conditions == {f"attack:{c}" for c in ATTACK_CONDITIONS} | {f"reasoning:{c}" for c in REASONING_CONDITIONS}
    attack_part, reasoning_part = out.split("Reasoning study")
    for tag in tags:
        study, condition = tag.split(":")[1:3]
        row = study_row(store.iter_matches("spy", tag=tag))
        assert row["games"] == 4
        part = attack_part if study == "attack" else reasoning_part
        lines = part.splitlines()
        header = next(line for line in lines if line.startswith("condition")).split()[1:]
        printed = next(line for line in lines if line.startswith(condition + "  "))
        cells = dict(zip(header, re.split(r"\s{2,}", printed[len(condition):].strip()), strict=True))
        assert cells["games"] == "4"
        for column in header[1:]:  # every printed figure, recomputed from the stored events
            value, n = re.fullmatch(r"(\S+) \[\S+, \S+\] n=(\d+)", cells[column]).group(1, 2) \
                if "[" in cells[column] else (cells[column], None)
            assert float(value) == pytest.approx(row[column], abs=5e-4), (tag, column)
            assert n is None or int(n) == row[f"{column}_n"]
        # the study says what each condition did, with its tag, seeds and match ids
        assert f"tag {tag};" in part
        assert all(m in part for m in row["match_ids"]) and len(row["seeds"]) == 4
    # the Leaderboard tab's report of the newest attack run: the same conditions, tags and matches
    report = study_markdown(ArenaAPI(ArenaConfig(db=str(db), demo_matches=0), store=store), get_game("spy"))
    for tag in (t for t in tags if t.startswith("study:attack:")):
        assert markdown_text(tag) in report
        assert all(f"(?match={m})" in report for m in study_row(store.iter_matches("spy", tag=tag))["match_ids"])
    assert "baseline" in report and "n=" in report and "Wilson" in report
    store.close()
