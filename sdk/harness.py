"""Play locally, with no arena running: `python -m sdk play GAME --agent my_agent/app.py` runs a
whole match in process (the arena's own game code, its house agents in the other seats) and
prints everything your seat sees and does: each observation, the messages sent to the model,
its raw reply, what the arena read from it, tokens and seconds. `python -m sdk try VERB --game
GAME` does one call, on a real example observation of that game and verb.

The game code comes from the arena package installed beside the SDK (`space_app`), asked for by
the game's id: the SDK itself names no game.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from .agent import Agent
from .observation import Observation
from .usage import usage_of


class HarnessError(ValueError):
    """A clear reason the harness cannot start (bad agent path, unknown game or seat)."""


def load_agent(target: str) -> Agent:
    """`path/app.py` (its `agent`) or `path/app.py:name`: the agent object an agent Space serves."""
    path_text, _, name = target.partition(":")
    path = Path(path_text)
    if path.is_dir():
        path = path / "app.py"
    if not path.is_file():
        raise HarnessError(f"no agent file {path} (give the agent's app.py, optionally :name)")
    spec = importlib.util.spec_from_file_location(f"agent_under_test_{abs(hash(path.resolve()))}", path)
    if spec is None or spec.loader is None:
        raise HarnessError(f"{path} cannot be imported as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.resolve().parent))  # the Space's own modules import as they do there
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.resolve().parent))
    agent = getattr(module, name or "agent", None)
    if not isinstance(agent, Agent):
        found = [n for n, v in vars(module).items() if isinstance(v, Agent)]
        raise HarnessError(f"{path} has no Agent named {name or 'agent'!r}"
                           + (f" (it has: {', '.join(found)}; use {path}:NAME)" if found else ""))
    return agent


class Printer:
    """What the harness prints, one block per call of your seat."""

    def __init__(self, out: TextIO, width: int | None = 1200) -> None:
        self.out = out
        self.width = width

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def clip(self, text: str) -> str:
        if self.width is None or len(text) <= self.width:
            return text
        return f"{text[: self.width]}… ({len(text)} characters)"

    def observation(self, obs: Observation) -> None:
        self.say(f"\n=== {obs.you} · {obs.verb} · phase {obs.phase or '-'} · round {obs.round} "
                 f"· {obs.limits.seconds:g} s, {obs.limits.max_chars} characters")
        private = obs.private_text()
        if private:
            self.say(f"private: {self.clip(private)}")
        self.say(f"instruction: {obs.instruction}")
        if obs.options:
            self.say(f"options (pick {obs.pick}): {obs.options_text()}")
        self.say(f"reply format: {obs.reply_format}")

    def messages(self, messages: list[dict[str, Any]]) -> None:
        for message in messages:
            content = message.get("content")
            if isinstance(content, list):
                content = "\n".join(p.get("text", "[image]") if p.get("type") == "text" else "[image]"
                                    for p in content)
            self.say(f"--- {message.get('role')} ---\n{self.clip(str(content))}")


def watched(agent: Agent, printer: Printer) -> Callable[[], None]:
    """Print every model call of `agent` (its `llm_caller`, when it has one); returns the undo."""
    caller = getattr(agent, "llm_caller", None)
    if not callable(caller):
        return lambda: None

    def traced(messages: list[dict[str, Any]]) -> str:
        printer.messages(messages)
        started = time.perf_counter()
        reply = caller(messages)
        usage = usage_of(reply)
        tokens = f", {usage.prompt_tokens} + {usage.completion_tokens} tokens" if usage else ""
        printer.say(f"--- model reply ({time.perf_counter() - started:.2f} s{tokens}) ---\n{printer.clip(str(reply))}")
        return reply

    agent.llm_caller = traced  # type: ignore[attr-defined]
    return lambda: setattr(agent, "llm_caller", caller)


def play(game: str, agent: Agent, *, seat: str | None = None, seed: int = 7, players: int | None = None,
         out: TextIO | None = None, full: bool = False) -> dict[str, Any]:
    """A whole match of `game` with `agent` in `seat` (default: the first) and the game's cheap
    house agents elsewhere, printed as it goes; returns the result."""
    from space_app.core import UnknownGame, get_game
    from space_app.core.conformance import house_repliers, self_play
    from space_app.core.replies import outcome_text

    try:
        spec = get_game(game)
    except UnknownGame as exc:
        raise HarnessError(str(exc)) from None
    n = players or spec.facts.default_players
    seats = spec.facts.seat_names(n)
    mine = seat or seats[0]
    if mine not in seats:
        raise HarnessError(f"no seat {mine!r} in a {n}-player {spec.title}: seats are {', '.join(seats)}")
    printer = Printer(out or sys.stdout, None if full else 1200)
    printer.say(f"{spec.title}, {n} players, seed {seed}: you are {mine}; the others are the game's house agents")
    agent.prepare()
    undo = watched(agent, printer)
    shown = 0

    def events_so_far(game_state: Any) -> None:
        nonlocal shown
        for event in game_state.events[shown:]:
            if event.visible_for(mine) and event.style != "secret":  # its secrets are in the observation
                printer.say(f"  [{event.kind}] {event.actor}: {printer.clip(event.text)}")
        shown = len(game_state.events)

    def yours(_: str, obs: Observation) -> str:
        printer.observation(obs)
        started = time.perf_counter()
        reply = agent.act(obs)
        seconds = time.perf_counter() - started
        text, status, detail = outcome_text(reply.text, obs)
        printer.say(f">>> reply: {printer.clip(reply.text)}")
        printer.say(f">>> read as: {text!r} ({status}{': ' + detail if detail else ''}) in {seconds:.2f} s")
        return reply.text

    others = house_repliers(spec, n)

    def other(seat_name: str, obs: Observation) -> str:
        return others[seat_name](seat_name, obs)

    repliers: dict[str, Callable[[str, Observation], str]] = {s: other for s in seats}
    repliers[mine] = yours
    try:
        played = self_play(spec, seed, repliers, players=n, on_step=events_so_far)
    finally:
        undo()
    events_so_far(played.game)
    result = played.game.result()
    printer.say(f"\nresult: winner {result.get('winner')}; your role {result['roles'].get(mine)}, "
                f"score {result['scores'].get(mine)}")
    return result


def try_one(verb: str, game: str, agent: Agent, out: TextIO | None = None) -> str:
    """One call on the arena's own example observation of `game` and `verb`."""
    from space_app.agent_examples import examples
    from space_app.core.replies import outcome_text

    found = next((e for e in examples() if e.game == game and e.verb == verb), None)
    if found is None:
        known = sorted({f"{e.game} {e.verb}" for e in examples()})
        raise HarnessError(f"no example of {verb!r} in {game!r}; there are: {', '.join(known)}")
    printer = Printer(out or sys.stdout)
    printer.say(f"{found.title} ({found.source})")
    printer.observation(found.observation)
    agent.prepare()
    undo = watched(agent, printer)
    try:
        reply = agent.act(found.observation)
    finally:
        undo()
    text, status, detail = outcome_text(reply.text, found.observation)
    printer.say(f">>> reply: {printer.clip(reply.text)}")
    printer.say(f">>> read as: {text!r} ({status}{': ' + detail if detail else ''})")
    return reply.text


__all__ = ["HarnessError", "load_agent", "play", "try_one"]
