"""One WhodunitBench release script (`env_p_all.json` and `img/`) as a script of this project's
format: a dict for `script.json`, the image files to write beside it, and the report of every
item dropped or repaired. Nothing is written here (see command.py).

Take what is sound, repair only what is unambiguous, refuse (`Refused`) only what cannot be
played: no role, or no murderer among the roles. The mapping is documented in
docs/script-format.md ("Importing WhodunitBench")."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..scripts.script import LETTERS, UNKNOWN_DEPTH, ImageKind
from .media import read_image
from .parse import (
    Depth,
    Unreadable,
    chain_level,
    depth_of,
    level_depth,
    name_key,
    parse_answer,
    parse_question,
    same_text,
)
from .report import ImportReport, Refused

__all__ = ["RELEASE_FILE", "Conversion", "convert"]

RELEASE_FILE = "env_p_all.json"
IMAGE_FOLDER = "img"
MAX_RELEASE_BYTES = 50 * 1024 * 1024
# keys the mapping reads; any other top-level key is reported as ignored
KNOWN_KEYS = frozenset({"ju_name", "task_nm", "task_m", "public_clue", "role", "murder", "reason", "key_role",
                        "key_clues_pool", "key_clues_questions", "key_clue_q", "ei_q", "cxi_q", "role-q"})
_QUESTION_KEYS = ("q", "key_q", "question")
_ANSWER_KEYS = ("ans", "key_ans", "a", "answer")
_SOURCE_KEYS = ("source", "key_sc")  # key_clue_q gives its sources as key_sc
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_NAME_LIST = re.compile(r"[,，、;；/\n]+")


@dataclass
class Conversion:
    script: dict[str, Any] | None  # None when refused
    images: dict[str, bytes]  # file name in the script folder -> bytes
    report: ImportReport


@dataclass
class _Role:
    index: int
    name: str
    script: str | None
    introduction: str | None
    flag: bool | None  # the release's `m`; None when missing
    dropped: str | None = None  # why it cannot be played, when it cannot


@dataclass
class _Asked:
    """One question as the release gives it, before parsing."""

    key: str
    question: object
    answer: object
    source: object = None


@dataclass
class _Kept:
    """A question taken, with the repairs its reading needed (reported once it is sure to stay)."""

    key: str
    item: dict[str, Any]
    repairs: tuple[str, ...] = ()


@dataclass
class _QuestionSet:
    """Parsed questions of one set, one per question text (the validator refuses repeats)."""

    name: str  # "LSU", "TIU", ...
    items: dict[str, _Kept] = field(default_factory=dict)  # text -> the copy kept
    conflicted: dict[str, str] = field(default_factory=dict)  # text -> the first copy's key

    @property
    def kind(self) -> str:
        return self.name.lower()

    def values(self) -> list[dict[str, Any]]:
        return [k.item for k in self.items.values()]


# ---- reading ---------------------------------------------------------------------------------

def _read(path: Path, report: ImportReport) -> dict[str, Any]:
    file = str(path)
    if path.stat().st_size > MAX_RELEASE_BYTES:
        raise Refused(file, "", f"larger than {MAX_RELEASE_BYTES // (1024 * 1024)} MB")
    try:
        data = json.loads(path.read_bytes().decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise Refused(file, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise Refused(file, "", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise Refused(file, "", "JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise Refused(file, "", f"expected a JSON object, got a JSON {type(data).__name__}")
    count = [0]
    data = _scrub(data, count)
    if count[0]:  # "\ud800" escapes decode to text that cannot be written as UTF-8
        report.repair("", f"text: {count[0]} lone surrogate escape(s) replaced by U+FFFD")
    return data


def _scrub(value: Any, count: list[int]) -> Any:
    if isinstance(value, str):
        clean, n = _SURROGATE.subn("\ufffd", value)
        count[0] += n
        return clean
    if isinstance(value, list):
        return [_scrub(v, count) for v in value]
    if isinstance(value, dict):
        return {_scrub(k, count): _scrub(v, count) for k, v in value.items()}
    return value


def _text(value: Any, key: str, report: ImportReport) -> str | None:
    """A text field: a non-blank string as it is (never trimmed); a list of strings joined by
    blank lines (reported); anything else is missing (reported when present but not text)."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        joined = "\n\n".join(v for v in value if v.strip())
        if joined:
            report.repair(key, f"text: a list of {len(value)} strings; joined with blank lines")
            return joined
        return None
    if value is not None:
        report.drop(key, f"not text (a JSON {type(value).__name__})")
    return None


