"""Which version of an agent played a match: the SDK's version, the model its `llm_caller`
names (`llm_caller.model`, set by the ready-made callers) and the revision of the code it runs,
reported in `info()["version"]` and stored by the arena with each seat it takes.

The revision is read from AGENT_REVISION (set it to your commit or any label you choose),
else SPACE_COMMIT_SHA when the host sets it. Hugging Face's documented Space variables
(SPACE_ID, SPACE_HOST, SPACE_AUTHOR_NAME, ...) name the Space but not its commit, so set
AGENT_REVISION when you want a leaderboard to tell your versions apart.
"""

from __future__ import annotations

import os
from typing import Any

REVISION_VARIABLES = ("AGENT_REVISION", "SPACE_COMMIT_SHA")
MAX_FIELD = 120  # every field is one short label


def revision() -> str:
    """The code revision this process runs, from the environment ('' when none is set)."""
    for name in REVISION_VARIABLES:
        value = (os.environ.get(name) or "").strip()
        if value:
            return value[:MAX_FIELD]
    return ""


def model_of(llm_caller: Any) -> str:
    """The model an `llm_caller` names (`llm_caller.model`), '' when it names none."""
    model = getattr(llm_caller, "model", "")
    return model.strip()[:MAX_FIELD] if isinstance(model, str) else ""


def version_info(model: str = "") -> dict[str, str]:
    """{'sdk', 'model', 'revision'}: the fields `info()["version"]` carries."""
    from . import __version__

    return {"sdk": __version__, "model": (model or "")[:MAX_FIELD], "revision": revision()}


__all__ = ["REVISION_VARIABLES", "model_of", "revision", "version_info"]
