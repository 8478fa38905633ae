"""`python -m space_app --help` and `--help` of every command and subcommand print their usage
and exit 0 (argparse %-formats help text, so a stray "%" in one command's description used to
crash the whole listing)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from space_app.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]  # noqa: SLF001
    return dict(found[0].choices) if found else {}


def _command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and, under it, every subcommand, as the words that name it."""
    paths = []
    for name, child in _subparsers(parser).items():
        paths.append((*prefix, name))
        paths += _command_paths(child, (*prefix, name))
    return paths


COMMANDS = _command_paths(build_parser())


def _help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | str | None, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own --help exits
        code = exc.code
    return code, capsys.readouterr().out


def test_the_arena_lists_its_commands_and_the_games_ones():
    names = {path[0] for path in COMMANDS}
    assert {"match", "tournament", "bench", "verify", "export", "coe", "coe-matrix", "import-whodunit",
            "validate-scripts", "import-muma-tom"} <= names


def test_the_top_level_help_prints_every_command(capsys):
    code, out = _help(["--help"], capsys)
    assert code == 0
    assert out.startswith("usage: python -m space_app")
    for name in {path[0] for path in COMMANDS}:
        assert name in out, name
    assert "95% intervals" in " ".join(out.split())  # the coe command's text, its "%" shown as written


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_each_command_prints_its_own_help(path, capsys):
    code, out = _help([*path, "--help"], capsys)
    assert code in (0, None), out
    assert out.startswith("usage:") and path[-1] in out.splitlines()[0], out[:200]


def test_the_help_works_as_a_program(tmp_path):
    """The same through `python -m space_app`, as a user types it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARENA_DB": str(tmp_path / "help.db")}
    run = subprocess.run([sys.executable, "-m", "space_app", "--help"], capture_output=True, text=True, cwd=ROOT,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "TypeError" not in run.stderr and "coe-matrix" in run.stdout


def test_help_and_parsing_load_no_game_nor_the_kernel():
    """Every `--help` of a built-in command, and parsing a command line, is shown from the games'
    index (space_app/cli_index.json): no game, no kernel, no pydantic, no database layer."""
    code = ("import json, sys\n"
            "from space_app.cli import build_parser, main\n"
            "for argv in (['--help'], ['match', '--help'], ['tournament', '--help'], ['verify', '--help'],\n"
            "             ['experiment', '--help'], ['export', '--help']):\n"
            "    try:\n"
            "        main(argv)\n"
            "    except SystemExit:\n"
            "        pass\n"
            "argv = ['match', 'spy', '--seats', 'house:random', '--pair', 'tea/coffee']\n"
            "assert build_parser(argv).parse_args(argv).pair == 'tea/coffee'\n"
            "print(json.dumps(sorted(sys.modules)))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    loaded = set(json.loads(run.stdout.splitlines()[-1]))
    heavy = {m for m in loaded if m.split(".")[0] in {"pydantic", "sqlalchemy", "sdk", "PIL", "pandas"}
             or m.startswith(("space_app.core", "space_app.games", "space_app.store.", "space_app.suites"))
             or m == "space_app.store"}
    assert heavy == set()
    assert "space_app.cli_index" in loaded
