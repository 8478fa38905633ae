"""The shipped murder-mystery scripts: found under `content/`, each loaded (and validated) once,
looked up by id. This is the folder's only reader of script files: the rules get Script objects.

A folder whose script does not validate is left out of play (its problems are kept in
`catalog().problems`, and `python -m space_app.games.mystery.scripts.validate` names them), so one
script being written never stops the others from being played.

Also here, because they depend on which scripts ship: the settings the arena validates
(`ShippedSettings`: an unknown script id, or a player count no script fits, is a clear error),
the game built from them (`ShippedMysteryGame`), seat names (the script's characters) and
where an image reference points on disk (`image_path`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import model_validator

from .rules import IMAGE_ROOT, MysteryGame, MysterySettings, deal_problem, script_roles, seat_characters
from .scripts.problems import ScriptError
from .scripts.script import Script
from .scripts.validate import CONTENT_DIR, SCRIPT_FILE, load_script, script_folders

__all__ = ["Catalog", "ShippedMysteryGame", "ShippedSettings", "UnknownScript", "catalog", "default_script_id",
           "get_script", "image_path", "seat_names", "shipped_ids"]


class UnknownScript(ValueError):
    pass


@dataclass(frozen=True)
class Catalog:
    scripts: dict[str, Script]  # id -> script, in id order
    folders: dict[str, Path]  # id -> its folder
    problems: dict[str, str]  # folder name -> why it is not playable


@lru_cache(maxsize=1)
def catalog(content: Path = CONTENT_DIR) -> Catalog:
    scripts: dict[str, Script] = {}
    folders: dict[str, Path] = {}
    problems: dict[str, str] = {}
    for folder in script_folders(content) if content.is_dir() else []:
        if not (folder / SCRIPT_FILE).is_file():
            problems[folder.name] = f"no {SCRIPT_FILE}"
            continue
        try:
            script = load_script(folder)
        except ScriptError as exc:
            problems[folder.name] = str(exc)
            continue
        scripts[script.id] = script
        folders[script.id] = folder
    return Catalog(scripts, folders, problems)


def shipped_ids(language: str | None = None) -> list[str]:
    return [i for i, s in catalog().scripts.items() if language is None or s.language == language]


def get_script(script_id: str) -> Script:
    scripts = catalog().scripts
    if script_id not in scripts:
        known = ", ".join(scripts) or "none"
        raise UnknownScript(f"unknown murder-mystery script {script_id!r}; shipped: {known}")
    return scripts[script_id]


def default_script_id(language: str = "en", players: int | None = None) -> str:
    """The first shipped script (by id) in `language`, with `players` characters if given."""
    ids = shipped_ids(language)
    if not ids:
        raise UnknownScript(f"no shipped murder-mystery script in {language!r}")
    fits = [i for i in ids if players is None or len(get_script(i).roles) == players]
    if not fits:
        sizes = ", ".join(f"{i} ({len(get_script(i).roles)})" for i in ids)
        raise UnknownScript(f"no shipped {language!r} script has {players} characters; players must match a "
                            f"script's characters: {sizes}")
    return fits[0]


class ShippedSettings(MysterySettings):
    """Settings for a shipped script: `script` resolved (and stored) as an id, its language and
    character count checked against the other settings."""

    @model_validator(mode="after")
    def _resolve_script(self) -> ShippedSettings:
        if self.script is None:
            self.script = default_script_id(self.language, self.players)
            return self
        script = get_script(self.script)
        if "language" in self.model_fields_set and self.language != script.language:
            raise ValueError(f"script {script.id!r} is in {script.language!r}, not {self.language!r}")
        self.language = script.language
        names = [r.name for r in script.roles]
        if self.players != len(names):
            raise ValueError(f"script {script.id!r} has {len(names)} characters ({', '.join(names)}); players "
                             f"must be {len(names)}, got {self.players}")
        problem = deal_problem(self.deal, script) if self.deal is not None else None
        if problem:
            raise ValueError(problem)
        return self


class ShippedMysteryGame(MysteryGame):
    """The game on a shipped script, named by the settings' id."""

    def __init__(self, seats: list[str], seed: int, settings: MysterySettings | None = None) -> None:
        settings = settings or ShippedSettings(players=len(seats))
        if settings.script is None:
            settings = ShippedSettings.model_validate(settings.model_dump())
        super().__init__(seats, seed, settings, get_script(str(settings.script)))


def seat_names(n: int, settings: Mapping[str, Any]) -> list[str]:
    """The characters of the script the settings pick; P1..Pn when they pick none (e.g. a
    player count no script fits: the match itself is refused with the reason)."""
    try:
        resolved = ShippedSettings.model_validate({**settings, "players": n})
    except ValueError:
        return [f"P{i}" for i in range(1, n + 1)]
    return seat_characters(resolved, get_script(str(resolved.script)))


def dealt_roles(seats: list[str], seed: int, settings: MysterySettings) -> list[str]:
    """Each seat's role (GameSpec.deal): fixed by the settings' script, whatever the seed."""
    if settings.script is None:
        settings = ShippedSettings.model_validate(settings.model_dump())
    script = get_script(str(settings.script))
    by_name = dict(zip([r.name for r in script.roles], script_roles(script), strict=True))
    return [by_name[name] for name in seat_characters(settings, script)]


def image_path(ref: str) -> Path | None:
    """The file an image reference ("mystery/<script id>/<file>") names, if it is one of a
    shipped script's image clues (nothing else on disk can be reached through a reference)."""
    parts = PurePosixPath(ref).parts
    if len(parts) != 3 or parts[0] != IMAGE_ROOT:
        return None
    _, script_id, file = parts
    script = catalog().scripts.get(script_id)
    if script is None or file not in {c.file for c in script.image_clues}:
        return None
    return catalog().folders[script_id] / file
