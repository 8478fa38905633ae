"""Run an agent's `answer` over a question suite and score it.

Each item becomes one `answer` observation (the context as a whole document, the
question as the instruction, labelled options with their texts, images attached), sent
through the match runner's own call (time limit by cancellation, bounded reply, the same
parsing). Calls run concurrently; answers are stored as they come, so an interrupted run
resumes where it stopped. A call that never reached the agent's own code (unreachable, a Space
asleep or restarting, an HTTP 5xx from its server) is no answer: it is stored as retryable, left
out of the scores, and asked again by the next run. Scores: accuracy overall and per question
type with 95% Wilson intervals, and the unparsed and failed rates beside them.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sdk import Agent
from sdk.observation import Document, Limits, Observation, PrivateInfo

from ..admission import match_slot
from ..core.events import Call
from ..core.game import Request
from ..core.reply_formats import reply_format
from ..engines import Done, Engine, LocalEngine, Tracker
from ..off_loop import off_loop
from ..runner import call_agent
from ..stats import Rate
from ..store import Store
from .items import SuiteItem
from .registry import TOM_RULES, Suite

READER = "reader"  # the one "seat" of a suite
# an HTTP 5xx the agent's server answered without naming the agent's own failure
_SERVER_ERROR = re.compile(r"agent_failed: HTTP 5[0-9][0-9](:|$)")


def infrastructure_failure(call: Call) -> bool:
    """Whether a call failed before the agent's own code could answer: unreachable (connection
    refused, a name that does not resolve, a Space asleep, building or restarting) or an HTTP
    5xx from its server. Such a question is asked again; a timeout, a refusal, a bad reply or
    the agent's own failure is its answer."""
    return call.status == "error" and (call.unreachable or bool(_SERVER_ERROR.match(call.detail or "")))


def observation(item: SuiteItem, game: str, seconds: float, rules: str = TOM_RULES) -> Observation:
    docs = [Document(title="Scenario", kind="context", text=item.context)] if item.context else []
    limits = Limits(max_chars=2000, seconds=seconds)
    return Observation(
        game=game, phase="question", verb="answer", you=READER, private=PrivateInfo(documents=docs),
        options=list(item.options), option_texts=dict(item.options), instruction=item.question,
        images=list(item.images), limits=limits, match_id=item.id, rules=rules,
        reply_format=reply_format("answer", "en", options=list(item.options), max_chars=limits.max_chars))


@dataclass
class SuiteScores:
    suite: str
    agent: str
    answered: int
    accuracy: Rate
    by_type: dict[str, Rate] = field(default_factory=dict)
    unparsed: Rate = field(default_factory=lambda: Rate(0, 0))
    failed: Rate = field(default_factory=lambda: Rate(0, 0))
    extra: dict[str, Rate] = field(default_factory=dict)  # by tag values, e.g. phrasing=least
    to_retry: int = 0  # questions whose call failed for infrastructure reasons: asked again next run
    concurrency: int = 1  # questions that were in flight at once
    # each question without a usable answer: item_id, status, reason, retry (asked again next run)
    failures: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"suite": self.suite, "agent": self.agent, "answered": self.answered,
                               "to_retry": self.to_retry, "concurrency": self.concurrency,
                               "failures": list(self.failures)}
        out.update(self.accuracy.to_dict("accuracy"))
        out.update(self.unparsed.to_dict("unparsed_rate"))
        out.update(self.failed.to_dict("failed_rate"))
        out["by_type"] = {t: r.to_dict("accuracy") for t, r in self.by_type.items()}
        out["by_tag"] = {t: r.to_dict("accuracy") for t, r in self.extra.items()}
        return out


