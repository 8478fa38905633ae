"""Where the arena's HTTP clients may go and what they read back, against real servers
on loopback: redirects, compression bombs, credentials in URLs, the arena's own token,
and name resolution the test controls (non-public answers, DNS rebinding)."""

from __future__ import annotations

import asyncio
import gzip
import ipaddress
import zlib

import pytest
from hostile_servers import http_server

from sdk import AgentError, Observation, RemoteAgent
from sdk.egress import BoundedBody, EgressPolicy, EgressRefused, is_public
from space_app.core import get_game
from space_app.games.spy.wis import WiSAgent
from space_app.runner import SeatAgent, play

OBS = Observation(game="spy", verb="vote", you="P1", options=["P2", "P3"], match_id="m1",
                  private={"facts": {"word": "tea"}, "text": "Your word is tea."})


def remote(url: str, **kwargs) -> RemoteAgent:
    return RemoteAgent(url, timeout=10, wake_timeout=1, **kwargs)


def errors_of(agent: RemoteAgent) -> list[AgentError]:
    """The same call through the sync client, the async client and `info`."""
    found = []
    for call in (lambda: agent.act(OBS), lambda: asyncio.run(agent.aact(OBS)), lambda: agent.info(wait=False)):
        with pytest.raises(AgentError) as err:
            call()
        found.append(err.value)
    agent.close()
    return found


# -- redirects ---------------------------------------------------------------------------
def test_redirects_are_not_followed_by_sdk_agents(hostile, internal):
    for err in errors_of(remote(hostile.url + "redirect/", secret="agent-secret")):
        assert err.kind == "refused" and "redirect" in err.message and internal.url in err.message
    assert internal.requests == [], "a redirect carried the observation (and secret) inwards"


def test_redirects_are_not_followed_by_wis_agents(hostile, internal):
    agent = WiSAgent(hostile.url + "redirect", timeout=5)
    with pytest.raises(AgentError) as err:
        agent.vote(OBS)
    assert err.value.kind == "refused" and "redirect" in err.value.message
    with pytest.raises(AgentError):
        agent.info()
    assert internal.requests == []


# -- compression -------------------------------------------------------------------------
def test_a_compression_bomb_is_cut_at_the_byte_cap(hostile):
    for err in errors_of(remote(hostile.url + "bomb/", max_reply_bytes=64_000)):
        assert err.kind == "bad_reply" and "larger than 64000 bytes" in err.message
    wis = WiSAgent(hostile.url + "bomb", timeout=10)
    with pytest.raises(AgentError) as err:
        wis.vote(OBS)
    assert err.value.kind == "bad_reply" and "larger than" in err.value.message


def test_unknown_encodings_are_refused(hostile):
    for err in errors_of(remote(hostile.url + "brotli/")):
        assert err.kind == "bad_reply" and "'br'" in err.message


def test_bounded_body_reads_gzip_and_deflate_and_refuses_garbage():
    text = b'{"data": ["hello"]}' * 10
    for encoding, packed in (("gzip", gzip.compress(text)), ("deflate", zlib.compress(text))):
        body = BoundedBody(encoding, 10_000)
        for i in range(0, len(packed), 7):  # in small pieces, as a network delivers it
            body.feed(packed[i:i + 7])
        assert body.finish() == text
    with pytest.raises(AgentError, match="not valid compressed data"):
        body = BoundedBody("gzip", 10_000)
        body.feed(b"this is not gzip")
        body.finish()
    with pytest.raises(AgentError, match="encoded more than once"):
        BoundedBody("gzip, gzip", 10_000)
    plain = BoundedBody(None, 10)
    with pytest.raises(AgentError, match="larger than 10 bytes"):
        plain.feed(b"x" * 11)


def test_six_bombing_seats_at_once_leave_memory_flat(hostile):
    """Acceptance: a 1 GiB gzip bomb from six seats at once (a real match: three SDK
    agents on the async client, three WiS agents on the sync one) raises resident memory
    by less than 50 MB, measured at its peak by sampling RSS while the match runs."""
    from hostile_servers import gzip_bomb, peak_rss_growth

    gzip_bomb()  # built before measuring: it is the attacker's memory, not the arena's
    game = get_game("spy").make(6, seed=3, settings={"pair": {"civilian": "tea", "spy": "coffee"}})
    seats = {}
    for i, seat in enumerate(game.seats):
        agent = (RemoteAgent(hostile.url + "bomb/", timeout=30, wake_timeout=1) if i % 2 == 0
                 else WiSAgent(hostile.url + "bomb", timeout=30))
        seats[seat] = SeatAgent(agent, f"bomb{i}")
    outcome, grown_mb = peak_rss_growth(lambda: asyncio.run(play(game, seats)))
    calls = [e for e in outcome.events if e.kind == "call"]
    assert outcome.status == "finished" and calls
    assert all(c.status == "error" and "larger than" in c.detail for c in calls)
    print(f"peak RSS growth with six bombing seats: {grown_mb:.1f} MB")
    assert grown_mb < 50, f"resident memory grew by {grown_mb:.1f} MB"


