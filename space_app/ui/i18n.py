"""The interface's words: one catalogue per language (`locales/<language>.toml`, tables of
keys, `{name}` placeholders filled by `str.format`), and the components whose words follow
the page's language. The page speaks the language of its game: the Play tab's language
control sets both, and opening a replay switches the page to the match's language."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import gradio as gr

LOCALES = Path(__file__).with_name("locales")
LANGUAGES: dict[str, str] = {"en": "English", "zh": "中文"}
DEFAULT_LANGUAGE = "en"


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in table.items():
        if isinstance(value, Mapping):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = str(value)
    return out


@cache
def catalogue(language: str) -> dict[str, str]:
    """Every key of one language's catalogue ("play.start" for `start` in table `[play]`)."""
    with (LOCALES / f"{language}.toml").open("rb") as fh:
        return _flatten(tomllib.load(fh))


def normal(language: str | None) -> str:
    """A known language code (anything else: the default)."""
    return language if language in LANGUAGES else DEFAULT_LANGUAGE


def text(language: str | None, key: str, **values: Any) -> str:
    """The words for `key` in `language`, placeholders filled. A key missing from a language
    falls back to the default language (a test keeps the catalogues complete); a key missing
    everywhere is a bug and raises KeyError."""
    words = catalogue(normal(language)).get(key)
    if words is None:
        words = catalogue(DEFAULT_LANGUAGE)[key]
    return words.format(**values) if values else words


def refusal(language: str | None, exc: BaseException) -> str:
    """A refusal in the page's language: the catalogue's words for its key (see
    `space_app.refusal`) on a page in another language than the default, else its own
    (English) message, which is also what a refusal without words says everywhere."""
    key, values = getattr(exc, "key", None), getattr(exc, "values", {})
    language = normal(language)
    if key and language != DEFAULT_LANGUAGE and f"refusal.{key}" in catalogue(language):
        return text(language, f"refusal.{key}", **values)
    return str(exc)


def language_of(match: Mapping[str, Any] | None) -> str:
    """The language a recorded match was played in."""
    settings = (match or {}).get("settings") or {}
    return normal(settings.get("language") if isinstance(settings, Mapping) else None)


def language_choices() -> list[tuple[str, str]]:
    return [(name, code) for code, name in LANGUAGES.items()]


Words = str | Callable[[str], Any]  # a catalogue key, or language -> the property's value


class Interface:
    """The components whose properties (label, value, info, placeholder, choices) follow the
    page's language. Tabs register components as they build them; one handler re-words
    them all when the language changes."""

    def __init__(self) -> None:
        self._items: list[tuple[Any, dict[str, Words]]] = []
        self._resting: list[tuple[Any, str, Callable[[str], str]]] = []

    def __call__(self, component: Any, **props: Words) -> Any:
        self._items.append((component, props))
        return component

    def resting(self, component: Any, key: str, shape: Callable[[str], str] = str) -> Any:
        """A component (a status line, a heading) that shows `key`'s words (through `shape`,
        e.g. wrapped in HTML) only until the page puts something else there: re-worded while
        it still shows them, in any language, and left alone once it shows a match's status
        or a replay's heading."""
        self._resting.append((component, key, shape))
        return component

    def updates(self, language: str, resting: tuple[Any, ...] = ()) -> list[Any]:
        out = [gr.update(**{prop: (text(language, words) if isinstance(words, str) else words(language))
                            for prop, words in props.items()})
               for _, props in self._items]
        for (_, key, shape), value in zip(self._resting, resting, strict=True):
            at_rest = value in {shape(text(code, key)) for code in LANGUAGES}
            out.append(gr.update(value=shape(text(language, key))) if at_rest else gr.skip())
        return out

    def wire(self, language: Any) -> None:
        """Re-word every registered component when the `language` control changes (by hand,
        or when a replay of a match in another language opens)."""
        resting = [component for component, _, _ in self._resting]

        def reword(code: str, *values: Any) -> list[Any]:
            return self.updates(normal(code), values)

        language.change(reword, [language, *resting], [*(c for c, _ in self._items), *resting],
                        api_visibility="private")


__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "Interface", "catalogue", "language_choices", "language_of",
           "normal", "text"]
