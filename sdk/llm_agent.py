"""An agent that builds a prompt from the observation and calls `llm_caller`."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from .agent import LOCAL_AGENT_THREADS, Agent, Reply
from .context import LEFT_OUT, estimate_tokens, newest_that_fit, reply_reserve
from .deadline import Turn, turn
from .errors import AgentError
from .observation import Observation
from .parsing import parse_choice
from .prompts import (
    REASK_TEMPLATE,
    SHORTER_TEMPLATES,
    VERB_TEMPLATES,
    Message,
    render_fields,
    system_prompt,
    user_content,
)
from .usage import LLMText, Usage, truncated_of, usage_of

LLMCaller = Callable[[list[Message]], str]
# the model calls of the turn running in this thread (a turn runs in one worker thread)
_TURN_CALLS = threading.local()
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
    A reply the caller flags as cut at its token limit (`LLMText.truncated`) is asked
    again once with a shorter-answer instruction, unless what the verb needs came before
    the cut (a statement's first line); the turn's reply keeps the flag, so the arena
    records it.

    `vision=True` declares (in `info`) that the model reads images: the arena then sends the
    observation's pictures as data URLs and the user message becomes OpenAI-style content
    parts (text, then one `image_url` part per picture). With the default `vision=False`
    every message is plain text, the captions standing in for the pictures, so a text-only
    `llm_caller` never receives content parts.

    `max_history` caps the history items in a prompt; `context_tokens` (the model's context
    length, in tokens) also trims it by an estimate of tokens (`sdk.context`): the newest
    items that fit beside the system prompt, the rest of the user message and the reply's
    `max_tokens` are kept, and the prompt says how many earlier ones were left out.
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
        context_tokens: int | None = None,
    ) -> None:
        super().__init__(name)
        if context_tokens is not None:
            if not isinstance(context_tokens, int) or isinstance(context_tokens, bool) or context_tokens <= 0:
                raise ValueError(f"context_tokens must be the model's context length, a whole number of tokens "
                                 f"above 0, not {context_tokens!r}")
            if context_tokens <= reply_reserve(llm_caller):
                raise ValueError(f"context_tokens={context_tokens} leaves no room for a prompt: the reply alone "
                                 f"is given {reply_reserve(llm_caller)} tokens (the caller's max_tokens)")
        self.context_tokens = context_tokens
        self.vision = vision
        self.llm_caller = llm_caller
        self.system_prompts = dict(system_prompts or {})  # by game id: the author's own, else the game's rules
        if games is not None:  # what `info` declares; the arena seats an agent only there
            self.games = tuple(games)
        self.verb_templates = {**VERB_TEMPLATES, **(verb_templates or {})}
        self.max_history = max_history
        self.description = description

    def model_name(self) -> str:
        from .versions import model_of

        return model_of(self.llm_caller)

    def prepare(self) -> None:
        # e.g. local_caller loads its model here, so the first turn is not a timeout
        prepare = getattr(self.llm_caller, "prepare", None)
        if callable(prepare):
            prepare()

    # -- prompt building -------------------------------------------------
    def build_messages(self, obs: Observation) -> list[Message]:
        fields = render_fields(obs, self.max_history)
        system = system_prompt(obs, self.system_prompts)
        template = self.verb_templates[obs.verb]
        if self.context_tokens is not None and obs.history:
            fields["history"] = self._history_that_fits(obs, system, template, fields)
        user = template.format(**fields)
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": user_content(user, obs.images, vision=self.vision)},
        ]

    def _history_that_fits(self, obs: Observation, system: str, template: str, fields: dict[str, str]) -> str:
        """The newest history items whose prompt fits `context_tokens` with the reply's room."""
        assert self.context_tokens is not None
        most = min(len(obs.history), self.max_history) if self.max_history else len(obs.history)

        def history_with(n: int) -> str:
            left_out = len(obs.history) - n
            parts = [LEFT_OUT.format(n=left_out)] if left_out else []
            if n:
                parts.append(obs.history_text(last=n))
            return "\n".join(parts)

        def size(n: int) -> int:
            return estimate_tokens(system) + estimate_tokens(template.format(**{**fields, "history": history_with(n)}))

        available = self.context_tokens - reply_reserve(self.llm_caller)
        return history_with(newest_that_fit(available, most, size))

    def _call(self, messages: list[Message]) -> str:
        started = time.perf_counter()
        try:
            reply = self.llm_caller(messages)
        except AgentError as exc:
            exc.agent = exc.agent or self.name
            _record(messages, None, started, f"{exc.kind}: {exc.message}")
            raise
        except Exception as exc:  # the model endpoint failed: one error type for the arena
            _record(messages, None, started, f"{type(exc).__name__}: {exc}")
            raise AgentError("agent_failed", f"llm_caller failed: {type(exc).__name__}: {exc}",
                             agent=self.name) from exc
        if not isinstance(reply, str):
            _record(messages, None, started, f"returned {type(reply).__name__}, not str")
            raise AgentError("bad_reply", f"llm_caller returned {type(reply).__name__}, not str",
                             agent=self.name)
        _record(messages, reply, started, "")
        return reply

    def act(self, obs: Observation, current: Turn | None = None) -> Reply:
        """The verb's reply, with `meta["model_calls"]`: every model call of the turn (the
        messages sent, the raw reply, tokens, seconds), which the arena keeps in the call record."""
        # the turn's time limit, for a caller that can stop early (the embedded model does)
        outer = getattr(_TURN_CALLS, "calls", None)
        _TURN_CALLS.calls = calls = []
        try:
            with turn(current or obs.limits.seconds):
                reply = super().act(obs)
        finally:
            _TURN_CALLS.calls = outer
        return Reply(reply.text, reply.usage, {**reply.meta, "model_calls": calls}) if calls else reply

    async def aact(self, obs: Observation) -> Reply:
        # The turn starts when the arena calls, and when the arena cancels this await (time
        # is up, or the match stopped) the turn is marked abandoned, so a caller stops its
        # model request instead of leaving it queued on the model server.
        current = Turn(obs.limits.seconds)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(LOCAL_AGENT_THREADS, self.act, obs, current)
        except asyncio.CancelledError:
            current.abandon.set()
            raise

    def _shorter(self, obs: Observation, messages: list[Message], reply: str) -> str:
        """Ask once more after a reply cut at the token limit, with a shorter-answer
        instruction; the returned text carries both calls' usage and the truncated flag.
        When the second call fails, the cut reply stands (it is all there is)."""
        kind = "vote" if obs.options else obs.verb
        ask = SHORTER_TEMPLATES[kind].format(**render_fields(obs))
        try:
            second = self._call([*messages, {"role": "assistant", "content": reply},
                                 {"role": "user", "content": ask}])
        except AgentError:
            return reply
        return LLMText(second, _sum_usage(reply, second), truncated=True)

    # -- verbs -----------------------------------------------------------
    def speak(self, obs: Observation) -> str:
        messages = self.build_messages(obs)
        reply = self._call(messages)
        # the statement is the first line: a cut matters only when it fell inside that line
        if truncated_of(reply) and "\n" not in reply.strip():
            reply = self._shorter(obs, messages, reply)
        return LLMText(first_statement(reply), usage_of(reply), truncated=truncated_of(reply))

    def answer(self, obs: Observation) -> str:
        messages = self.build_messages(obs)
        reply = self._call(messages)
        if truncated_of(reply):
            reply = self._shorter(obs, messages, reply)
        if not obs.options:
            return reply
        choice = parse_choice(reply, obs.options, obs.pick, obs.allow_abstain, obs.option_texts)
        return LLMText(choice.as_text(), usage_of(reply), truncated=truncated_of(reply)) if choice.ok else reply

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
        cut = truncated_of(reply)
        if cut:  # a cut reply's choice cannot be trusted (a team cut after one name): ask again
            reply = self._shorter(obs, messages, reply)
        usage: Usage | None = usage_of(reply)
        choice = parse_choice(reply, obs.options, obs.pick, obs.allow_abstain, obs.option_texts)
        if choice.ok and keep_reasoning:
            return LLMText(reply, usage, truncated=cut)
        if not choice.ok and not cut:  # one re-ask per turn: the cut reply's has been made
            fields = render_fields(obs)
            reask = REASK_TEMPLATE.format(reason=choice.reason, **fields)
            messages = [*messages, {"role": "assistant", "content": reply},
                        {"role": "user", "content": reask}]
            second = self._call(messages)
            usage = _sum_usage(reply, second)
            cut = truncated_of(second)
            choice = parse_choice(second, obs.options, obs.pick, obs.allow_abstain, obs.option_texts)
            if not choice.ok:
                return LLMText(second, usage, truncated=cut)
        if not choice.ok:
            return LLMText(reply, usage, truncated=cut)
        return LLMText(choice.as_text(), usage, truncated=cut)


def _record(messages: list[Message], reply: str | None, started: float, error: str) -> None:
    """Keep one model call of the running turn (nothing when no turn is running)."""
    calls: list[dict[str, Any]] | None = getattr(_TURN_CALLS, "calls", None)
    if calls is None:
        return
    usage = usage_of(reply)
    calls.append({"messages": [dict(m) for m in messages], "reply": None if reply is None else str(reply),
                  "prompt_tokens": usage.prompt_tokens if usage else None,
                  "completion_tokens": usage.completion_tokens if usage else None,
                  "seconds": round(time.perf_counter() - started, 3), "error": error[:500],
                  "truncated": truncated_of(reply)})


def _sum_usage(first: str, second: str) -> Usage | None:
    a, b = usage_of(first), usage_of(second)
    return (a or Usage()) + b if a or b else None
