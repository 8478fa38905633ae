"""Who a bearer token belongs to (`huggingface_hub.whoami`), without making the event loop wait.

The lookup is network I/O that can take seconds; made inside a request it stalled every request
and running match. Here it runs on a small thread pool of its own, so a slow hub fills at most
that pool, never the loop or the threads requests run on. Answers are cached by a hash of the
token (the token itself is never kept), a refusal too for a shorter time; concurrent requests
with one new token share one lookup; and each client may cause only so many lookups a minute."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from cachetools import TLRUCache, TTLCache

log = logging.getLogger(__name__)
Lookup = Callable[[str], str | None]  # token -> user name, None when the hub refuses it


class SignInLimited(Exception):
    """A client asked for more new-token lookups than it may; the message says so."""


def hub_whoami(token: str) -> str | None:
    """The user a token belongs to, as the Hugging Face Hub says (None: not a valid token)."""
    from huggingface_hub import whoami
    from huggingface_hub.errors import HfHubHTTPError

    try:
        return str(whoami(token=token)["name"])
    except HfHubHTTPError as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        if status in (401, 403):
            return None
        raise


def token_key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class SignIn:
    """ttl / negative_ttl: seconds a user name / a refusal is reused; per_minute: new-token
    lookups one client may cause a minute; timeout: seconds a lookup may take (past it the
    request counts as not signed in, and the answer, when it comes, is still cached)."""

    def __init__(self, lookup: Lookup | None = None, *, ttl: float = 300.0, negative_ttl: float = 60.0,
                 per_minute: int = 10, timeout: float = 10.0, threads: int = 4,
                 max_tokens: int = 10_000, max_clients: int = 10_000) -> None:
        self.lookup = lookup or hub_whoami
        self.ttl, self.negative_ttl = ttl, negative_ttl
        self.per_minute = per_minute
        self.timeout = timeout
        # a refusal is cached as "" (its own, shorter, time to live)
        self._answers: TLRUCache[str, str] = TLRUCache(
            maxsize=max_tokens, ttu=lambda _k, user, now: now + (ttl if user else negative_ttl),
            timer=time.monotonic)
        self._clients: TTLCache[str, tuple[float, int]] = TTLCache(maxsize=max_clients, ttl=60.0,
                                                                    timer=time.monotonic)
        self._pending: dict[str, asyncio.Task[str | None]] = {}
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="signin")
        self.lookups = 0  # lookups made (the cache's misses), for tests and the operator

    def cached(self, token: str) -> tuple[bool, str | None]:
        """(known?, user) from the cache alone."""
        user = self._answers.get(token_key(token))
        return (user is not None, user or None)

    def _charge(self, client: str) -> None:
        now = time.monotonic()
        start, count = self._clients.get(client, (now, 0))
        if now - start >= 60.0:
            start, count = now, 0
        if count >= self.per_minute:
            wait = max(1, round(60.0 - (now - start)))
            raise SignInLimited(f"too many sign-in checks from your address ({self.per_minute} new tokens a "
                                f"minute); reuse one token, or try again in {wait} s")
        self._clients[client] = (start, count + 1)

    async def _resolve(self, key: str, token: str) -> str | None:
        loop = asyncio.get_running_loop()
        self.lookups += 1
        try:
            user = await loop.run_in_executor(self._pool, self.lookup, token)
        except Exception as exc:  # noqa: BLE001 - a hub that fails signs nobody in
            log.warning("sign-in lookup failed: %s", type(exc).__name__)
            user = None
        self._answers[key] = user or ""
        return user

    async def user(self, token: str, client: str) -> str | None:
        """The user `token` belongs to, or None. Raises SignInLimited when `client` has caused
        too many lookups this minute."""
        key = token_key(token)
        hit = self._answers.get(key)
        if hit is not None:
            return hit or None
        task = self._pending.get(key)
        if task is None:
            self._charge(client)
            task = asyncio.get_running_loop().create_task(self._resolve(key, token))
            self._pending[key] = task
            task.add_done_callback(lambda _t: self._pending.pop(key, None))
        try:
            return await asyncio.wait_for(asyncio.shield(task), self.timeout)
        except TimeoutError:
            return None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["Lookup", "SignIn", "SignInLimited", "hub_whoami", "token_key"]
