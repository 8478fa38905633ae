"""A Werewolf seat's role card, read beside the game: its role, team and power (and the pack,
for a werewolf) as the game told it, then what it learned at night that no one else did (the
Seer's visions, the Doctor's protections, the Witch's wakings and potions, the pack's choices).
Built from the seat's own view (`core.documents.SeatView`), so it holds nothing another seat
was told."""

from __future__ import annotations

from ...core.documents import SeatDocument, SeatView
from .events import DoctorProtect, SeerCheck, WitchAction, WitchWake, WolfChoice
from .phrases import PHRASES

NIGHT_KNOWLEDGE = (SeerCheck, DoctorProtect, WitchWake, WitchAction, WolfChoice)


def documents(view: SeatView) -> list[SeatDocument]:
    """The role card, then the night's private lessons so far (when there are any)."""
    if not view.private.text:
        return []
    role = str(view.private.facts.get("role") or "")
    title = PHRASES.say(view.language, "card_title", role=PHRASES.say(view.language, f"role_{role}")
                        if role else "?")
    lines = [view.private.text]
    learned = [e.text for e in view.events if isinstance(e, NIGHT_KNOWLEDGE) and e.visible_to and e.text]
    if learned:
        lines += ["", PHRASES.say(view.language, "card_nights") + ":", *(f"- {line}" for line in learned)]
    return [SeatDocument(title=title, text="\n".join(lines), kind="role")]


__all__ = ["documents"]
