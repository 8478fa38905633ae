"""What a game is handed for an agent's reply: a vote or a multiple-choice answer read to an
exact option (or the reason it could not be), a statement stripped and cut to the turn's limit.
The runner, `verify` and the conformance checks all read replies through this one function, so
a stored reply replays exactly as it was first read."""

from __future__ import annotations

from sdk.observation import Observation
from sdk.parsing import parse_choice


def outcome_text(raw: str, obs: Observation) -> tuple[str | None, str, str]:
    """What the game is handed for a reply: (text, status, detail). Votes (and answers
    with options) are parsed to an exact option; statements are stripped and cut to the
    turn's limit. `verify` replays stored replies through this same function."""
    if obs.verb == "vote" or (obs.verb == "answer" and obs.options):
        choice = parse_choice(raw[: 20 * obs.limits.max_chars], obs.options, obs.pick, obs.allow_abstain,
                              obs.option_texts)
        if choice.ok:
            return choice.as_text(), "ok", ""
        return None, "unparseable", choice.reason[:300]
    # strip first: padding must not eat the limit (400 newlines + a statement would
    # otherwise reach the game as an empty statement)
    body = raw.strip()
    detail = f"truncated from {len(body)} characters" if len(body) > obs.limits.max_chars else ""
    return body[: obs.limits.max_chars], "ok", detail


__all__ = ["outcome_text"]
