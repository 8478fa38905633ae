"""`ARENA_FRONT_GAME` chooses the game the Play and Leaderboard tabs open on; a game the arena
does not have stops the start with one line, before the store is touched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from space_app.config import ArenaConfig
from space_app.core import GAMES, get_game
from space_app.main import create_arena

REPO = Path(__file__).resolve().parent.parent


def _component(demo: Any, elem_id: str) -> dict[str, Any]:
    found = [c["props"] for c in demo.config["components"] if c.get("props", {}).get("elem_id") == elem_id]
    assert len(found) == 1, elem_id
    return found[0]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_tabs_open_on_the_front_game(tmp_path, game):
    demo, _ = create_arena(ArenaConfig(db=str(tmp_path / "a.db"), demo_matches=0, front_game=game))
    spec = get_game(game)
    assert _component(demo, "play-game")["value"] == game
    players = _component(demo, "play-players")
    assert (players["value"], players["minimum"], players["maximum"]) == (
        spec.facts.default_players, spec.facts.min_players, spec.facts.max_players)
    assert _component(demo, "seat-0")["value"] == spec.house.demo[0]
    assert _component(demo, "leaderboard-game")["value"] == game
    # the language control offers the languages the game is played in (Avalon: English alone)
    language = _component(demo, "play-language")
    assert [code for _, code in language["choices"]] == list(spec.rules.languages)
    assert language["value"] == spec.rules.languages[0]


def test_an_unknown_front_game_stops_the_start_with_one_line(tmp_path):
    db = tmp_path / "a.db"
    env = {**os.environ, "ARENA_DB": str(db), "ARENA_DEMO_MATCHES": "0", "HF_HUB_OFFLINE": "1",
           "ARENA_FRONT_GAME": "chess"}
    done = subprocess.run([sys.executable, "app.py"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"error: ARENA_FRONT_GAME: no game 'chess'; the games are {', '.join(GAMES)}"
    assert not db.exists()