def _first(record: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, Any]:
    for k in keys:
        if k in record:
            return k, record[k]
    return keys[0], None


# ---- roles and names -------------------------------------------------------------------------

def _flag(value: Any) -> bool | None:
    if value in (1, "1", True):
        return True
    if value in (0, "0", False):
        return False
    return None


def _roles(data: dict[str, Any], file: str, report: ImportReport) -> list[_Role]:
    raw = data.get("role")
    if not isinstance(raw, list) or not raw:
        raise Refused(file, "role", "no roles: the script cannot be played" if raw in (None, [])
                      else f"expected a list of roles, got a JSON {type(raw).__name__}")
    roles: list[_Role] = []
    seen: dict[str, _Role] = {}
    for i, entry in enumerate(raw):
        key = f"role[{i}]"
        if not isinstance(entry, dict):
            report.drop(key, f"role: not an object (a JSON {type(entry).__name__})")
            continue
        name = entry.get("name").strip() if isinstance(entry.get("name"), str) else ""
        if not name:
            report.drop(key, "role: no name; the role and its questions left out")
            continue
        if "m" in entry and _flag(entry["m"]) is None:
            report.drop(f"{key}.m", f"not 0 or 1 ({entry['m']!r}); read as not given")
        role = _Role(i, name, _text(entry.get("back"), f"{key}.back", report),
                     _text(entry.get("self"), f"{key}.self", report), _flag(entry.get("m")))
        if role.script is None:
            role.dropped = "no private script ('back')"
        elif len(name) > 80:
            role.dropped = "name longer than 80 characters"
        elif name_key(name) in seen:
            role.dropped = f"same name as role[{seen[name_key(name)].index}] ({seen[name_key(name)].name!r})"
        if role.dropped:
            report.drop(key, f"role: {role.dropped}; the role and its questions left out")
        else:
            seen[name_key(name)] = role
        roles.append(role)
    if not any(r.dropped is None for r in roles):
        raise Refused(file, "role", "no playable role (each lacks a name or a private script)")
    return roles


def _resolve(name: str, roles: list[_Role]) -> tuple[_Role | None, str]:
    """The role a name in another field means, and how it was matched ("" when spelt the same):
    spacing, width and case ignored, then a title before the name ("管家王五" is 王五)."""
    exact = [r for r in roles if r.name == name.strip()]
    if exact:
        return exact[0], ""
    key = name_key(name)
    same = [r for r in roles if name_key(r.name) == key]
    if len(same) == 1:
        return same[0], "spelt with other spacing, width or case"
    titled = [r for r in roles if len(k := name_key(r.name)) >= 2 and key != k
              and (key.endswith(k) or k.endswith(key) and len(key) >= 2)]
    if len(titled) == 1:
        return titled[0], "a title before the name"
    return None, ""


def _murderer(data: dict[str, Any], roles: list[_Role], file: str, report: ImportReport) -> _Role:
    playable = [r for r in roles if r.dropped is None]
    flagged = [r for r in playable if r.flag]
    names = ", ".join(r.name for r in playable)
    murder = data.get("murder")
    if isinstance(murder, str) and murder.strip():
        role, how = _resolve(murder, roles)
        if role is None:
            raise Refused(file, "murder", f"murderer {murder!r} is not among the roles ({names})")
        if role.dropped:
            raise Refused(file, "murder", f"murderer {murder!r} is role[{role.index}], which cannot be played: "
                                          f"{role.dropped}")
        if how:
            report.repair("murder", f"name: {murder!r} read as role {role.name!r} ({how})")
        other = next((r for r in flagged if r is not role), None)
        if other is not None:
            raise Refused(file, f"role[{other.index}].m", f"flags {other.name!r} as the murderer but murder names "
                                                          f"{role.name!r}: the murderer is ambiguous")
        if role.flag is False:
            raise Refused(file, f"role[{role.index}].m", f"is 0 but murder names {role.name!r}: the murderer is "
                                                         "ambiguous")
        return role
    if murder is not None:
        report.drop("murder", f"not a name ({murder!r})")
    if len(flagged) == 1:
        report.repair("murder", f"murder: missing; the one role flagged m = 1 ({flagged[0].name!r}) taken")
        return flagged[0]
    if not flagged:
        raise Refused(file, "murder", f"missing, and no role is flagged m = 1: no murderer among the roles ({names})")
    raise Refused(file, "murder", f"missing, and {len(flagged)} roles are flagged m = 1 "
                                  f"({', '.join(r.name for r in flagged)})")


