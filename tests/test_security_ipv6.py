"""IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-compatible, IPv4-translated,
NAT64 well-known and local-use, 6to4, Teredo) are judged by the IPv4 address they carry:
in the policy, in calls (SDK and WiS agents, literal URLs and names resolving to a form),
at registration, in ad-hoc seats and in calls to a registered agent, on the real arena in
Space mode with a signed-in visitor. Every refusal names the IPv4 address it found."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_support import running_arena
from gradio_client import Client
from gradio_client.exceptions import AppError
from hostile_servers import Server, http_server

from sdk import AgentError, Observation, RemoteAgent
from sdk.egress import EgressPolicy, describe, embedded_ipv4, is_public
from space_app.config import ArenaConfig
from space_app.games.spy.wis import WiSAgent
from space_app.store import Store

METADATA = "169.254.169.254"
PUBLIC = "93.184.216.34"
PAIR = {"pair": {"civilian": "marmalade", "spy": "chutney"}}
JOB_TIMEOUT = 120
OBS = Observation(game="spy", verb="vote", you="P1", options=["P2", "P3"], match_id="m1",
                  private={"facts": {"word": "tea"}, "text": "Your word is tea."})


def _v6(prefix: str, low: int) -> str:
    return str(ipaddress.IPv6Address(int(ipaddress.IPv6Address(prefix)) | low))


def _v4(address: str) -> int:
    return int(ipaddress.IPv4Address(address))


# form -> (IPv4 address -> the IPv6 address carrying it)
FORMS: dict[str, Callable[[str], str]] = {
    "IPv4-mapped": lambda v4: _v6("::ffff:0:0", _v4(v4)),
    "IPv4-compatible": lambda v4: _v6("::", _v4(v4)),
    "IPv4-translated": lambda v4: _v6("::ffff:0:0:0", _v4(v4)),
    "NAT64": lambda v4: _v6("64:ff9b::", _v4(v4)),
    "NAT64 local-use": lambda v4: _v6("64:ff9b:1::", _v4(v4)),
    "6to4": lambda v4: _v6("2002::", _v4(v4) << 80 | 1),
    # the client is the last 32 bits inverted; the server (bits 32..63) is a public one here
    "Teredo client": lambda v4: _v6("2001::", _v4(PUBLIC) << 64 | (~_v4(v4) & 0xFFFFFFFF)),
    # ... and here the server is the inward one, the client public
    "Teredo server": lambda v4: _v6("2001::", _v4(v4) << 64 | (~_v4(PUBLIC) & 0xFFFFFFFF)),
}


def named_in_refusal(form: str, v4: str) -> str:
    """What a refusal must say about the address: the IPv4 address it found in it."""
    if form == "NAT64 local-use":
        return "NAT64 local-use prefix 64:ff9b:1::/48"  # its layout is unknown: nothing is read
    if form == "Teredo client":
        return f"Teredo: server {PUBLIC}, client {v4}"
    if form == "Teredo server":
        return f"Teredo: server {v4}, client {PUBLIC}"
    return f"form of {v4}"


def url_of(address: str, port: int | None = None) -> str:
    return f"http://[{address}]:{port}/" if port else f"http://[{address}]/"


# -- the policy ----------------------------------------------------------------------------
@pytest.mark.parametrize("form", FORMS)
def test_each_form_is_judged_by_the_ipv4_address_it_carries(form):
    inward = ipaddress.ip_address(FORMS[form](METADATA))
    assert is_public(inward) is False
    assert named_in_refusal(form, METADATA) in describe(inward)
    outward = ipaddress.ip_address(FORMS[form](PUBLIC))
    embedded = embedded_ipv4(outward)
    assert embedded is not None
    if form in ("NAT64 local-use",) or form.startswith("Teredo"):
        # refused whatever they carry: an unknown layout; a tunnel to a client behind a NAT
        assert is_public(outward) is False
    else:
        assert embedded.ipv4 == (ipaddress.IPv4Address(PUBLIC),)
        assert is_public(outward) is True


def test_a_nat64_form_of_a_public_address_is_called_at_that_form():
    """DNS64 gives this form for every IPv4-only host: it is allowed and pinned like any
    public answer (no connection is made here; the pinned URL is what would be called)."""
    nat64 = FORMS["NAT64"](PUBLIC)
    policy = EgressPolicy(allow_private=False, resolver=lambda host, port: [nat64])
    target = policy.target("https://agent.example:8443/gradio_api/run/act")
    assert target.url == f"https://[{nat64}]:8443/gradio_api/run/act"
    assert target.host_header == "agent.example:8443" and target.sni_hostname == "agent.example"
    assert policy.target(url_of(nat64)).url == url_of(nat64)


def test_an_allowed_ipv4_network_allows_its_direct_forms_but_not_tunnels_to_it():
    policy = EgressPolicy.from_strings(False, ["10.0.0.0/8"])
    for form in ("IPv4-mapped", "IPv4-compatible", "IPv4-translated", "NAT64"):
        assert policy.address_allowed(ipaddress.ip_address(FORMS[form]("10.1.2.3"))), form
    for form in ("NAT64 local-use", "6to4", "Teredo client", "Teredo server"):
        assert not policy.address_allowed(ipaddress.ip_address(FORMS[form]("10.1.2.3"))), form


# -- calls ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def internal() -> Iterator[Server]:
    """A service on loopback that no call may reach (module-wide: one per file)."""
    with http_server() as server:
        yield server


def port_of(server: Server) -> int:
    return int(server.url.rsplit(":", 1)[1].strip("/"))


def refusals_of(agent: RemoteAgent | WiSAgent) -> list[AgentError]:
    """The same call through every path the agent has: sync, async and `info`."""
    calls: list[Callable[[], Any]]
    if isinstance(agent, WiSAgent):
        calls = [lambda: agent.vote(OBS), agent.info]
    else:
        calls = [lambda: agent.act(OBS), lambda: asyncio.run(agent.aact(OBS)), lambda: agent.info(wait=False)]
    found = []
    for call in calls:
        with pytest.raises(AgentError) as err:
            call()
        found.append(err.value)
    agent.close()
    return found


@pytest.mark.parametrize("form", FORMS)
def test_calls_to_each_form_are_refused_before_any_request(form, internal):
    port = port_of(internal)
    loopback = FORMS[form]("127.0.0.1")  # where the internal service listens
    strict = EgressPolicy(allow_private=False)
    named = EgressPolicy(allow_private=False, resolver=lambda host, p: [loopback])
    agents = [RemoteAgent(url_of(loopback, port), timeout=5, wake_timeout=1, egress=strict),
              WiSAgent(url_of(loopback, port), timeout=5, egress=strict),
              RemoteAgent(f"http://inside.test:{port}/", timeout=5, wake_timeout=1, egress=named),
              WiSAgent(f"http://inside.test:{port}", timeout=5, egress=named)]
    for agent in agents:
        for err in refusals_of(agent):
            assert err.kind == "refused" and "non-public" in err.message, err.message
            assert named_in_refusal(form, "127.0.0.1") in err.message, err.message
    assert internal.requests == []


# -- the arena: registration, ad-hoc seats, a registered agent's calls ---------------------
@pytest.fixture(scope="module")
def space(tmp_path_factory) -> Iterator[tuple[Client, Store]]:
    """The real arena in Space mode (private URLs refused) with a signed-in visitor, and one
    agent per form registered earlier (when its name still resolved elsewhere)."""
    db = str(tmp_path_factory.mktemp("ipv6") / "arena.db")
    store = Store(db)
    for form, to_address in FORMS.items():
        store.upsert_agent(f"someone/{slug(form)}", name=slug(form), kind="remote",
                           src=url_of(to_address(METADATA)), owner="someone", games=["spy"])
    store.close()
    config = ArenaConfig(db=db, demo_matches=0, space_id="x/y", allow_private_urls=False)
    with running_arena(config, auth_dependency=lambda request: "tester") as (_, url):
        client = Client(url, verbose=False, httpx_kwargs={"timeout": 120})
        reader = Store(db)
        yield client, reader
        reader.close()


def slug(form: str) -> str:
    return form.lower().replace(" ", "-")


def refusal(client: Client, api_name: str, **kwargs: Any) -> str:
    with pytest.raises(AppError) as info:
        client.submit(api_name=api_name, **kwargs).result(timeout=JOB_TIMEOUT)
    message = str(info.value)
    assert message and "Traceback" not in message
    return message


def seats_with(first: str) -> list[str]:
    return [first, "house:heuristic", "house:random", "house:heuristic", "house:random", "house:heuristic"]


@pytest.mark.parametrize("form", FORMS)
def test_registering_each_form_is_refused_naming_the_ipv4_address(form, space):
    client, store = space
    before = {a["id"] for a in store.list_agents()}
    for kind in ("remote", "wis"):
        message = refusal(client, "/register_agent", src=url_of(FORMS[form](METADATA)), name="inward", kind=kind)
        assert "non-public" in message and named_in_refusal(form, METADATA) in message, message
    assert {a["id"] for a in store.list_agents()} == before


@pytest.mark.parametrize("form", FORMS)
def test_seating_each_form_by_url_is_refused_naming_the_ipv4_address(form, space):
    client, store = space
    matches = len(store.list_matches(limit=500))
    for prefix in ("remote:", "wis:"):
        spec = prefix + url_of(FORMS[form](METADATA))
        message = refusal(client, "/run_match", game="spy", seats=seats_with(spec), seed=1, settings=PAIR)
        assert "non-public" in message and named_in_refusal(form, METADATA) in message, message
    assert len(store.list_matches(limit=500)) == matches


@pytest.mark.parametrize("form", FORMS)
def test_a_registered_agent_at_each_form_is_refused_at_every_call(form, space, internal):
    """Stored before the policy knew the form: the match goes on, and each of its calls is
    refused on the address it would connect to, with the reason in the call record."""
    client, store = space
    outcome = client.submit(game="spy", seats=seats_with(f"someone/{slug(form)}"), seed=2, settings=PAIR,
                            api_name="/run_match").result(timeout=JOB_TIMEOUT)
    assert outcome["status"] == "finished"
    calls = [e for e in store.get_match(outcome["match_id"])["events"] if e["kind"] == "call" and e["actor"] == "P1"]
    assert calls
    for call in calls:
        detail = call["data"]["detail"]
        assert call["data"]["status"] == "error" and "refused" in detail and "non-public" in detail, detail
        assert named_in_refusal(form, METADATA) in detail, detail
