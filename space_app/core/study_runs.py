"""Finding a study's stored runs: each condition's matches carry the tag
`study:<study>:<condition>:<run>`, so a run is found again from the store alone."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

RECENT = 2000  # matches looked through for the newest run


def study_tag(study: str, condition: str, run: str) -> str:
    return f"study:{study}:{condition}:{run}"


def newest_run_tags(store: Any, game: str, study: str, conditions: Iterable[str]) -> dict[str, str]:
    """condition -> tag of the newest stored run of `study` (by its latest match), or {} when
    it never ran."""
    runs: dict[str, float] = {}
    for m in store.list_matches(game=game, limit=RECENT):
        if m["tag"].startswith(f"study:{study}:"):
            run = m["tag"].rsplit(":", 1)[-1]
            runs[run] = max(runs.get(run, 0.0), m["created_at"])
    if not runs:
        return {}
    newest = max(runs, key=runs.__getitem__)
    return {name: study_tag(study, name, newest) for name in conditions}


__all__ = ["newest_run_tags", "study_tag"]
