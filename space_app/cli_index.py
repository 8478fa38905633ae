"""What the command line shows of each game without importing it (its id, its own commands, its
setting options, its studies, its languages and whether it asks belief probes) and the names of
the paper-shaped reports (`report NAME`), kept in `cli_index.json` beside this module, so that the
CLI's parser and every `--help` load no game.

Importing the four game folders (event models, script catalogues, drawings) costs most of a
second; a command loads them only when it runs one. The specs stay the truth: the file is
generated from them (`python -m space_app.cli_index`, also run by `python -m
space_app.regenerate`), a test fails when it is out of date, and when its game ids are not
exactly the folders of `space_app/games/` (a game just added, the file not regenerated) the CLI
reads the specs themselves, at the full import's cost. Adding a game stays its folder, its
import line, its tests and the regenerated files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

INDEX = Path(__file__).resolve().with_name("cli_index.json")
GAMES_DIR = Path(__file__).resolve().with_name("games")
REGENERATE = "python -m space_app.cli_index"


class GameFace(NamedTuple):
    """One game as the command line shows it (each in the order the game declares it). A named
    tuple, not a dataclass: `dataclasses` imports `inspect`, a tenth of the start-up."""

    id: str
    commands: tuple[tuple[str, str], ...] = ()  # (name, help) of its own commands, e.g. validate-scripts
    shorthands: tuple[tuple[str, str], ...] = ()  # (setting key, help) of --KEY VALUE options, e.g. --pair
    setting_files: tuple[str, ...] = ()  # setting keys read from a file (--KEY FILE), e.g. --pairs
    studies: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()  # the languages it is played in, e.g. ("en", "zh")
    probes: bool = False  # whether it asks belief probes (`--probes`)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "commands": dict(self.commands), "shorthands": dict(self.shorthands),
                "setting_files": list(self.setting_files), "studies": list(self.studies),
                "languages": list(self.languages), "probes": self.probes}

    @classmethod
    def from_json(cls, item: dict[str, Any]) -> GameFace:
        return cls(id=str(item["id"]), commands=tuple(item.get("commands", {}).items()),
                   shorthands=tuple(item.get("shorthands", {}).items()),
                   setting_files=tuple(item.get("setting_files", ())), studies=tuple(item.get("studies", ())),
                   languages=tuple(item.get("languages", ())), probes=bool(item.get("probes", False)))


def game_folders() -> set[str]:
    """The game folders (`space_app/games/<id>/__init__.py`), found without importing any."""
    return {p.parent.name for p in GAMES_DIR.glob("*/__init__.py")}


def from_specs() -> list[GameFace]:
    """The faces read from the registered specs (imports every game)."""
    from .core import GAMES

    return [GameFace(id=spec.id,
                     commands=tuple((name, text) for name, (text, _) in spec.extras.commands.items()),
                     shorthands=tuple((key, text) for key, (text, _) in spec.rules.setting_shorthands.items()),
                     setting_files=tuple(spec.rules.setting_files), studies=tuple(spec.extras.studies),
                     languages=tuple(spec.rules.languages), probes=spec.rules.probes is not None)
            for spec in GAMES.values()]


def indexed() -> list[GameFace] | None:
    """The faces kept in the index, or None when it is missing, unreadable or names other games
    than the folders hold."""
    try:
        faces = [GameFace.from_json(item) for item in json.loads(INDEX.read_text(encoding="utf-8"))["games"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # unreadable, or not its shape
        return None
    return faces if {f.id for f in faces} == game_folders() else None


def game_faces() -> list[GameFace]:
    """Every game as the CLI shows it: from the index when it is current, else from the specs."""
    faces = indexed()
    return faces if faces is not None else from_specs()


def reports_from_specs() -> dict[str, str]:
    """Every report's name and title, read from the games and suites (imports them)."""
    from .reports import all_reports

    return {name: report.title for name, report in sorted(all_reports().items())}


def report_names() -> dict[str, str]:
    """The `report` command's names and titles: from the index when it is current, else from
    the games and suites themselves."""
    if indexed() is not None:
        try:
            found = json.loads(INDEX.read_text(encoding="utf-8"))["reports"]
            if isinstance(found, dict):
                return {str(k): str(v) for k, v in found.items()}
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return reports_from_specs()


def render(_old: str = "") -> str:
    return json.dumps({"generated_by": REGENERATE, "games": [f.to_json() for f in from_specs()],
                       "reports": reports_from_specs()}, ensure_ascii=False, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    import sys

    from .generated_docs import command

    if not INDEX.exists():  # `refresh` compares with what is there
        if "--check" in (argv or []):
            print(f"{INDEX} is missing: run {REGENERATE}", file=sys.stderr)
            return 1
        INDEX.write_text("", encoding="utf-8")
    return command(REGENERATE, __doc__, INDEX, render, argv)


__all__ = ["GameFace", "from_specs", "game_faces", "game_folders", "indexed", "report_names", "reports_from_specs"]


if __name__ == "__main__":
    raise SystemExit(main())
