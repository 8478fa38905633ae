"""`python -m sdk play GAME` plays a whole match locally (the arena's game code and house agents,
no server) and prints every observation, the messages sent to the model, its raw reply and what
was read from it; `python -m sdk try VERB --game GAME` does one call on a real example."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sdk.cli import main
from space_app.core import GAMES

ROOT = Path(__file__).resolve().parents[1]
AGENT = '''
import re

from sdk import LLMAgent, scripted_caller


def model(messages):
    # a stand-in model: picks the first option it is offered, else says one line
    found = re.search(r"Options: ([^\\n]+?)\\.\\n", messages[-1]["content"])
    if found:
        first = re.split(r"[;,] ", found.group(1))[0].split(")")[0].strip()
        return f"Let me think.\\nFinal answer: {first}"
    return "Something you would find in many homes."


agent = LLMAgent(scripted_caller(model), name="stand-in")
'''


@pytest.fixture
def agent_file(tmp_path: Path) -> Path:
    path = tmp_path / "app.py"
    path.write_text(AGENT, encoding="utf-8")
    return path


@pytest.mark.parametrize("game", sorted(GAMES))
def test_play_prints_a_whole_match_of_every_game(game, agent_file, capsys):
    assert main(["play", game, "--agent", str(agent_file), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "you are" in out and "the others are the game's house agents" in out
    assert "--- system ---" in out and "--- user ---" in out and "--- model reply" in out
    assert ">>> reply:" in out and ">>> read as:" in out and "reply format:" in out
    assert "\nresult: winner " in out
    assert out.count("\n=== ") >= 2  # every request of the seat, each shown


def test_play_through_the_command_line_with_a_seat_and_the_example_rule_agent():
    done = subprocess.run([sys.executable, "-m", "sdk", "play", "spy", "--agent",
                           "example_agents/rule_agent/app.py", "--seat", "P3", "--seed", "5"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "you are P3" in done.stdout and "=== P3 · speak" in done.stdout and "result: winner" in done.stdout


def test_try_one_call_on_an_example(agent_file, capsys):
    assert main(["try", "vote", "--game", "spy", "--agent", str(agent_file)]) == 0
    out = capsys.readouterr().out
    assert "--- model reply" in out and "(ok)" in out


@pytest.mark.parametrize("argv, message", [
    (["play", "no-such-game"], "unknown game 'no-such-game'"),
    (["play", "spy", "--seat", "P99"], "no seat 'P99'"),
    (["play", "spy", "--agent", "missing/app.py"], "no agent file"),
    (["try", "answer", "--game", "spy"], "no example of 'answer' in 'spy'"),
])
def test_bad_requests_are_refused_with_a_reason(argv, message, agent_file, capsys):
    if "--agent" not in argv:
        argv = [*argv, "--agent", str(agent_file)]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
