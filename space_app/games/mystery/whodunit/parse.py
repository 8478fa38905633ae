"""Reading the WhodunitBench release's loose text: a question with its options inline, an answer
letter, a reasoning depth, a character's name. Each reader returns what it read and the repairs
it made, or raises `Unreadable` with the reason (the importer drops that item and reports it)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..script import LETTERS

__all__ = ["ParsedAnswer", "ParsedQuestion", "Unreadable", "chain_level", "fold", "hops_of", "name_key",
           "parse_answer", "parse_question", "same_text"]


class Unreadable(ValueError):
    """An item with nothing sound to take; the message says why."""


def fold(text: str) -> str:
    """Full-width ASCII forms (ａ．（ｂ）：) as ASCII, one character for one, so that positions in
    the folded text are positions in the original."""
    return "".join(chr(ord(c) - 0xFEE0) if 0xFF01 <= ord(c) <= 0xFF5E else " " if c == "\u3000" else c
                   for c in text)


def same_text(text: str) -> str:
    """For comparing two texts: width, case and spacing ignored (as the validator compares options)."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


# ---- questions -------------------------------------------------------------------------------

# An option marker after folding: "(a)", "a)", "a.", "a、", "a:"; never a letter inside a word
# ("DNA." is no marker). A-E: a fifth option must be seen to be refused.
_MARKER = re.compile(r"(?<![A-Za-z0-9])(?:\(\s*([A-Ea-e])\s*\)|([A-Ea-e])[ \t]*([.)、:]))")
_CANONICAL_MARKER = re.compile(r"[a-d]\.")  # the release's documented form: "…？a. X b. Y"
_SEPARATORS = " \t\r\n;；,，"


@dataclass(frozen=True)
class _Mark:
    start: int
    end: int
    letter: str
    style: str  # "()" or the delimiter after the letter
    line_start: bool


@dataclass(frozen=True)
class ParsedQuestion:
    stem: str
    options: dict[str, str]  # A-D
    repairs: tuple[str, ...] = ()


def _marks(original: str) -> list[_Mark]:
    folded = fold(original)
    out = []
    for m in _MARKER.finditer(folded):
        paren, letter, delim = m.groups()
        before = folded[folded.rfind("\n", 0, m.start()) + 1:m.start()]
        out.append(_Mark(m.start(), m.end(), (paren or letter).upper(), "()" if paren else delim,
                         not before.strip()))
    return out


def _run(marks: list[_Mark], first: _Mark) -> list[_Mark]:
    """A, B, C... of one style from `first`; a letter with several candidates takes the one at a
    line start, and is ambiguous when that does not single one out."""
    chosen = [first]
    while chosen[-1].letter != "E":
        letter = chr(ord(chosen[-1].letter) + 1)
        later = [m for m in marks if m.start >= chosen[-1].end and m.letter == letter]
        if len(later) > 1:
            later = [m for m in later if m.line_start] or later
        if len(later) > 1:
            raise Unreadable(f"options: marker {letter} appears {len(later)} times; the split is ambiguous")
        if not later:
            break
        chosen.append(later[0])
    return chosen


def _options_run(text: str) -> list[_Mark]:
    marks = _marks(text)
    runs: dict[str, list[_Mark]] = {}
    trouble: Unreadable | None = None
    for style in dict.fromkeys(m.style for m in marks):
        same = [m for m in marks if m.style == style]
        # the options close the question: the last A of this style that starts the longest run
        best: list[_Mark] = []
        for first in reversed([m for m in same if m.letter == "A"]):
            try:
                run = _run(same, first)
            except Unreadable as exc:
                trouble = trouble or exc
                continue
            if len(run) > len(best):
                best = run
        if len(best) >= 2:
            runs[style] = best
    if not runs:
        raise trouble or Unreadable("options: no a. / b. / c. / d. options found")
    longest = max(len(r) for r in runs.values())
    candidates = [r for r in runs.values() if len(r) == longest]
    if len(candidates) > 1:
        raise Unreadable("options: two different marker styles both read as options; the split is ambiguous")
    run = candidates[0]
    if len(run) != len(LETTERS):
        raise Unreadable(f"options: {len(run)} options ({', '.join(m.letter for m in run)}); the format needs "
                         "exactly four, A-D")
    return run


