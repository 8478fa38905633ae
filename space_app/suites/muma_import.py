"""Import the published MuMA-ToM benchmark files into the suite format (JSON Lines).

    python -m space_app import-muma-tom QUESTIONS_JSON [--texts TEXTS_JSON]
                                        [--context description|texts] [--strict]
                                        [--visual-data VISUAL_DATA_DIR] OUT

`questions.json` maps an episode id to {"description": "b'...'", "questions": {"1": ...},
"answers": {"1": "B) ..."}, "labels": {"1": "belief"}}; each question holds its options as
`A) ...` lines and each answer is the full correct option line (only its letter is scored).
`texts.json` maps the same ids to the text part of the multi-modal input.
With `--visual-data DIR` (the release's `visual_data/`), each episode's per-frame predicates
(`DIR/<episode id>/`, see `muma_visual`) become keyframes drawn as images (the items' `images`)
and an action track (`tags.action_track`); an episode without usable visual data is kept
text-only and reported, never dropped (`muma_media`).

Like the suite loader, the importer takes what is sound and says what it did with the rest.
Every question ends in one of three states, each reported with its file, episode, number and key:

- repaired: an unambiguous slip (an answer given as a letter only, options written `(A)`,
  `a)`, `A.` or on one line); written as is, listed in the report;
- flagged: the parts disagree or a part could not be read exactly (a description that is not
  a valid bytes literal, an answer whose text is another option's, a missing or unknown label,
  a name in the question the context never mentions, an episode missing from texts.json);
  written with `tags.flags`, or refused with `--strict`;
- dropped: nothing usable (no options, no readable answer, no question text); never written.

The suite file is written only if some question is usable, and is then read back with
`load_suite` to prove that it loads with nothing dropped. The report goes to stdout and to
`OUT.report.txt`. Exit codes: 0 written, 1 nothing usable, 2 the input cannot be read at all.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
import unicodedata
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..safe_text import terminal_text
from .items import SuiteItem, load_suite
from .muma_media import Media, episode_media

SUITE = "muma-tom"
SOURCE = "muma-tom"
KNOWN_LABELS = ("belief", "social_goal", "belief_of_goal")
CONTEXTS = ("description", "texts")


class MumaInputError(ValueError):
    """An input file that cannot be used at all (unreadable, not JSON, wrong shape)."""


# ---------------------------------------------------------------- decoding the descriptions

@dataclass(frozen=True)
class Decoded:
    text: str
    problem: str | None = None  # set when the text may not be exactly what the file meant


# b'...', B"...", rb'...', ...: the prefixes a Python bytes literal may carry
_BYTES_PREFIX = re.compile(r"(?:[bB][rR]?|[rR][bB])(['\"])")
_LOOSE_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|[nrtabfv\\'\"\n])")
_SIMPLE_ESCAPES = {"n": b"\n", "r": b"\r", "t": b"\t", "a": b"\a", "b": b"\b", "f": b"\f", "v": b"\v",
                   "\\": b"\\", "'": b"'", '"': b'"', "\n": b""}
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _clean(text: str) -> str:
    """Lone surrogates (from `\\udXXX` escapes in JSON) cannot be written as UTF-8: make them U+FFFD,
    which the flagging below then reports; unify newlines."""
    return _LONE_SURROGATE.sub("\ufffd", text).replace("\r\n", "\n").replace("\r", "\n")


def _bytes_to_text(data: bytes) -> tuple[str, str | None]:
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    try:  # single-byte escapes such as \xe9 for é: a producer that wrote Windows-1252
        return data.decode("cp1252"), "its bytes are not UTF-8; read as Windows-1252"
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace"), "its bytes are not UTF-8; undecodable bytes replaced by U+FFFD"


def _unescape_loosely(body: str) -> bytes:
    """Best effort for a broken literal: decode the escapes that are well formed, keep the rest."""
    out = bytearray()
    last = 0
    for m in _LOOSE_ESCAPE.finditer(body):
        out += body[last:m.start()].encode("utf-8")
        code = m.group(1)
        if code[0] == "x":
            out.append(int(code[1:], 16))
        elif code[0] in "01234567":
            out.append(int(code, 8) & 0xFF)
        else:
            out += _SIMPLE_ESCAPES[code]
        last = m.end()
    out += body[last:].encode("utf-8")
    return bytes(out)


def decode_bytes_text(raw: object, *, expect_literal: bool = True) -> Decoded:
    """The text of a Python bytes literal written as text (`b'Ana\\xc3\\xa9 ...\\n'`), never
    evaluated: only a source that parses to one bytes constant is read with `ast.literal_eval`.
    Anything else is read best effort and the reason is returned in `problem`. With
    `expect_literal=False` plain text is fine as it is (texts.json may hold either)."""
    if not isinstance(raw, str):
        return Decoded("", f"not text (a JSON {type(raw).__name__})")
    raw = _clean(raw)
    source = raw.strip()
    if not source:
        return Decoded("", "empty")
    prefix = _BYTES_PREFIX.match(source)
    if prefix is not None and not expect_literal and not source.endswith(prefix.group(1)):
        prefix = None  # where plain text is fine, "B'..." without its closing quote is just text
    if prefix is None:
        return Decoded(source, "not a bytes literal (b'...'); used as plain text" if expect_literal else None)
    try:
        with warnings.catch_warnings():  # b'\d' warns about an invalid escape; it still means backslash-d
            warnings.simplefilter("ignore")
            tree = ast.parse(source, mode="eval")
        if not (isinstance(tree.body, ast.Constant) and isinstance(tree.body.value, bytes)):
            raise ValueError("not a single bytes literal")
        data = ast.literal_eval(tree.body)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        why = exc.msg if isinstance(exc, SyntaxError) else str(exc) or type(exc).__name__
        body = source[prefix.end():]
        if body.endswith(prefix.group(1)):
            body = body[:-1]
        text, problem = _bytes_to_text(_unescape_loosely(body))
        note = f"not a valid bytes literal ({why}); its text used with escapes decoded best effort"
        return Decoded(_clean(text).strip(), note + (f"; {problem}" if problem else ""))
    text, problem = _bytes_to_text(data)
    return Decoded(_clean(text).strip(), problem)


# ---------------------------------------------------------------- parsing the questions

class Unreadable(ValueError):
    """A question or answer with nothing usable; the message starts with the key."""


@dataclass(frozen=True)
class ParsedQuestion:
    stem: str
    options: dict[str, str]
    repairs: tuple[str, ...] = ()


# An option marker: `(A)`, `A)` or `A.` at a line start; only `(A)`/`A)` in upper case mid-line,
# where a lower-case letter or `A.` would too often be ordinary prose. `A.` is not `A.M.` or `E.g.`.
_MARKER = re.compile(r"(?:(?<=\s)|^)(?:\(\s*([A-Za-z])\s*\)|([A-Za-z])[ \t]*\)|([A-Za-z])\.(?![^\W\d_]\.))", re.M)


@dataclass(frozen=True)
class _Mark:
    start: int
    end: int
    letter: str
    style: str  # "(A)", "A)" or "A."
    line_start: bool
    lower: bool


def _marks(text: str) -> list[_Mark]:
    out = []
    for m in _MARKER.finditer(text):
        paren, close, dot = m.groups()
        letter = paren or close or dot
        style = "(A)" if paren else "A)" if close else "A."
        line_start = not text[text.rfind("\n", 0, m.start()) + 1:m.start()].strip()
        if line_start or (letter.isupper() and style != "A."):
            out.append(_Mark(m.start(), m.end(), letter.upper(), style, line_start, letter.islower()))
    return out


def _sequence(marks: list[_Mark], first: _Mark) -> list[_Mark]:
    """The markers A, B, C... from `first`: a marker at a line start is trusted; a mid-line one
    only when it is the only candidate for its letter (otherwise the split is ambiguous)."""
    chosen = [first]
    while True:
        letter = chr(ord(chosen[-1].letter) + 1)
        later = [m for m in marks if m.start >= chosen[-1].end and m.letter == letter]
        at_line_start = [m for m in later if m.line_start]
        if at_line_start:
            chosen.append(at_line_start[0])
        elif len(later) == 1:
            chosen.append(later[0])
        elif later:
            raise Unreadable(f"options: '{letter})' appears {len(later)} times on one line; the split is ambiguous")
        else:
            return chosen


def _one_line(text: str) -> str:
    return " ".join(text.split())


def parse_question(question: object) -> ParsedQuestion:
    """The question text without its option lines, and its options {label: text}."""
    if not isinstance(question, str):
        raise Unreadable(f"question: not text (a JSON {type(question).__name__})")
    text = _clean(question)
    marks = _marks(text)
    firsts = [m for m in marks if m.letter == "A" and m.line_start]
    mid_line_a = [m for m in marks if m.letter == "A" and not m.line_start]
    if not firsts and len(mid_line_a) == 1:
        firsts = mid_line_a
    elif not firsts and len(mid_line_a) > 1:
        raise Unreadable(f"options: 'A)' appears {len(mid_line_a)} times on one line; the split is ambiguous")
    chosen: list[_Mark] = []
    for first in reversed(firsts):  # the options close the question: the last A that starts two or more
        chosen = _sequence(marks, first)
        if len(chosen) >= 2:
            break
    if len(chosen) < 2:
        raise Unreadable("options: no A) / B) / C) options found")
    repairs = []
    options: dict[str, str] = {}
    for mark, nxt in zip(chosen, [*chosen[1:], None], strict=True):
        body = text[mark.end:nxt.start if nxt else len(text)]
        if nxt is None and re.search(r"\n[ \t]*\n", body.strip()):  # a blank line ends the last option
            body, trailing = re.split(r"\n[ \t]*\n", body.strip(), maxsplit=1)
            repairs.append(f"question: text after the options left out ({_quote(trailing)})")
        options[mark.letter] = _one_line(body)
        if not options[mark.letter]:
            raise Unreadable(f"options: option {mark.letter} is empty")
    stem = "\n".join(line.rstrip() for line in text[:chosen[0].start].strip().splitlines())
    if not stem:
        raise Unreadable("question: no text before the options")
    styles = [f"as {style}" for style in sorted({m.style for m in chosen if m.style != "A)"})]
    styles += ["in lower case"] if any(m.lower for m in chosen) else []
    styles += ["on one line"] if any(not m.line_start for m in chosen) else []
    if styles:
        repairs.insert(0, f"options: written {', '.join(styles)}; read as {', '.join(options)}")
    return ParsedQuestion(stem, options, tuple(repairs))


def _quote(text: str, limit: int = 60) -> str:
    flat = _one_line(text)
    return repr(flat if len(flat) <= limit else flat[:limit] + "...")


def _norm(text: str) -> str:
    """For comparing an answer's text with an option: case, spacing, quotes and a final stop ignored."""
    return _one_line(unicodedata.normalize("NFC", text).casefold()).strip(" \"'“”‘’").rstrip(".").strip()


