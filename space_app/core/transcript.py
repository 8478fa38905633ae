"""One transcript for every game: what each kind declares of itself (`icon`, `style`, `why()`,
`says_why`) turned into lines, which the replay draws as HTML and the CLI prints as text. No
kind is known here by name, so a new game's events show without touching this module."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .events import Call, Event

MAX_REASON = 200


def without_calls(events: Iterable[Event]) -> list[Event]:
    """The spectator's transcript: every event but the runner's call records."""
    return [e for e in events if not isinstance(e, Call)]


def seen_by(e: Event, seat: str) -> bool:
    """Whether `seat` was shown the event (call records are never shown to a seat)."""
    return not isinstance(e, Call) and e.visible_for(seat)


def seat_events(events: Iterable[Event], seat: str) -> list[Event]:
    """Exactly the events `seat` was shown."""
    return [e for e in events if seen_by(e, seat)]


def call_reasons(events: Iterable[Event]) -> dict[int, str]:
    """Why each failed call failed, carried to the next event of the same seat (its foul,
    abstention or invalid action) by that event's `seq`, so the spectator's line says why."""
    failed: dict[str, str] = {}
    out: dict[int, str] = {}
    for e in events:
        if isinstance(e, Call):
            if e.failed:
                failed[e.actor] = e.why()
            continue
        reason = failed.pop(e.actor, None)
        if reason and e.seq is not None:
            out[e.seq] = reason
    return out


def reason_for(e: Event, reasons: Mapping[int, str] | None = None) -> str:
    """The reason shown after an event's line: a failed call's, else the kind's own unless its
    line already says why; nothing when the text already holds it."""
    call_reason = (reasons or {}).get(e.seq) if e.seq is not None else None
    reason = call_reason or ("" if e.says_why else e.why()) or ""
    if not reason or reason in e.text or reason == "abstained":
        return ""
    return reason[:MAX_REASON]


def plain_line(e: Event) -> str | None:
    """The event as one line of plain text for a terminal, or None when a terminal watching the
    match live does not show it (call records and secrets)."""
    if e.style in ("hidden", "secret"):
        return None
    if e.style == "spoiler":
        return f"[judge] {e.text}"
    if e.style == "said":
        return f"  {e.actor}: {e.text}"
    if e.style == "heading":
        return f"\n== {e.text}"
    return f"  [{e.kind}] {e.text}"


__all__ = ["call_reasons", "plain_line", "reason_for", "seat_events", "seen_by", "without_calls"]
