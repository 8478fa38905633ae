"""Registering agents: only Space ids or http(s) URLs; the agent's `info` is read
before anything is stored, and the reason for a refusal is said plainly. A vision agent is
asked about one small picture, and whether its endpoint read it is stored with its info
(`images_check`); the answer never refuses a registration."""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass

from sdk import AgentError, RemoteAgent
from sdk.capabilities import PROBE_ANSWER, PROBE_OPTIONS, probe_observation, refuses_images
from sdk.egress import EgressPolicy
from sdk.parsing import parse_choice
from sdk.remote import resolve_src

from .agents.catalogue import agent_kinds
from .safe_text import clean_name, clean_text
from .store import Store

MAX_NAME = 60
MAX_DESCRIPTION = 500
MAX_SRC = 300
MAX_SECRET = 200
MAX_INFO = 64_000  # an agent's `info` reply is read up to 64,000 bytes, so no stored info is larger
_NAME = re.compile(r"^[\w .:+()-]{1,60}$")
PROBE_SECONDS = 20.0  # the picture question is a model call: longer than an `info` read
IMAGES_CHECK = "images_check"  # the arena's key in a stored info (an agent's own value is replaced)


class RegistrationError(ValueError):
    pass


@dataclass
class Registration:
    agent_id: str
    name: str
    info: dict


def check_url_target(url: str, egress: EgressPolicy) -> None:
    """Refuse URLs the egress policy will not call (credentials in them, non-public
    addresses on a public arena), with the reason, before anything is sent. Every later
    call checks the address again at connection time."""
    try:
        egress.target(url)
    except AgentError as exc:
        raise RegistrationError(f"refused: {exc.message}") from exc


def check_kind(kind: str) -> None:
    outside = agent_kinds()
    if kind != "remote" and kind not in outside:
        raise RegistrationError("kind must be 'remote' (an SDK agent)" + "".join(
            f" or {name!r} ({k.describe})" for name, k in outside.items()))


def check_games(games: object, whose: str) -> None:
    if not isinstance(games, list) or not all(isinstance(g, str) and 0 < len(g) <= 40 for g in games):
        raise RegistrationError(f"refused: {whose} `games` as {str(games)[:60]!r}, not a list of "
                                "game ids such as [\"spy\"]")


def restored_entry(record: dict) -> dict:
    """A registry entry read back from the records dataset, held to registration's checks: a
    source registration accepts, a known kind, a list of game ids; the name and description
    lose what registration removes (control, zero-width and bidi characters; a name is one
    line); a name or description longer than registration ever stores is refused. Returns the
    fields to store; raises RegistrationError with the reason."""
    src = normalise_src(str(record.get("src") or ""))
    kind = str(record.get("kind") or "")
    check_kind(kind)
    name, description = record.get("name"), record.get("description") or ""
    if not isinstance(name, str) or not isinstance(description, str):
        raise RegistrationError("the name and description must be text")
    if len(name) > MAX_NAME:
        raise RegistrationError(f"the name is longer than {MAX_NAME} characters")
    if len(description) > MAX_DESCRIPTION:
        raise RegistrationError(f"the description is longer than {MAX_DESCRIPTION} characters")
    games = record.get("games") or []
    check_games(games, "the record gives")
    info = record.get("info") or {}
    if not isinstance(info, dict) or len(json.dumps(info, default=str)) > MAX_INFO:
        raise RegistrationError(f"the agent's info is not an object of at most {MAX_INFO} characters")
    return {"src": src, "kind": kind, "name": clean_name(name, MAX_NAME) or clean_name(src, MAX_NAME),
            "description": clean_text(description, MAX_DESCRIPTION), "games": list(games), "info": dict(info)}


def normalise_src(src: str) -> str:
    src = (src or "").strip()
    if not src:
        raise RegistrationError("give a Space id (owner/name) or an http(s) URL")
    if len(src) > MAX_SRC:
        raise RegistrationError(f"the source is longer than {MAX_SRC} characters")
    try:
        resolve_src(src)
    except ValueError as exc:
        raise RegistrationError(str(exc)) from exc
    return src


