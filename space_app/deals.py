"""A deals file (`--deals FILE`): a JSON list of fixed deals, each played as its own match.

An entry is read by its game (`Rules.read_deal`: Avalon also reads AvalonBench's published
preset files as they are) into the settings it fixes, e.g. `{"players": 5, "deal": {...}}`;
without a reader an entry is the game's `deal` setting itself, with an optional "players".
Every deal is validated with the match's other settings before any match is played, and a
refused one is named by its place in the file. Keys an entry has that no reader takes are
left out and reported once, by name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .core.spec import GameSpec

MAX_BYTES = 5_000_000  # a deals file is a list of small objects; anything bigger is a mistake
MAX_DEALS = 10_000


class DealsError(ValueError):
    """A deals file that cannot be played; the message names the file and the deal."""


@dataclass(frozen=True)
class Deals:
    settings: list[dict[str, Any]]  # each deal's whole settings (the match's own, then the deal's)
    ignored: tuple[str, ...]  # keys of the file's entries that were not read, each named once

    @property
    def players(self) -> set[int]:
        return {int(s["players"]) for s in self.settings if "players" in s}

    def note(self) -> str:
        return f"keys not read (left out): {', '.join(self.ignored)}" if self.ignored else ""


def plain_entry(entry: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The default reader: the entry is the `deal` setting, "players" aside."""
    fixed: dict[str, Any] = {"deal": {k: v for k, v in entry.items() if k != "players"}}
    if "players" in entry:
        fixed["players"] = entry["players"]
    return fixed, []


def validation_text(exc: ValidationError) -> str:
    """A pydantic error as one line: where, and what is wrong."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(x) for x in error.get("loc", ()))
        message = str(error.get("msg", "")).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


def read_deals(path: Path, spec: GameSpec, settings: Mapping[str, Any] | None = None) -> Deals:
    """Every deal of the file at `path`, validated for `spec` with the match's `settings`."""
    where = f"deals file {path}"
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DealsError(f"{where}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_BYTES:
        raise DealsError(f"{where}: {len(raw)} bytes, more than the {MAX_BYTES} a deals file may have")
    try:
        entries = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise DealsError(f"{where}: not JSON ({str(exc)[:120]})") from None
    if not isinstance(entries, list) or not entries:
        raise DealsError(f"{where}: must be a JSON list of deals (objects), with at least one")
    if len(entries) > MAX_DEALS:
        raise DealsError(f"{where}: {len(entries)} deals, more than {MAX_DEALS}")
    read = spec.rules.read_deal or plain_entry
    base = dict(settings or {})
    out: list[dict[str, Any]] = []
    ignored: dict[str, None] = {}
    for i, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise DealsError(f"{where}, deal {i}: must be an object, got {type(entry).__name__}")
        try:
            fixed, unread = read(entry)
        except ValueError as exc:
            raise DealsError(f"{where}, deal {i}: {exc}") from None
        ignored.update(dict.fromkeys(unread))
        values = {**base, **fixed}
        try:
            parsed = spec.rules.settings_class.model_validate(values)
        except ValidationError as exc:
            raise DealsError(f"{where}, deal {i}: {validation_text(exc)}") from None
        # the deal as the game reads it (normalised roles, the pool's whole pair), beside the rest
        values["deal"] = parsed.model_dump(mode="json", include={"deal"}).get("deal", values.get("deal"))
        out.append(values)
    return Deals(out, tuple(ignored))


__all__ = ["Deals", "DealsError", "plain_entry", "read_deals", "validation_text"]
