"""The behaviour rules every episode follows, and what can be inferred back from behaviour.

How a speaker talks, given the social goal towards the listener and the speaker's belief b
about where the object is:
- help: tells where they believe it is (b), when asked or unprompted;
- hinder: names a place they believe it is not (never b), when asked or unprompted;
- independent: never volunteers; when asked, either tells b plainly or declines.

How a listener who does not know where the object is reacts to directions: she goes where
she was told if she takes the speaker to be honest (helping, or indifferent and asked), and
deliberately searches elsewhere if she takes the speaker to be misleading her. A listener
who knows both the truth and what the speaker last saw judges the directions against that.

Inference runs these rules backwards: each function returns the set of values consistent
with the observed behaviour (sorted, so callers get a stable order).
"""

from __future__ import annotations

HELP, HINDER, INDEPENDENT = "help", "hinder", "independent"
GOALS = (HELP, HINDER, INDEPENDENT)

ASK, ANSWER, DECLINE, OFFER, ANNOUNCE = "ask", "answer", "decline", "offer", "announce"
FOLLOW, AVOID, THANK, COLD, ALONE = "follow", "avoid", "thank", "cold", "alone"


def speech_allowed(goal: str, act: str, said_matches_belief: bool) -> bool:
    """May a speaker with this goal produce this speech act (answer/offer/decline)?"""
    if goal == HELP:
        return act in (ANSWER, OFFER) and said_matches_belief
    if goal == HINDER:
        return act in (ANSWER, OFFER) and not said_matches_belief
    return act == DECLINE or (act == ANSWER and said_matches_belief)


def goals_from_speech(act: str, said_matches_belief: bool) -> tuple[str, ...]:
    """Social goals consistent with a speech act, given the speaker's belief."""
    return tuple(g for g in GOALS if speech_allowed(g, act, said_matches_belief))


def believed_goals(act: str, reaction: str, listener_check: bool | None) -> tuple[str, ...]:
    """What the listener may think the speaker's goal is.

    listener_check: None when the listener cannot tell what the speaker believes (she does not
    know where the object is); otherwise whether the directions match what she knows the
    speaker last saw. Rational listeners know the speech rules above.
    """
    if act == DECLINE:
        return (INDEPENDENT,)
    if listener_check is not None:
        return goals_from_speech(act, listener_check)
    if reaction == AVOID:
        return (HINDER,)
    # she follows the directions: she takes them as honest
    return goals_from_speech(act, True)
