"""The suite format: one question per line of a JSON Lines file.

    {"id": "q-0001", "suite": "tom-household", "context": "...", "images": [],
     "question": "...", "options": {"A": "...", "B": "...", "C": "..."}, "answer": "B",
     "types": ["belief"], "tags": {"phrasing": "most"}}

`id`, `question`, `options` (two or more labelled texts) and `answer` (one of the labels)
are required; `context`, `images`, `types` and `tags` are optional. The loader takes every
sound line, repairs what is unambiguous (a lower-case answer letter, an option list
instead of a labelled dict, a single type given as a string) and reports every line it
dropped or repaired, naming the file, line, item and key. A file with no usable line is
refused.
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator


class SuiteItem(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str = Field(min_length=1, max_length=200)
    suite: str = ""
    context: str = ""
    images: list[str] = Field(default_factory=list)
    question: str = Field(min_length=1)
    options: dict[str, str]
    answer: str
    types: list[str] = Field(default_factory=list)
    tags: dict[str, Any] = Field(default_factory=dict)

    @field_validator("options")
    @classmethod
    def _two_or_more(cls, value: dict[str, str]) -> dict[str, str]:
        if len(value) < 2:
            raise ValueError("needs at least two options")
        if any(not str(label).strip() or not str(text).strip() for label, text in value.items()):
            raise ValueError("an option has an empty label or text")
        return value

    @model_validator(mode="after")
    def _answer_is_an_option(self) -> SuiteItem:
        if self.answer not in self.options:
            raise ValueError(f"answer {self.answer!r} is not one of the options {sorted(self.options)}")
        return self


@dataclass
class LoadedSuite:
    path: str
    items: list[SuiteItem]
    dropped: list[str] = field(default_factory=list)  # "file:line (id): why"
    repaired: list[str] = field(default_factory=list)

    def report(self) -> str:
        lines = [f"{self.path}: {len(self.items)} items, {len(self.dropped)} dropped, {len(self.repaired)} repaired"]
        lines += [f"  dropped {d}" for d in self.dropped]
        lines += [f"  repaired {r}" for r in self.repaired]
        return "\n".join(lines)


class SuiteFileError(ValueError):
    """A suite file that cannot be used at all."""


def _repair(raw: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Unambiguous repairs only; each is reported."""
    fixes = []
    out = dict(raw)
    options = out.get("options")
    if isinstance(options, list) and all(isinstance(o, str) for o in options) and 2 <= len(options) <= 26:
        out["options"] = {string.ascii_uppercase[i]: text for i, text in enumerate(options)}
        fixes.append("options: a list, labelled A, B, C... in order")
    answer = out.get("answer")
    if isinstance(out.get("options"), dict) and isinstance(answer, str):
        labels = list(out["options"])
        stripped = answer.strip().rstrip(").").strip()
        if stripped not in labels:
            same_case = [label for label in labels if label.lower() == stripped.lower()]
            if len(same_case) == 1:
                fixes.append(f"answer: {answer!r} read as {same_case[0]!r}")
                out["answer"] = same_case[0]
        elif stripped != answer:
            fixes.append(f"answer: {answer!r} read as {stripped!r}")
            out["answer"] = stripped
    if isinstance(out.get("types"), str):
        out["types"] = [out["types"]]
        fixes.append("types: a string, read as a one-item list")
    if isinstance(out.get("id"), int):
        out["id"] = str(out["id"])
        fixes.append("id: a number, read as text")
    return out, fixes


def load_suite(path: str | Path) -> LoadedSuite:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise SuiteFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise SuiteFileError(f"{path}: cannot be read as UTF-8 text ({exc})") from None
    rows: list[tuple[str, Any]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append((f"{path.name}:{lineno}", json.loads(line)))
        except json.JSONDecodeError as exc:
            rows.append((f"{path.name}:{lineno}", _NotJSON(exc.msg)))
    return _load(str(path), rows)


def load_items(items: list[dict[str, Any]], name: str) -> LoadedSuite:
    """Items built in memory (a game's quizzes), checked like a file's lines."""
    return _load(name, [(f"{name}:{n}", item) for n, item in enumerate(items, start=1)])


@dataclass(frozen=True)
class _NotJSON:
    msg: str


def _load(path: str, rows: list[tuple[str, Any]]) -> LoadedSuite:
    loaded = LoadedSuite(path, [])
    seen: set[str] = set()
    for where, raw in rows:
        if isinstance(raw, _NotJSON):
            loaded.dropped.append(f"{where}: not JSON ({raw.msg})")
            continue
        if not isinstance(raw, dict):
            loaded.dropped.append(f"{where}: not a JSON object")
            continue
        fixed, fixes = _repair(raw)
        ident = fixed.get("id", "?")
        try:
            item = SuiteItem.model_validate(fixed)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'item'}: {e['msg']}" for e in exc.errors())
            loaded.dropped.append(f"{where} ({ident}): {problems}")
            continue
        if item.id in seen:
            loaded.dropped.append(f"{where} ({item.id}): id: repeats an earlier item's id")
            continue
        seen.add(item.id)
        loaded.repaired += [f"{where} ({item.id}): {fix}" for fix in fixes]
        loaded.items.append(item)
    if not loaded.items:
        raise SuiteFileError(f"{path}: no usable question ({len(loaded.dropped)} lines dropped"
                             + (f"; first: {loaded.dropped[0]}" if loaded.dropped else "") + ")")
    return loaded


__all__ = ["LoadedSuite", "SuiteFileError", "SuiteItem", "load_items", "load_suite"]