_ANSWER_LETTER = re.compile(r"\s*\(?\s*([A-Za-z])\s*[).:]?\s*")
_ANSWER_LINE = re.compile(r"\s*(?:\(\s*([A-Za-z])\s*\)|([A-Za-z])\s*[).:])\s*(.*)", re.S)


@dataclass(frozen=True)
class ParsedAnswer:
    letter: str
    flags: tuple[str, ...] = ()
    repairs: tuple[str, ...] = ()


def parse_answer(answer: object, options: dict[str, str]) -> ParsedAnswer:
    """The correct label. When the answer's letter and its text disagree the letter wins (the
    published scorer compares only the letter) and the disagreement is flagged."""
    if answer is None:
        raise Unreadable("answer: missing")
    if not isinstance(answer, str):
        raise Unreadable(f"answer: not text (a JSON {type(answer).__name__})")
    if not answer.strip():
        raise Unreadable("answer: empty")
    labels = ", ".join(options)
    by_text = [label for label, text in options.items() if _norm(text) == _norm(answer)]
    if m := _ANSWER_LETTER.fullmatch(answer):
        letter = m.group(1).upper()
        if letter not in options:
            raise Unreadable(f"answer: {answer.strip()!r} is not one of the options {labels}")
        return ParsedAnswer(letter, repairs=(f"answer: given as the letter only ({answer.strip()!r})",))
    if m := _ANSWER_LINE.fullmatch(answer):
        letter = (m.group(1) or m.group(2)).upper()
        text = m.group(3)
        matches = [label for label, option in options.items() if _norm(option) == _norm(text)]
        if letter not in options:
            if len(matches) == 1:
                return ParsedAnswer(matches[0], flags=(
                    f"answer: letter {letter} is not an option but its text is option {matches[0]}'s; "
                    f"read as {matches[0]}",))
            raise Unreadable(f"answer: {_quote(answer)} is not one of the options {labels}")
        if _norm(text) == _norm(options[letter]):
            return ParsedAnswer(letter)
        other = [label for label in matches if label != letter]
        whose = f" (it is option {other[0]}'s text)" if other else ""
        return ParsedAnswer(letter, flags=(
            f"answer: its text {_quote(text)} disagrees with option {letter} {_quote(options[letter])}{whose}; "
            f"kept the letter {letter}",))
    if len(by_text) == 1:  # no letter at all, but exactly one option's text
        return ParsedAnswer(by_text[0], repairs=(f"answer: given as option {by_text[0]}'s text without its letter",))
    raise Unreadable(f"answer: {_quote(answer)} names no option (no letter, and not the text of one option)")


