"""The agent's own record of its model calls, kept inside its Space.

Every turn a served agent plays is kept here with what its model was sent and said (the
messages, the raw reply, finish, tokens, seconds, re-asks: `LLMAgent` reports them in
`Reply.meta["model_calls"]`), per match and seat, newest last. The author reads them on the
served app's Calls tab or downloads them as JSON Lines, both behind the agent's secret: a
turn's messages hold that seat's private information (a secret word, a role), which other
players must never read while the match runs. Kept in memory only and bounded (the oldest
turns go first), so a busy Space never grows without limit.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from typing import Any

from .agent import Reply
from .observation import Observation

MAX_TURNS = 2000  # turns kept; the oldest go first
MAX_TEXT = 20_000  # characters kept of one message or reply


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else f"{text[:MAX_TEXT]}… [cut: {len(text) - MAX_TEXT} more characters]"


def described_parts(parts: list[Any]) -> str:
    """OpenAI-style content parts as text: each picture described by its size or address (a
    data URL can be megabytes), never kept."""
    out = []
    for part in parts:
        part = part if isinstance(part, dict) else {}
        if part.get("type") == "text":
            out.append(str(part.get("text", "")))
        else:
            url = str((part.get("image_url") or {}).get("url", "")) if isinstance(part.get("image_url"), dict) else ""
            out.append(f"[image: {len(url)} characters of data URL]" if url.startswith("data:")
                       else f"[image: {url[:200]}]")
    return "\n".join(out)


def _content(content: Any) -> str:
    """A message's text, pictures described, cut to a bound."""
    return _cut(content if isinstance(content, str)
                else described_parts(content) if isinstance(content, list) else str(content))


def plain_calls(calls: Any) -> list[dict[str, Any]]:
    """Model calls as JSON-ready dicts, pictures described and long texts cut."""
    out = []
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, dict):
            continue
        kept = {k: call.get(k) for k in ("prompt_tokens", "completion_tokens", "seconds", "error", "truncated")}
        kept["messages"] = [{"role": str(m.get("role", ""))[:40], "content": _content(m.get("content"))}
                            for m in call.get("messages") or [] if isinstance(m, dict)]
        kept["reply"] = None if call.get("reply") is None else _cut(str(call["reply"]))
        out.append(kept)
    return out


class TraceBook:
    """The last `limit` turns this agent played: thread-safe (turns run on worker threads)."""

    def __init__(self, limit: int = MAX_TURNS) -> None:
        self.limit = limit
        self._turns: deque[dict[str, Any]] = deque(maxlen=limit)
        self._lock = threading.Lock()

    def record(self, obs: Observation, reply: Reply | None, seconds: float, error: str = "") -> None:
        calls = plain_calls((reply.meta if reply is not None else {}).get("model_calls"))
        turn = {"at": round(time.time(), 3), "match_id": obs.match_id, "seat": obs.you, "game": obs.game,
                "verb": obs.verb, "round": obs.round, "seconds": round(seconds, 3),
                "reply": None if reply is None else _cut(reply.text), "error": error[:500],
                "reasked": len(calls) > 1, "model_calls": calls}
        with self._lock:
            self._turns.append(turn)

    def turns(self, match_id: str = "") -> list[dict[str, Any]]:
        """Kept turns, oldest first; only one match's with `match_id`."""
        with self._lock:
            kept = list(self._turns)
        return [t for t in kept if not match_id or t["match_id"] == match_id]

    def jsonl(self, match_id: str = "") -> str:
        return "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in self.turns(match_id))

    def summary(self, match_id: str = "") -> list[list[Any]]:
        """One row per turn for the Calls tab: when, match, seat, verb, round, model calls,
        tokens, seconds, and the reply or the error."""
        rows = []
        for t in reversed(self.turns(match_id)):
            tokens = sum((c.get("prompt_tokens") or 0) + (c.get("completion_tokens") or 0) for c in t["model_calls"])
            said = t["error"] or (t["reply"] or "")
            rows.append([time.strftime("%H:%M:%S", time.gmtime(t["at"])), t["match_id"], t["seat"], t["verb"],
                         t["round"], len(t["model_calls"]), tokens, t["seconds"], said[:200]])
        return rows


SUMMARY_COLUMNS = ["time (UTC)", "match", "seat", "verb", "round", "model calls", "tokens", "seconds", "reply"]

__all__ = ["MAX_TURNS", "SUMMARY_COLUMNS", "TraceBook", "described_parts", "plain_calls"]
