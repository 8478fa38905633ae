"""How a seat's calls have gone so far in one match, and what the runner does about it.

A seat whose calls fail the same way `failing_after` times in a row (ARENA_FAILING_AFTER) is
marked failing: its later turns take the rule's outcome for a failed call without calling it,
each recorded as a skipped call and counted as infrastructure (docs/methodology.md). Calling
a dead endpoint every turn would only spend the match's time and the author's credits.

An agent with `always_called = True` (a person, who may come back after missing turns) is
never marked failing. A vision seat whose model refuses pictures (`sdk.capabilities.refuses_images`) is sent the
captions instead for the rest of the match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sdk.capabilities import refuses_images

from .core.events import Call

DEFAULT_FAILING_AFTER = 3
# the HTTP status in a failure's detail ("HTTP 500", "answered 429"): part of how it failed
_STATUS = re.compile(r"\b(?:HTTP|answered) (\d{3})\b")


def failure_signature(call: Call) -> str | None:
    """How a call failed, as two failures compare: its status, the error's kind and HTTP
    status; None when the agent answered (ok, or an unreadable reply: that is its play)."""
    if call.status not in ("timeout", "error"):
        return None
    if call.status == "timeout":  # the arena's clock or the agent's own: no reply in time either way
        return "timeout"
    kind = call.detail.split(":", 1)[0].strip() if ":" in call.detail else call.detail.strip()
    found = _STATUS.search(call.detail)
    return " ".join(part for part in (call.status, kind[:40], found.group(1) if found else "") if part)


def refused_images(call: Call) -> bool:
    """Whether a failed call's error says the model endpoint cannot read images."""
    return call.status == "error" and refuses_images(call.detail)


@dataclass
class SeatHealth:
    """One seat's failures in a row, and what the runner decided about it."""

    failing_after: int = DEFAULT_FAILING_AFTER  # 0: never mark a seat failing
    streak: int = 0
    signature: str | None = None
    failing: str = ""  # why the seat is no longer called, once it is marked
    captions: str = ""  # the refusal that turned it to captions, once it has

    def note(self, call: Call) -> bool:
        """Count one call made to the seat; True when this call marks it failing."""
        signature = failure_signature(call)
        if signature is None:
            self.streak, self.signature = 0, None
            return False
        self.streak = self.streak + 1 if signature == self.signature else 1
        self.signature = signature
        if self.failing or not self.failing_after or self.streak < self.failing_after:
            return False
        self.failing = f"{self.streak} calls in a row failed the same way ({signature})"
        return True


__all__ = ["DEFAULT_FAILING_AFTER", "SeatHealth", "failure_signature", "refused_images"]
