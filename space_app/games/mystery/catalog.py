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

import os
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
           "allow_command_line", "extra_scripts", "get_script", "image_path", "is_folder_path", "seat_names",
           "shipped_ids"]


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


def is_folder_path(script: str) -> bool:
    """Whether a `script` setting names a folder (played where it lies) rather than a shipped id."""
    return "/" in script or "\\" in script or script.startswith(".")


# Script folders may be read only where the operator said: folders named on this process's
# command line (`--script PATH`) and those under ARENA_SCRIPT_DIRS (os.pathsep-separated). A
# visitor's settings naming any other path are refused without the disk being looked at.
SCRIPT_DIRS_ENV = "ARENA_SCRIPT_DIRS"
_COMMAND_LINE: set[str] = set()


def _plain(path: str | Path) -> str:
    return os.path.normpath(os.path.abspath(path))


def allow_command_line(script: str) -> str:
    """The `--script` shorthand: a folder named by the operator on the command line may be played."""
    if is_folder_path(script):
        named = {_plain(script), _plain(Path(script).resolve())}
        _COMMAND_LINE.update(named)
        # and for the processes this one starts (a local Ray instance's workers play it too)
        known = [d for d in os.environ.get(SCRIPT_DIRS_ENV, "").split(os.pathsep) if d]
        os.environ[SCRIPT_DIRS_ENV] = os.pathsep.join(dict.fromkeys([*known, *sorted(named)]))
    return script


def _allowed(folder: str) -> bool:
    roots = {*_COMMAND_LINE, *(_plain(d) for d in os.environ.get(SCRIPT_DIRS_ENV, "").split(os.pathsep) if d)}
    return any(folder == root or folder.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def get_script(script_id: str) -> Script:
    """A shipped script by id, or the script in a folder (a path, e.g. an imported script played
    where it lies: validated as `validate-scripts` does, a symbolic link in it refused)."""
    scripts = catalog().scripts
    if script_id in scripts:
        return scripts[script_id]
    if is_folder_path(script_id):
        given = Path(script_id)
        if not _allowed(_plain(given)):
            raise UnknownScript(f"the script folder {script_id!r} is not one this arena may read: folders are played "
                                f"from the command line (--script PATH) or under {SCRIPT_DIRS_ENV}")
        if given.is_symlink():  # checked before resolving, which would follow it
            raise UnknownScript(f"the script folder {script_id} cannot be played: {given} is a symbolic link; a "
                                "script folder must hold its own files, so links are refused")
        resolved = given.resolve()
        if not _allowed(_plain(resolved)):  # a linked parent folder leads outside what was allowed
            raise UnknownScript(f"the script folder {script_id!r} leads outside the folders this arena may read")
        return _folder_script(str(resolved))
    known = ", ".join(scripts) or "none"
    raise UnknownScript(f"unknown murder-mystery script {script_id!r}; shipped: {known} (or give a script "
                        "folder's path)")


@lru_cache(maxsize=32)
def _folder_script(folder: str) -> Script:
    path = Path(folder)
    if not path.is_dir() and not path.is_symlink():
        raise UnknownScript(f"no murder-mystery script folder at {folder}")
    try:
        script = load_script(path)
    except ScriptError as exc:
        raise UnknownScript(f"the script folder {folder} cannot be played: {exc}") from None
    _PLAYED_FOLDERS.setdefault(script.id, (script, path))  # its image clues, for image_path
    return script


def extra_scripts(language: str | None = None) -> dict[str, Script]:
    """The scripts in the folders the operator names in ARENA_SCRIPT_DIRS (each a script folder or
    a folder of them), by resolved path, in `language` if given: offered in Play beside the shipped
    ones. A folder that does not validate (or holds a link) is left out; `validate-scripts` names why."""
    found: dict[str, Script] = {}
    for root in (d for d in os.environ.get(SCRIPT_DIRS_ENV, "").split(os.pathsep) if d):
        for folder in script_folders(Path(root)) if Path(root).is_dir() else []:
            if not (folder / SCRIPT_FILE).is_file() or _plain(folder) in found:
                continue
            try:
                script = get_script(_plain(folder))
            except UnknownScript:
                continue
            if language is None or script.language == language:
                found[_plain(folder.resolve())] = script
    return found


# scripts played from a folder in this process, by id: their image clues resolve as shipped ones do
_PLAYED_FOLDERS: dict[str, tuple[Script, Path]] = {}


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
        if is_folder_path(self.script) and self.script not in catalog().scripts:
            get_script(self.script)  # a link is refused here, before resolving would follow it
            self.script = str(Path(self.script).resolve())  # stored whole: a replay finds it from anywhere
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
    shipped script's image clues, or of a script played from its folder in this process (nothing
    else on disk can be reached through a reference)."""
    parts = PurePosixPath(ref).parts
    if len(parts) != 3 or parts[0] != IMAGE_ROOT:
        return None
    _, script_id, file = parts
    script, folder = catalog().scripts.get(script_id), catalog().folders.get(script_id)
    if script is None and script_id in _PLAYED_FOLDERS:  # a script played from its folder here
        script, folder = _PLAYED_FOLDERS[script_id]
    if script is None or folder is None or file not in {c.file for c in script.image_clues}:
        return None
    return folder / file
