"""Real observations for every verb of every game, and the exact messages `LLMAgent` sends.

Each game is played from a fixed seed by its house agents until every kind of request
(verb and phase) has been asked once; the first request of each kind is kept. Question
suites add one `answer` per suite game. docs/build-an-agent.md embeds what `render_doc`
writes between its markers, so the examples there are generated, never typed:

    python -m space_app.agent_examples          # rewrite the generated parts of the doc
    python -m space_app.agent_examples --check  # exit 1 when the doc is out of date
"""

from __future__ import annotations

import argparse
import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sdk import LLMAgent, Observation, scripted_caller
from sdk.prompts import Message

from .core import GAMES, get_game
from .core.game import Outcome
from .core.replies import outcome_text
from .generated_docs import refresh

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "build-an-agent.md"
SEED = 1
MAX_STEPS = 2000  # a game that never ends must not hang the generator
KEEP_LINES = 14  # of a long message, this many lines from its start and from its end are shown
MAX_LINE = 600


@dataclass(frozen=True)
class Example:
    """One real request: where it comes from and what a well-formed reply looks like."""

    key: str  # "game/verb/phase", unique
    game: str
    verb: str
    phase: str
    title: str
    source: str  # how it was produced (game and seed, or suite and item)
    observation: Observation

    @property
    def reply(self) -> str:
        return example_reply(self.observation)


def example_reply(obs: Observation) -> str:
    """A reply in the format the arena reads."""
    if obs.options:
        return "Final answer: " + ", ".join(obs.options[: obs.pick])
    if obs.verb == "speak":
        return "(one public statement, at most " f"{obs.limits.max_chars} characters)"
    return "(free text)"


def _title(game: str, verb: str, phase: str) -> str:
    spec = GAMES.get(game)
    title = spec.title if spec else game
    what = (spec.presentation.phase_titles.get(phase) if spec else None) or phase or verb
    return f"{title} · {verb} · {what}"


def game_examples(game: str, seed: int = SEED) -> list[Example]:
    """The first request of each (verb, phase) in one match of `game` played by its house agents."""
    spec = get_game(game)
    # the game's demo line-up leads with its strongest house agent, which reaches every phase
    driver = spec.house.demo[0] if spec.house.demo else next(iter(spec.house.agents))
    agent = spec.house.agents[driver].build()
    match = spec.make(spec.facts.default_players, seed)
    found: dict[str, Example] = {}
    for _ in range(MAX_STEPS):
        if match.over:
            break
        outcomes = []
        for request in match.pending():
            obs = request.observation
            key = f"{game}/{obs.verb}/{obs.phase}"
            if key not in found:
                found[key] = Example(key, game, obs.verb, obs.phase, _title(game, obs.verb, obs.phase),
                                     f"{spec.title}, seed {seed}, {spec.facts.default_players} seats, "
                                     f"seat {request.seat}, played by {driver}", obs)
            text, status, detail = outcome_text(agent.act(obs).text, obs)
            outcomes.append(Outcome(request.seat, text, status, detail))
        match.submit(outcomes)
    return list(found.values())


def suite_examples() -> list[Example]:
    """One `answer` per suite game (the first suite of that game, its first question)."""
    from .suites import SUITES, open_suite
    from .suites.run import observation

    out: list[Example] = []
    seen: set[str] = set()
    for suite_id, source in SUITES.items():
        if source.game in seen:
            continue
        seen.add(source.game)
        item = open_suite(suite_id).loaded.items[0]
        obs = observation(item, source.game, seconds=60.0, rules=source.rules_text())
        title = GAMES[source.game].title if source.game in GAMES else "Theory of Mind"
        out.append(Example(f"{source.game}/answer/question", source.game, "answer", "question",
                           f"{title} · answer · a quiz question", f"suite {suite_id}, item {item.id}", obs))
    return out


@functools.cache
def examples() -> tuple[Example, ...]:
    """Every example, grouped by game in the registry's order (a suite's question with its game,
    a suite's own game after them)."""
    out = [e for game in GAMES for e in game_examples(game)] + suite_examples()
    order = list(GAMES)
    return tuple(sorted(out, key=lambda e: order.index(e.game) if e.game in order else len(order)))


