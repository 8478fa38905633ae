"""`python -m sdk new-agent`: write a complete, ready Hugging Face Space folder.

A Space folder is `README.md` (the Space card), `app.py`, `requirements.txt` and a
vendored copy of this `sdk/` package, which is how the SDK is installed on a Space.
The file templates live in `sdk/templates/`.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from string import Template

TEMPLATES = ("openai", "local")
GRADIO_VERSION = "6.31.0"

SDK_DIR = Path(__file__).resolve().parent
TEMPLATE_DIR = SDK_DIR / "templates"
# What never belongs in a vendored copy or an upload.
IGNORED_NAMES = ("__pycache__", "*.pyc", "*.pyo", ".pytest_cache", ".ruff_cache", ".mypy_cache",
                 ".DS_Store")

# output file -> template file; "{t}" is the template name
_FILES = {
    "README.md": "README_{t}.md",
    "app.py": "app_{t}.py.txt",
    "requirements.txt": "requirements_{t}.txt",
}


class ScaffoldError(ValueError):
    """The folder cannot be created (it exists and is not empty, bad template, ...)."""


def default_name(folder: str | Path) -> str:
    """An agent name from a folder name: 'my_agent' -> 'my-agent'."""
    base = Path(folder).resolve().name
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip("-.") or "my-agent"
    return name.replace("_", "-").lower()


def render(template: str, name: str) -> dict[str, str]:
    """The text files of a new agent folder (not the vendored sdk/): {relative path: text}."""
    if template not in TEMPLATES:
        raise ScaffoldError(f"unknown template {template!r}: choose one of {', '.join(TEMPLATES)}")
    name = name.strip()
    if not name or "\n" in name or "\r" in name:
        raise ScaffoldError("the agent name must be a non-empty single line")
    values = {
        "name": name,
        "name_literal": json.dumps(name, ensure_ascii=False),  # a valid Python string literal
        "title_yaml": json.dumps(name, ensure_ascii=False),  # a valid YAML double-quoted scalar
    }
    files = {}
    for out, source in _FILES.items():
        text = (TEMPLATE_DIR / source.format(t=template)).read_text(encoding="utf-8")
        files[out] = Template(text).substitute(values)
    return files


def vendor_sdk(destination: str | Path) -> Path:
    """Copy this `sdk` package (without caches) to `destination` (a path ending in 'sdk')."""
    destination = Path(destination)
    shutil.copytree(SDK_DIR, destination, ignore=shutil.ignore_patterns(*IGNORED_NAMES))
    return destination


def scaffold(folder: str | Path, template: str, name: str | None = None, *,
             vendor: bool = True) -> list[Path]:
    """Create the agent folder and return the paths written (top-level entries).

    Refuses when `folder` exists and is not an empty directory; nothing is written then.
    """
    folder = Path(folder)
    if folder.exists():
        if not folder.is_dir():
            raise ScaffoldError(f"{folder} exists and is not a directory")
        if any(folder.iterdir()):
            raise ScaffoldError(f"{folder} exists and is not empty; choose a new folder")
    files = render(template, name or default_name(folder))  # validate before writing anything
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for rel, text in files.items():
        path = folder / rel
        path.write_text(text, encoding="utf-8")
        written.append(path)
    if vendor:
        written.append(vendor_sdk(folder / "sdk"))
    return written