# -- credentials -------------------------------------------------------------------------
def test_urls_with_credentials_are_refused_before_any_call(hostile):
    url = hostile.url.replace("http://", "http://user:pass@") + "agent/"
    with pytest.raises(EgressRefused, match="credentials"):
        RemoteAgent(url)
    with pytest.raises(EgressRefused, match="credentials"):
        WiSAgent(url)
    assert hostile.requests == []


def test_the_arena_token_never_goes_to_agents(hostile, monkeypatch):
    """A URL that merely contains '.hf.space' used to receive the arena's HF_TOKEN."""
    monkeypatch.setenv("HF_TOKEN", "hf_the_arenas_own_token")
    agent = remote(hostile.url + "agent/x.hf.space/")
    agent.act(OBS)
    asyncio.run(agent.aact(OBS))
    agent.info(wait=False)
    agent.close()
    wis = WiSAgent(hostile.url + "agent/x.hf.space", timeout=5)
    with pytest.raises(AgentError):  # the recorder is no WiS agent; only the headers matter
        wis.vote(OBS)
    assert len(hostile.requests) >= 4
    for seen in hostile.requests:
        assert "authorization" not in seen.headers
        assert b"hf_the_arenas_own_token" not in seen.body


# -- addresses ---------------------------------------------------------------------------
@pytest.mark.parametrize("address, public", [
    ("127.0.0.1", False), ("10.1.2.3", False), ("172.16.0.1", False), ("192.168.1.1", False),
    ("169.254.169.254", False), ("100.64.0.1", False), ("0.0.0.0", False), ("224.0.0.1", False),
    ("::1", False), ("fe80::1", False), ("fd00::1", False), ("::ffff:127.0.0.1", False),
    ("::ffff:10.0.0.1", False), ("93.184.216.34", True), ("2606:4700:4700::1111", True),
])
def test_which_addresses_are_public(address, public):
    assert is_public(ipaddress.ip_address(address)) is public


def test_non_public_targets_are_refused_without_a_request(internal):
    strict = EgressPolicy(allow_private=False)
    for err in errors_of(remote(internal.url, egress=strict)):
        assert err.kind == "refused" and "non-public" in err.message
    named = EgressPolicy(allow_private=False, resolver=lambda host, port: ["127.0.0.1"])
    port = internal.url.rsplit(":", 1)[1].strip("/")
    for err in errors_of(remote(f"http://inside.test:{port}/", egress=named)):
        assert err.kind == "refused" and "inside.test resolves to a non-public address" in err.message
    # one non-public answer among public ones refuses the name: any of them could be used
    mixed = EgressPolicy(allow_private=False, resolver=lambda host, port: ["93.184.216.34", "127.0.0.1"])
    with pytest.raises(EgressRefused):
        mixed.target(f"http://mixed.test:{port}/")
    assert internal.requests == []


def test_the_checked_address_is_the_one_connected_to(internal):
    """DNS rebinding: the name first resolves to an allowed address (here 127.0.0.2, an
    operator-allowed network standing in for a public host), then to loopback. The first
    call goes to the checked address with the original Host header; the second is refused,
    and the internal service on 127.0.0.1 never sees a request."""
    answers = iter([["127.0.0.2"], ["127.0.0.1"]])
    policy = EgressPolicy(allow_private=False, allowed_networks=(ipaddress.ip_network("127.0.0.2/32"),),
                          resolver=lambda host, port: next(answers), cache_seconds=0)
    with http_server("127.0.0.2") as allowed:
        port = allowed.url.rsplit(":", 1)[1].strip("/")
        # the internal service listens on the same port number on 127.0.0.1 when it can;
        # either way nothing may reach it
        agent = remote(f"http://agent.rebind.test:{port}/agent/", egress=policy)
        assert agent.act(OBS).text == "P2"
        assert allowed.requests[-1].headers["host"] == f"agent.rebind.test:{port}"
        with pytest.raises(AgentError) as err:
            agent.act(OBS)
        agent.close()
    assert err.value.kind == "refused" and "127.0.0.1" in err.value.message
    assert len(allowed.requests) == 1 and internal.requests == []