def register_agent(store: Store, src: str, *, name: str = "", secret: str = "", owner: str = "",
                   description: str = "", kind: str = "remote", egress: EgressPolicy | None = None,
                   timeout: float = 10.0, wake_timeout: float = 30.0) -> Registration:
    """Check the agent answers `info` (with the secret, if any), then store it."""
    src = normalise_src(src)
    outside = agent_kinds()
    check_kind(kind)
    if len(secret or "") > MAX_SECRET:
        raise RegistrationError(f"the secret is longer than {MAX_SECRET} characters")
    if len(description or "") > MAX_DESCRIPTION:
        raise RegistrationError(f"the description is longer than {MAX_DESCRIPTION} characters")
    name = (name or "").strip()
    if name and not _NAME.match(name):
        raise RegistrationError("the name may use letters, digits, spaces and . : + ( ) - _ (up to 60)")
    url = resolve_src(src)
    egress = egress or EgressPolicy(allow_private=False)
    check_url_target(url, egress)

    if kind in outside:
        agent = outside[kind].build(url, timeout=timeout, egress=egress)
        try:
            info = agent.info()
        except Exception as exc:  # noqa: BLE001 - any failure to answer is the refusal's reason
            raise RegistrationError(f"the agent did not answer as a {kind} agent ({outside[kind].describe}): "
                                    f"{exc}") from exc
    else:
        # only a Space can be asleep: a plain URL that does not answer is refused at once
        is_space = not src.startswith(("http://", "https://"))
        remote = RemoteAgent(src, secret=secret or None, timeout=timeout, egress=egress,
                             wake_timeout=wake_timeout if is_space else min(wake_timeout, 3.0))
        try:
            info = remote.info(wait=True)
            if info.get("secret_required") and not secret:
                raise RegistrationError("the agent requires a secret and none was given")
            if secret:
                _probe_secret(remote)
            info = {key: value for key, value in info.items() if key != IMAGES_CHECK}
            if info.get("vision") is True:
                info[IMAGES_CHECK] = check_images(remote, games=info.get("games"),
                                                  seconds=max(timeout, PROBE_SECONDS))
        except AgentError as exc:
            if exc.message.startswith(("HTTP 404", "HTTP 405", "HTTP 500")) or "info did not return" in exc.message:
                raise RegistrationError("refused: it answered, but it is not a Deduction Arena agent "
                                        f"(no usable `info` endpoint: {exc.message})") from exc
            why = {"unreachable": "it did not answer (is the URL right and the Space running?)",
                   "timeout": "it did not answer in time",
                   "bad_reply": "it answered, but not as a Deduction Arena agent",
                   "refused": "it refused the call"}.get(exc.kind, "it failed")
            raise RegistrationError(f"refused: {why} — {exc.message}") from exc
        finally:
            remote.close()
    games = info.get("games", [])  # none declared: it plays any game
    check_games(games, "its info gives")
    # what the agent says about itself is shown to every visitor: one clean line, bounded
    display = name or clean_name(info.get("name"), MAX_NAME) or clean_name(src, MAX_NAME)
    description = clean_text(description or info.get("description"), MAX_DESCRIPTION)
    agent_id = _same_agent(store, owner, display, src, kind)
    if agent_id is None:
        agent_id = f"{(owner or 'local')}/{re.sub(r'[^A-Za-z0-9_.-]+', '-', display)[:40]}-{uuid.uuid4().hex[:6]}"
    # registering again is how an owner moves an agent (a new URL, a new secret): the same id,
    # so its matches, ratings and totals stay its own
    store.upsert_agent(agent_id, name=display, kind=kind, src=src, secret=secret or None, owner=owner,
                       description=description, games=games, info=info)
    return Registration(agent_id, display, info)


def _same_agent(store: Store, owner: str, name: str, src: str, kind: str) -> str | None:
    """The id an owner's registration updates, if any: their agent of that name (a removed one
    comes back with its history), else their agent at that source. Only the owner's own agents
    are looked at: another owner registering the same name gets an agent of their own (its id
    starts with their name, so boards and replays tell the two apart), and can never take
    over, move or re-point someone else's agent and history. Many authors duplicate the same
    example Space, whose `info` gives them all one name; refusing would make each pick another."""
    rows = [r for r in store.list_agents(active_only=False) if r["owner"] == owner]
    key = name.casefold()
    mine = [r for r in rows if r["name"].casefold() == key]
    if mine:
        row = max(mine, key=lambda r: (r["active"], r["created_at"]))
        if row["kind"] != kind:
            raise RegistrationError(f"refused: your agent {name!r} ({row['id']}) is a {row['kind']!r} agent, "
                                    f"not {kind!r}; register it as {row['kind']!r} or choose another name")
        return str(row["id"])
    for row in rows:
        if row["active"] and row["src"] == src and row["kind"] == kind:
            return str(row["id"])
    return None


def check_images(agent: RemoteAgent, games: object = None, seconds: float = PROBE_SECONDS) -> dict:
    """Ask a vision agent which colour a small square is (`sdk.capabilities`): whether its
    model endpoint read the picture. `reads_images` is True when it answered (`correct` says
    whether it named the colour, `reply` what it said), False when its endpoint refused pictures, None when the
    check said nothing either way (a timeout, another failure: `detail`)."""
    game = games[0] if isinstance(games, list) and games and isinstance(games[0], str) else "any"
    try:
        reply = agent.act(probe_observation(game, seconds))
    except AgentError as exc:
        refused = refuses_images(exc.message)
        return {"reads_images": False if refused else None, "detail": f"{exc.kind}: {exc.message}"[:300]}
    choice = parse_choice(reply.text, list(PROBE_OPTIONS), texts=PROBE_OPTIONS)
    text = reply.text if isinstance(reply.text, str) else ""
    return {"reads_images": True, "correct": choice.ok and choice.picks == [PROBE_ANSWER], "reply": text[-200:]}


def _probe_secret(remote: RemoteAgent) -> None:
    """A cheap call that only the right secret passes: an invalid observation is refused
    for a wrong secret first ('refused: wrong or missing secret'), else for being invalid."""
    try:
        remote._post("act", [{}, remote.secret], remote.timeout)
    except AgentError as exc:
        if "secret" in exc.message:
            raise
        return
