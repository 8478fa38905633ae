"""Arena settings, read from the environment once at start."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, Field, SecretStr

from sdk.egress import EgressPolicy

from .prices import Price, parse_prices
from .seat_health import DEFAULT_FAILING_AFTER


class ConfigError(ValueError):
    """An arena setting that cannot be used; the app stops with its one line."""


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in ("1", "true", "yes", "on")


def failing_after_setting(environ: Mapping[str, str] = os.environ) -> int:
    """ARENA_FAILING_AFTER: calls failing the same way in a row after which a seat is no longer
    called for the rest of the match (`seat_health`); 0 calls every seat every turn."""
    raw = (environ.get("ARENA_FAILING_AFTER") or "").strip()
    if not raw:
        return DEFAULT_FAILING_AFTER
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"ARENA_FAILING_AFTER must be a whole number of calls, 0 or more (0: never); got {raw!r}")
    return value


def listen_address(environ: Mapping[str, str] = os.environ) -> str:
    """Where `python app.py` listens: `GRADIO_SERVER_NAME` when set; on a Space every interface
    (its proxy connects from outside the container); elsewhere loopback only, so an arena
    started on a developer's machine is not open to the network unless asked."""
    named = (environ.get("GRADIO_SERVER_NAME") or "").strip()
    if named:
        return named
    return "0.0.0.0" if environ.get("SPACE_ID") else "127.0.0.1"


def _operators(listed: str, space_id: str | None) -> list[str]:
    """ARENA_OPERATORS (comma-separated user names), and on a Space its owner (a user's
    namespace; an organisation's name is no user's, so it grants nothing)."""
    names = [n.strip() for n in listed.split(",") if n.strip()]
    if space_id and "/" in space_id:
        names.append(space_id.split("/", 1)[0])
    return list(dict.fromkeys(names))


class ArenaConfig(BaseModel):
    db: str = Field(default="data/arena.db", description="SQLite file or database URL")
    space_id: str | None = Field(default=None, description="set on Hugging Face Spaces")
    allow_private_urls: bool = Field(default=False, description="allow loopback/private agent URLs")
    egress_allow: list[str] = Field(default_factory=list,
                                    description="networks (CIDR) agents may live on even when private "
                                                "URLs are refused, e.g. the operator's own cluster")
    trusted_proxy_hops: int = Field(default=0, ge=0, le=5,
                                    description="reverse proxies in front of the arena that append the "
                                                "client address to X-Forwarded-For (1 on a Space)")
    max_matches_total: int = 16
    max_matches_per_visitor: int = 2
    operators: list[str] = Field(default_factory=list,
                                 description="Hugging Face users who may act for every registered agent "
                                             "(remove, benchmark, try it) besides its owner")
    human_seconds: float = 180.0
    remote_timeout: float = Field(default=10.0, gt=0, description="seconds an agent has to answer a call outside "
                                  "a turn (info, the secret probe); a turn lasts its game's limit")
    failing_after: int = Field(default=DEFAULT_FAILING_AFTER, ge=0,
                               description="calls failing the same way in a row after which a seat is "
                                           "no longer called in that match (0: never)")
    max_turn_seconds: float = Field(default=120.0, gt=0, description="the largest per-turn time a match may ask for")
    max_match_seconds: float = Field(default=1800.0, gt=0, description="a match still running after this ends "
                                                                       "as 'aborted'")
    agent_cache_size: int = Field(default=256, ge=16, description="agent objects kept for reuse (LRU)")
    ui_sessions: int = Field(default=500, ge=10, description="page sessions whose state the app keeps (the least "
                             "recently used go first); an API call keeps none")
    ui_session_idle_seconds: float = Field(default=3600.0, gt=0, description="a page session unused this long is "
                                           "dropped (its page starts afresh on the next click)")
    signin_lookups_per_minute: int = Field(default=10, ge=1, description="new bearer tokens one client address "
                                           "may have looked up at the hub per minute")
    dataset_repo: str | None = None
    dataset_token: str | None = None
    records_key: SecretStr | None = Field(default=None, description="the key that signs every dataset line "
                                          "(HMAC-SHA256); unset: generated once and kept in records.key beside "
                                          "the database")
    trust_unsigned_records: bool = Field(default=False, description="adopt unsigned dataset lines (written before "
                                         "lines were signed) at this start, and sign them again")
    demo_matches: int = 3  # house-agent matches played at first start so the tabs are not empty
    front_game: str = Field(default="spy", description="ARENA_FRONT_GAME: the game the Play and Leaderboard "
                            "tabs open on (a registered game id)")
    prices: dict[str, Price] = Field(default_factory=dict, description="ARENA_PRICES: USD per 1M input/output "
                                     "tokens by model name, for cost estimates (space_app/prices.py)")

    @property
    def on_space(self) -> bool:
        return bool(self.space_id)

    def egress_policy(self) -> EgressPolicy:
        return EgressPolicy.from_strings(self.allow_private_urls, self.egress_allow)

    @classmethod
    def from_env(cls) -> ArenaConfig:
        on_space = bool(os.environ.get("SPACE_ID"))
        default_db = "/data/arena.db" if on_space and Path("/data").is_dir() else "data/arena.db"
        return cls(
            db=os.environ.get("ARENA_DB", default_db),
            space_id=os.environ.get("SPACE_ID") or None,
            # off a Space (local development, tests) loopback agents are the normal case
            allow_private_urls=_env_bool("ARENA_ALLOW_PRIVATE_URLS", not on_space),
            egress_allow=[n for n in os.environ.get("ARENA_EGRESS_ALLOW", "").split(",") if n.strip()],
            # the Spaces proxy appends the client's address; nobody else is trusted to
            trusted_proxy_hops=int(os.environ.get("ARENA_TRUSTED_PROXY_HOPS", "1" if on_space else "0")),
            max_matches_total=int(os.environ.get("ARENA_MAX_MATCHES", "16")),
            max_matches_per_visitor=int(os.environ.get("ARENA_MAX_MATCHES_PER_VISITOR", "2")),
            operators=_operators(os.environ.get("ARENA_OPERATORS", ""), os.environ.get("SPACE_ID")),
            human_seconds=float(os.environ.get("ARENA_HUMAN_SECONDS", "180")),
            remote_timeout=float(os.environ.get("ARENA_REMOTE_TIMEOUT", "10")),
            failing_after=failing_after_setting(),
            max_turn_seconds=float(os.environ.get("ARENA_MAX_TURN_SECONDS", "120")),
            max_match_seconds=float(os.environ.get("ARENA_MAX_MATCH_SECONDS", "1800")),
            ui_sessions=int(os.environ.get("ARENA_UI_SESSIONS", "500")),
            ui_session_idle_seconds=float(os.environ.get("ARENA_UI_SESSION_IDLE", "3600")),
            signin_lookups_per_minute=int(os.environ.get("ARENA_SIGNIN_LOOKUPS_PER_MINUTE", "10")),
            dataset_repo=os.environ.get("ARENA_DATASET_REPO") or None,
            dataset_token=os.environ.get("ARENA_DATASET_TOKEN") or os.environ.get("HF_TOKEN") or None,
            records_key=os.environ.get("ARENA_RECORDS_KEY") or None,
            trust_unsigned_records=_env_bool("ARENA_TRUST_UNSIGNED_RECORDS", False),
            demo_matches=int(os.environ.get("ARENA_DEMO_MATCHES", "3")),
            front_game=os.environ.get("ARENA_FRONT_GAME", "").strip() or "spy",
            prices=parse_prices(os.environ.get("ARENA_PRICES")),
        )
