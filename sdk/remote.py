"""RemoteAgent: make an agent served with `serve()` (on a Space or any URL) look local.

Transport: a plain HTTP POST (httpx for sync calls, aiohttp for async ones) to the endpoint's REST route
(`{url}gradio_api/run/{endpoint}` with `{"data": [...]}`), which every Gradio 6 app
serves, Spaces included. It costs ~2 ms on loopback where a gradio_client round
trip costs ~77 ms. The time limit is enforced by cancelling the request.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import re
import threading
import time
import weakref
from typing import Any

import aiohttp
import httpx
from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_exponential

from .agent import Agent, Reply
from .egress import (
    ACCEPT_ENCODING,
    REDIRECT_STATUS,
    BoundedBody,
    EgressPolicy,
    Target,
    pinned,
    read_bounded,
    redirect_error,
)
from .errors import AgentError, AgentErrorKind
from .observation import Observation
from .usage import Usage

_SPACE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
_ERROR_KINDS: tuple[AgentErrorKind, ...] = ("refused", "bad_reply", "agent_failed", "timeout",
                                            "unreachable")
# Status codes a Space answers with while it builds, sleeps or restarts.
_WAKING_STATUS = {502, 503, 504, 404, 409}


# Every RemoteAgent alive, so their connections are closed at interpreter exit
# (the arena's loop runs until then, and aiohttp warns about sessions left open).
_LIVE: weakref.WeakSet[RemoteAgent] = weakref.WeakSet()
# Close-tasks scheduled on a running loop, kept referenced until they finish.
_CLOSING: set[asyncio.Task] = set()


def _close_session(loop: asyncio.AbstractEventLoop, session: aiohttp.ClientSession, wait: bool) -> None:
    if session.closed:
        return
    try:
        if loop.is_closed() or (not loop.is_running() and not _may_drive(loop, wait)):
            # The loop is gone, or it is paused in another thread (a finaliser may run in any
            # thread, e.g. while asyncio.run is shutting its loop down): driving it from here
            # would race its owner, so only aiohttp's bookkeeping is closed.
            connector = session.connector
            session.detach()
            if connector is not None:
                connector._close()
        elif loop.is_running():
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                task = loop.create_task(session.close())
                _CLOSING.add(task)
                task.add_done_callback(_CLOSING.discard)
                return
            # a loop in another thread, e.g. the Gradio server's
            closing = asyncio.run_coroutine_threadsafe(session.close(), loop)
            if wait:
                closing.result(timeout=1)
        else:
            loop.run_until_complete(session.close())
    except Exception:  # closing is best effort: never let cleanup raise
        pass


def _may_drive(loop: asyncio.AbstractEventLoop, wait: bool) -> bool:
    """Whether cleanup may run a paused `loop` itself: only an explicit close or the exit hook,
    in the main thread, with no loop running there (a loop paused elsewhere has an owner)."""
    if not wait or threading.current_thread() is not threading.main_thread():
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return True
    return False


def _close_sessions(sessions: weakref.WeakKeyDictionary, wait: bool) -> None:
    for loop, session in list(sessions.items()):
        _close_session(loop, session, wait)
    sessions.clear()


@atexit.register
def _close_all() -> None:
    for agent in list(_LIVE):
        agent.close()


def resolve_src(src: str) -> str:
    """A Space id (`owner/name`) or an http(s) URL -> the app's base URL, ending in '/'."""
    src = src.strip()
    if src.startswith(("http://", "https://")):
        return src if src.endswith("/") else src + "/"
    if _SPACE_ID.match(src):
        owner, name = src.split("/")
        sub = re.sub(r"[^a-z0-9-]", "-", f"{owner}-{name}".lower())
        return f"https://{sub}.hf.space/"
    raise ValueError(f"not a Space id (owner/name) or an http(s) URL: {src!r}")


def _error_from_response(status: int, body: bytes, agent: str) -> AgentError:
    message = ""
    try:
        message = str(json.loads(body).get("error") or "")
    except (ValueError, AttributeError, RecursionError):
        message = body[:200].decode("utf-8", "replace")
    if status in (401, 403):
        return AgentError("refused", f"HTTP {status}: {message or 'not allowed'}", agent=agent)
    for kind in _ERROR_KINDS:
        if message.startswith(f"{kind}:"):
            return AgentError(kind, message[len(kind) + 1:].strip(), agent=agent)
    if message.startswith("invalid observation"):
        return AgentError("refused", message, agent=agent)
    if status in _WAKING_STATUS:
        return AgentError("unreachable", f"HTTP {status}: {message or 'endpoint not available'}",
                          agent=agent)
    return AgentError("agent_failed", f"HTTP {status}: {message or 'the agent failed'}", agent=agent)


