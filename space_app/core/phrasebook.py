"""A game's own lines (the public events its transcript shows, its instructions, its reasons)
in every language it is played in. A game keeps its phrasebook in its folder, as data; the
book checks at import that every language has every line, asking for no value the default
language's line is not given, so a Chinese match can never fail on a missing line or value.
Pure: no files, no clocks."""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

DEFAULT_LANGUAGE = "en"
LIST_SEPARATORS = {"zh": "、"}  # how a language separates the items of a list (else ", ")


def _placeholders(line: str) -> set[str]:
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(line) if name}


class Phrasebook:
    """`say(language, key, **values)`: the line for `key` in `language` (an unknown language
    reads the default one), placeholders filled with `str.format`."""

    def __init__(self, lines: Mapping[str, Mapping[str, str]], default: str = DEFAULT_LANGUAGE) -> None:
        if default not in lines:
            raise ValueError(f"the phrasebook has no {default!r} lines")
        keys = set(lines[default])
        for language, book in lines.items():
            if set(book) != keys:
                raise ValueError(f"{language!r} lines differ from {default!r}: {sorted(set(book) ^ keys)}")
            for key, line in book.items():
                # a language may leave a value unsaid (str.format ignores it), never ask for one
                # the game does not give
                if not _placeholders(line) <= _placeholders(lines[default][key]):
                    raise ValueError(f"{language!r} line {key!r} has placeholders that {default!r} lacks")
        self._lines = {language: dict(book) for language, book in lines.items()}
        self.default = default

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(self._lines)

    def keys(self) -> set[str]:
        return set(self._lines[self.default])

    def say(self, language: str | None, key: str, **values: Any) -> str:
        book = self._lines.get(language or self.default, self._lines[self.default])
        return book[key].format(**values) if values else book[key]

    def join(self, language: str | None, items: list[str]) -> str:
        """A list as the language writes it: 'P1, P2' or 'P1、P2'."""
        return LIST_SEPARATORS.get(language or self.default, ", ").join(items)


__all__ = ["Phrasebook"]
