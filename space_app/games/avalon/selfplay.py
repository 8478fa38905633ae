"""A pure in-process driver for tests and benchmarks: answers each request by calling the
seat's agent directly and hands the game what the runner would (votes parsed with the
SDK parser to exact labels, statements stripped and cut). No threads, no time limits;
the real runner (space_app.runner.play) is what matches use."""

from __future__ import annotations

from collections.abc import Mapping

from sdk import Agent, parse_choice
from sdk.usage import notes_of

from ...core.game import Outcome, Request
from .rules import AvalonGame

MAX_STEPS = 10_000  # far beyond any game (5 quests x 5 proposals x a dozen steps)


def outcome_for(request: Request, reply: str) -> Outcome:
    obs = request.observation
    if obs.verb == "vote" or (obs.verb == "answer" and obs.options):
        choice = parse_choice(reply, obs.options, obs.pick, obs.allow_abstain, obs.option_texts)
        if choice.ok:
            return Outcome(request.seat, choice.as_text())
        return Outcome(request.seat, None, "unparseable", choice.reason[:300])
    # private notes (an intention agent's selection and THINK) go with it, as the runner hands them
    return Outcome(request.seat, reply.strip()[: obs.limits.max_chars], notes=notes_of(reply))


def play_local(game: AvalonGame, agents: Mapping[str, Agent], steps: int | None = None) -> AvalonGame:
    """Drive `game` with `agents` by seat to its end (or for `steps` steps); returns the game."""
    done = 0
    while not game.over and (steps is None or done < steps):
        if done >= MAX_STEPS:
            raise RuntimeError(f"the game did not end within {MAX_STEPS} steps")
        outcomes = []
        for request in game.pending():
            agent = agents[request.seat]
            try:
                reply = getattr(agent, request.verb)(request.observation)
            except Exception as exc:  # an agent's bug is its own fault, as in the runner
                outcomes.append(Outcome(request.seat, None, "error", f"{type(exc).__name__}: {exc}"[:300]))
                continue
            outcomes.append(outcome_for(request, reply))
        game.submit(outcomes)
        done += 1
    return game