def _key_roles(data: dict[str, Any], roles: list[_Role], report: ImportReport) -> list[str]:
    raw = data.get("key_role")
    if raw is None:
        report.note("key_role", "missing: no key roles (the ITD metric has nothing to count)")
        return []
    if isinstance(raw, str):
        raw = [n for n in _NAME_LIST.split(raw) if n.strip()]
        report.repair("key_role", f"names: one string; split into {len(raw)} name(s)")
    if not isinstance(raw, list):
        report.drop("key_role", f"not a list of names (a JSON {type(raw).__name__})")
        return []
    out: list[str] = []
    for i, name in enumerate(raw):
        key = f"key_role[{i}]"
        role, how = _resolve(name, roles) if isinstance(name, str) and name.strip() else (None, "")
        if role is None or role.dropped:
            why = "not a name" if not isinstance(name, str) else (
                f"{name!r} is not among the roles" if role is None else f"{name!r} is a role left out ({role.dropped})")
            report.drop(key, why)
        elif role.name in out:
            report.drop(key, f"{role.name!r} is listed twice")
        else:
            if how:
                report.repair(key, f"name: {name!r} read as role {role.name!r} ({how})")
            out.append(role.name)
    return out


# ---- the reasoning chain and the characters' clues ----------------------------------------------

@dataclass
class _Pool:
    chain: dict[str, list[str]] = field(default_factory=dict)  # level -> statements
    clues: dict[str, list[str]] = field(default_factory=dict)  # role name -> its key clue statements


def _pool_role(raw_key: str, roles: list[_Role]) -> tuple[_Role | None, str]:
    """The role a pool key names ("林晓", "管家 林晓", "林晓-p-1"), and how it was matched."""
    role, how = _resolve(raw_key, roles)
    if role is not None:
        return role, how
    named = depth_of(raw_key, [r.name for r in roles]).role
    if named is not None:
        return next(r for r in roles if r.name == named), "a character's name joined with a level"
    return None, ""


def _statements(statements: Any, key: str, report: ImportReport) -> list[str]:
    if isinstance(statements, str):
        statements = [statements]
        report.repair(key, "statements: one string; read as a list of one", "clues")
    if not isinstance(statements, list):
        report.drop(key, f"not a list of statements (a JSON {type(statements).__name__})", "clues")
        return []
    out = []
    for j, text in enumerate(statements):
        if isinstance(text, str) and text.strip():
            out.append(text)
        else:
            report.drop(f"{key}[{j}]", "blank or not text", "clues")
    return out


def _chain(data: dict[str, Any], roles: list[_Role], report: ImportReport) -> _Pool:
    """`key_clues_pool`: a key that is a level ("p", "1-step", "p-2") holds that level of the
    reasoning chain; a key that names a character holds the clues that character's script
    contains (its `clues`, what SPC counts)."""
    pool = data.get("key_clues_pool")
    found = _Pool()
    if not isinstance(pool, dict) or not pool:
        report.note("key_clues_pool", "missing or empty: the reasoning chain is empty (allowed for an imported "
                                      "script)" if pool in (None, {}) else f"not an object ({type(pool).__name__}); "
                                      "the reasoning chain is empty")
        return found
    for raw_key, statements in pool.items():
        key = f"key_clues_pool.{raw_key}"
        level = chain_level(raw_key)
        if level is not None:
            if level != raw_key:
                report.repair(key, f"level: {raw_key!r} read as {level!r}", "clues")
            found.chain.setdefault(level, []).extend(_statements(statements, key, report))
            continue
        role, how = _pool_role(raw_key, roles)
        if role is None:
            n = len(statements) if isinstance(statements, list) else 1
            report.drop(key, f"{raw_key!r} is neither a reasoning depth ('p', '1-step', 'p-2', ...) nor a "
                             "character's name", "clues", items=n)
            continue
        if role.dropped:
            n = len(statements) if isinstance(statements, list) else 1
            report.drop(key, f"clues of {raw_key!r}, a role left out ({role.dropped})", "clues", items=n)
            continue
        if how:
            report.repair(key, f"name: {raw_key!r} read as role {role.name!r} ({how})", "clues")
        have = found.clues.setdefault(role.name, [])
        seen = {same_text(c) for c in have}
        for j, text in enumerate(_statements(statements, key, report)):
            if same_text(text) in seen:
                report.merge(f"{key}[{j}]", f"exact copy: a clue of {role.name!r} listed before; kept once", "clues")
                continue
            seen.add(same_text(text))
            have.append(text)
    if found.clues:
        report.note("key_clues_pool", f"pools keyed by a character's name are that character's clues (SPC counts "
                                      f"them): {', '.join(f'{n} ({len(c)})' for n, c in found.clues.items())}")
    chain = found.chain
    order = sorted(chain, key=level_depth)
    found.chain = chain = {k: chain[k] for k in order if chain[k]}
    depth = max((int(k.split("-")[0]) for k in chain if k != "p"), default=0)
    gaps = [f"{n}-step" for n in range(1, depth) if f"{n}-step" not in chain]
    gaps = (["p"] if chain and "p" not in chain else []) + gaps
    if gaps:
        report.note("key_clues_pool", f"no {', '.join(repr(g) for g in gaps)} level: kept as given (allowed for "
                                      "an imported script)")
    return found


