"""Check script folders: every problem named with its file, its key and what is wrong.

`validate_script(folder)` lists the problems of one script, `load_script(folder)` returns the
`Script` or raises `ScriptError` listing them all, `validate_all(path)` checks a folder of
scripts, and `main(argv)` is the command line (`python -m space_app.games.mystery.scripts.validate [PATH]`)."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from PIL import Image
from pydantic import ValidationError

from ....images import canvas_problem
from ....safe_text import terminal_text
from ..pictures.drawings import DRAWINGS_FILE, load_drawings
from .problems import Problem, ScriptError, loc_key
from .script import CHAIN_KEY, LETTERS, MAX_HOPS, UNKNOWN_DEPTH, Script

CONTENT_DIR = Path(__file__).parents[1] / "content"
SCRIPT_FILE = "script.json"
MAX_SCRIPT_BYTES = 20 * 1024 * 1024  # room for very long role scripts, not for a hostile file
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")


def validate_script(folder: str | Path) -> list[Problem]:
    """Every problem of the script in `folder` (empty when it is fine)."""
    return _check(Path(folder))[1]


def load_script(folder: str | Path) -> Script:
    """The script in `folder`; raises ScriptError listing every problem when it has any."""
    script, problems = _check(Path(folder))
    if problems or script is None:
        raise ScriptError(str(folder), problems)
    return script


def script_folders(path: str | Path = CONTENT_DIR) -> list[Path]:
    """`path` itself when it holds a script.json (or images.json), else its sub-folders."""
    path = Path(path)
    if (path / SCRIPT_FILE).is_file() or (path / DRAWINGS_FILE).is_file() or not path.is_dir():
        return [path]
    return sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def validate_all(path: str | Path = CONTENT_DIR) -> dict[Path, list[Problem]]:
    """Problems per script folder under `path` (a script folder or a folder of them)."""
    path = Path(path)
    if not path.exists():
        return {path: [Problem(str(path), "", "no such file or folder")]}
    return {folder: validate_script(folder) for folder in script_folders(path)}


# ---- reading ---------------------------------------------------------------------------------

def _read(path: Path) -> tuple[Any, list[Problem]]:
    file = str(path)
    if not path.is_file():
        return None, [Problem(file, "", f"missing file: a script folder needs {SCRIPT_FILE}")]
    if path.stat().st_size > MAX_SCRIPT_BYTES:
        return None, [Problem(file, "", f"file is larger than {MAX_SCRIPT_BYTES // (1024 * 1024)} MB")]
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError as exc:
        return None, [Problem(file, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})")]
    except json.JSONDecodeError as exc:
        return None, [Problem(file, "", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")]
    except RecursionError:  # arrays in arrays thousands deep: no script is shaped so
        return None, [Problem(file, "", "JSON nested too deeply to be a script")]
    if not isinstance(data, dict):
        return None, [Problem(file, "", f"expected a JSON object, got {type(data).__name__}")]
    return data, []


def _link_problems(folder: Path) -> list[Problem]:
    """Every symbolic link in a script folder (the folder itself included): a script folder holds
    its own files, and a link could point the arena at any file on the machine."""
    links = [folder] if folder.is_symlink() else []
    if not links:
        for root, dirs, files in os.walk(folder):  # a linked folder is named, never entered
            links += [Path(root) / name for name in [*dirs, *files] if (Path(root) / name).is_symlink()]
    return [Problem(str(link), "", "a symbolic link: a script folder must hold its own files, so links are refused")
            for link in sorted(links)]


def _check(folder: Path) -> tuple[Script | None, list[Problem]]:
    links = _link_problems(folder)
    if links:
        return None, links
    path = folder / SCRIPT_FILE
    data, problems = _read(path)
    if data is None:
        return None, problems
    try:
        script = Script.model_validate(data)
    except ValidationError as exc:
        # cross-field checks need a well-shaped script; the shape problems come first
        return None, _shape_problems(str(path), exc, data) + _drawing_problems(folder, None)
    problems = [*_content_problems(script, folder, str(path)), *_drawing_problems(folder, script)]
    return (script if not problems else None), problems


# ---- shape (pydantic) ------------------------------------------------------------------------

def _shape_problems(file: str, exc: ValidationError, data: dict[str, Any]) -> list[Problem]:
    problems = []
    for err in exc.errors(include_url=False):
        loc = err["loc"]
        message = _wording(err)
        who = _role_named(data, loc)
        problems.append(Problem(file, loc_key(loc), f"{message}{who}"))
    return problems


def _wording(err: Any) -> str:
    kind, loc = err["type"], err["loc"]
    field = loc[-1] if loc else ""
    if kind == "missing":
        return f"required field '{field}' is missing"
    if kind == "extra_forbidden":
        return f"unknown field '{field}' (not part of the script format)"
    if kind == "literal_error" and field == "answer":
        return f"answer letter {err['input']!r} is not among its options A, B, C, D"
    if kind == "string_pattern_mismatch":
        if "a-z0-9" in str(err.get("ctx", {}).get("pattern", "")):
            return "must be 1-64 lower-case letters, digits, '-' or '_', starting with a letter or digit"
        return "must not be blank"
    if kind == "string_too_short":
        return "must not be empty"
    return str(err["msg"])


def _role_named(data: dict[str, Any], loc: tuple[Any, ...]) -> str:
    # "roles[2].script is missing" is easier to act on with the role's name beside it
    if len(loc) >= 2 and loc[0] == "roles" and isinstance(loc[1], int):
        roles = data.get("roles")
        if isinstance(roles, list) and loc[1] < len(roles) and isinstance(roles[loc[1]], dict):
            name = roles[loc[1]].get("name")
            if isinstance(name, str) and name.strip():
                return f" (role {name!r})"
    return ""


# ---- content (across fields) -----------------------------------------------------------------

def _content_problems(script: Script, folder: Path, file: str) -> list[Problem]:
    def p(key: str, message: str) -> Problem:
        return Problem(file, key, message)

    problems: list[Problem] = []
    if script.id != folder.name:
        problems.append(p("id", f"id {script.id!r} differs from its folder name {folder.name!r}"))
    names = [r.name for r in script.roles]
    problems += [p(f"roles[{i}].name", f"duplicate role name {r.name!r} (also roles[{j}])")
                 for i, j, r in _duplicates(script.roles, lambda r: r.name.casefold())]
    problems += _murderer_problems(script, names, p)
    problems += _required_unless_imported(script, p)
    seen: dict[str, str] = {}
    for kind, clues in (("text_clues", script.text_clues), ("image_clues", script.image_clues)):
        for i, clue in enumerate(clues):
            if clue.id in seen:
                problems.append(p(f"{kind}[{i}].id", f"duplicate clue id {clue.id!r} (also {seen[clue.id]})"))
            seen.setdefault(clue.id, f"{kind}[{i}]")
    problems += [p(f"image_clues[{i}].file", f"same file as image_clues[{j}]")
                 for i, j, _ in _duplicates(script.image_clues, lambda c: c.file)]
    for i, clue in enumerate(script.image_clues):
        message = _image_file_problem(folder, clue.file)
        if message:
            problems.append(p(f"image_clues[{i}].file", message))
    problems += _chain_problems(script, p)
    for i, name in enumerate(script.key_roles):
        if name not in names:
            problems.append(p(f"key_roles[{i}]", f"{name!r} is not among the roles ({', '.join(names)})"))
    problems += [p(f"key_roles[{i}]", f"{name!r} is listed twice") for i, _, name in _duplicates(script.key_roles)]
    problems += _question_problems(script, names, p)
    return problems


def _murderer_problems(script: Script, names: list[str], p: Any) -> list[Problem]:
    flagged = [r.name for r in script.roles if r.murderer]
    problems = []
    if not flagged:
        problems.append(p("roles", "no role is flagged \"murderer\": true; exactly one must be"))
    elif len(flagged) > 1:
        problems.append(p("roles", f"{len(flagged)} roles are flagged murderer ({', '.join(flagged)}); "
                                   "exactly one must be"))
    if script.truth.murderer not in names:
        problems.append(p("truth.murderer", f"murderer {script.truth.murderer!r} is not among the roles "
                                            f"({', '.join(names)})"))
    elif len(flagged) == 1 and flagged[0] != script.truth.murderer:
        problems.append(p("truth.murderer", f"{script.truth.murderer!r} disagrees with the role flagged "
                                            f"murderer ({flagged[0]!r})"))
    return problems


def _required_unless_imported(script: Script, p: Any) -> list[Problem]:
    """Fields the models leave optional so that an imported script can lack them (its source has
    nothing to put there): the project's own scripts must still give every one."""
    if script.imported is not None:
        return []
    missing = [key for key, value in (("background", script.background), ("tasks.murderer", script.tasks.murderer),
                                      ("tasks.others", script.tasks.others), ("truth.motive", script.truth.motive),
                                      ("truth.method", script.truth.method)) if value is None]
    missing += [f"roles[{i}].introduction" for i, r in enumerate(script.roles) if r.introduction is None]
    missing += [f"questions.{part}[{i}].image" for part in ("tiu", "miu")
                for i, q in enumerate(getattr(script.questions, part)) if q.image is None]
    problems = [p(key, f"required field '{key.rsplit('.', 1)[-1]}' is missing (only an imported script may "
                       "leave it out)") for key in missing]
    if script.truth.account is not None:
        problems.append(p("truth.account", "only an imported script tells its solution as one account; give "
                                           "motive and method"))
    return problems