def phrasing(stem: str) -> str | None:
    """"most" or "least", as the question asks for; None when it says neither (or both, equally loud)."""
    found = re.findall(r"\b(most|least)\b", stem, re.I)
    kinds = {w.lower() for w in found}
    if len(kinds) == 1:
        return kinds.pop()
    loud = {w.lower() for w in found if w.isupper()}  # the benchmark writes the one that counts as MOST / LEAST
    return loud.pop() if len(loud) == 1 else None


# Capitalised words that are not names: sentence starts and the benchmark's own vocabulary.
_NOT_NAMES = frozenset("""
A An The If Which What Who Whom Whose When Where Why How Whether Suppose Supposing Assume Assuming Given
Judging Based Considering According In On At Of For From To By With Without After Before During Then Than
That This These Those There Their They Them He She His Her Hers Him It Its I We You Your Our Is Are Was Were
Be Been Do Does Did Has Have Had Can Could Would Should Will Might May Must Not No Yes And Or But So As Also
Only Both Either Neither None All Any Some Each Every Most Least Likely Option Options Answer Question
Statement Statements Following Person People Someone Somebody Everyone Nobody Here Now Mr Mrs Ms Dr
""".split())
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def capitalised_names(text: str) -> list[str]:
    """Capitalised words that look like names (not all capitals, not a common sentence start)."""
    names: list[str] = []
    for m in _WORD.finditer(text):
        word = re.sub(r"['’]s$", "", m.group()).rstrip("'’-")
        if len(word) >= 2 and word[0].isupper() and not word.isupper() and word not in _NOT_NAMES:
            if word not in names:
                names.append(word)
    return names


