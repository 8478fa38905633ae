"""Start-up's objects are frozen out of the collector's sight; what serving creates is still collected."""

from __future__ import annotations

import gc
import weakref

from space_app.heap import settle_heap


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_settle_heap_freezes_start_up_and_later_cycles_are_still_collected() -> None:
    try:
        settle_heap()
        assert gc.get_freeze_count() > 0
        later = Node()
        later.other = later  # garbage made while serving: only the collector can free a cycle
        gone = weakref.ref(later)
        del later
        gc.collect()
        assert gone() is None
    finally:
        gc.unfreeze()  # the test process goes on collecting as before