def parse_question(question: object) -> ParsedQuestion:
    """The stem and its four options from one string with the options inline or on new lines."""
    if not isinstance(question, str):
        raise Unreadable(f"question: not text (a JSON {type(question).__name__})")
    if not question.strip():
        raise Unreadable("question: empty")
    run = _options_run(question)
    options: dict[str, str] = {}
    for mark, nxt in zip(run, [*run[1:], None], strict=True):
        body = " ".join(question[mark.end:nxt.start if nxt else len(question)].split()).strip(_SEPARATORS)
        if not body:
            raise Unreadable(f"options: option {mark.letter} is empty")
        options[mark.letter] = body
    stem = question[:run[0].start].strip()
    if not stem:
        raise Unreadable("question: no text before the options")
    seen: dict[str, str] = {}
    for letter, body in options.items():
        if same_text(body) in seen:
            raise Unreadable(f"options: options {seen[same_text(body)]} and {letter} are the same ({body!r})")
        seen[same_text(body)] = letter
    repairs = []
    written = list(dict.fromkeys(question[m.start:m.end].strip() for m in run))
    if not all(_CANONICAL_MARKER.fullmatch(w) for w in written):
        repairs.append(f"options: markers written {' '.join(repr(w) for w in written)}; read as A-D")
    if any(m.line_start for m in run):
        repairs.append("options: on separate lines; each read as one line")
    return ParsedQuestion(stem, options, tuple(repairs))


# ---- answers ---------------------------------------------------------------------------------

_ANSWER_LABEL = re.compile(r"^\s*(?:正确答案|答案|answer|ans)?\s*(?:[:：是为]\s*)?(?:选项|选)?\s*", re.I)
_ANSWER = re.compile(r"^[(\[]?\s*([A-Za-z])\s*(?:选项|项)?\s*(?:[)\].、:]\s*(.*)|[)\]]?\s*[。.]?\s*$)", re.S)
_CANONICAL_ANSWER = re.compile(r"[A-Da-d]")


@dataclass(frozen=True)
class ParsedAnswer:
    letter: str
    repairs: tuple[str, ...] = ()


def parse_answer(answer: object, options: dict[str, str]) -> ParsedAnswer:
    """The answer letter from "B", "b.", "(c)", "答案：c", "选B", "B选项", "c. 三点" or the text of one option."""
    if answer is None:
        raise Unreadable("answer: missing")
    if not isinstance(answer, str):
        raise Unreadable(f"answer: not text (a JSON {type(answer).__name__})")
    raw = answer.strip()
    if not raw:
        raise Unreadable("answer: empty")
    if _CANONICAL_ANSWER.fullmatch(raw):
        return ParsedAnswer(raw.upper())
    folded = _ANSWER_LABEL.sub("", fold(raw), count=1).strip()
    if m := _ANSWER.match(folded):
        letter, text = m.group(1).upper(), (m.group(2) or "").strip()
        if letter not in options:
            raise Unreadable(f"answer: {raw!r} names option {letter}, which is not among its options A-D")
        if text and same_text(text) != same_text(options[letter]):
            raise Unreadable(f"answer: {raw!r} names option {letter} but its text differs from option {letter} "
                             f"({options[letter]!r})")
        return ParsedAnswer(letter, (f"answer: {raw!r} read as {letter}",))
    by_text = [letter for letter, text in options.items() if same_text(text) == same_text(raw)]
    if len(by_text) == 1:
        return ParsedAnswer(by_text[0], (f"answer: given as option {by_text[0]}'s text; read as {by_text[0]}",))
    raise Unreadable(f"answer: {raw!r} names no option (no letter A-D, not the text of one option)")


# ---- reasoning depth -------------------------------------------------------------------------

_LEVEL = re.compile(r"^(?:(p)|(\d{1,2})\s*[-_ ]?\s*(?:steps?|步)|step\s*[-_ ]?\s*(\d{1,2}))$", re.I)


def chain_level(key: object) -> str | None:
    """A reasoning-chain key in the format's spelling ("p", "2-step"), or None when it is not one."""
    if not isinstance(key, str):
        return None
    m = _LEVEL.match(unicodedata.normalize("NFKC", key).strip())
    if not m:
        return None
    if m.group(1):
        return "p"
    n = int(m.group(2) or m.group(3))
    return f"{n}-step" if n >= 1 else None


def hops_of(source: object) -> int:
    """Hops for an MMR question from its `source`: "p" (directly perceived) -> 1, the format's
    lowest; "N-step" -> N."""
    if source is None:
        raise Unreadable("source: missing; the hop count is unknown")
    level = chain_level(source)
    if level is None:
        raise Unreadable(f"source: {source!r} is not a reasoning depth ('p', '1-step', '2-step', ...)")
    hops = 1 if level == "p" else int(level.split("-")[0])
    if hops > 5:
        raise Unreadable(f"source: {source!r} is {hops} hops; the format allows 1-5")
    return hops


# ---- names -----------------------------------------------------------------------------------

_NAME_NOISE = re.compile(r"[\s·・•‧.\-_]+")


def name_key(name: str) -> str:
    """A name for matching: width, case, spaces and name dots ignored (李 明 = 李明, Ｌｉ = li)."""
    return _NAME_NOISE.sub("", unicodedata.normalize("NFKC", name)).casefold()
