"""The kernel loads no game: `space_app.core`, the store, the runner, the standings and verify
import neither a game folder nor imaging or data-frame code, checked on the import graph
(each module's own imports, read from its source) and on what a fresh interpreter loads."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "space_app"
KERNEL_USERS = ["space_app.store", "space_app.runner", "space_app.standings", "space_app.verify"]
FORBIDDEN = ("space_app.games", "PIL", "pandas")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module `path` names in an import statement (anywhere in it, lazy ones included),
    relative imports resolved against its package."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            # `from . import x` imports the submodule x
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def forbidden(names: set[str]) -> set[str]:
    return {n for n in names if any(n == f or n.startswith(f + ".") for f in FORBIDDEN)}


def kernel_files() -> list[Path]:
    files = sorted((PACKAGE / "core").rglob("*.py"))
    files += [PACKAGE / f"{name.rpartition('.')[2]}.py" for name in KERNEL_USERS]
    return files


def test_kernel_modules_name_no_game_nor_imaging_code():
    offenders = {module_name(f): sorted(forbidden(imports_of(f))) for f in kernel_files()}
    assert {m: bad for m, bad in offenders.items() if bad} == {}
    # the lookup that finds the catalogue is by name, at run time, in one place
    registry = (PACKAGE / "core" / "registry.py").read_text(encoding="utf-8")
    assert 'CATALOGUE = "space_app.games"' in registry


def test_importing_the_kernel_and_its_users_loads_no_game():
    code = ("import json, sys\n"
            f"import space_app.core, {', '.join(KERNEL_USERS)}\n"
            "print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    assert forbidden(loaded) == set()
    assert {"space_app.core.registry", *KERNEL_USERS} <= loaded


def test_the_catalogue_loads_on_the_first_question():
    code = ("import sys\n"
            "from space_app.core import GAMES, get_game\n"
            "assert not any(m.startswith('space_app.games') for m in sys.modules)\n"
            "print(get_game('spy').id, sorted(GAMES))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split()[0] == "spy"
    assert {"avalon", "mystery", "spy"} <= set(out.stdout.split(None, 1)[1].strip("[]\n").replace("'", "").split(", "))


def test_the_interface_reaches_the_arena_through_the_api_only():
    reached = {}
    for path in sorted((PACKAGE / "ui").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        found = [name for name in ("api.store", "api.arena", "from ..store import", "from ..service import")
                 if name in text]
        if found:
            reached[path.name] = found
    assert reached == {}
