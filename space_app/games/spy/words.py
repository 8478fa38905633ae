"""Word pairs for Who is the Spy: the built-in sets and user-supplied files."""

from __future__ import annotations

import csv
import json
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError, field_validator, model_validator

CONTENT_DIR = Path(__file__).parent / "content"
Difficulty = Literal["easy", "medium", "hard"]
# controls (NUL, ESC), format characters (bidi overrides, zero-width ones), line and paragraph
# separators and lone surrogates: invisible or disruptive in a word that every seat and page shows
_REFUSED_CATEGORIES = {"Cc": "a control character", "Cf": "an invisible formatting character",
                       "Zl": "a line separator", "Zp": "a paragraph separator", "Cs": "a lone surrogate"}


def _refused_character(word: str) -> str | None:
    """How the first refused character of `word` is named (code point, name, kind), or None."""
    for ch in word:
        kind = _REFUSED_CATEGORIES.get(unicodedata.category(ch))
        if kind is not None:
            name = unicodedata.name(ch, "")
            return f"U+{ord(ch):04X}{f' {name}' if name else ''} ({kind})"
    return None


class WordPairError(ValueError):
    """A pairs file could not be read; the message names the file and the row."""


class WordPair(BaseModel):
    civilian: str
    spy: str
    difficulty: Difficulty = "medium"
    category: str = ""

    @field_validator("civilian", "spy")
    @classmethod
    def _clean(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("must not be empty")
        if len(v) > 40:
            raise ValueError("must be at most 40 characters")
        return v

    @model_validator(mode="after")
    def _visible(self) -> WordPair:
        for field in ("civilian", "spy", "category"):
            found = _refused_character(getattr(self, field))
            if found is not None:
                # repr() shows the character escaped, so the message itself stays inert
                raise ValueError(f"the pair {self.civilian!r} / {self.spy!r}: the {field} "
                                 f"{'word ' if field != 'category' else ''}contains {found}; "
                                 "control, zero-width and bidirectional characters are not accepted")
        return self

    @model_validator(mode="after")
    def _distinct(self) -> WordPair:
        a, b = self.civilian.casefold(), self.spy.casefold()
        if a == b:
            raise ValueError("civilian and spy words must differ")
        if a in b or b in a:
            raise ValueError("one word must not contain the other")
        return self


def _row_error(path: Path, row: int, exc: Exception) -> WordPairError:
    if isinstance(exc, ValidationError):
        why = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'row'}: {e['msg']}" for e in exc.errors())
    else:
        why = str(exc)
    return WordPairError(f"{path}: row {row}: {why}")


def load_pairs(path: str | Path) -> list[WordPair]:
    """Read a CSV (header civilian,spy[,difficulty][,category]) or a JSON list of
    objects with the same keys. Raises WordPairError naming the file and row."""
    path = Path(path)
    if not path.is_file():
        raise WordPairError(f"{path}: no such file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise WordPairError(f"{path}: not UTF-8 text ({exc})") from exc
    pairs: list[WordPair] = []
    if path.suffix.lower() == ".json":
        try:
            rows = json.loads(text)
        except ValueError as exc:
            raise WordPairError(f"{path}: not valid JSON ({exc})") from exc
        if not isinstance(rows, list):
            raise WordPairError(f"{path}: expected a JSON list of pairs")
        for i, row in enumerate(rows, start=1):
            try:
                if not isinstance(row, dict):
                    raise ValueError(f"expected an object, got {type(row).__name__}")
                pairs.append(WordPair.model_validate(row))
            except (ValidationError, ValueError) as exc:
                raise _row_error(path, i, exc) from exc
    else:
        reader = csv.DictReader(text.splitlines())
        if not reader.fieldnames or not {"civilian", "spy"} <= set(reader.fieldnames):
            raise WordPairError(f"{path}: row 1: the header must name the columns civilian,spy"
                                f"[,difficulty][,category] (got {reader.fieldnames})")
        for i, row in enumerate(reader, start=2):
            if None in row:
                raise WordPairError(f"{path}: row {i}: too many fields")
            try:
                clean = {k: v for k, v in row.items() if v not in (None, "") or k in ("civilian", "spy")}
                pairs.append(WordPair.model_validate(clean))
            except (ValidationError, ValueError) as exc:
                raise _row_error(path, i, exc) from exc
    if not pairs:
        raise WordPairError(f"{path}: no pairs")
    return pairs


@lru_cache(maxsize=4)
def _builtin(language: str) -> tuple[WordPair, ...]:
    return tuple(load_pairs(CONTENT_DIR / f"pairs_{language}.csv"))


def load_builtin_pairs(language: str = "en") -> list[WordPair]:
    if language not in ("en", "zh"):
        raise ValueError(f"no built-in pairs for language {language!r}")
    return list(_builtin(language))


def pair_key(pair: WordPair) -> tuple[str, str, str, str]:
    """What makes two pairs equal, as a hashable value."""
    return pair.civilian, pair.spy, pair.difficulty, pair.category


@lru_cache(maxsize=4)
def builtin_pair_keys(language: str = "en") -> frozenset[tuple[str, str, str, str]]:
    """The built-in pairs as keys: whether a drawn pair is one of them, in one look-up."""
    return frozenset(pair_key(p) for p in load_builtin_pairs(language))


@lru_cache(maxsize=4)
def load_clues(language: str = "en") -> dict[str, list[str]]:
    """Descriptive clues per word (most vague first), for the heuristic house agent."""
    path = CONTENT_DIR / f"clues_{language}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    return {k.casefold(): list(v) for k, v in data.items()}
