"""One judge's verdicts by match, seat, score and item: those given earlier (stored by the
command that asked the judge) and those given now (to store). Pure: the caller loads and
saves them (`Store.verdicts`, `Store.save_verdicts`).

With a judge, a missing verdict is asked for; without one (`judge=None`) the book only
reads, and a seat with a verdict missing makes its match count as not judged: a results page
shows an LLM judge's scores over exactly the matches that judge saw, never a mix."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .judges import Judge, Seat, Verdict

__all__ = ["VerdictBook"]

Key = tuple[str, str, str, int]  # match id, seat, score ("rp", "spc", "cmd"), item (a clue's index, else 0)


class VerdictBook:
    def __init__(self, label: str, judge: Judge | None = None, stored: Iterable[dict[str, Any]] = ()) -> None:
        self.label = label
        self.judge = judge
        self.known: dict[Key, Verdict] = {
            (r["match_id"], r["seat"], r["score"], int(r["item"])): Verdict(value=r["value"], judge=label,
                                                                             fallback=r.get("fallback") or "")
            for r in stored if r["judge"] == label}
        self.new: dict[Key, Verdict] = {}

    @classmethod
    def asking(cls, judge: Judge, stored: Iterable[dict[str, Any]] = ()) -> VerdictBook:
        return cls(judge.label, judge, stored)

    def _one(self, key: Key, ask: Callable[[], Verdict]) -> Verdict | None:
        if key in self.known:
            return self.known[key]
        if self.judge is None:
            return None
        verdict = self.known[key] = self.new[key] = ask()
        return verdict

    def rp(self, match_id: str, seat: Seat) -> Verdict | None:
        return self._one((match_id, seat.character, "rp", 0), lambda: self.judge.rp(seat))  # type: ignore[union-attr]

    def cmd(self, match_id: str, seat: Seat, truth: dict[str, str]) -> Verdict | None:
        return self._one((match_id, seat.character, "cmd", 0),
                         lambda: self.judge.cmd(seat, truth))  # type: ignore[union-attr]

    def spc(self, match_id: str, seat: Seat, clues: Sequence[str]) -> list[Verdict] | None:
        """One verdict per clue; the judge is asked about all of a seat's clues at once."""
        keys = [(match_id, seat.character, "spc", i) for i in range(len(clues))]
        if all(k in self.known for k in keys):
            return [self.known[k] for k in keys]
        if self.judge is None:
            return None
        verdicts = self.judge.spc(seat, clues)
        for k, v in zip(keys, verdicts, strict=True):
            self.known[k] = self.new[k] = v
        return verdicts

    def rows(self) -> list[dict[str, Any]]:
        """The verdicts given now, as rows to store."""
        return [{"match_id": m, "seat": s, "score": score, "item": item, "judge": self.label, "value": v.value,
                 "fallback": v.fallback} for (m, s, score, item), v in self.new.items()]
