"""Per-match memory for agents that want to remember across turns.

An agent object is shared by concurrent matches, so memory is keyed by match id
and guarded by a lock; old matches are evicted first when the cap is reached.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class MatchMemory:
    def __init__(self, max_matches: int = 256) -> None:
        self._data: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_matches

    def get(self, match_id: str) -> dict[str, Any]:
        """The mutable dict for one match (created on first use)."""
        with self._lock:
            if match_id not in self._data:
                self._data[match_id] = {}
                while len(self._data) > self._max:
                    self._data.popitem(last=False)
            self._data.move_to_end(match_id)
            return self._data[match_id]

    def forget(self, match_id: str) -> None:
        with self._lock:
            self._data.pop(match_id, None)

    def __len__(self) -> int:
        return len(self._data)
