"""Reading the WhodunitBench release's loose text: a question with its options inline, an answer
letter, a reasoning depth, a character's name. Each reader returns what it read and the repairs
it made, or raises `Unreadable` with the reason (the importer drops that item and reports it)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ..scripts.script import LETTERS, MAX_IMPORTED_HOPS, UNKNOWN_DEPTH

__all__ = ["Depth", "ParsedAnswer", "ParsedQuestion", "Unreadable", "chain_level", "depth_of", "fold",
           "level_depth", "name_key", "parse_answer", "parse_question", "same_text"]


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
    if len(run) > len(LETTERS):
        raise Unreadable(f"options: {len(run)} options ({', '.join(m.letter for m in run)}); the format allows "
                         "two to four, A-D")
    # "a. X b. Y c、Z": a short run followed by its next letter in another style would hide an
    # option inside the last one; which split is meant is unclear
    following = chr(ord(run[-1].letter) + 1)
    if any(m.letter == following and m.start >= run[-1].end for m in marks):
        raise Unreadable(f"options: read as {', '.join(m.letter for m in run)} but a {following} marker in "
                         "another style follows; the split is ambiguous")
    return run


def parse_question(question: object) -> ParsedQuestion:
    """The stem and its two to four options from one string with the options inline or on new lines."""
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
    if _CANONICAL_ANSWER.fullmatch(raw) and raw.upper() in options:
        return ParsedAnswer(raw.upper())
    folded = _ANSWER_LABEL.sub("", fold(raw), count=1).strip()
    if m := _ANSWER.match(folded):
        letter, text = m.group(1).upper(), (m.group(2) or "").strip()
        if letter not in options:
            raise Unreadable(f"answer: {raw!r} names option {letter}, which is not among its options "
                             f"{min(options)}-{max(options)}")
        if text and same_text(text) != same_text(options[letter]):
            raise Unreadable(f"answer: {raw!r} names option {letter} but its text differs from option {letter} "
                             f"({options[letter]!r})")
        return ParsedAnswer(letter, (f"answer: {raw!r} read as {letter}",))
    by_text = [letter for letter, text in options.items() if same_text(text) == same_text(raw)]
    if len(by_text) == 1:
        return ParsedAnswer(by_text[0], (f"answer: given as option {by_text[0]}'s text; read as {by_text[0]}",))
    raise Unreadable(f"answer: {raw!r} names no option (no letter {min(options)}-{max(options)}, not the text of "
                     "one option)")


# ---- reasoning depth -------------------------------------------------------------------------
#
# The depth of a clue or question is its level in the reasoning chain, counted from 1: 1 the
# directly perceived clues (the pool's "p"), 2 what one inference gives ("1-step"), and so on;
# the project's own scripts use 1-5 the same way. The release writes it in several notations
# (docs/script-format.md, "Reasoning depth"): each is read here, and a form that does not give
# a depth reads as "unknown" rather than being guessed.

_LEVEL = re.compile(r"^(?:(p)|(\d{1,2})\s*[-_ ]?\s*(?:steps?|步)|step\s*[-_ ]?\s*(\d{1,2}))$", re.I)
# a letter and a level: "p-3", "r-1", "b-1", "P_2", "p 2"; the letter names the pool
_LETTER_LEVEL = re.compile(r"^([a-z])\s*[-_ ]?\s*(\d{1,3})$", re.I)
# a letter with a placeholder for its level: "p-n", "r-N", "p-?", "p-x"
_LETTER_PLACEHOLDER = re.compile(r"^([a-z])\s*[-_ ]\s*([a-z?？]+)$", re.I)
_NUMBER = re.compile(r"^\d{1,3}$")
_JOINERS = " \t-_:：·,，、/()（）[]【】"


def chain_level(key: object) -> str | None:
    """A reasoning-chain key in the format's spelling ("p", "2-step"), or None when it is not one:
    "p", "1-step", "1step", "step 2", "2步", and the release's "p-N" (the N-th level: "p-1" is
    "p", "p-2" is "1-step")."""
    if not isinstance(key, str):
        return None
    text = unicodedata.normalize("NFKC", key).strip()
    if (m := _LETTER_LEVEL.match(text)) and m.group(1).lower() == "p":
        n = int(m.group(2))
        return None if n < 1 else "p" if n == 1 else f"{n - 1}-step"
    m = _LEVEL.match(text)
    if not m:
        return None
    if m.group(1):
        return "p"
    n = int(m.group(2) or m.group(3))
    return f"{n}-step" if n >= 1 else None


def level_depth(level: str) -> int:
    """The depth of a chain level in the format's spelling: "p" 1, "N-step" N + 1."""
    return 1 if level == "p" else int(level.split("-")[0]) + 1