# ---- questions -------------------------------------------------------------------------------

def _source(record: dict[str, Any]) -> Any:
    return _first(record, _SOURCE_KEYS)[1]


def _from_records(value: Any, key: str, report: ImportReport, kind: str, with_source: bool = False) -> list[_Asked]:
    """[{q, ans(, source | key_sc)}, ...]"""
    if value is None:
        return []
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        report.drop(key, f"not a list of questions (a JSON {type(value).__name__})", kind)
        return []
    out = []
    for i, record in enumerate(value):
        if not isinstance(record, dict):
            report.drop(f"{key}[{i}]", f"question: not an object (a JSON {type(record).__name__})", kind)
            continue
        q_key, question = _first(record, _QUESTION_KEYS)
        a_key, answer = _first(record, _ANSWER_KEYS)
        if isinstance(question, list) or isinstance(answer, list):  # parallel lists inside a record
            out += _from_lists(record, f"{key}[{i}]", report, kind, with_source)
            continue
        out.append(_Asked(f"{key}[{i}]", question, answer, _source(record)))
    return out


def _from_lists(record: dict[str, Any], key: str, report: ImportReport, kind: str,
                with_source: bool = False) -> list[_Asked]:
    """{q: [...], ans: [...](, source | key_sc: [...])}: parallel lists, paired by position only
    when their lengths agree (otherwise which answer belongs to which question is unknown)."""
    q_key, questions = _first(record, _QUESTION_KEYS)
    a_key, answers = _first(record, _ANSWER_KEYS)
    if questions is None and answers is None:
        return []
    lists = {q_key: questions, a_key: answers}
    s_key, sources = _first(record, _SOURCE_KEYS)
    if with_source and sources is not None:  # without it each question is read with no source
        lists[s_key] = sources
    lists = {k: ([v] if isinstance(v, str) else v) for k, v in lists.items()}
    bad = [k for k, v in lists.items() if not isinstance(v, list)]
    lengths = {k: len(v) for k, v in lists.items() if isinstance(v, list)}
    if bad or len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        why = f"{', '.join(bad)} missing or not a list" if bad else f"lists of different lengths ({shown})"
        count = max(lengths.values(), default=0)
        report.drop(f"{key}.{q_key}", f"{count} question(s) left out: {why}; which answer goes with which "
                                      "question is unknown", kind, items=max(count, 1))
        return []
    given = lists.get(s_key) or [None] * len(lists[q_key])
    return [_Asked(f"{key}.{q_key}[{i}]", q, a, src)
            for i, (q, a, src) in enumerate(zip(lists[q_key], lists[a_key], given, strict=True))]


Extra = Callable[[_Asked], dict[str, Any]]  # set-specific fields (role, hops)


def _correct(item: dict[str, Any]) -> str:
    return same_text(item["options"][item["answer"]])


