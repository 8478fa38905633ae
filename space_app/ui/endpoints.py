"""Named API endpoints for gradio_client. Names are stable: register_agent,
list_agents, run_match, cancel_match, get_match, list_matches, leaderboard, head_to_head, accounting, run_benchmark,
benchmark_results, compare, try_agent, loop_health. docs/api.md has a runnable example of each.
Every refusal reaches the client as a message (`gr.Error`), never as a bare error."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

import gradio as gr
from anyio import to_thread

from ..api import ApiError, ArenaAPI
from ..signin import SignIn, SignInLimited
from .common import client_address, signed_in, visitor_of
from .sessions import Sessions

log = logging.getLogger(__name__)


def refusals(fn: Callable[..., Any]) -> Callable[..., Any]:
    """ApiError -> its message; any other failure -> a short message (details in the log, once).
    A refusal is the client's answer, not the server's trouble: no traceback in the server log."""
    def explain(exc: Exception) -> gr.Error:
        if isinstance(exc, gr.Error):
            exc.print_exception = False
            return exc
        if isinstance(exc, (ApiError, SignInLimited)):
            return gr.Error(str(exc), print_exception=False)
        if isinstance(exc, RecursionError):
            return gr.Error("the request is nested too deeply", print_exception=False)
        log.exception("%s failed", fn.__name__)
        return gr.Error(f"{fn.__name__} failed ({type(exc).__name__}); the arena logged the details",
                        print_exception=False)

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            try:
                return await fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - every refusal carries a message
                raise explain(exc) from exc

        return run_async

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - every refusal carries a message
            raise explain(exc) from exc

    return run


def bearer_token(request: gr.Request | None) -> str | None:
    """The Hugging Face token a gradio_client sends (`Client(..., token=...)`)."""
    if request is None:
        return None
    for header in ("x-hf-authorization", "authorization"):
        value = request.headers.get(header) or ""
        if value.lower().startswith("bearer "):
            return value[7:].strip() or None
    return None


async def user_from_request(request: gr.Request | None, signin: SignIn, trusted_hops: int = 0) -> str | None:
    """The signed-in user: from the page's login, else from the client's HF token (looked up
    off the event loop, cached, and limited per client address)."""
    user = getattr(request, "username", None) if request is not None else None
    if user:
        return str(user)
    token = bearer_token(request)
    if not token or request is None:
        return None
    return await signin.user(token, client_address(request, trusted_hops))


def register_endpoints(api: ArenaAPI, sessions: Sessions, signin: SignIn) -> None:
    """Every endpoint keeps no Gradio session (`sessions.stateless`) and waits on nothing
    blocking on the event loop: sign-in lookups go through `signin`, registration probes and
    store reads run on worker threads."""
    on_space = api.config.on_space
    hops = api.config.trusted_proxy_hops

    async def caller(request: gr.Request | None) -> tuple[str, bool]:
        """(visitor key, signed in?) of a request."""
        user = await user_from_request(request, signin, hops) if request is not None else None
        visitor = visitor_of(request, hops, user)
        return visitor, signed_in(visitor, on_space)

    async def register_agent(src: str, name: str = "", secret: str = "", description: str = "",
                             kind: str = "remote", owner: str = "",
                             request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """Register an agent by Space id (owner/name) or http(s) URL; its `info` is checked first.
        kind: 'remote' (SDK agent) or 'wis' (WiS protocol). Returns {agent_id, name, info}.
        Example: ("http://127.0.0.1:7861/", "my-agent", "", "", "remote", "me")."""
        if on_space:
            user = await user_from_request(request, signin, hops)
            if not user:
                raise gr.Error("sign in with Hugging Face to register: pass your token to the "
                               "client, e.g. Client(space, token='hf_...')")
            owner = user
        return await to_thread.run_sync(functools.partial(
            api.register_agent, str(src or ""), name=str(name or ""), secret=str(secret or ""),
            description=str(description or ""), kind=str(kind or "remote"), owner=(str(owner or "") or "local")[:60]))

    def list_agents(request: gr.Request = None) -> list:  # type: ignore[assignment]
        """Every agent that can take a seat: house agents and registered ones (no secrets).
        Example: () -> [{"id": "house:heuristic", "name": ..., "games": ["spy"], ...}, ...]."""
        return api.list_agents()

    async def run_match(game: str = "spy", seats: list | None = None, seed: int | None = None,
                        settings: dict | None = None,
                        request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """Play one match to its end. seats: agent ids in seat order ('' = random fill).
        Returns {match_id, status, result, error}; the replay is at ?match=<match_id>.
        Example: ("spy", ["house:heuristic", "", "", "", "", ""], 7, {})."""
        visitor, signed = await caller(request)
        return await api.run_match({"game": game, "seats": seats or [], "seed": seed,
                                    "settings": settings or {}}, visitor=visitor, signed_in=signed)

    async def cancel_match(match_id: str, request: gr.Request = None) -> str:  # type: ignore[assignment]
        """Stop a running match you started (same sign-in or address); what was played stays.
        Example: ("3f2a9c0d1e4b",)."""
        visitor = (await caller(request))[0]
        # a match another replica plays is cancelled through the database: off the loop
        return await to_thread.run_sync(api.cancel_match, str(match_id or ""), visitor)

    def get_match(match_id: str, seat: str = "", request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """A match with its events and result. With `seat` (a finished match), the events that
        seat saw; the result, seed and settings stay, as in the whole record, which is public
        once a match ends. While a match runs, only its public events are shown, to everyone.
        Example: ("3f2a9c0d1e4b", "") or ("3f2a9c0d1e4b", "P1")."""
        return api.get_match(str(match_id or ""), str(seat or ""))

    def list_matches(game: str = "", agent: str = "", status: str = "", limit: int = 50,
                     request: gr.Request = None) -> list:  # type: ignore[assignment]
        """Recorded matches, newest first, filtered by game, agent (its id or its name) and status
        (finished, running, aborted, error). Example: ("spy", "house:heuristic", "finished", 20)."""
        return api.list_matches(game=str(game or ""), agent=str(agent or ""), status=str(status or ""),
                                limit=limit or 50)  # read (and refused with its name) by the API

    def leaderboard(game: str = "spy", min_games: int = 0, sources: str = "default", tag: str = "",
                    void_infra: bool = False, by_version: bool = False, version: str = "",
                    request: gr.Request = None) -> list:  # type: ignore[assignment]
        """One row per agent: matches, rating with its 95% interval, the game's own columns.
        sources: 'default' (visitor, human and tournament matches), 'all', or a comma list of
        demo, visitor, human, tournament, study; tag: only that tag's matches; void_infra: leave
        out matches in which a call could not reach its agent; by_version: one row per agent and
        version (the model, revision and SDK it reported; rows carry agent_id and version);
        version: only rows whose version contains that text.
        Example: ("spy", 0, "default", "", False) or ("avalon", 5, "visitor,tournament", "", True, True, "gpt-4o")."""
        return api.leaderboard(str(game or ""), 0 if min_games is None else min_games, str(sources or ""),
                               str(tag or "") or None, bool(void_infra), bool(by_version), str(version or ""))

    def head_to_head(game: str = "spy", sources: str = "default", tag: str = "", void_infra: bool = False,
                     agents: str = "", limit: int = 0,
                     request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """Pairwise win rates of agents that sat on opposite teams, each with its 95% Wilson interval,
        over the matches the leaderboard with the same filter counts. Returns the agents, one cell per
        ordered pair that met (a, b, matches, wins, losses, draws, win_rate with _low/_high/_n), the
        number of matches read, what they include and the definition of a win. agents: a comma list
        (else every agent, most matches first); limit: at most that many agents (0: all).
        Example: ("spy", "default", "", False, "", 0) or
        ("avalon", "all", "", False, "house:avalon-rules,house:avalon-random", 0)."""
        return api.head_to_head(str(game or ""), str(sources or ""), str(tag or "") or None, bool(void_infra),
                                str(agents or ""), 0 if limit is None else limit)

    async def run_benchmark(suite: str = "tom-household", agent: str = "house:guess", limit: int = 50,
                            fresh: bool = False, concurrency: int = 1,
                            request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """Run an agent's `answer` over a question suite (a fixed sample of `limit` questions spread over it; 0: all).
        Returns accuracy with its 95% interval, per question type, the unparsed rate and `to_retry` (questions
        whose call failed for infrastructure reasons: the next run asks them again), `concurrency` and
        `failures` (each failed question with its reason). A second call resumes; fresh=True forgets the
        agent's previous answers to the suite first. concurrency: questions asked at once (default 1, for a
        local or one-slot model). A registered agent: its owner only.
        Example: ("tom-household", "house:guess", 60, False, 1)."""
        visitor, signed = await caller(request)
        return await api.run_benchmark(str(suite or ""), str(agent or ""), 0 if limit is None else limit,
                                       visitor=visitor, signed_in=signed, fresh=fresh,
                                       concurrency=1 if concurrency is None else concurrency)

    async def compare(a: str = "house:heuristic", b: str = "house:random", game: str = "spy", deals: int = 50,
                      opponents: str = "", seed: int = 0, players: int = 0, measure: str = "win",
                      until_separated: bool = False, until_interval: float = 0, look_every: int = 20,
                      request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """Duplicate mode: each deal played twice, A and B swapped into the same seat against the same
        opponents (comma-separated specs; '' = the game's house agent). Returns the mean paired difference
        A - B (measure 'win' or 'score'), its 95% bootstrap interval, the sign test's p-value, the counts of
        deals A did better, worse or the same, per seat role, and the tag the matches are stored with.
        until_separated / until_interval (a half-width, 0 = none) make `deals` a budget: the comparison looks
        every look_every deals and stops once a sequential sign test separates A and B, or its anytime-valid
        interval is that narrow (the account under 'sequential').
        Example: ("house:heuristic", "house:random", "spy", 10, "", 0, 0, "win")."""
        visitor, signed = await caller(request)
        return await api.compare(str(a or ""), str(b or ""), str(game or "spy"), 0 if deals is None else deals,
                                 opponents=str(opponents or ""), seed=0 if seed is None else seed,
                                 players=0 if players is None else players,
                                 measure=str(measure or "win"), visitor=visitor, signed_in=signed,
                                 until_separated=until_separated, until_interval=until_interval or 0,
                                 look_every=20 if look_every is None else look_every)

    def benchmark_results(suite: str = "tom-household", request: gr.Request = None) -> list:  # type: ignore[assignment]
        """Every agent's stored scores on a suite, best first. Example: ("tom-household",)."""
        return api.benchmark_results(str(suite or ""))

    async def try_agent(agent: str = "house:heuristic", observation: dict | None = None,
                        request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """Send one observation to an agent as a match would (time limit, bounds, parsing); nothing is
        stored. A registered agent only for its owner (it is called with the owner's secret); house agents
        and, signed in, remote:<URL> for anyone. Images: this arena's references or data: URLs only.
        Returns {status, detail, reply (raw), read_as (what the game would get), latency_ms}.
        Example: ("house:heuristic", {"game": "spy", "verb": "vote", "you": "P1", "options": ["P2", "P3"]})."""
        visitor, signed = await caller(request)
        return await api.try_agent(str(agent or ""), observation or {}, visitor=visitor, signed_in=signed)

    async def accounting(game: str = "", sources: str = "default", agent: str = "",
                         request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """What each agent used and what went wrong for it, per game and over every game (game 'all'):
        calls, prompt_tokens, completion_tokens, reasks, unreadable, truncated, latency and cost_usd (an
        estimate from the operator's ARENA_PRICES; unpriced_tokens were left out of it). game: '' every
        game; sources as the leaderboard's; agent: '' every agent. Returns {rows, includes, priced_models,
        columns}. Example: ("", "default", "") or ("spy", "all", "house:heuristic")."""
        return await to_thread.run_sync(functools.partial(api.accounting, str(game or ""), str(sources or ""),
                                                          str(agent or "")))

    def loop_health(request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """How late the arena's event loop has run, in milliseconds: the worst stall since it started
        and over the last minute (every request and running match waits that long). Example: ()."""
        return api.loop_lag.health().model_dump()

    limits = {"register_agent": 4}  # registration probes an outside server: a few at a time
    for fn in (register_agent, list_agents, run_match, cancel_match, get_match, list_matches, leaderboard,
               head_to_head, accounting, run_benchmark, compare, benchmark_results, try_agent, loop_health):
        gr.api(sessions.stateless(refusals(fn)), api_name=fn.__name__,
               concurrency_limit=limits.get(fn.__name__))


__all__ = ["bearer_token", "refusals", "register_endpoints", "user_from_request"]
