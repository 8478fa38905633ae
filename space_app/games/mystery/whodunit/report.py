"""What an import did with one release script: written next to the script as JSON
(`OUT/<id>.whodunit-report.json`) and summarised on the terminal."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["Entry", "ImportReport", "Refused"]


class Refused(ValueError):
    """A release script that cannot be played: the file, the key at fault and why."""

    def __init__(self, file: str, key: str, message: str) -> None:
        self.file, self.key, self.message = file, key, message
        super().__init__(f"{file}: {key}: {message}" if key else f"{file}: {message}")


class Entry(BaseModel):
    key: str = Field(description="where in the release: 'role[2].r_q[3]', 'murder', 'img/scene.jpg'")
    message: str


class ImportReport(BaseModel):
    source: str = Field(description="the release file read")
    status: Literal["imported", "refused", "not-written", "invalid"] = "imported"
    script_id: str
    title: str | None = None
    folder: str | None = Field(default=None, description="the script folder written")
    refused: str | None = Field(default=None, description="why the script was not written: file, key, reason")
    counts: dict[str, int] = Field(default_factory=dict)
    dropped: list[Entry] = Field(default_factory=list, description="release content not imported, with the reason")
    repaired: list[Entry] = Field(default_factory=list, description="release content imported after a repair")
    notes: list[Entry] = Field(default_factory=list, description="mapping choices and fields the release lacks")
    problems: list[str] = Field(default_factory=list, description="validation problems of the written script")

    def drop(self, key: str, message: str) -> None:
        self.dropped.append(Entry(key=key, message=message))

    def repair(self, key: str, message: str) -> None:
        self.repaired.append(Entry(key=key, message=message))

    def note(self, key: str, message: str) -> None:
        self.notes.append(Entry(key=key, message=message))

    def summary(self) -> str:
        """A few lines for the terminal: the outcome, every drop, the repairs counted by kind."""
        if self.status in ("refused", "not-written"):
            return f"{self.status:<9} {self.refused}\n"
        c = self.counts
        head = "imported " if self.status == "imported" else "INVALID  "
        lines = [f"{head} {self.source} -> {self.folder}: {self.title!r}: {c.get('roles', 0)} roles, "
                 f"{c.get('image_clues', 0)} image clues, {c.get('lsu', 0)} LSU, {c.get('tiu', 0)} TIU, "
                 f"{c.get('miu', 0)} MIU, {c.get('mmr', 0)} MMR, chain depth {c.get('chain_depth', 0)}; "
                 f"{len(self.dropped)} dropped, {len(self.repaired)} repaired, {len(self.notes)} notes"]
        lines += [f"  dropped   {e.key}: {e.message}" for e in self.dropped]
        kinds = Counter(e.message.split(":", 1)[0] if ":" in e.message else e.key for e in self.repaired)
        if kinds:
            lines.append("  repaired  " + ", ".join(f"{kind} x{n}" for kind, n in kinds.items())
                         + " (each in the report)")
        lines += [f"  problem   {p}" for p in self.problems]
        return "\n".join(lines) + "\n"