def _agreement(first: dict[str, Any], later: dict[str, Any]) -> str | None:
    """How a later copy of a question differs from the kept one when both give the same correct
    answer text; None when the correct answers differ (a genuine conflict)."""
    if _correct(first) != _correct(later):
        return None
    if first["options"] == later["options"] and first["answer"] == later["answer"]:
        return "exact copy"
    if sorted(map(same_text, first["options"].values())) == sorted(map(same_text, later["options"].values())):
        return "reshuffled options"
    return "different wrong options"


def _collect(asked: list[_Asked], into: _QuestionSet, report: ImportReport, extra: Extra,
             merge_extra: Callable[[_Kept, _Asked, dict[str, Any]], str] | None = None) -> None:
    """Parse each question into the set, one per question text. A later copy that gives the same
    correct answer (its options the same, reshuffled or with other wrong ones) is merged into the
    first; copies whose correct answers differ are both left out, and any further copy with them."""
    kind = into.kind
    for a in asked:
        try:
            parsed = parse_question(a.question)
            answer = parse_answer(a.answer, parsed.options)
        except Unreadable as exc:
            report.drop(a.key, str(exc), kind)
            continue
        item = {"question": parsed.stem, "options": parsed.options, "answer": answer.letter} | extra(a)
        text = same_text(parsed.stem)
        if text in into.conflicted:
            report.drop(a.key, f"same question as {into.conflicted[text]}, whose copies give different correct "
                               "answers", kind)
            continue
        earlier = into.items.get(text)
        if earlier is None:
            into.items[text] = _Kept(a.key, item, (*parsed.repairs, *answer.repairs))
            continue
        how = _agreement(earlier.item, item)
        if how is None:
            del into.items[text]
            into.conflicted[text] = earlier.key
            why = (f"{earlier.key} and {a.key} ask the same {into.name} question with different correct answers "
                   f"({earlier.item['options'][earlier.item['answer']]!r} and {item['options'][item['answer']]!r})")
            report.drop(earlier.key, why, kind)
            report.drop(a.key, why, kind)
            continue
        more = merge_extra(earlier, a, item) if merge_extra else ""
        report.merge(a.key, f"{how}: same question and correct answer as {earlier.key}; kept once{more}", kind)
    for kept in into.items.values():  # repairs of what stays (a dropped or merged copy is not imported)
        for repair in kept.repairs:
            report.repair(kept.key, repair, kind)


def _role_questions(entry: Any) -> int:
    """How many questions a release role lists (r_q and q), for counting a dropped role's."""
    if not isinstance(entry, dict):
        return 0
    n = 0
    for k in ("r_q", "q"):
        v = entry.get(k)
        n += len(v) if isinstance(v, list) else int(v is not None)
    return n


def _lsu(roles: list[_Role], raw_roles: list[Any], report: ImportReport) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    playable = {r.index: r for r in roles if not r.dropped}
    for index, entry in enumerate(raw_roles):
        key = f"role[{index}]"
        role = playable.get(index)
        if role is None:  # left out (reported with the role): its questions go with it
            if n := _role_questions(entry):
                report.drop(f"{key}.q", f"{n} question(s) of a role left out", "lsu", items=n)
            continue
        asked = _from_records(entry.get("r_q"), f"{key}.r_q", report, "lsu")
        both = bool(asked) and ("q" in entry or "a" in entry)
        asked += _from_lists({k: entry[k] for k in ("q", "a") if k in entry}, key, report, "lsu")
        if not asked:
            report.note(key, f"role {role.name!r}: no questions (neither r_q nor q/a)")
        questions = _QuestionSet("LSU")
        _collect(asked, questions, report, lambda _a, name=role.name: {"role": name})
        if both:
            report.note(key, f"role {role.name!r}: r_q and q/a both given; {len(questions.items)} distinct "
                             "question(s) kept, each once")
        out += questions.values()
    return out


