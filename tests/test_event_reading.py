"""Events are read as models, everywhere: no module reaches into an event's stored `data` by key,
and no module compares an event's kind with a string, except the module that defines the kind
(`space_app/core/events.py`, `space_app/games/<id>/events.py`). Checked from the syntax tree of
every module of the arena and the SDK."""

from __future__ import annotations

import ast
from pathlib import Path

from space_app.core import GAMES

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*(ROOT / "space_app").rglob("*.py"), *(ROOT / "sdk").rglob("*.py")])

# modules that handle an event as the stored row it is (the `data` column), never its meaning
STORED_ROWS = {
    "space_app/store.py": "writes and reads the events table",
    "space_app/copy_store.py": "copies rows between stores as they are",
    "space_app/sync.py": "applies another store's rows as they are",
    "sdk/remote.py": "`data` of a Gradio HTTP reply, not an event",
}
# modules whose `kind` is something else than an arena event's
OTHER_KINDS = {
    "space_app/suites/tom_household/": "a simulated household's actions (walk, open, grab, put)",
}


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def defines_kinds(path: Path) -> bool:
    return path.name == "events.py" and path.parent.name in ("core", *GAMES)


def event_kinds() -> set[str]:
    return {kind for spec in GAMES.values() for kind in spec.rules.events.by_kind}


def is_data_key(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == "data"


def data_reads(tree: ast.AST) -> list[int]:
    """Lines that read `x["data"]` or `x.get("data")`."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_data_key(node.slice):
            out.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and is_data_key(node.args[0])):
            out.append(node.lineno)
    return out


def reads_kind(node: ast.AST) -> bool:
    """`x.kind`, `x["kind"]`, `x.get("kind")`, or a name `kind`."""
    if isinstance(node, ast.Attribute):
        return node.attr == "kind"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "kind"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value == "kind"
    return isinstance(node, ast.Name) and node.id == "kind"


def strings_in(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {s for e in node.elts for s in strings_in(e)}
    return set()


def kind_comparisons(tree: ast.AST, kinds: set[str]) -> list[tuple[int, str]]:
    """Lines comparing an event's kind with the name of an event kind."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if any(reads_kind(side) for side in sides):
            named = set().union(*(strings_in(side) for side in sides)) & kinds
            if named:
                out.append((node.lineno, ", ".join(sorted(named))))
    return out


def test_no_module_reads_an_events_data_by_key():
    found = []
    for path in SOURCES:
        name = relative(path)
        if defines_kinds(path) or name in STORED_ROWS:
            continue
        found += [f"{name}:{line}" for line in data_reads(ast.parse(path.read_text(), name))]
    assert not found, f"read the event's model (`KINDS.parse`) and its fields instead: {found}"


def test_no_module_compares_an_events_kind_with_a_string():
    kinds = event_kinds()
    assert {"call", "private", "statement", "proposal", "clue"} <= kinds  # the check knows every game's kinds
    found = []
    for path in SOURCES:
        name = relative(path)
        if defines_kinds(path) or any(name.startswith(prefix) for prefix in OTHER_KINDS):
            continue
        found += [f"{name}:{line} ({named})" for line, named in kind_comparisons(ast.parse(path.read_text(), name),
                                                                                 kinds)]
    assert not found, f"use isinstance on the kind's model instead: {found}"


def test_the_checks_catch_what_they_look_for():
    bad = ast.parse('if e["kind"] == "vote" or e.kind in ("call", "x"):\n    v = e.get("data") or e["data"]\n')
    assert data_reads(bad) == [2, 2]
    assert [line for line, _ in kind_comparisons(bad, {"vote", "call"})] == [1, 1]
    fine = ast.parse('if section.kind == "markdown" and isinstance(e, Vote):\n    v = e.target\n')
    assert data_reads(fine) == [] and kind_comparisons(fine, {"vote", "call"}) == []