def absent_names(names: Iterable[str], context: str) -> list[str]:
    folded = unicodedata.normalize("NFC", context).casefold()
    return [n for n in names
            if not re.search(rf"(?<!\w){re.escape(unicodedata.normalize('NFC', n).casefold())}(?!\w)", folded)]


# ---------------------------------------------------------------- importing

@dataclass
class Outcome:
    """One question (or one unusable episode, `number` None) and what became of it."""

    item_id: str
    episode: str
    number: str | None
    label: str | None = None
    item: SuiteItem | None = None
    dropped: list[str] = field(default_factory=list)  # "key: why", the item is not written
    flags: list[str] = field(default_factory=list)  # "key: why", written with tags.flags (refused if strict)
    repairs: list[str] = field(default_factory=list)  # "key: what was read", written as is

    def where(self, questions_file: str) -> str:
        place = f"episode {self.episode!r}" + (f", question {self.number}" if self.number is not None else "")
        return f"{self.item_id} ({questions_file}, {place})"


@dataclass
class ImportResult:
    questions_file: str
    texts_file: str | None
    context: str
    strict: bool
    episodes: int
    outcomes: list[Outcome]
    notes: list[str] = field(default_factory=list)  # file-level: duplicate keys, unused texts, ...
    verified: bool | None = None  # set by write_suite: the written file loads as written
    visual_dir: str | None = None
    media: list[Media] = field(default_factory=list)  # per episode, when visual data was given

    @property
    def items(self) -> list[SuiteItem]:
        return [o.item for o in self.outcomes if o.item is not None]

    def report(self, written: str = "") -> str:
        name = Path(self.questions_file).name
        kept = [o for o in self.outcomes if o.item is not None]
        lost = [o for o in self.outcomes if o.item is None]
        flagged = [o for o in kept if o.flags]  # with --strict these are in `lost`, refused
        repaired = [o for o in self.outcomes if o.repairs]
        lines = [f"MuMA-ToM import of {self.questions_file}"
                 + (f" with {self.texts_file}" if self.texts_file else "")
                 + f" (context: {self.context}; strict: {'yes' if self.strict else 'no'})",
                 f"{self.episodes} episodes, {len(self.outcomes)} entries: {len(kept)} written "
                 f"({len(flagged)} flagged), {len(lost)} dropped"
                 + (f" ({sum(bool(o.flags) for o in lost)} refused as flagged)" if self.strict else "")
                 + f", {len(repaired)} repaired",
                 "per type (written / dropped):"]
        types = [*KNOWN_LABELS, *sorted({o.label for o in self.outcomes if o.label} - set(KNOWN_LABELS))]
        for t in [*types, None]:
            n_kept = sum(o.label == t for o in kept)
            n_lost = sum(o.label == t for o in lost)
            if n_kept or n_lost or t in KNOWN_LABELS:
                lines.append(f"  {t or '(no label)'}: {n_kept} / {n_lost}")
        sections = [("notes", [f"  {n}" for n in self.notes]),
                    ("dropped", [f"  {o.where(name)}: {why}" for o in lost for why in o.dropped]),
                    ("flagged (written with tags.flags)",
                     [f"  {o.where(name)}: {why}" for o in flagged for why in o.flags]),
                    ("repaired (written)", [f"  {o.where(name)}: {why}" for o in repaired for why in o.repairs])]
        if self.visual_dir is not None:
            with_video = [m for m in self.media if not m.text_only]
            lines.append(f"visual data ({self.visual_dir}): {len(with_video)} of {len(self.media)} episodes with "
                         f"keyframes and an action track, {len(self.media) - len(with_video)} text-only")
            sections.append(("visual data", [f"  episode {m.episode!r}: {n}" for m in self.media for n in m.notes]))
        for title, body in sections:
            if body:
                lines += [f"{title}:", *body]
        if written:
            lines.append(written)
        return "\n".join(lines) + "\n"