def _mmr(data: dict[str, Any], roles: list[_Role], report: ImportReport) -> list[dict[str, Any]]:
    asked = _from_records(data.get("key_clues_questions"), "key_clues_questions", report, "mmr", with_source=True)
    lists = data.get("key_clue_q")
    if isinstance(lists, dict):
        asked += _from_lists(lists, "key_clue_q", report, "mmr", with_source=True)
    elif lists is not None:
        asked += _from_records(lists, "key_clue_q", report, "mmr", with_source=True)
    names = [r.name for r in roles if not r.dropped]
    read: dict[str, Depth] = {}  # question key -> what its source says
    unknown_why: dict[str, str] = {}  # kept question key -> why its depth is unknown

    def depth(a: _Asked) -> dict[str, Any]:
        read[a.key] = found = depth_of(a.source, names)
        if found.depth == UNKNOWN_DEPTH:
            unknown_why[a.key] = f"source {a.source!r} ({found.form}): {found.why}"
        return {"hops": found.depth}

    def reconcile(kept: _Kept, a: _Asked, later: dict[str, Any]) -> str:
        first, other = kept.item["hops"], later["hops"]
        if first == other or other == UNKNOWN_DEPTH:
            return ""
        if first == UNKNOWN_DEPTH:
            kept.item["hops"] = other
            unknown_why.pop(kept.key, None)
            return f"; depth {other} from this copy's source {a.source!r} (the kept copy's gives none)"
        kept.item["hops"] = UNKNOWN_DEPTH
        unknown_why[kept.key] = f"its copies give depths {first} and {other}"
        return f"; the copies give depths {first} and {other}, so its depth is unknown"

    questions = _QuestionSet("MMR")
    _collect(asked, questions, report, depth, reconcile)
    for kept in questions.items.values():
        if kept.item["hops"] == UNKNOWN_DEPTH:
            report.note(kept.key, f"depth unknown, kept (MMR counts it in its total and in a row of its own): "
                                  f"{unknown_why.get(kept.key, 'no source')}")
    if read:
        forms = Counter(d.form for d in read.values())
        unknown = sum(d.depth == UNKNOWN_DEPTH for d in read.values())
        report.note("key_clues_questions", "source notations read (docs/script-format.md, 'Reasoning depth'): "
                                           + ", ".join(f"{form!r} x{n}" for form, n in forms.most_common())
                                           + f"; {unknown} of {len(read)} give no depth")
    return questions.values()


def _image_questions(data: dict[str, Any], part: str, key: str, has_images: bool,
                     report: ImportReport) -> list[dict[str, Any]]:
    raw = data.get(key)
    asked = (_from_lists(raw, key, report, part) if isinstance(raw, dict) else
             _from_records(raw, key, report, part))
    if asked and not has_images:
        for a in asked:
            report.drop(a.key, "no image in img/ to ask about", part)
        return []
    questions = _QuestionSet(part.upper())
    _collect(asked, questions, report, lambda _a: {})  # no image id: about the whole img/ folder
    return questions.values()


# ---- images ----------------------------------------------------------------------------------

def _images(folder: Path, kind: ImageKind, report: ImportReport) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
    img = folder / IMAGE_FOLDER
    if not img.is_dir():
        report.note(IMAGE_FOLDER, "no img/ folder: the script has no image clues")
        return [], {}
    clues: list[dict[str, Any]] = []
    files: dict[str, bytes] = {}
    for path in sorted(img.iterdir(), key=lambda p: (p.name.casefold(), p.name)):
        key = f"{IMAGE_FOLDER}/{path.name}"
        if not path.is_file():
            report.drop(key, "not a file (only the files directly in img/ are read)")
            continue
        try:
            image = read_image(path)
        except (OSError, ValueError) as exc:
            report.drop(key, f"image: {exc}")
            continue
        clue_id = f"img-{len(clues) + 1:02d}"
        file = clue_id + image.suffix
        if image.repair:
            report.repair(key, f"image: {image.repair}")
        clues.append({"id": clue_id, "file": file, "caption": path.name, "kind": kind})
        files[file] = image.data
    if clues:
        report.note(IMAGE_FOLDER, f"{len(clues)} image clue(s) img-01.. from img/ in name order; the release has "
                                  "no captions, so each caption is the image's file name; text-rich or "
                                  f"media-rich is not given, every image marked {kind} (--image-kind)")
    return clues, files


# ---- the whole script ------------------------------------------------------------------------

def convert(folder: Path, script_id: str, *, source: str, image_kind: ImageKind = "media-rich") -> Conversion:
    """The release script in `folder` as a script dict, its images and the report. `source` is how
    the report and the script name the release file (relative to the folder the import was given)."""
    report = ImportReport(source=source, script_id=script_id)
    path = folder / RELEASE_FILE
    try:
        return _convert(folder, path, script_id, source, image_kind, report)
    except Refused as exc:
        report.status, report.refused = "refused", str(exc)
        return Conversion(None, {}, report)


