"""The CLI shows the games from `space_app/cli_index.json` so that `--help` and parsing load no
game: the file must say exactly what the specs say, the parser built from it must be the one
built from the specs, and an index that no longer matches the game folders gives way to the specs."""

from __future__ import annotations

import argparse
import json

import pytest

from space_app import cli, cli_index
from space_app.cli_index import GameFace


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """The top-level help and every command's, by command name."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]  # noqa: SLF001
    return {"": parser.format_help(), **{name: p.format_help() for name, p in subs[0].choices.items()}}


def test_the_index_is_current_and_the_cli_reads_it():
    assert cli_index.main(["--check"]) == 0, "run python -m space_app.cli_index"
    faces = cli_index.indexed()
    assert faces is not None, "the index names other games than the folders of space_app/games/"
    assert faces == cli_index.from_specs()
    assert {f.id for f in faces} == cli_index.game_folders() >= {"avalon", "mystery", "spy", "werewolf"}
    mystery = next(f for f in faces if f.id == "mystery")
    assert "coe" in dict(mystery.commands) and "script" in dict(mystery.shorthands)


def test_the_parser_from_the_index_is_the_parser_from_the_specs(monkeypatch):
    from_index = _helps(cli.build_parser())
    monkeypatch.setattr(cli, "game_faces", cli_index.from_specs)
    from_specs = _helps(cli.build_parser())
    assert from_index == from_specs
    assert "--pair PAIR" in from_index["match"] and "--pairs FILE" in from_index["tournament"]
    assert "{attack,intentions,protocol,reasoning,tom-in-play,all}" in from_index["experiment"]


def test_an_index_that_does_not_match_the_folders_gives_way_to_the_specs(tmp_path, monkeypatch):
    index = tmp_path / "cli_index.json"
    monkeypatch.setattr(cli_index, "INDEX", index)
    assert cli_index.indexed() is None  # missing
    specs = cli_index.from_specs()
    for text in ("not json", '{"games": [{"id": "spy", "commands": ["coe"]}]}', '{"games": {"spy": {}}}',
                 json.dumps({"games": [f.to_json() for f in specs if f.id != "werewolf"]})):  # a game left out
        index.write_text(text, encoding="utf-8")
        assert cli_index.indexed() is None, text
        assert cli_index.game_faces() == specs
    index.write_text(json.dumps({"games": [f.to_json() for f in specs]}), encoding="utf-8")
    assert cli_index.indexed() == specs
    # a folder just added, the index not regenerated: the specs are read
    monkeypatch.setattr(cli_index, "game_folders", lambda: {f.id for f in specs} | {"newgame"})
    assert cli_index.indexed() is None


def test_the_first_run_writes_the_index(tmp_path, monkeypatch):
    index = tmp_path / "cli_index.json"
    monkeypatch.setattr(cli_index, "INDEX", index)
    assert cli_index.main(["--check"]) == 1 and not index.exists()
    assert cli_index.main([]) == 0
    assert json.loads(index.read_text(encoding="utf-8"))["games"] == [f.to_json() for f in cli_index.from_specs()]
    assert cli_index.main(["--check"]) == 0


def test_a_command_the_index_names_but_no_game_declares_is_refused_plainly(monkeypatch):
    faces = [*cli_index.from_specs(), GameFace(id="spy", commands=(("retired-command", "gone"),))]
    monkeypatch.setattr(cli, "game_faces", lambda: faces)
    with pytest.raises(SystemExit, match="no game has a command 'retired-command'.*python -m space_app.cli_index"):
        cli.main(["retired-command"])



def test_the_language_and_probe_options_come_from_the_games(monkeypatch):
    """`--language` offers the languages the games are played in, and `--probes` names the games
    that ask them: a game played in a new language, or without probes, changes its own spec only."""
    from space_app.core import GAMES

    parser = cli.build_parser(["match", "spy"])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    match = sub.choices["match"]
    language = next(a for a in match._actions if a.dest == "language")  # noqa: SLF001
    assert sorted(language.choices) == sorted({lang for spec in GAMES.values() for lang in spec.rules.languages})
    probes = next(a for a in match._actions if a.dest == "probes")  # noqa: SLF001
    for spec in GAMES.values():
        assert (spec.id in probes.help) == (spec.rules.probes is not None)

    faces = [GameFace(id="spy", languages=("en", "zh"), probes=True), GameFace(id="newgame", languages=("en", "fr"))]
    monkeypatch.setattr(cli, "game_faces", lambda: faces)
    parser = cli.build_parser(["match", "newgame"])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    match = sub.choices["match"]
    assert sorted(next(a for a in match._actions if a.dest == "language").choices) == ["en", "fr", "zh"]  # noqa: SLF001
    assert "games with probes: spy)" in next(a for a in match._actions if a.dest == "probes").help  # noqa: SLF001