def _image_file_problem(folder: Path, name: str) -> str:
    rel = PurePosixPath(name)
    if rel.is_absolute() or ".." in rel.parts or "\\" in name:
        return f"{name!r} must be a file name inside the script folder"
    if rel.suffix.lower() not in IMAGE_SUFFIXES:
        return f"{name!r} is not an image file ({', '.join(IMAGE_SUFFIXES)})"
    path = folder / rel
    if not path.resolve().is_relative_to(folder.resolve()):
        return f"{name!r} points outside the script folder"
    if not path.is_file():
        hint = ""
        if (folder / DRAWINGS_FILE).is_file():
            hint = "; generate it with python -m space_app.games.mystery.pictures.images"
        return f"missing image file {str(path)!r}{hint}"
    refused = canvas_problem(path)  # a huge canvas is refused from its header, before decoding
    if refused:
        return f"{name!r}: {refused}"
    try:
        with Image.open(path) as image:
            image.verify()
    except Exception as exc:  # noqa: BLE001 - any decoder failure means the same thing to the author
        return f"{name!r} is not a readable image ({type(exc).__name__})"
    return ""


def _chain_problems(script: Script, p: Any) -> list[Problem]:
    chain = script.reasoning_chain
    imported = script.imported is not None  # its source may lack a level, or the whole chain
    if not any(chain.values()) and not imported:
        return [p("reasoning_chain", "the reasoning chain is empty: list the key clue statements by depth")]
    problems = []
    for key, statements in chain.items():
        if not CHAIN_KEY.match(key):
            problems.append(p(f"reasoning_chain.{key}", "unknown level; use 'p', '1-step', '2-step', ..."))
        elif not statements:
            problems.append(p(f"reasoning_chain.{key}", "level has no clue statements"))
    if imported:
        return problems
    if "p" not in chain:
        problems.append(p("reasoning_chain", "no 'p' level (the directly perceived clues)"))
    for n in range(1, script.chain_depth):
        if f"{n}-step" not in chain:
            problems.append(p("reasoning_chain", f"'{script.chain_depth}-step' without '{n}-step'"))
    return problems