class RemoteAgent(Agent):
    """Arena-side proxy for a served agent.

    src: Space id (`owner/name`) or URL. secret: the agent's shared secret, sent with
    every call. timeout: seconds for a call outside a turn (`info`, the registration probe),
    i.e. how long an agent may take to answer before it counts as unreachable; a turn
    (`act`) lasts the observation's `limits.seconds`, whatever `timeout` says, and the
    served agent is sent that limit, so its model call ends with the turn.
    egress: where calls may go (default: anywhere, loopback included; the arena passes
    its own policy). hf_token: a Hugging Face token for a private Space, sent only to
    this agent and only when given (never taken from the environment).
    Redirects are not followed; replies are capped at `max_reply_bytes` after
    decompression. All failures raise `AgentError` with a kind; library exceptions
    never escape.
    """

    def __init__(
        self,
        src: str,
        secret: str | None = None,
        timeout: float = 10.0,
        *,
        name: str | None = None,
        max_reply_bytes: int = 64_000,
        wake_timeout: float = 120.0,
        hf_token: str | None = None,
        max_connections: int = 32,
        egress: EgressPolicy | None = None,
        known_info: dict[str, Any] | None = None,
    ) -> None:
        """`known_info`: the agent's `info` as read earlier (e.g. when it was registered), so its
        format and whether it reads images are known before `prepare` reads it afresh."""
        self.src = src
        self.url = resolve_src(src)
        super().__init__(name or src)
        self.secret = secret or ""
        self.timeout = timeout
        self.max_reply_bytes = max_reply_bytes
        self.wake_timeout = wake_timeout
        self.max_connections = max_connections
        self.egress = egress or EgressPolicy()
        self.egress.check_url(self.url)  # credentials in the URL are refused before any call
        headers = {"Content-Type": "application/json", "Accept-Encoding": ACCEPT_ENCODING}
        if hf_token:
            headers["Authorization"] = f"Bearer {hf_token}"
        self._headers = headers
        self._client: httpx.Client | None = None
        self._sessions: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aiohttp.ClientSession] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()
        self._info: dict[str, Any] | None = dict(known_info) if isinstance(known_info, dict) else None
        _LIVE.add(self)
        # an agent dropped without close() still closes its sessions (aiohttp warns otherwise)
        weakref.finalize(self, _close_sessions, self._sessions, False).atexit = False

    # -- plumbing ---------------------------------------------------------
    def _route(self, endpoint: str) -> str:
        return f"{self.url}gradio_api/run/{endpoint}"

    def _deadline(self, obs: Observation | None) -> float:
        # a turn's own limit, never shortened: the served agent plans its model call on it
        return obs.limits.seconds if obs is not None else self.timeout

    def _decode(self, status: int, body: bytes) -> Any:
        if status != 200:
            raise _error_from_response(status, body, self.name)
        try:
            data = json.loads(body)["data"]
        except RecursionError as exc:
            # JSON nested past the parser's depth is the reply's shape, not a failure of the
            # agent's code: it is refused as a bad reply, like any other unreadable one
            raise AgentError("bad_reply", f"reply nested too deeply to read ({len(body)} bytes starting "
                             f"{body[:40]!r})", agent=self.name) from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise AgentError("bad_reply", f"unreadable response: {body[:120]!r}", agent=self.name) from exc
        if isinstance(data, str):
            return data  # a bare string is the reply itself, not a list whose first item is a letter
        if isinstance(data, list) and data:
            return data[0]
        raise AgentError("bad_reply", f"unreadable response (no reply in its `data`): {body[:120]!r}",
                         agent=self.name)

    def _to_reply(self, value: Any) -> Reply:
        if isinstance(value, dict) and "text" in value:
            text, usage = value.get("text"), value.get("usage")
        else:
            text, usage = value, None
        if not isinstance(text, str):
            raise AgentError("bad_reply", f"reply is {type(text).__name__}, not text", agent=self.name)
        parsed = None
        if isinstance(usage, dict):
            try:
                parsed = Usage.model_validate(usage)
            except ValueError:
                parsed = None
        meta: dict[str, Any] = {}
        if isinstance(value, dict):
            notes = value.get("notes")
            if isinstance(notes, dict) and notes:
                meta["notes"] = notes
            if value.get("truncated") is True:
                meta["truncated"] = True
            if isinstance(value.get("model_calls"), list) and value["model_calls"]:
                # the agent's own trace, sent by its choice: the arena checks and bounds it
                meta["model_calls"] = value["model_calls"]
        return Reply(text=text, usage=parsed, meta=meta)

    def _post(self, endpoint: str, data: list[Any], deadline: float) -> Any:
        ends = time.monotonic() + deadline
        target = self.egress.target(self._route(endpoint))
        try:
            with self._sync_client().stream("POST", target.url, json={"data": data}, **pinned(target),
                                            timeout=httpx.Timeout(deadline)) as response:
                body = read_bounded(response, self.max_reply_bytes, ends, self.name)
                return self._decode(response.status_code, body)
        except httpx.TimeoutException as exc:
            raise AgentError("timeout", f"no reply within {deadline:.1f}s", agent=self.name) from exc
        except httpx.HTTPError as exc:
            raise AgentError("unreachable", f"{type(exc).__name__}: {exc}", agent=self.name) from exc

    def _sync_client(self) -> httpx.Client:
        # opened on first use, and again after close(): a closed agent still answers
        with self._lock:
            if self._client is None or self._client.is_closed:
                self._client = httpx.Client(headers=self._headers, follow_redirects=False,
                                            limits=httpx.Limits(max_connections=64))
            return self._client

    def _session(self) -> aiohttp.ClientSession:
        # one session per event loop; aiohttp costs ~0.4 ms of CPU per call where
        # httpx's async pool costs ~10 ms once hundreds of calls are in flight
        loop = asyncio.get_running_loop()
        session = self._sessions.get(loop)
        if session is None or session.closed:
            connector = aiohttp.TCPConnector(limit=self.max_connections, ttl_dns_cache=300)
            # decompression is ours (BoundedBody), so a compressed reply cannot grow unbounded
            session = aiohttp.ClientSession(headers=self._headers, connector=connector,
                                            auto_decompress=False)
            self._sessions[loop] = session
        return session

    async def _atarget(self, url: str) -> Target:
        if self.egress.allow_private:
            return self.egress.target(url)
        # a name lookup blocks: off the event loop
        return await asyncio.get_running_loop().run_in_executor(None, self.egress.target, url)

    async def _apost(self, endpoint: str, data: list[Any], deadline: float) -> Any:
        async def call() -> Any:
            target = await self._atarget(self._route(endpoint))
            async with self._session().post(target.url, json={"data": data}, allow_redirects=False,
                                            headers=pinned(target)["headers"],
                                            server_hostname=target.sni_hostname) as response:
                if response.status in REDIRECT_STATUS:
                    raise redirect_error(response.status, response.headers.get("location"), self.name)
                body = BoundedBody(response.headers.get("content-encoding"), self.max_reply_bytes, self.name)
                async for chunk in response.content.iter_chunked(16384):
                    body.feed(chunk)
                return self._decode(response.status, body.finish())

        try:
            return await asyncio.wait_for(call(), timeout=deadline)
        except TimeoutError as exc:
            raise AgentError("timeout", f"no reply within {deadline:.1f}s", agent=self.name) from exc
        except aiohttp.ClientError as exc:
            raise AgentError("unreachable", f"{type(exc).__name__}: {exc}", agent=self.name) from exc

    # -- public -----------------------------------------------------------
    def info(self, wait: bool = True) -> dict[str, Any]:
        """The agent's `info` (name, sdk_version, games). With `wait`, a sleeping or
        building Space is retried with exponential backoff for up to `wake_timeout` s."""
        def fetch() -> dict[str, Any]:
            value = self._post("info", [], self.timeout)
            if not isinstance(value, dict) or not isinstance(value.get("name"), str):
                raise AgentError("bad_reply", "info did not return an agent description", agent=self.name)
            return value

        if not wait:
            info = fetch()
        else:
            retrying = Retrying(
                stop=stop_after_delay(self.wake_timeout),
                wait=wait_exponential(multiplier=0.5, max=15),
                retry=retry_if_exception(lambda e: isinstance(e, AgentError)
                                         and e.kind in ("unreachable", "timeout")),
                reraise=True,
            )
            info = retrying(fetch)
        with self._lock:
            self._info = info
        return info

    def prepare(self) -> None:
        """Wait out a sleeping or building Space (backoff up to `wake_timeout`)."""
        self.info(wait=True)

    @property
    def known_info(self) -> dict[str, Any]:
        """The served agent's `info` as last read (by `prepare` or registration), without a call."""
        with self._lock:
            return dict(self._info or {})

    @property
    def vision(self) -> bool:  # type: ignore[override]  # read from the served agent, not set here
        """Whether the served agent declared `vision` in its `info` (read by `prepare`, which the
        arena calls before every match); False until its info has been read, or when absent."""
        with self._lock:
            return (self._info or {}).get("vision") is True

    def _payload(self, obs: Observation) -> dict[str, Any]:
        # an agent on an older SDK refuses fields it does not know: send what it can read
        with self._lock:
            version = (self._info or {}).get("sdk_version")
        return obs.dump_for(version if isinstance(version, str) else None)

    def act(self, obs: Observation) -> Reply:
        data = [self._payload(obs), self.secret]
        return self._to_reply(self._post("act", data, self._deadline(obs)))

    async def aact(self, obs: Observation) -> Reply:
        data = [self._payload(obs), self.secret]
        return self._to_reply(await self._apost("act", data, self._deadline(obs)))

    def speak(self, obs: Observation) -> str:
        return self.act(obs.model_copy(update={"verb": "speak"})).text

    def vote(self, obs: Observation) -> str:
        return self.act(obs.model_copy(update={"verb": "vote"})).text

    def answer(self, obs: Observation) -> str:
        return self.act(obs.model_copy(update={"verb": "answer"})).text

    async def aclose(self) -> None:
        """Close this loop's async session (a later call opens a new one)."""
        session = self._sessions.pop(asyncio.get_running_loop(), None)
        if session is not None and not session.closed:
            await session.close()

    def close(self) -> None:
        """Close every connection this agent holds: the sync client, and the async
        session of each event loop, whatever state that loop is in (use `aclose` from
        inside a running loop for its own session). A later call opens new ones."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()
        _close_sessions(self._sessions, wait=True)

    def __repr__(self) -> str:
        return f"RemoteAgent({self.src!r})"
