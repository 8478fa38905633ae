"""Events: what a game emits, each with who may see it. The event log is the single source of
truth: observations, replays, metrics and verification are all built from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SPECTATORS: tuple[str, ...] = ()  # visible to no seat: spectators and replays only


@dataclass(frozen=True)
class Event:
    kind: str
    actor: str = "host"
    text: str = ""
    round: int | None = None
    visible_to: tuple[str, ...] | None = None  # None = public; () = spectators only
    data: dict[str, Any] = field(default_factory=dict)

    def visible_for(self, seat: str) -> bool:
        return self.visible_to is None or seat in self.visible_to

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "actor": self.actor, "text": self.text, "round": self.round,
                "visible_to": None if self.visible_to is None else list(self.visible_to),
                "data": self.data}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        vis = d.get("visible_to")
        return cls(kind=d["kind"], actor=d.get("actor", "host"), text=d.get("text", ""),
                   round=d.get("round"), visible_to=None if vis is None else tuple(vis),
                   data=d.get("data") or {})


__all__ = ["SPECTATORS", "Event"]