def _question_problems(script: Script, names: list[str], p: Any) -> list[Problem]:
    problems = []
    kinds = {c.id: c.kind for c in script.image_clues}
    want = {"tiu": "text-rich", "miu": "media-rich"}
    for i, q in enumerate(script.questions.lsu):
        if q.role not in names:
            problems.append(p(f"questions.lsu[{i}].role", f"unknown role {q.role!r} (roles: {', '.join(names)})"))
    for part in ("tiu", "miu"):
        for i, q in enumerate(getattr(script.questions, part)):
            if q.image is None:
                continue  # asked about the whole image set (imported scripts; checked above)
            if q.image not in kinds:
                problems.append(p(f"questions.{part}[{i}].image", f"unknown image clue {q.image!r}"))
            elif kinds[q.image] != want[part]:
                problems.append(p(f"questions.{part}[{i}].image",
                                  f"{part.upper()} asks about {want[part]} images; {q.image!r} is {kinds[q.image]}"))
    counters: dict[str, int] = {}
    for part, q in script.all_questions():
        i = counters[part] = counters.get(part, -1) + 1
        texts = [(letter, " ".join(text.casefold().split())) for letter, text in q.options.items()]
        for a in range(len(texts)):
            for b in range(a + 1, len(texts)):
                if texts[a][1] == texts[b][1]:
                    problems.append(p(f"questions.{part}[{i}].options",
                                      f"options {texts[a][0]} and {texts[b][0]} are the same"))
        letters = q.options.letters()
        if letters != list(LETTERS[:len(letters)]):  # a skipped letter: which option is meant is unclear
            problems.append(p(f"questions.{part}[{i}].options",
                              f"options {', '.join(letters)}: a letter is skipped (give A, B, then C, D)"))
        if q.answer not in letters:
            problems.append(p(f"questions.{part}[{i}].answer",
                              f"answer letter {q.answer!r} is not among its options {', '.join(letters)}"))
    problems += _depth_problems(script, p)
    for part in ("lsu", "tiu", "miu", "mmr"):
        items = getattr(script.questions, part)
        problems += [p(f"questions.{part}[{i}].question", f"same question as questions.{part}[{j}]")
                     for i, j, _ in _duplicates(items, _asks)]
    return problems


