"""What an import did with one release script: written next to the script as JSON
(`OUT/<id>.whodunit-report.json`) and summarised on the terminal."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["QUESTION_KINDS", "TABLE_KINDS", "Entry", "ImportReport", "KindRow", "Refused"]


class Refused(ValueError):
    """A release script that cannot be played: the file, the key at fault and why."""

    def __init__(self, file: str, key: str, message: str) -> None:
        self.file, self.key, self.message = file, key, message
        super().__init__(f"{file}: {key}: {message}" if key else f"{file}: {message}")


QUESTION_KINDS = ("lsu", "tiu", "miu", "mmr")
TABLE_KINDS = (*QUESTION_KINDS, "clues")  # clues: key clue statements (the chain and the characters' own)


class Entry(BaseModel):
    key: str = Field(description="where in the release: 'role[2].r_q[3]', 'murder', 'img/scene.jpg'")
    message: str
    kind: str = Field(default="", description="the question set it belongs to (lsu, tiu, miu, mmr), 'clues' for "
                                              "key clue statements, '' for anything else")
    items: int = Field(default=1, description="how many questions or statements it covers")


class KindRow(BaseModel):
    """One line of the closing table: what became of one kind of item. read = kept + merged +
    dropped; repaired counts kept items that needed a repair."""

    kind: str
    read: int = 0
    kept: int = 0
    merged: int = Field(default=0, description="later copies of a kept question, folded into it")
    dropped: int = 0
    repaired: int = 0
    fewer_options: int = Field(default=0, description="kept questions with two or three options (chance 1/2, 1/3)")
    unknown_depth: int = Field(default=0, description="MMR: kept questions whose depth the source does not give")


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
    merged: list[Entry] = Field(default_factory=list, description="copies of a question kept once, with how the "
                                                                  "copies differ")
    notes: list[Entry] = Field(default_factory=list, description="mapping choices and fields the release lacks")
    same_title: list[str] = Field(default_factory=list, description="other release files of the same import with "
                                                                    "this title")
    table: list[KindRow] = Field(default_factory=list, description="per kind: read, kept, merged, dropped, repaired")
    problems: list[str] = Field(default_factory=list, description="validation problems of the written script")

    def drop(self, key: str, message: str, kind: str = "", items: int = 1) -> None:
        self.dropped.append(Entry(key=key, message=message, kind=kind, items=items))

    def repair(self, key: str, message: str, kind: str = "") -> None:
        self.repaired.append(Entry(key=key, message=message, kind=kind))

    def merge(self, key: str, message: str, kind: str) -> None:
        self.merged.append(Entry(key=key, message=message, kind=kind))

    def note(self, key: str, message: str) -> None:
        self.notes.append(Entry(key=key, message=message))

    def tabulate(self, kept: dict[str, int], fewer_options: dict[str, int], unknown_depth: int) -> None:
        """The closing table from the entries and what was kept."""
        rows = []
        for kind in TABLE_KINDS:
            row = KindRow(kind=kind, kept=kept.get(kind, 0), fewer_options=fewer_options.get(kind, 0),
                          unknown_depth=unknown_depth if kind == "mmr" else 0,
                          merged=sum(e.items for e in self.merged if e.kind == kind),
                          dropped=sum(e.items for e in self.dropped if e.kind == kind),
                          repaired=len({e.key for e in self.repaired if e.kind == kind}))
            row.read = row.kept + row.merged + row.dropped
            rows.append(row)
        self.table = rows

    def summary(self) -> str:
        """A few lines for the terminal: the outcome, every drop, merges and repairs counted by
        kind, a shared title, then the table of what became of each kind of question."""
        if self.status in ("refused", "not-written"):
            return f"{self.status:<9} {self.refused}\n"
        c = self.counts
        head = "imported " if self.status == "imported" else "INVALID  "
        lines = [f"{head} {self.source} -> {self.folder}: {self.title!r}: {c.get('roles', 0)} roles, "
                 f"{c.get('image_clues', 0)} image clues, {c.get('lsu', 0)} LSU, {c.get('tiu', 0)} TIU, "
                 f"{c.get('miu', 0)} MIU, {c.get('mmr', 0)} MMR, chain depth {c.get('chain_depth', 0)}, "
                 f"{c.get('role_clues', 0)} character clues; {len(self.dropped)} dropped, {len(self.merged)} merged, "
                 f"{len(self.repaired)} repaired, {len(self.notes)} notes"]
        lines += [f"  dropped   {e.key}: {e.message}" for e in self.dropped]
        for word, entries in (("merged", self.merged), ("repaired", self.repaired)):
            kinds = Counter(e.message.split(":", 1)[0] if ":" in e.message else e.key for e in entries)
            if kinds:
                lines.append(f"  {word:<9} " + ", ".join(f"{kind} x{n}" for kind, n in kinds.items())
                             + " (each in the report)")
        if self.same_title:
            lines.append(f"  title     {self.title!r} is also the title of {', '.join(self.same_title)}")
        lines += [f"  problem   {p}" for p in self.problems]
        lines += self._table_lines()
        return "\n".join(lines) + "\n"

    def _table_lines(self) -> list[str]:
        if not self.table:
            return []
        columns = ("read", "kept", "merged", "dropped", "repaired", "fewer_options", "unknown_depth")
        heads = ("read", "kept", "merged", "dropped", "repaired", "2-3 options", "depth unknown")
        widths = [max(len(h), 4) for h in heads]
        out = ["  " + "kind".ljust(6) + "  ".join(h.rjust(w) for h, w in zip(heads, widths, strict=True))]
        for row in self.table:
            name = row.kind.upper() if row.kind != "clues" else "clues"
            out.append("  " + name.ljust(6) + "  ".join(str(getattr(row, c)).rjust(w)
                                                        for c, w in zip(columns, widths, strict=True)))
        return out
