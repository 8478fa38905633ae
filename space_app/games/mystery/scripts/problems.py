"""What is wrong with a script folder: one `Problem` per defect, naming the file, the key
inside it and what is wrong, so an author can fix every defect in one pass."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    file: str  # the file at fault, as a path the author can open
    key: str  # where inside it, e.g. "roles[2].script"; "" for the file as a whole
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.key}: {self.message}" if self.key else f"{self.file}: {self.message}"


class ScriptError(ValueError):
    """A script folder that cannot be used; the message lists every problem found."""

    def __init__(self, folder: str, problems: Sequence[Problem]) -> None:
        self.folder = folder
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"script {folder} has {len(self.problems)} problem(s):\n{lines}")


def loc_key(loc: Sequence[str | int]) -> str:
    """('roles', 2, 'script') -> 'roles[2].script': the spelling authors search for."""
    key = ""
    for part in loc:
        key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
    return key