def _depth_problems(script: Script, p: Any) -> list[Problem]:
    """The project's own MMR questions are written to depths 1-5; only an imported one may be
    deeper or of unknown depth (its release's notation decides)."""
    if script.imported is not None:
        return []
    problems = []
    for i, q in enumerate(script.questions.mmr):
        if q.hops == UNKNOWN_DEPTH:
            problems.append(p(f"questions.mmr[{i}].hops", "depth 'unknown': only an imported script may leave a "
                                                         "question's depth unknown"))
        elif q.hops > MAX_HOPS:
            problems.append(p(f"questions.mmr[{i}].hops", f"{q.hops}: must be less than or equal to {MAX_HOPS} "
                                                         "(only an imported script may go deeper)"))
    return problems


def _drawing_problems(folder: Path, script: Script | None) -> list[Problem]:
    file = str(folder / DRAWINGS_FILE)
    try:
        drawings = load_drawings(folder)
    except json.JSONDecodeError as exc:
        return [Problem(file, "", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")]
    except ValidationError as exc:
        return [Problem(file, loc_key(e["loc"]), _wording(e)) for e in exc.errors(include_url=False)]
    except (OSError, ValueError) as exc:
        return [Problem(file, "", str(exc))]
    if drawings is None:
        return []
    problems = [Problem(file, f"drawings[{i}].file", f"{d.file!r} is drawn twice (also drawings[{j}])")
                for i, j, d in _duplicates(drawings.drawings, lambda d: d.file)]
    if script is not None:
        used = {c.file for c in script.image_clues}
        problems += [Problem(file, f"drawings[{i}].file", f"{d.file!r} is drawn but no image clue uses it")
                     for i, d in enumerate(drawings.drawings) if d.file not in used]
    return problems


# ---- helpers ---------------------------------------------------------------------------------

def _asks(q: Any) -> tuple[str, str, str]:
    """What a question asks, for spotting repeats: its role or image and its words."""
    return getattr(q, "role", ""), getattr(q, "image", ""), " ".join(q.question.casefold().split())


def _duplicates(items: Iterable[Any], key: Any = None) -> list[tuple[int, int, Any]]:
    """(index, index of its first occurrence, item) for every repeat."""
    seen: dict[Any, int] = {}
    found = []
    for i, item in enumerate(items):
        k = key(item) if key else item
        if k in seen:
            found.append((i, seen[k], item))
        else:
            seen[k] = i
    return found


# ---- command line ----------------------------------------------------------------------------

def summary(script: Script) -> str:
    q = script.questions
    return (f"{script.title!r} ({script.language}): {len(script.roles)} roles, {len(script.image_clues)} image clues, "
            f"{len(q.lsu)} LSU, {len(q.tiu)} TIU, {len(q.miu)} MIU, {len(q.mmr)} MMR, "
            f"chain depth {script.chain_depth}")


def main(argv: list[str] | None = None) -> int:
    """Print a report per script folder; 0 when every script is fine, 1 otherwise."""
    parser = argparse.ArgumentParser(prog="validate-scripts", description="Check murder-mystery script folders.")
    parser.add_argument("path", nargs="?", default=str(CONTENT_DIR),
                        help="a script folder or a folder of them (default: the shipped scripts)")
    args = parser.parse_args(argv)
    path = Path(args.path)
    if not path.exists():
        print(terminal_text(f"error: {path}: no such file or folder"))
        return 1
    folders = script_folders(path)
    failed = 0
    for folder in folders:
        script, problems = _check(folder)
        if script is not None and not problems:
            print(terminal_text(f"ok    {folder}: {summary(script)}"))
            continue
        failed += 1
        print(terminal_text(f"FAIL  {folder}: {len(problems)} problem(s)"))
        for problem in problems:
            print(terminal_text(f"      - {problem}"))
    print(f"{len(folders) - failed} of {len(folders)} script(s) valid")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
