"""Which version of its agent each seat had: the SDK version, the model and the code revision the
agent reports in its `info()["version"]` (`sdk/versions.py`), read once its match is prepared (a
remote agent's `info` is read again then, so a redeployed Space is seen at its next match), and
the label a leaderboard split by version shows for it."""

from __future__ import annotations

from typing import Any

from .safe_text import clean_name

FIELDS = ("sdk", "model", "revision")
MAX_FIELD = 120
UNKNOWN = "unknown version"


def version_of(agent: Any) -> dict[str, str]:
    """The version an agent object reports, bounded; {} when it reports none or fails to say."""
    known = getattr(agent, "known_info", None)
    try:
        info = known if isinstance(known, dict) else agent.info()
    except Exception:  # noqa: BLE001 - an agent that cannot describe itself still plays
        return {}
    return from_info(info)


def from_info(info: Any) -> dict[str, str]:
    """{'sdk', 'model', 'revision'} read from an `info` object (an older SDK's carries only
    `sdk_version`): each a clean one-line label, absent fields left out. Only text is kept:
    `version` is the agent's own account, shown to everyone."""
    if not isinstance(info, dict):
        return {}
    given = info.get("version") if isinstance(info.get("version"), dict) else {}
    # an outside protocol's agent (WiS) names its model as `model_name`
    raw = {"sdk": given.get("sdk") or info.get("sdk_version"), "model": given.get("model") or info.get("model_name"),
           "revision": given.get("revision")}
    out = {}
    for key in FIELDS:
        value = raw[key]
        if isinstance(value, str) and value.strip():
            out[key] = clean_name(value, MAX_FIELD)
    return out


def label(version: dict[str, Any] | None) -> str:
    """The version in a few words, e.g. 'gpt-4o-mini rev 3f2a9c1 sdk 0.3.0' (a revision cut to
    7 characters, as git shows a commit); UNKNOWN when nothing was reported."""
    version = version or {}
    parts = []
    if version.get("model"):
        parts.append(str(version["model"]))
    if version.get("revision"):
        parts.append(f"rev {str(version['revision'])[:7]}")
    if version.get("sdk"):
        parts.append(f"sdk {version['sdk']}")
    return " ".join(parts) or UNKNOWN


__all__ = ["FIELDS", "UNKNOWN", "from_info", "label", "version_of"]
