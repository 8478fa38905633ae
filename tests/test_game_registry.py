"""A game is a folder: generic code imports no game, a spec that lacks a part is refused
when it registers, and an agent is seated only in games it declares."""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import re
from pathlib import Path

import pytest

from space_app.agents.catalogue import UnknownAgent
from space_app.api import ApiError, ArenaAPI
from space_app.config import ArenaConfig
from space_app.core import GAMES, GameSpecError, MetricColumn, get_game, register
from space_app.core.registry import UnknownGame

PACKAGE = Path(__file__).resolve().parents[1] / "space_app"
GAMES_DIR = PACKAGE / "games"


def imported_modules(path: Path) -> set[str]:
    """Absolute names of every module `path` imports (relative imports resolved)."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    if path.name == "__init__.py":
        package = ".".join(path.relative_to(PACKAGE.parent).parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def test_no_module_outside_a_game_folder_imports_it_except_the_registry():
    folders = [p.name for p in GAMES_DIR.iterdir() if (p / "__init__.py").is_file()]
    assert "spy" in folders
    for game in folders:
        prefix = f"space_app.games.{game}"
        for path in [*PACKAGE.rglob("*.py"), *(PACKAGE.parent / "benchmarks").glob("*.py")]:
            if path.is_relative_to(GAMES_DIR / game) or path == GAMES_DIR / "__init__.py":
                continue
            if path.parent == PACKAGE.parent / "benchmarks":
                continue  # benchmarks measure one game on purpose
            bad = sorted(m for m in imported_modules(path) if m == prefix or m.startswith(prefix + "."))
            assert not bad, f"{path.relative_to(PACKAGE.parent)} imports {bad}"


def test_every_game_folder_is_registered_under_its_name():
    folders = {p.name for p in GAMES_DIR.iterdir() if (p / "__init__.py").is_file()}
    assert folders == set(GAMES)
    for game_id, spec in GAMES.items():
        assert spec.id == game_id and get_game(game_id) is spec


def test_the_game_added_as_a_folder_is_named_nowhere_generic():
    """Werewolf came after the kernel, as a folder: the arena's and the SDK's own files name it
    only in the catalogue's import line (and in `cli_index.json`, which is generated from the
    specs), so nothing generic learnt a fourth game."""
    root = PACKAGE.parent
    generated = {PACKAGE / "cli_index.json"}
    naming = sorted(str(path.relative_to(root)) for top in (PACKAGE, root / "sdk") for path in top.rglob("*")
                    if path.is_file() and path.suffix in (".py", ".md", ".txt", ".json", ".csv")
                    and not path.is_relative_to(GAMES_DIR / "werewolf") and path not in generated
                    and re.search(r"werewol(f|ves)", path.read_text(encoding="utf-8"), re.IGNORECASE))
    assert naming == ["space_app/games/__init__.py"]
    lines = [line for line in (GAMES_DIR / "__init__.py").read_text(encoding="utf-8").splitlines()
             if "werewolf" in line]
    assert lines == ["from . import avalon, mystery, spy, werewolf  # noqa: F401 - each registers itself"]


def test_an_unknown_game_is_a_clear_error():
    with pytest.raises(UnknownGame, match="unknown game 'chess'; known: avalon, mystery, spy"):
        get_game("chess")


SPY = GAMES["spy"]


def respec(facet: str | None = None, spec_id: str = "broken", **fields):
    """SPY under another id with its house agents left out (their names belong to spy), with
    `fields` changed in one facet (or the facet itself replaced: `respec(metrics=None)`)."""
    spec = dataclasses.replace(SPY, id=spec_id, house=dataclasses.replace(SPY.house, agents={}, demo=()))
    if facet is None:
        return dataclasses.replace(spec, **fields)
    return dataclasses.replace(spec, **{facet: dataclasses.replace(getattr(spec, facet), **fields)})


@pytest.mark.parametrize("facet, change, part", [
    (None, {"spec_id": ""}, "id"),
    (None, {"spec_id": "two words"}, "id"),
    (None, {"metrics": None}, "metrics must be a Metrics"),
    (None, {"presentation": SPY.metrics}, "presentation must be a Presentation"),
    ("facts", {"title": ""}, "facts.title is missing"),
    ("rules", {"game_class": dict}, "rules.game_class"),
    ("rules", {"settings_class": dict}, "rules.settings_class"),
    ("facts", {"min_players": 7}, "players"),
    ("facts", {"roles": ()}, "facts.roles are missing"),
    ("metrics", {"records": None}, "metrics.records (a match's per-seat records"),
    ("metrics", {"row": None}, "metrics.row (the game's leaderboard columns"),
    ("metrics", {"columns": ()}, "metrics.columns"),
    ("metrics", {"columns": (MetricColumn("matches", "games", "games played"),)}, "reuse the generic columns"),
    ("presentation", {"view": None}, "presentation.view"),
    ("house", {"agents": {"helper": SPY.house.agents["house:random"]}}, "house:<name>"),
    ("house", {"demo": ("house:nobody",)}, "demo agent"),
    ("facts", {"seat_namer": lambda n, settings: ["A"] * n}, "seat names"),
])
def test_a_spec_missing_a_part_is_refused_naming_it(facet, change, part):
    spec_id = change.pop("spec_id", "broken")
    broken = respec(facet, spec_id, **change)
    with pytest.raises(GameSpecError) as err:
        register(broken)
    assert part in str(err.value)
    assert "broken" not in GAMES and spec_id not in GAMES


def test_a_house_agent_name_belongs_to_one_game():
    with pytest.raises(GameSpecError, match="already 'spy'"):
        register(dataclasses.replace(SPY, id="copycat"))
    assert "copycat" not in GAMES


def test_an_agent_is_seated_only_in_games_it_declares(tmp_path):
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "g.db"), demo_matches=0, allow_private_urls=True))
    api.store.upsert_agent("me/avalon-only", name="avalon-only", kind="remote", src="http://127.0.0.1:9/",
                           games=["avalon"])
    with pytest.raises(ApiError, match="'me/avalon-only' does not play 'spy' \\(it declares: avalon\\)"):
        api.plan({"game": "spy", "seats": ["me/avalon-only"]})
    with pytest.raises(UnknownAgent, match="does not play 'spy'"):
        asyncio.run(api.arena.tournament("spy", ["house:heuristic", "me/avalon-only"], games=3))
    assert api.store.count_matches() == 0, "a refused tournament must not start any match"
    # the house agents say which games they play
    listed = {a["id"]: a for a in api.list_agents()}
    assert listed["house:heuristic"]["games"] == ["spy"]
    assert set(listed["house:smollm2"]["games"]) == set(GAMES) | {"tom"}  # games and question suites


def test_random_fill_uses_the_games_own_fast_house_agents(tmp_path):
    api = ArenaAPI(ArenaConfig(db=str(tmp_path / "f.db"), demo_matches=0))
    fill = {s for seed in range(30) for s in api.plan({"game": "spy", "seats": [], "seed": seed}).seats}
    fast = {name for name, agent in SPY.house.agents.items() if agent.random_fill}
    assert fill == fast and "house:smollm2" not in fill
