"""One WhodunitBench release script (`env_p_all.json` and `img/`) as a script of this project's
format: a dict for `script.json`, the image files to write beside it, and the report of every
item dropped or repaired. Nothing is written here (see command.py).

Take what is sound, repair only what is unambiguous, refuse (`Refused`) only what cannot be
played: no role, or no murderer among the roles. The mapping is documented in
docs/script-format.md ("Importing WhodunitBench")."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..script import ImageKind
from .media import read_image
from .parse import Unreadable, chain_level, hops_of, name_key, parse_answer, parse_question, same_text
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
class _QuestionSet:
    """Parsed questions of one set, one per question text (the validator refuses repeats)."""

    name: str
    items: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # text -> (key, item)
    conflicted: set[str] = field(default_factory=set)

    def values(self) -> list[dict[str, Any]]:
        return [item for _, item in self.items.values()]


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


# ---- the reasoning chain ---------------------------------------------------------------------

def _chain(data: dict[str, Any], report: ImportReport) -> dict[str, list[str]]:
    pool = data.get("key_clues_pool")
    if not isinstance(pool, dict) or not pool:
        report.note("key_clues_pool", "missing or empty: the reasoning chain is empty (allowed for an imported "
                                      "script)" if pool in (None, {}) else f"not an object ({type(pool).__name__}); "
                                      "the reasoning chain is empty")
        return {}
    chain: dict[str, list[str]] = {}
    for raw_key, statements in pool.items():
        key = f"key_clues_pool.{raw_key}"
        level = chain_level(raw_key)
        if level is None:
            report.drop(key, f"{raw_key!r} is not a reasoning depth ('p', '1-step', '2-step', ...)")
            continue
        if level != raw_key:
            report.repair(key, f"level: {raw_key!r} read as {level!r}")
        if isinstance(statements, str):
            statements = [statements]
            report.repair(key, "statements: one string; read as a list of one")
        if not isinstance(statements, list):
            report.drop(key, f"not a list of statements (a JSON {type(statements).__name__})")
            continue
        for j, s in enumerate(statements):
            if isinstance(s, str) and s.strip():
                chain.setdefault(level, []).append(s)
            else:
                report.drop(f"{key}[{j}]", "blank or not text")
    order = sorted(chain, key=lambda k: -1 if k == "p" else int(k.split("-")[0]))
    chain = {k: chain[k] for k in order}
    depth = max((int(k.split("-")[0]) for k in chain if k != "p"), default=0)
    gaps = [f"{n}-step" for n in range(1, depth) if f"{n}-step" not in chain]
    gaps = (["p"] if chain and "p" not in chain else []) + gaps
    if gaps:
        report.note("key_clues_pool", f"no {', '.join(repr(g) for g in gaps)} level: kept as given (allowed for "
                                      "an imported script)")
    return chain


# ---- questions -------------------------------------------------------------------------------

def _from_records(value: Any, key: str, report: ImportReport, with_source: bool = False) -> list[_Asked]:
    """[{q, ans(, source)}, ...]"""
    if value is None:
        return []
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        report.drop(key, f"not a list of questions (a JSON {type(value).__name__})")
        return []
    out = []
    for i, record in enumerate(value):
        if not isinstance(record, dict):
            report.drop(f"{key}[{i}]", f"question: not an object (a JSON {type(record).__name__})")
            continue
        q_key, question = _first(record, _QUESTION_KEYS)
        a_key, answer = _first(record, _ANSWER_KEYS)
        if isinstance(question, list) or isinstance(answer, list):  # parallel lists inside a record
            out += _from_lists(record, f"{key}[{i}]", report, with_source)
            continue
        out.append(_Asked(f"{key}[{i}]", question, answer, record.get("source")))
    return out


def _from_lists(record: dict[str, Any], key: str, report: ImportReport, with_source: bool = False) -> list[_Asked]:
    """{q: [...], ans: [...](, source: [...])}: parallel lists, paired by position only when their
    lengths agree (otherwise which answer belongs to which question is unknown)."""
    q_key, questions = _first(record, _QUESTION_KEYS)
    a_key, answers = _first(record, _ANSWER_KEYS)
    if questions is None and answers is None:
        return []
    lists = {q_key: questions, a_key: answers}
    if with_source and "source" in record:  # without it each question is read with no source
        lists["source"] = record["source"]
    lists = {k: ([v] if isinstance(v, str) else v) for k, v in lists.items()}
    bad = [k for k, v in lists.items() if not isinstance(v, list)]
    lengths = {k: len(v) for k, v in lists.items() if isinstance(v, list)}
    if bad or len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        why = f"{', '.join(bad)} missing or not a list" if bad else f"lists of different lengths ({shown})"
        count = max(lengths.values(), default=0)
        report.drop(f"{key}.{q_key}", f"{count} question(s) left out: {why}; which answer goes with which "
                                      "question is unknown")
        return []
    sources = lists.get("source") or [None] * len(lists[q_key])
    return [_Asked(f"{key}.{q_key}[{i}]", q, a, s)
            for i, (q, a, s) in enumerate(zip(lists[q_key], lists[a_key], sources, strict=True))]


Extra = Callable[[_Asked], tuple[dict[str, Any], tuple[str, ...]]]  # set-specific fields and their repairs


def _collect(asked: list[_Asked], into: _QuestionSet, report: ImportReport, extra: Extra) -> None:
    """Parse each question into the set; one per question text: a repeat that agrees is kept
    once, one that disagrees (other options, answer or hops) leaves both out."""
    for a in asked:
        try:
            parsed = parse_question(a.question)
            answer = parse_answer(a.answer, parsed.options)
        except Unreadable as exc:
            report.drop(a.key, str(exc))
            continue
        item = {"question": parsed.stem, "options": parsed.options, "answer": answer.letter}
        text = same_text(parsed.stem)
        try:
            more, more_repairs = extra(a)
        except Unreadable as exc:
            earlier = into.items.get(text)
            if not (earlier and {k: earlier[1][k] for k in item} == item):
                report.drop(a.key, str(exc))
            continue  # else the same question, already taken with what this copy lacks
        item |= more
        if text in into.conflicted:
            report.drop(a.key, f"same question text as an earlier {into.name} question that was left out")
            continue
        if text in into.items:
            first_key, first = into.items[text]
            if first != item:
                del into.items[text]
                into.conflicted.add(text)
                why = f"{first_key} and {a.key} ask the same question with different options, answer or hops"
                report.drop(first_key, why)
                report.drop(a.key, why)
            continue  # an agreeing copy (r_q and q/a both hold it): kept once
        into.items[text] = (a.key, item)
        for repair in (*parsed.repairs, *answer.repairs, *more_repairs):
            report.repair(a.key, repair)


def _lsu(roles: list[_Role], raw_roles: list[Any], report: ImportReport) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for role in roles:
        if role.dropped:
            continue  # its questions go with it (reported with the role)
        entry = raw_roles[role.index]
        key = f"role[{role.index}]"
        asked = _from_records(entry.get("r_q"), f"{key}.r_q", report)
        both = bool(asked) and ("q" in entry or "a" in entry)
        asked += _from_lists({k: entry[k] for k in ("q", "a") if k in entry}, key, report)
        if not asked:
            report.note(key, f"role {role.name!r}: no questions (neither r_q nor q/a)")
        questions = _QuestionSet("LSU")
        _collect(asked, questions, report, lambda _a, name=role.name: ({"role": name}, ()))
        if both:
            report.note(key, f"role {role.name!r}: r_q and q/a both given; {len(questions.items)} distinct "
                             "question(s) kept, each once")
        out += questions.values()
    return out


def _mmr(data: dict[str, Any], report: ImportReport) -> list[dict[str, Any]]:
    asked = _from_records(data.get("key_clues_questions"), "key_clues_questions", report, with_source=True)
    lists = data.get("key_clue_q")
    if isinstance(lists, dict):
        asked += _from_lists(lists, "key_clue_q", report, with_source=True)
    elif lists is not None:
        asked += _from_records(lists, "key_clue_q", report, with_source=True)
    questions = _QuestionSet("MMR")
    _collect(asked, questions, report, _hops)
    if any(a.source == "p" for a in asked):
        report.note("key_clues_questions", "source 'p' (a directly perceived clue) is given 1 hop, the lowest the "
                                           "format allows; 'N-step' is N hops")
    return questions.values()


def _hops(a: _Asked) -> tuple[dict[str, Any], tuple[str, ...]]:
    hops = hops_of(a.source)
    level = chain_level(a.source)
    return {"hops": hops}, ((f"source: {a.source!r} read as {level!r}",) if level != a.source else ())


def _image_questions(data: dict[str, Any], part: str, key: str, has_images: bool,
                     report: ImportReport) -> list[dict[str, Any]]:
    raw = data.get(key)
    asked = _from_lists(raw, key, report) if isinstance(raw, dict) else _from_records(raw, key, report)
    if asked and not has_images:
        for a in asked:
            report.drop(a.key, "no image in img/ to ask about")
        return []
    questions = _QuestionSet(part.upper())
    _collect(asked, questions, report, lambda _a: ({}, ()))  # no image id: about the whole img/ folder
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
    script: dict[str, Any] = {
        "id": script_id, "title": title, "language": "zh",
        **({"background": background} if background else {}),
        "roles": [{"name": r.name, **({"introduction": r.introduction} if r.introduction else {}),
                   "script": r.script, "murderer": r is murderer} for r in playable],
        "image_clues": clues,
        "reasoning_chain": _chain(data, report),
        "key_roles": _key_roles(data, roles, report),
        "truth": {"murderer": murderer.name, **({"account": account} if account else {})},
        "tasks": {k: v for k, v in tasks.items() if v},
        "questions": {"lsu": _lsu(roles, data["role"], report),
                      "tiu": _image_questions(data, "tiu", "ei_q", bool(clues), report),
                      "miu": _image_questions(data, "miu", "cxi_q", bool(clues), report),
                      "mmr": _mmr(data, report)},
        "imported": {"source": "whodunitbench", "file": source},
    }
    _notes(data, roles, background, tasks, account, report)
    q = script["questions"]
    report.counts = {"roles": len(playable), "image_clues": len(clues), **{k: len(v) for k, v in q.items()},
                     "chain_levels": len(script["reasoning_chain"]),
                     "chain_depth": max((int(k.split("-")[0]) for k in script["reasoning_chain"] if k != "p"),
                                        default=0)}
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