def failures_of(rows: list[dict[str, Any]], retry_reasons: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Each question without a usable answer and why: the answers that timed out, failed or
    could not be read (`rows`), then those to ask again (`retry_reasons`: item id -> why)."""
    out = [{"item_id": r["item_id"], "status": r["status"], "reason": r.get("detail") or r["status"], "retry": False}
           for r in rows if r["status"] != "ok"]
    out += [{"item_id": item_id, "status": "error", "reason": why or "the agent could not be reached", "retry": True}
            for item_id, why in sorted((retry_reasons or {}).items())]
    return out


def score(suite: str, agent: str, rows: list[dict[str, Any]],
          tags: dict[str, dict[str, Any]] | None = None, to_retry: int = 0,
          retry_reasons: dict[str, str] | None = None, concurrency: int = 1) -> SuiteScores:
    """Scores of stored answers (`Store.answers` rows); `tags` (item id -> tags) adds
    accuracy per tag value; `to_retry`: how many questions wait to be asked again
    (`retry_reasons`: why each failed); `concurrency`: how many were asked at once."""
    correct = sum(int(r["correct"]) for r in rows)
    by_type: dict[str, list[int]] = {}
    by_tag: dict[str, list[int]] = {}
    for r in rows:
        for t in r["types"] or ["(untyped)"]:
            by_type.setdefault(t, []).append(int(r["correct"]))
        for key, value in ((tags or {}).get(r["item_id"]) or {}).items():
            if isinstance(value, (str, int, bool)) and value != "" and key != "episode":
                by_tag.setdefault(f"{key}={value}", []).append(int(r["correct"]))
    n = len(rows)
    return SuiteScores(
        suite, agent, n, Rate(correct, n),
        {t: Rate(sum(v), len(v)) for t, v in sorted(by_type.items())},
        Rate(sum(r["status"] == "unparseable" for r in rows), n),
        Rate(sum(r["status"] in ("timeout", "error") for r in rows), n),
        {t: Rate(sum(v), len(v)) for t, v in sorted(by_tag.items())}, to_retry, concurrency,
        failures_of(rows, retry_reasons))


def first_n(items: list[SuiteItem], limit: int | None) -> list[SuiteItem]:
    """The questions a `limit` asks: the first N in a fixed order spread over the whole file (by
    a hash of each id), so a sample mixes every question type however the file is sorted, and a
    larger limit asks the smaller one's questions and more (a resumed run only adds)."""
    if not limit or limit >= len(items):
        return list(items)
    ranked = sorted(items, key=lambda item: hashlib.sha256(item.id.encode()).hexdigest())
    chosen = {item.id for item in ranked[:limit]}
    return [item for item in items if item.id in chosen]


def answer_row(item: SuiteItem, call: Call, parsed: str | None) -> dict[str, Any]:
    return {"item_id": item.id, "types": list(item.types), "gold": item.answer, "parsed": parsed,
            "correct": int(parsed == item.answer), "status": call.status, "detail": call.detail or "",
            "reply": call.reply, "latency_ms": call.latency_ms,
            "tokens": int(call.prompt_tokens or 0) + int(call.completion_tokens or 0),
            "retryable": int(infrastructure_failure(call))}


@dataclass
class SuiteJob:
    """The engine's job for a suite: a worker asks one agent the questions it is given and
    returns each answer's row; the driver stores them. In a Ray worker the agent is resolved
    once from the store at `url` (a local model loads once per worker); in process the
    driver's own agent is used (`agent`, never pickled)."""

    url: str
    agent_spec: str
    game: str
    rules: str
    seconds: float
    agent: Agent | None = field(default=None, compare=False, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "agent": None}

    def open(self) -> SuiteWorker:
        if self.agent is not None:
            return SuiteWorker(self, self.agent)
        from ..agents.catalogue import AgentCatalogue

        # the agent comes from the store (a registered agent's URL and secret never travel
        # through the cluster), with the same egress policy as in the arena's own process
        return SuiteWorker(self, AgentCatalogue(Store(self.url, recover=False)).resolve(self.agent_spec))


class SuiteWorker:
    def __init__(self, job: SuiteJob, agent: Agent) -> None:
        self.job = job
        self.agent = agent

    async def run(self, item: SuiteItem) -> dict[str, Any]:
        # a visitor's benchmark: each question also holds one of the visitor's match slots
        async with match_slot():
            asked = observation(item, self.job.game, self.job.seconds, self.job.rules)
            outcome, record = await call_agent(self.agent, Request(READER, asked))
        return answer_row(item, record, outcome.text if outcome.ok else None)


async def run_suite(store: Store, suite: Suite, agent: Agent | None, agent_id: str, *, limit: int | None = None,
                    concurrency: int = 1, seconds: float = 60.0, fresh: bool = False,
                    progress: Callable[[int], None] | None = None, engine: Engine | None = None,
                    tracker: Tracker | None = None) -> SuiteScores:
    """Ask every item not answered yet, or to retry (`limit`: a fixed sample of that many, see
    `first_n`), store the answers as they come, and score every stored answer of those items.
    `fresh`: forget this agent's previous answers to the suite first, and ask everything.
    `engine`: where the questions are asked (default: in process, `concurrency` at once: 1 by
    default, as a local model or a one-slot server answers one request at a time); the
    answers are stored here, by this process, whichever engine asked them. `agent` None: each
    worker resolves `agent_id` from the store itself."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be 1 or more, got {concurrency}")
    items = first_n(suite.loaded.items, limit)
    if fresh:
        await off_loop(store.forget_answers, suite.id, agent_id)
    done = store.answered(suite.id, agent_id)
    todo = [item for item in items if item.id not in done]
    if tracker is not None and len(todo) < len(items):
        tracker.skip(len(items) - len(todo))
    pending: list[dict[str, Any]] = []
    saves: list[asyncio.Future] = []
    last_save = [time.monotonic()]

    def answered(result: Done) -> None:
        if result.ok:
            pending.append(result.value)
        if tracker is not None:
            tracker.end(result.ok)
        # each answer is kept as it comes (slow models: a killed run loses nothing), or in
        # small batches when answers come faster than ten a second
        if pending and (len(pending) >= 10 or time.monotonic() - last_save[0] > 0.1):
            batch = pending[:]
            pending.clear()
            last_save[0] = time.monotonic()
            saves.append(asyncio.ensure_future(off_loop(store.save_answers, suite.id, agent_id, batch)))
        if progress is not None:
            progress(1)

    job = SuiteJob(store.url, agent_id, suite.game, suite.rules, seconds, agent)
    try:
        await (engine or LocalEngine(concurrency)).map(
            job, todo, on_start=(lambda _: tracker.start()) if tracker is not None else None, on_end=answered)
    finally:  # what was answered is kept, even if interrupted
        await asyncio.shield(asyncio.gather(*saves, off_loop(store.save_answers, suite.id, agent_id, pending)))
    wanted = {item.id for item in items}
    rows = [r for r in store.answers(suite.id, agent_id) if r["item_id"] in wanted]
    reasons = {item_id: why for item_id, why in store.retry_reasons(suite.id, agent_id).items() if item_id in wanted}
    return score(suite.id, agent_id, rows, {item.id: item.tags for item in items}, len(reasons),
                 reasons, concurrency)


__all__ = ["READER", "SuiteJob", "SuiteScores", "SuiteWorker", "first_n", "infrastructure_failure", "observation",
           "run_suite", "score"]
