"""An agent that builds a prompt from the observation and calls `llm_caller`."""

from __future__ import annotations

import re
from collections.abc import Callable

from .agent import Agent, Reply
from .deadline import turn
from .errors import AgentError
from .observation import Observation
from .parsing import parse_choice
from .prompts import REASK_TEMPLATE, VERB_TEMPLATES, Message, render_fields, system_prompt, user_content
from .usage import LLMText, Usage, usage_of

LLMCaller = Callable[[list[Message]], str]
_LABEL = re.compile(r"^\s*(?:statement|my statement|answer|reply|发言)\s*[:：]\s*", re.IGNORECASE)


def first_statement(reply: str) -> str:
    """A public statement is one line: the first non-empty one, without a leading
    label or wrapping quotes (small models often add both, then ramble on)."""
    for line in reply.splitlines():
        line = _LABEL.sub("", line).strip().strip('"“”\'').strip()
        if line:
            return line
    return ""


class LLMAgent(Agent):
    """Implements speak/vote/answer on top of one function: `llm_caller(messages) -> str`.

    `messages` is an OpenAI-style chat list. Replace `llm_caller` to plug in any model.
    Votes are parsed into a valid option; when the reply names none, the model is
    re-asked once with a corrective message. A reply that still cannot be read is
    returned as it is, so the arena records it as unparseable (never silently repaired).

    `vision=True` declares (in `info`) that the model reads images: the arena then sends the
    observation's pictures as data URLs and the user message becomes OpenAI-style content
    parts (text, then one `image_url` part per picture). With the default `vision=False`
    every message is plain text, the captions standing in for the pictures, so a text-only
    `llm_caller` never receives content parts.
    """

    def __init__(
        self,
        llm_caller: LLMCaller,
        name: str = "llm-agent",
        *,
        system_prompts: dict[str, str] | None = None,
        verb_templates: dict[str, str] | None = None,
        max_history: int = 60,
        description: str = "",
        games: tuple[str, ...] | None = None,
        vision: bool = False,
    ) -> None:
        super().__init__(name)
        self.vision = vision
        self.llm_caller = llm_caller
        self.system_prompts = dict(system_prompts or {})  # by game id: the author's own, else the game's rules
        if games is not None:  # what `info` declares; the arena seats an agent only there
            self.games = tuple(games)
        self.verb_templates = {**VERB_TEMPLATES, **(verb_templates or {})}
        self.max_history = max_history
        self.description = description

    def prepare(self) -> None:
        # e.g. local_caller loads its model here, so the first turn is not a timeout
        prepare = getattr(self.llm_caller, "prepare", None)
        if callable(prepare):
            prepare()

    # -- prompt building -------------------------------------------------
    def build_messages(self, obs: Observation) -> list[Message]:
        fields = render_fields(obs, self.max_history)
        system = system_prompt(obs, self.system_prompts)
        user = self.verb_templates[obs.verb].format(**fields)
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": user_content(user, obs.images, vision=self.vision)},
        ]

    def _call(self, messages: list[Message]) -> str:
        try:
            reply = self.llm_caller(messages)
        except AgentError as exc:
            exc.agent = exc.agent or self.name
            raise
        except Exception as exc:  # the model endpoint failed: one error type for the arena
            raise AgentError("agent_failed", f"llm_caller failed: {type(exc).__name__}: {exc}",
                             agent=self.name) from exc
        if not isinstance(reply, str):
            raise AgentError("bad_reply", f"llm_caller returned {type(reply).__name__}, not str",
                             agent=self.name)
        return reply

    def act(self, obs: Observation) -> Reply:
        # the turn's time limit, for a caller that can stop early (the embedded model does)
        with turn(obs.limits.seconds):
            return super().act(obs)

    # -- verbs -----------------------------------------------------------
    def speak(self, obs: Observation) -> str:
        reply = self._call(self.build_messages(obs))
        return LLMText(first_statement(reply), usage_of(reply))

    def answer(self, obs: Observation) -> str:
        reply = self._call(self.build_messages(obs))
        if not obs.options:
            return reply
        choice = parse_choice(reply, obs.options, obs.pick, obs.allow_abstain, obs.option_texts)
        return LLMText(choice.as_text(), usage_of(reply)) if choice.ok else reply

    def vote(self, obs: Observation) -> str:
        return self._vote(obs, keep_reasoning=False)

    def analyse(self, obs: Observation) -> str:
        """A vote that keeps the model's analysis: the whole reply when it names a valid
        option (the arena reads the choice from it, an explicit final answer first), else
        the choice obtained by the corrective re-ask."""
        return self._vote(obs, keep_reasoning=True)

    def _vote(self, obs: Observation, keep_reasoning: bool) -> str:
        messages = self.build_messages(obs)
        reply = self._call(messages)
        usage: Usage | None = usage_of(reply)
        choice = parse_choice(reply, obs.options, obs.pick, obs.allow_abstain, obs.option_texts)
        if choice.ok and keep_reasoning:
            return LLMText(reply, usage)
        if not choice.ok:
            fields = render_fields(obs)
            reask = REASK_TEMPLATE.format(reason=choice.reason, **fields)
            messages = [*messages, {"role": "assistant", "content": reply},
                        {"role": "user", "content": reask}]
            second = self._call(messages)
            usage = (usage or Usage()) + usage_of(second) if usage or usage_of(second) else None
            choice = parse_choice(second, obs.options, obs.pick, obs.allow_abstain, obs.option_texts)
            if not choice.ok:
                return LLMText(second, usage)
        return LLMText(choice.as_text(), usage)
