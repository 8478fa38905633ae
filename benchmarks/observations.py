"""Building every observation of a long match: is it linear in the number of events?

A synthetic game (pure, in this script) emits N public statements, one per step, and asks
one seat of six for an observation at every step, so a match of N events builds N
observations. Each seat's view grows as events arrive (`Game._view`); this measures the
total time for N = 2,000 and 4,000 and their ratio (2 is linear, 4 would be a rescan of
the whole log per observation). The same work through a per-observation rescan (the
approach before incremental views) is measured alongside for comparison.

    python benchmarks/observations.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar, Literal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pydantic import BaseModel  # noqa: E402

from sdk.observation import HistoryItem, Observation, PrivateInfo  # noqa: E402
from space_app.core.events import Event, Private  # noqa: E402
from space_app.core.game import Game, Outcome, Request  # noqa: E402

SEATS = [f"P{i}" for i in range(1, 7)]


class TalkSettings(BaseModel):
    players: int = 6


class Said(Event):
    """One public statement: agents see it in their history."""

    kind: Literal["statement"] = "statement"
    in_history: ClassVar[bool] = True


class Talk(Game):
    id: ClassVar[str] = "talk"
    title: ClassVar[str] = "Synthetic talk"

    def __init__(self, n: int) -> None:
        super().__init__(SEATS, 0, TalkSettings())
        for seat in SEATS:
            self.emit(Private(actor=seat, text=f"{seat}'s secret", visible_to=(seat,), facts={"secret": seat}))
        self.n = n

    @property
    def over(self) -> bool:
        return len(self.events) >= self.n

    def pending(self) -> list[Request]:
        return []

    def submit(self, outcomes: Iterable[Outcome]) -> None:
        pass

    def result(self) -> dict[str, Any]:
        return {}

    def rescan_observe(self, seat: str) -> Observation:
        """The former way: every observation re-reads the whole event log."""
        facts: dict[str, Any] = {}
        texts: list[str] = []
        history = []
        for e in self.visible_events(seat):
            if isinstance(e, Private) and e.visible_to == (seat,):
                facts.update(e.facts)
                texts.append(e.text)
            elif e.in_history:
                history.append(HistoryItem(who=e.actor, kind=e.kind, text=e.text, round=e.round, data=e.payload()))
        return Observation(game=self.id, verb="speak", you=seat, private=PrivateInfo(facts=facts, text=" ".join(texts)),
                           history=history)


def build_all(n: int, rescan: bool) -> float:
    game = Talk(n)
    started = time.perf_counter()
    step = 0
    while not game.over:
        seat = SEATS[step % len(SEATS)]
        if rescan:
            game.rescan_observe(seat)
        else:
            game.observe(seat, "speak", phase="talk", instruction="Say something.")
        game.emit(Said(actor=seat, text=f"statement number {step} from {seat}", round=step // 6 + 1))
        step += 1
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    for label, rescan in (("incremental views (now)", False), ("rescan per observation (before)", True)):
        small = statistics.median(build_all(2000, rescan) for _ in range(args.repeats))
        large = statistics.median(build_all(4000, rescan) for _ in range(args.repeats))
        print(f"{label:34s} 2,000 events: {small * 1000:8.1f} ms   4,000 events: {large * 1000:8.1f} ms   "
              f"ratio {large / small:.2f}")


if __name__ == "__main__":
    main()
