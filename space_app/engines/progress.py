"""A batch's progress bar: done, running and failed items, and tqdm's rate and ETA."""

from __future__ import annotations

import sys
from typing import Any


class BatchBar:
    """`start()` when an item starts, `end(ok)` when it ends; `skip(n)` for items already done
    before the batch (a resumed run), counted as done without moving the rate."""

    def __init__(self, total: int, desc: str, unit: str = "match") -> None:
        from tqdm import tqdm

        self.running = 0
        self.failed = 0
        self.skipped = 0
        self._bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True)

    def start(self, *_: Any) -> None:
        self.running += 1
        self._show()

    def end(self, ok: bool) -> None:
        self.running = max(0, self.running - 1)
        self.failed += int(not ok)
        self._show()
        self._bar.update(1)

    def skip(self, n: int = 1) -> None:
        self.skipped += n
        # counted as the bar's start, so the rate and ETA are of what is played now
        self._bar.n += n
        self._bar.initial = self._bar.last_print_n = self._bar.n
        self._show()
        self._bar.refresh()

    def _show(self) -> None:
        parts = {"running": self.running, "failed": self.failed}
        if self.skipped:
            parts["already done"] = self.skipped
        self._bar.set_postfix(parts, refresh=False)

    def close(self) -> None:
        self._bar.close()

    def __enter__(self) -> BatchBar:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()
