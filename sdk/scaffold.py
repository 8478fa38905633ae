"""`python -m sdk new-agent`: write a complete, ready Hugging Face Space folder.

A Space folder is `README.md` (the Space card), `app.py`, `requirements.txt` and a
vendored copy of this `sdk/` package, which is how the SDK is installed on a Space.
The file templates live in `sdk/templates/`; the `openai` and `litellm` templates take a
provider (`sdk/providers.py`) whose model, base URL, key variable and headers they fill in.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from string import Template
from typing import Any

from .providers import PROVIDERS, ProviderPreset

TEMPLATES = ("openai", "litellm", "local")
DEFAULT_PROVIDER = {"openai": "openai", "litellm": "anthropic"}  # the template's provider when none is named
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


def provider_for(template: str, provider: str | None) -> ProviderPreset | None:
    """The provider preset a template is rendered with (its default when none is named), or a
    ScaffoldError naming the providers the template takes."""
    if template not in DEFAULT_PROVIDER:
        if provider is not None:
            raise ScaffoldError(f"the {template} template takes no provider (it runs its own model)")
        return None
    name = provider or DEFAULT_PROVIDER[template]
    preset = PROVIDERS.get(name)
    if preset is None or preset.template != template:
        fits = ", ".join(p.name for p in PROVIDERS.values() if p.template == template)
        other = f" ({name} is served by the {preset.template} template)" if preset else ""
        raise ScaffoldError(f"unknown provider {name!r} for the {template} template{other}: choose one of {fits}")
    return preset


def _provider_values(p: ProviderPreset, agent_name: str) -> dict[str, Any]:
    key_env = p.key_env or "OPENAI_API_KEY"
    key_help = (f"not needed: {p.title} accepts any key" if not p.key_env
                else f"the key your {p.title} was started with, if any" if p.key_optional
                else f"the {p.title} key")
    headers = p.request_headers(agent_name)
    return {
        "provider_title": p.title,
        "model": p.model,
        "model_literal": json.dumps(p.model),
        "model_naming": p.model_naming,
        "base_url": p.base_url or "the provider's own",
        "base_url_literal": json.dumps(p.base_url) if p.base_url else "None",
        "key_env": key_env,
        "key_env_literal": json.dumps(key_env),
        "key_help": key_help,
        "key_line": f"  {key_env:<16} secret    {key_help}",
        "stream": repr(p.stream),
        "headers_literal": _dict_literal(headers) if headers else "None",
        "provider_notes": "\n".join(f"- {quirk}" for quirk in p.quirks),
    }


def _dict_literal(values: dict[str, str]) -> str:
    return "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in values.items()) + "}"


def render(template: str, name: str, provider: str | None = None) -> dict[str, str]:
    """The text files of a new agent folder (not the vendored sdk/): {relative path: text}.
    `provider` (openai and litellm templates) fills in a preset's defaults."""
    if template not in TEMPLATES:
        raise ScaffoldError(f"unknown template {template!r}: choose one of {', '.join(TEMPLATES)}")
    preset = provider_for(template, provider)
    name = name.strip()
    if not name or "\n" in name or "\r" in name:
        raise ScaffoldError("the agent name must be a non-empty single line")
    values = {
        "name": name,
        "name_literal": json.dumps(name, ensure_ascii=False),  # a valid Python string literal
        "title_yaml": json.dumps(name, ensure_ascii=False),  # a valid YAML double-quoted scalar
        **(_provider_values(preset, name) if preset else {}),
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
             vendor: bool = True, provider: str | None = None) -> list[Path]:
    """Create the agent folder and return the paths written (top-level entries).

    Refuses when `folder` exists and is not an empty directory; nothing is written then.
    """
    folder = Path(folder)
    if folder.exists():
        if not folder.is_dir():
            raise ScaffoldError(f"{folder} exists and is not a directory")
        if any(folder.iterdir()):
            raise ScaffoldError(f"{folder} exists and is not empty; choose a new folder")
    files = render(template, name or default_name(folder), provider)  # validate before writing anything
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for rel, text in files.items():
        path = folder / rel
        path.write_text(text, encoding="utf-8")
        written.append(path)
    if vendor:
        written.append(vendor_sdk(folder / "sdk"))
    return written