@dataclass(frozen=True)
class Depth:
    """What a `source` says: the depth (or "unknown"), the form it was written in (for the
    report) and the character it names, when it names one."""

    depth: int | str
    form: str
    role: str | None = None
    why: str = ""  # why the depth is unknown


def _unknown(form: str, why: str, role: str | None = None) -> Depth:
    return Depth(UNKNOWN_DEPTH, form, role, why)


def _plain_depth(text: str) -> Depth | None:
    """A source without a character's name in it; None when the text is no notation at all."""
    if not text:
        return None
    if _NUMBER.match(text):
        return _level(int(text), "N")
    if m := _LETTER_LEVEL.match(text):
        return _level(int(m.group(2)), f"{m.group(1).lower()}-N")
    if m := _LETTER_PLACEHOLDER.match(text):
        form = f"{m.group(1).lower()}-{m.group(2).lower()}"
        return _unknown(form, f"the level is written {m.group(2)!r}, not a number")
    level = chain_level(text)
    if level is not None:
        return Depth(level_depth(level), "p" if level == "p" else "N-step")
    if len(text) == 1 and text.isascii() and text.isalpha():
        return _unknown(text.lower(), f"{text!r} names no level (the release does not say what it means)")
    return None


def _level(n: int, form: str) -> Depth:
    if n < 1:
        return _unknown(form, f"level {n}: levels start at 1")
    if n > MAX_IMPORTED_HOPS:
        return _unknown(form, f"level {n} is deeper than {MAX_IMPORTED_HOPS}; surely not a depth")
    return Depth(n, form)


def depth_of(source: object, roles: Sequence[str] = ()) -> Depth:
    """The reasoning depth a question's `source` gives (see the notes above). A character's name
    joined with a notation ("林晓-p-2", "p-1林晓", "林晓2") gives that notation's depth; the name
    alone, a lone letter other than p ("l", "x"), a placeholder level ("p-n") or anything
    unrecognised gives "unknown"."""
    if source is None:
        return _unknown("missing", "no source")
    if isinstance(source, bool) or not isinstance(source, (str, int)):
        return _unknown("not text", f"a JSON {type(source).__name__}")
    if isinstance(source, int):
        return _level(source, "N")
    text = unicodedata.normalize("NFKC", source).strip()
    if not text:
        return _unknown("missing", "blank")
    plain = _plain_depth(text)
    if plain is not None:
        return plain
    name, rest = _split_name(text, roles)
    if name is not None:
        if not rest:
            return _unknown("name", "a character's name with no level", name)
        inner = _plain_depth(rest)
        if inner is not None:
            return Depth(inner.depth, f"name+{inner.form}", name, inner.why)
        return _unknown("name+?", f"{rest!r} after the name is no level", name)
    return _unknown("unrecognised", "not a notation the release is known to use")


def _split_name(text: str, roles: Sequence[str]) -> tuple[str | None, str]:
    """(the role named in `text`, the rest: the notation joined to the name), the longest name
    first. A word before the name that is no notation is a title ("管家王伯-r-1" is 王伯, r-1)."""
    folded = unicodedata.normalize("NFKC", text)
    if len(folded) > 200:  # no source is this long; spare the search
        return None, text
    for role in sorted(roles, key=lambda r: -len(name_key(r))):
        span = _find_name(folded, name_key(role))
        if span is None:
            continue
        left, right = folded[:span[0]].strip(_JOINERS), folded[span[1]:].strip(_JOINERS)
        if not right:
            return role, left  # "p-1 林晓", or the name alone
        if not left or _plain_depth(left) is None:
            return role, right  # "林晓-p-2", "管家王伯-r-1"
        return role, f"{left} {right}"  # a notation on both sides: none is read
    return None, text


def _find_name(text: str, key: str) -> tuple[int, int] | None:
    """Where in `text` a name with this `name_key` is written (spacing, width, case and name
    dots ignored), or None."""
    if not key or key not in name_key(text):
        return None
    for i in range(len(text)):
        for j in range(i + 1, len(text) + 1):
            if name_key(text[i:j]) == key:
                return i, j
    return None


# ---- names -----------------------------------------------------------------------------------

_NAME_NOISE = re.compile(r"[\s·・•‧.\-_]+")


def name_key(name: str) -> str:
    """A name for matching: width, case, spaces and name dots ignored (李 明 = 李明, Ｌｉ = li)."""
    return _NAME_NOISE.sub("", unicodedata.normalize("NFKC", name)).casefold()