def _read_json(path: Path, notes: list[str]) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MumaInputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        notes.append(f"{path.name}: not valid UTF-8; undecodable bytes replaced by U+FFFD (their items are flagged)")
    duplicates: list[str] = []

    def keep_last(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                duplicates.append(key)
            out[key] = value
        return out

    try:
        parsed = json.loads(text, object_pairs_hook=keep_last)
    except json.JSONDecodeError as exc:
        raise MumaInputError(f"{path}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise MumaInputError(f"{path}: JSON nested too deeply") from None
    if not isinstance(parsed, dict):
        raise MumaInputError(f"{path}: expected an object mapping episode ids to entries, "
                             f"found a JSON {type(parsed).__name__}")
    notes += [f"{path.name}: key {key!r} appears more than once in one object; the last was kept"
              for key in dict.fromkeys(duplicates)]
    return parsed


def _numbered(value: object, key: str, repairs: list[str]) -> dict[str, Any] | None:
    """questions / answers / labels keyed by question number; a list is numbered 1, 2, 3..."""
    if isinstance(value, dict):
        return {str(k).strip(): v for k, v in value.items()}
    if isinstance(value, list):
        repairs.append(f"{key}: a list, numbered 1, 2, 3... in order")
        return {str(i): v for i, v in enumerate(value, start=1)}
    return None


def _number_order(n: str) -> tuple[int, int, str]:
    return (0, int(n), "") if n.isdigit() else (1, 0, n)


def _label(raw: object) -> tuple[str | None, list[str], list[str]]:
    """(type, flags, repairs) of a label."""
    if raw is None:
        return None, ["label: missing"], []
    if not isinstance(raw, str) or not raw.strip():
        return None, [f"label: not a label ({raw!r})"], []
    norm = re.sub(r"[\s-]+", "_", raw.strip().lower())
    if norm in KNOWN_LABELS:
        return norm, [], ([f"label: {raw!r} read as {norm!r}"] if norm != raw else [])
    return raw.strip(), [f"label: unknown label {raw.strip()!r} (known: {', '.join(KNOWN_LABELS)})"], []


def _contexts(episode: str, entry: dict[str, Any], texts: dict[str, Any] | None, context: str,
              notes: list[str], questions_name: str, texts_name: str) -> tuple[str, list[str]]:
    """The chosen context of an episode and the flags every one of its questions carries."""
    described = decode_bytes_text(entry.get("description"))
    description_flags = [f"description: {described.problem}"] if described.problem else []
    if context == "description":
        return described.text, description_flags
    if described.problem:  # not used, but still a part of the file that could not be read
        notes.append(f"{questions_name}: episode {episode!r}: description: {described.problem} (not used)")
    if texts is None or episode not in texts:
        return described.text, [f"context: episode missing from {texts_name}; used its description",
                                *description_flags]
    given = decode_bytes_text(texts[episode], expect_literal=False)
    if given.problem and not given.text:
        return described.text, [f"context: {texts_name} entry {given.problem}; used its description",
                                *description_flags]
    return given.text, [f"context: {texts_name} entry {given.problem}"] if given.problem else []


def _question(episode: str, number: str, question: object, answer: object, label_raw: object,
              context: str, context_flags: list[str], episode_repairs: list[str], strict: bool,
              media: Media | None = None) -> Outcome:
    label, label_flags, label_repairs = _label(label_raw)
    out = Outcome(f"{episode}-{number}", episode, number, label, repairs=[*episode_repairs, *label_repairs])
    if question is None:
        out.dropped.append("question: missing (an answer or a label is given for it)")
        return out
    try:
        parsed = parse_question(question)
        read = parse_answer(answer, parsed.options)
    except Unreadable as exc:
        out.dropped.append(str(exc))
        return out
    out.repairs += [*parsed.repairs, *read.repairs]
    out.flags += [*context_flags, *read.flags, *label_flags]
    shown = [parsed.stem, *parsed.options.values()]
    if any("\ufffd" in text for text in shown):
        out.flags.append("question: contains U+FFFD (bytes that could not be decoded)")
    if "\ufffd" in context and not context_flags:
        out.flags.append("context: contains U+FFFD (bytes that could not be decoded)")
    if not context:
        out.flags.append("context: empty")
    else:
        missing = absent_names(capitalised_names("\n".join(shown)), context)
        if missing:
            out.flags.append(f"names: the question names {', '.join(missing)}, never found in the context")
    if strict and out.flags:
        out.dropped += [f"refused (--strict): {why}" for why in out.flags]
        return out
    tags: dict[str, Any] = {"episode": episode}
    if (kind := phrasing(parsed.stem)) is not None:
        tags["phrasing"] = kind
    tags["source"] = SOURCE
    if out.flags:
        tags["flags"] = list(out.flags)
    if media is not None:
        tags.update(media.tags)
    try:
        images = list(media.images) if media is not None else []
        out.item = SuiteItem(id=out.item_id, suite=SUITE, context=context, images=images, question=parsed.stem,
                             options=parsed.options, answer=read.letter, types=[label] if label else [], tags=tags)
    except ValidationError as exc:  # e.g. an id longer than the format allows
        out.dropped += [f"{'.'.join(str(p) for p in e['loc']) or 'item'}: {e['msg']}" for e in exc.errors()]
    return out


def import_muma_tom(questions: str | Path, texts: str | Path | None = None, *, context: str = "description",
                    strict: bool = False, visual_data: str | Path | None = None) -> ImportResult:
    """Read the published files; nothing is written (see `write_suite`)."""
    if context not in CONTEXTS:
        raise MumaInputError(f"context must be one of {', '.join(CONTEXTS)}, not {context!r}")
    if context == "texts" and texts is None:
        raise MumaInputError("--context texts needs --texts TEXTS_JSON")
    notes: list[str] = []
    questions_path = Path(questions)
    entries = _read_json(questions_path, notes)
    text_entries = _read_json(Path(texts), notes) if texts is not None else None
    if visual_data is not None and not Path(visual_data).is_dir():
        raise MumaInputError(f"{visual_data}: --visual-data is not a folder (the release's visual_data/)")
    name = questions_path.name
    result = ImportResult(str(questions), str(texts) if texts is not None else None, context, strict,
                          len(entries), [], notes, visual_dir=str(visual_data) if visual_data is not None else None)
    texts_name = Path(str(texts)).name if texts is not None else "texts.json"
    if text_entries is not None:
        notes += [f"{texts_name}: episode {ep!r} has no entry in {name}" for ep in text_entries if ep not in entries]
        if context == "description":
            notes += [f"{name}: episode {ep!r} has no entry in {texts_name} (not needed: context is the description)"
                      for ep in entries if ep not in text_entries]
    if visual_data is not None:
        known = {episode.strip() for episode in entries}
        notes += [f"{Path(visual_data).name}/{d.name}: no episode {d.name!r} in {name} (not used)"
                  for d in sorted(Path(visual_data).iterdir()) if d.is_dir() and d.name not in known]
    seen: set[str] = set()
    for episode, entry in entries.items():
        if not isinstance(entry, dict):
            result.outcomes.append(Outcome(episode, episode, None, dropped=[
                f"episode: not an object (a JSON {type(entry).__name__})"]))
            continue
        repairs: list[str] = []
        asked = _numbered(entry.get("questions"), "questions", repairs)
        if asked is None:
            result.outcomes.append(Outcome(episode, episode, None, dropped=["questions: missing or not an object"]))
            continue
        answers = _numbered(entry.get("answers"), "answers", repairs) or {}
        labels = _numbered(entry.get("labels"), "labels", repairs) or {}
        ctx, ctx_flags = _contexts(episode, entry, text_entries, context, notes, name, texts_name)
        media = episode_media(Path(visual_data), episode) if visual_data is not None else None
        if media is not None:
            result.media.append(media)
        numbers = sorted({*asked, *answers, *labels}, key=_number_order)
        for number in numbers:
            out = _question(episode, number, asked.get(number), answers.get(number), labels.get(number),
                            ctx, ctx_flags, repairs, strict, media)
            if out.item is not None and out.item_id in seen:  # "a-1" + "2" and "a" + "1-2"
                out.item, out.dropped = None, ["id: repeats an earlier question's id"]
            seen.add(out.item_id)
            result.outcomes.append(out)
    return result


def _json_line(item: SuiteItem) -> str:
    line = json.dumps(item.model_dump(mode="json"), ensure_ascii=False)
    # str.splitlines (which load_suite uses) also breaks at these; JSON lets them be escaped
    return line.replace("\x85", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def write_suite(result: ImportResult, out: str | Path) -> str:
    """Write the suite (if any question is usable) and its report (`OUT.report.txt`); the
    written file is read back with `load_suite`. Returns the report."""
    out = Path(out)
    items = result.items
    if items:
        tmp = out.with_name(out.name + ".tmp")
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines(_json_line(item) + "\n" for item in items)
        os.replace(tmp, out)  # never a half-written suite under the real name
        loaded = load_suite(out)
        result.verified = len(loaded.items) == len(items) and not loaded.dropped and not loaded.repaired
        status = "" if result.verified else " -- NOT AS WRITTEN:\n" + loaded.report()
        written = (f"wrote {out}: {len(items)} items; load_suite reads {len(loaded.items)} items, "
                   f"{len(loaded.dropped)} dropped, {len(loaded.repaired)} repaired{status}")
    else:
        written = f"nothing usable: {out} not written"
    report = result.report(written)
    Path(str(out) + ".report.txt").write_text(report, encoding="utf-8", newline="\n")
    return report


# ---------------------------------------------------------------- command line

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("questions", metavar="QUESTIONS_JSON", help="the benchmark's questions.json")
    parser.add_argument("--texts", metavar="TEXTS_JSON", help="the benchmark's texts.json (episode id -> text)")
    parser.add_argument("--context", choices=CONTEXTS, default="description",
                        help="what each item's context is: the episode's description (default) or its text")
    parser.add_argument("--strict", action="store_true",
                        help="refuse flagged questions (parts that disagree or could not be read exactly)")
    parser.add_argument("--visual-data", metavar="DIR", help="the benchmark's visual_data/ folder: each episode's "
                        "keyframes and action track are stored with its questions")
    parser.add_argument("out", metavar="OUT", help="the suite file to write (JSON Lines); the report goes "
                        "to OUT.report.txt")


def run(args: argparse.Namespace) -> int:
    """0: a suite was written; 1: no usable question; 2: the input cannot be used."""
    try:
        result = import_muma_tom(args.questions, args.texts, context=args.context, strict=args.strict,
                                 visual_data=args.visual_data)
        report = write_suite(result, args.out)
    except MumaInputError as exc:
        print(terminal_text(f"error: {exc}"), file=sys.stderr)
        return 2
    except OSError as exc:
        print(terminal_text(f"error: cannot write {args.out}: {exc.strerror or exc}"), file=sys.stderr)
        return 2
    print(terminal_text(report), end="")  # the file's texts are strangers' text: no terminal escapes
    return 0 if result.items and result.verified else 1


def configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Make `p` (`space_app.cli`'s `import-muma-tom` subcommand, which carries its one-line
    help) this importer's: its description, options and `func` (`run`)."""
    p.description = __doc__
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    add_arguments(p)
    p.set_defaults(func=run)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m space_app import-muma-tom", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error argparse has already printed
        return exc.code if isinstance(exc.code, int) else 2
    return run(args)


__all__ = ["Decoded", "ImportResult", "MumaInputError", "Outcome", "ParsedAnswer", "ParsedQuestion", "Unreadable",
           "absent_names", "add_arguments", "capitalised_names", "configure", "decode_bytes_text", "import_muma_tom",
           "main", "parse_answer", "parse_question", "phrasing", "run", "write_suite"]


if __name__ == "__main__":
    sys.exit(main())
