"""The benchmark scripts name only what the arena and the SDK still have: every module and
name a script under `benchmarks/` imports from `space_app` or `sdk` resolves, so a module that
moves (the kernel's, a game's) cannot leave a script that fails at its first line."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))
OURS = ("space_app", "sdk")


def ours(module: str) -> bool:
    return any(module == top or module.startswith(top + ".") for top in OURS)


def unresolved(path: Path) -> list[str]:
    """`module` or `module.name` for each import of ours in `path` that does not resolve."""
    missing = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            wanted = [(alias.name, None) for alias in node.names if ours(alias.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and ours(node.module):
            wanted = [(node.module, alias.name) for alias in node.names]
        else:
            continue
        for module, name in wanted:
            try:
                found = importlib.import_module(module)
            except ImportError:
                missing.append(module)
                continue
            if name is None or hasattr(found, name):
                continue
            try:  # `from package import submodule`
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{module}.{name}")
    return missing


def test_every_benchmark_imports_what_exists():
    assert len(SCRIPTS) > 10
    broken = {path.name: bad for path in SCRIPTS if (bad := unresolved(path))}
    assert broken == {}


def test_the_check_names_a_moved_module(tmp_path):
    script = tmp_path / "old.py"
    script.write_text("from space_app.agents.wis import WiSAgent\nfrom space_app.core import get_game, gone\n"
                      "import space_app.nowhere\nimport json\n")
    assert unresolved(script) == ["space_app.agents.wis", "space_app.core.gone", "space_app.nowhere"]