# -- rendering -----------------------------------------------------------------------
def messages_for(obs: Observation) -> list[Message]:
    """Exactly what `LLMAgent` (default prompts) hands `llm_caller` for this observation."""
    return LLMAgent(scripted_caller(["unused"])).build_messages(obs)


def reask_messages(obs: Observation, first_reply: str = "Hmm, hard to say.") -> list[Message]:
    """The second call of a vote whose first reply names no option."""
    caller = scripted_caller([first_reply, "Final answer: " + obs.options[0]])
    LLMAgent(caller).vote(obs)
    return caller.calls[1]


def _clip_line(line: str) -> str:
    line = re.sub(r"data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+", "data:image/…", line)
    return line if len(line) <= MAX_LINE else line[:MAX_LINE] + " …"


def _clip(text: str) -> str:
    lines = [_clip_line(line) for line in text.splitlines()]
    if len(lines) <= 2 * KEEP_LINES + 1:
        return "\n".join(lines)
    left_out = len(lines) - 2 * KEEP_LINES
    return "\n".join([*lines[:KEEP_LINES], f"[… {left_out} lines left out here …]", *lines[-KEEP_LINES:]])


def render_messages(messages: list[Message]) -> str:
    parts = []
    for message in messages:
        content: Any = message["content"]
        if isinstance(content, list):
            text = "\n".join(p["text"] if p.get("type") == "text" else f"[image: {_clip_line(p['image_url']['url'])}]"
                             for p in content)
        else:
            text = str(content)
        parts.append(f"[{message['role']}]\n{_clip(text)}")
    return "\n\n".join(parts)


def _fence(body: str, lang: str = "text") -> str:
    return f"````{lang}\n{body}\n````"


def render_examples(items: tuple[Example, ...] | None = None) -> str:
    """The doc's generated section: per example, where it comes from, its options, the
    messages `llm_caller` receives and a reply in the expected format."""
    items = items or examples()
    lines = []
    for game in dict.fromkeys(e.game for e in items):
        title = GAMES[game].title if game in GAMES else "Theory-of-Mind questions"
        lines += [f"#### {title} (`{game}`)", ""]
        for e in (x for x in items if x.game == game):
            obs = e.observation
            options = f"`options` {obs.options}, `pick` {obs.pick}" if obs.options else "no options (free text)"
            lines += [f"<details><summary><b>{e.title}</b> — <code>verb={e.verb}</code>, "
                      f"<code>phase={e.phase}</code></summary>", "",
                      f"From: {e.source}. {options}; time limit {obs.limits.seconds:g} s, "
                      f"replies cut at {obs.limits.max_chars} characters.", "",
                      _fence(render_messages(messages_for(obs))), "",
                      f"A reply the arena reads: `{e.reply}`", "", "</details>", ""]
    vote = next(e for e in items if e.verb == "vote")
    lines += ["#### An unreadable vote is asked again", "",
              f"When the first reply to the {vote.title} request above names no option (here "
              "`Hmm, hard to say.`), `LLMAgent` calls `llm_caller` once more with the conversation "
              "so far and this last message:", "",
              _fence(reask_messages(vote.observation)[-1]["content"]), ""]
    return "\n".join(lines).rstrip() + "\n"


_BLOCK = re.compile(r"(<!-- generated: (?P<what>[^>]+?) -->\n).*?(<!-- end generated -->)", re.S)


def _generated(what: str) -> str:
    """The text between `<!-- generated: WHAT -->` and `<!-- end generated -->`."""
    if what == "examples":
        return render_examples()
    if what.startswith("file "):  # a file of the repository, shown whole (tests run it)
        path = ROOT / what[5:].strip()
        return _fence(path.read_text(encoding="utf-8").rstrip(), "python") + "\n"
    raise ValueError(f"unknown generated block {what!r}")


def render_doc(text: str) -> str:
    """`text` with every generated block filled in again."""
    return _BLOCK.sub(lambda m: m.group(1) + _generated(m.group("what")) + m.group(3), text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m space_app.agent_examples", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only check that the doc is up to date")
    parser.add_argument("--doc", type=Path, default=DOC)
    args = parser.parse_args(argv)
    return refresh(args.doc, render_doc, "python -m space_app.agent_examples", args.check)


if __name__ == "__main__":
    raise SystemExit(main())