def _convert(folder: Path, path: Path, script_id: str, source: str, image_kind: ImageKind,
             report: ImportReport) -> Conversion:
    data = _read(path, report)
    file = str(path)
    roles = _roles(data, file, report)
    murderer = _murderer(data, roles, file, report)
    playable = [r for r in roles if r.dropped is None]
    if len(playable) < 2:
        raise Refused(file, "role", f"one playable role ({playable[0].name!r}): a game needs two or more")
    if not 4 <= len(playable) <= 7:
        report.note("role", f"{len(playable)} characters: the arena seats 4-7, so the script validates and its "
                            "questions run as a quiz, but no arena match can be set on it")
    title = _text(data.get("ju_name"), "ju_name", report)
    if title is None:
        title = folder.name
        report.repair("ju_name", f"title: missing; the folder name {title!r} used")
    report.title = title = title.strip()
    background = _text(data.get("public_clue"), "public_clue", report)
    tasks = {"murderer": _text(data.get("task_m"), "task_m", report),
             "others": _text(data.get("task_nm"), "task_nm", report)}
    account = _text(data.get("reason"), "reason", report)
    clues, files = _images(folder, image_kind, report)
    pool = _chain(data, roles, report)
    script: dict[str, Any] = {
        "id": script_id, "title": title, "language": "zh",
        **({"background": background} if background else {}),
        "roles": [{"name": r.name, **({"introduction": r.introduction} if r.introduction else {}),
                   "script": r.script, "murderer": r is murderer,
                   **({"clues": pool.clues[r.name]} if pool.clues.get(r.name) else {})} for r in playable],
        "image_clues": clues,
        "reasoning_chain": pool.chain,
        "key_roles": _key_roles(data, roles, report),
        "truth": {"murderer": murderer.name, **({"account": account} if account else {})},
        "tasks": {k: v for k, v in tasks.items() if v},
        "questions": {"lsu": _lsu(roles, data["role"], report),
                      "tiu": _image_questions(data, "tiu", "ei_q", bool(clues), report),
                      "miu": _image_questions(data, "miu", "cxi_q", bool(clues), report),
                      "mmr": _mmr(data, roles, report)},
        "imported": {"source": "whodunitbench", "file": source},
    }
    _notes(data, roles, background, tasks, account, report)
    q = script["questions"]
    statements = sum(len(v) for v in pool.chain.values())
    role_clues = sum(len(v) for v in pool.clues.values())
    report.counts = {"roles": len(playable), "image_clues": len(clues), **{k: len(v) for k, v in q.items()},
                     "chain_levels": len(script["reasoning_chain"]), "chain_statements": statements,
                     "role_clues": role_clues,
                     "chain_depth": max((int(k.split("-")[0]) for k in script["reasoning_chain"] if k != "p"),
                                        default=0)}
    fewer = {k: sum(len(x["options"]) < len(LETTERS) for x in v) for k, v in q.items()}
    report.tabulate({**{k: len(v) for k, v in q.items()}, "clues": statements + role_clues}, fewer,
                    sum(x["hops"] == UNKNOWN_DEPTH for x in q["mmr"]))
    return Conversion(script, files, report)


def _notes(data: dict[str, Any], roles: list[_Role], background: str | None, tasks: dict[str, str | None],
           account: str | None, report: ImportReport) -> None:
    """What the release lacks or holds that the format has no place for."""
    if background is None:
        report.note("public_clue", "missing: the script has no background (allowed for an imported script)")
    for k, side in (("task_m", "murderer"), ("task_nm", "others")):
        if tasks[side] is None:
            report.note(k, f"missing: no task for the {side} (allowed for an imported script)")
    if account is None:
        report.note("reason", "missing: the solution names the murderer only")
    for role in roles:
        entry = data["role"][role.index]
        if role.dropped:
            continue
        if role.introduction is None:
            report.note(f"role[{role.index}].self", f"missing: {role.name!r} has no public introduction")
        if isinstance(entry, dict) and "answer" in entry:
            report.drop(f"role[{role.index}].answer", "a stock reply when questioned: the format has no place "
                                                      "for one")
    if "role-q" in data:
        report.drop("role-q", "not mapped: the format has no question set for it")
    for k in data:
        if k not in KNOWN_KEYS:
            report.note(str(k), "not part of the release format; ignored")
