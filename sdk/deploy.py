"""`python -m sdk deploy`: publish an agent folder as a Hugging Face Space.

The folder must hold `app.py`. The SDK is not on PyPI, so the Space gets it as a
vendored `sdk/` package next to `app.py`: when the folder has none, the upload is
staged in a temporary directory with a copy of this SDK added. The folder itself is
never modified.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from huggingface_hub import HfApi

from .scaffold import IGNORED_NAMES, vendor_sdk

_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?"
_SPACE_ID = re.compile(rf"^{_NAME}/{_NAME}$")
_ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Never uploaded: caches, VCS data and local env files (they hold keys).
_CACHES = ("__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache", ".venv", "venv")
UPLOAD_IGNORE = [*(f"{d}/**" for d in _CACHES), *(f"**/{d}/**" for d in _CACHES), "*.pyc", "*.pyo",
                 ".env", "**/.env", ".env.*", "**/.env.*", ".DS_Store", "**/.DS_Store"]
_STAGE_IGNORE = shutil.ignore_patterns(*IGNORED_NAMES, ".git", ".venv", "venv", ".env", ".env.*")


class DeployError(ValueError):
    """The folder, the Space id or a secret is not usable; nothing was sent to the Hub."""


def space_url(space_id: str) -> str:
    return f"https://huggingface.co/spaces/{space_id}"


def check_space_id(space_id: str) -> str:
    """Return `space_id` if it is `OWNER/NAME` in the Hub's rules, else raise DeployError."""
    if not isinstance(space_id, str) or not _SPACE_ID.match(space_id) or "--" in space_id \
            or ".." in space_id or space_id.endswith(".git"):
        raise DeployError(
            f"not a Space id: {space_id!r}; expected OWNER/NAME (letters, digits, '-', '_', '.'; "
            "at most 96 characters per part), e.g. alice/my-agent"
        )
    return space_id


def _check_keys(kind: str, items: Mapping[str, str]) -> None:
    for key, value in items.items():
        if not _ENV_KEY.match(key or ""):
            raise DeployError(f"{kind} name {key!r} is not a valid environment variable name")
        if not isinstance(value, str):
            raise DeployError(f"{kind} {key} must be a string, got {type(value).__name__}")


def _front_matter(readme: Path) -> dict[str, Any]:
    from huggingface_hub.repocard import metadata_load

    try:
        return metadata_load(readme) or {}
    except Exception as exc:  # malformed YAML
        raise DeployError(f"{readme}: the front matter is not valid YAML ({exc})") from exc


def check_folder(folder: str | Path) -> Path:
    """The agent folder, checked: a directory with app.py, and a Space card if it has a README."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DeployError(f"{folder} is not a directory")
    if not (folder / "app.py").is_file():
        raise DeployError(f"{folder} has no app.py; create a folder with `python -m sdk new-agent`")
    readme = folder / "README.md"
    if readme.is_file():
        meta = _front_matter(readme)
        if meta.get("sdk") != "gradio":
            raise DeployError(
                f"{readme} has no Space front matter with 'sdk: gradio' (and 'app_file: app.py'); "
                "the Space would not start. See `python -m sdk new-agent` for a complete card."
            )
        if meta.get("app_file", "app.py") != "app.py":
            raise DeployError(f"{readme} names app_file {meta.get('app_file')!r}, expected app.py")
    sdk_dir = folder / "sdk"
    if sdk_dir.exists() and not (sdk_dir / "__init__.py").is_file():
        raise DeployError(f"{sdk_dir} exists but is not the SDK package (no __init__.py)")
    return folder


@contextmanager
def staged(folder: Path) -> Iterator[Path]:
    """`folder` itself when it vendors the SDK, else a temporary copy with the SDK added."""
    if (folder / "sdk" / "__init__.py").is_file():
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="arena-deploy-") as tmp:
        stage = Path(tmp) / "space"
        shutil.copytree(folder, stage, ignore=_STAGE_IGNORE)
        vendor_sdk(stage / "sdk")
        yield stage


def deploy(
    folder: str | Path,
    space_id: str,
    secrets: Mapping[str, str] | None = None,
    private: bool = False,
    token: str | None = None,
    api: HfApi | None = None,
    *,
    variables: Mapping[str, str] | None = None,
    commit_message: str = "Deploy Deduction Arena agent",
) -> str:
    """Create (or reuse) the Space `space_id`, set its secrets and variables, upload the
    folder with a vendored SDK, and return the Space URL.

    `api` defaults to `HfApi(token=token)`; tests pass a fake. Secrets and variables are
    set before the upload so the first build already sees them.
    """
    check_space_id(space_id)
    folder = check_folder(folder)
    secrets = dict(secrets or {})
    variables = dict(variables or {})
    _check_keys("secret", secrets)
    _check_keys("variable", variables)
    if api is None:
        api = HfApi(token=token)
    api.create_repo(space_id, repo_type="space", space_sdk="gradio", exist_ok=True, private=private)
    for key, value in secrets.items():
        api.add_space_secret(space_id, key, value)
    for key, value in variables.items():
        api.add_space_variable(space_id, key, value)
    with staged(folder) as upload_dir:
        api.upload_folder(repo_id=space_id, folder_path=str(upload_dir), repo_type="space",
                          commit_message=commit_message, ignore_patterns=UPLOAD_IGNORE)
    return space_url(space_id)
