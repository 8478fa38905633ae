"""Where the arena may send a request, and how much it reads back.

One policy for every call made to an agent (SDK agents, WiS agents, registration
probes). It exists because the arena calls URLs that strangers choose:

- only http(s), and never a URL with credentials in it (`user:pass@host`);
- with `allow_private=False` (a public Space) only public addresses, checked on the
  address actually connected to: the name is resolved once, every address checked,
  and the request goes to that address with the original Host header and TLS server
  name, so a name that resolves elsewhere a second later (DNS rebinding) gains nothing;
- an IPv6 address that carries an IPv4 address (IPv4-mapped, IPv4-compatible,
  IPv4-translated, NAT64, 6to4, Teredo) is judged by the IPv4 address(es) it carries,
  since a gateway, a tunnel or the dual-stack socket takes the request there
  (`embedded_ipv4`);
- redirects are never followed (`redirect_error`);
- a reply is read up to a byte cap *after* decompression (`BoundedBody`), so a small
  compressed reply cannot inflate into gigabytes.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .errors import AgentError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Sequence[str]]  # (host, port) -> addresses
REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})
ACCEPT_ENCODING = "gzip, deflate"


class EgressRefused(AgentError):
    """The policy forbids this call; nothing was sent."""

    def __init__(self, message: str, *, agent: str = "") -> None:
        super().__init__("refused", message, agent=agent)


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


# IPv6 forms that carry an IPv4 address. "Direct" forms stand for the IPv4 host itself
# (a dual-stack socket or a NAT64 gateway connects to it); tunnels (6to4, Teredo) send the
# packet through a relay to the IPv4 address they carry.
IPV4_MAPPED = ipaddress.ip_network("::ffff:0:0/96")  # RFC 4291
IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # RFC 2765 (SIIT)
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # RFC 4291, deprecated; :: and ::1 excluded
NAT64_WELL_KNOWN = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052
NAT64_LOCAL_USE = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215
SIX_TO_FOUR = ipaddress.ip_network("2002::/16")  # RFC 3056
TEREDO = ipaddress.ip_network("2001::/32")  # RFC 4380


@dataclass(frozen=True)
class Embedded:
    """The IPv4 address(es) an IPv6 address carries, and how it carries them."""

    form: str  # e.g. "NAT64 form", "6to4 form", "Teredo"
    ipv4: tuple[ipaddress.IPv4Address, ...]  # Teredo carries two: its server and its client
    direct: bool  # the IPv6 address stands for the IPv4 host itself (not a tunnel to it)

    def describe(self) -> str:
        if self.form == "Teredo":
            server, client = self.ipv4
            return f"Teredo: server {server}, client {client}"
        if not self.ipv4:
            return self.form
        return f"{self.form} of {self.ipv4[0]}"


def _low32(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)


def embedded_ipv4(address: IPAddress) -> Embedded | None:
    """The IPv4 address an IPv6 address carries, or None (for an IPv4 address, or an
    IPv6 address that carries none)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address in IPV4_MAPPED:
        return Embedded("IPv4-mapped form", (_low32(address),), direct=True)
    if address in IPV4_TRANSLATED:
        return Embedded("IPv4-translated form", (_low32(address),), direct=True)
    if address in IPV4_COMPATIBLE and int(address) > 1:  # :: and ::1 are themselves
        return Embedded("IPv4-compatible form", (_low32(address),), direct=True)
    if address in NAT64_WELL_KNOWN:
        return Embedded("NAT64 form", (_low32(address),), direct=True)
    if address in NAT64_LOCAL_USE:
        # where the IPv4 address sits depends on the operator's prefix length (/48 to /96),
        # which the arena cannot know: nothing is read off it, and it is never public
        return Embedded("NAT64 local-use prefix 64:ff9b:1::/48", (), direct=False)
    if address in SIX_TO_FOUR:
        return Embedded("6to4 form", (ipaddress.IPv4Address((int(address) >> 80) & 0xFFFFFFFF),),
                        direct=False)
    if address in TEREDO:
        # RFC 4380: the server is bits 32..63, the client the last 32 bits inverted
        server = ipaddress.IPv4Address((int(address) >> 64) & 0xFFFFFFFF)
        client = ipaddress.IPv4Address(~int(address) & 0xFFFFFFFF)
        return Embedded("Teredo", (server, client), direct=False)
    return None


def describe(address: IPAddress) -> str:
    """The address as a refusal names it, with the IPv4 address it carries, if any."""
    embedded = embedded_ipv4(address)
    return f"{address} ({embedded.describe()})" if embedded is not None else str(address)


def _own_standing(address: IPAddress) -> bool:
    # reserved IPv6 space (outside 2000::/3 and the special blocks) is not global either,
    # though Python's `is_global` lets some of it through
    reserved = isinstance(address, ipaddress.IPv6Address) and address.is_reserved
    return address.is_global and not address.is_multicast and not reserved


def is_public(address: IPAddress) -> bool:
    """Whether the arena may call `address` on a public Space. An IPv6 form that carries
    an IPv4 address is public only if every IPv4 address it carries is: a NAT64 form of a
    public address is allowed (DNS64 networks give that form for every IPv4-only host, and
    the gateway takes the request to that same public address), NAT64 local-use prefixes
    are refused (their layout is unknown), and Teredo is refused whatever it carries (a
    tunnel to a client behind a NAT, never an agent server's address)."""
    embedded = embedded_ipv4(address)
    if embedded is None:
        return _own_standing(address)
    if not embedded.ipv4 or embedded.form == "Teredo":
        return False
    if not all(_own_standing(v4) for v4 in embedded.ipv4):
        return False
    # a tunnel's IPv6 address must be public in its own right too
    return embedded.direct or _own_standing(address)


@dataclass(frozen=True)
class Target:
    """Where one request goes: the URL to connect to and the names it must carry."""

    url: str  # with the checked address in place of the name (unchanged when nothing was pinned)
    host_header: str | None  # the original Host, when the URL was rewritten
    sni_hostname: str | None  # the TLS server name, when the URL was rewritten to an address


@dataclass
class EgressPolicy:
    """allow_private: loopback/private/link-local targets allowed (local development).
    allowed_networks: networks allowed even when private ones are not (an operator's
    own agents on an internal network). resolver: name -> addresses (tests replace it).
    cache_seconds: how long a *checked* resolution is reused."""

    allow_private: bool = True
    allowed_networks: tuple[IPNetwork, ...] = ()
    resolver: Resolver = system_resolver
    cache_seconds: float = 30.0
    _cache: dict[tuple[str, int], tuple[float, str]] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_strings(cls, allow_private: bool, networks: Sequence[str] = ()) -> EgressPolicy:
        return cls(allow_private=allow_private,
                   allowed_networks=tuple(ipaddress.ip_network(n.strip(), strict=False)
                                          for n in networks if n.strip()))

    def address_allowed(self, address: IPAddress) -> bool:
        if self.allow_private or is_public(address):
            return True
        # an operator-allowed IPv4 network also allows the direct IPv6 forms of its addresses
        embedded = embedded_ipv4(address)
        candidates = [address, *(embedded.ipv4 if embedded is not None and embedded.direct else ())]
        return any(candidate in net for candidate in candidates
                   for net in self.allowed_networks if net.version == candidate.version)

    def check_url(self, url: str) -> None:
        """Refuse what no mode allows: other schemes, credentials in the URL, no host."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise EgressRefused(f"only http(s) URLs are called, not {parts.scheme or 'no scheme'!r}")
        if parts.username is not None or parts.password is not None:
            raise EgressRefused("a URL with credentials in it (user:password@) is refused; "
                                "give the agent a secret instead")
        if not parts.hostname:
            raise EgressRefused(f"no host in {url!r}")
        try:
            parts.port  # noqa: B018 - raises on a malformed port
        except ValueError as exc:
            raise EgressRefused(f"bad port in the URL: {exc}") from exc

    def target(self, url: str) -> Target:
        """Check the URL and pin it to an allowed address; raises `EgressRefused`."""
        self.check_url(url)
        parts = urlsplit(url)
        host = parts.hostname or ""
        if self.allow_private:
            return Target(url, None, None)  # every address is allowed: nothing to pin
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            literal: IPAddress | None = ipaddress.ip_address(host)
        except ValueError:
            literal = None
        if literal is not None:
            if not self.address_allowed(literal):
                raise EgressRefused(f"{describe(literal)} is a non-public address; "
                                    "such agents are not called here")
            return Target(url, None, None)
        address = self._resolve_checked(host, port)
        shown = f"[{address}]" if ":" in address else address
        netloc = f"{shown}:{parts.port}" if parts.port else shown
        pinned = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
        host_header = parts.netloc  # no userinfo: check_url refused it
        return Target(pinned, host_header, host if parts.scheme == "https" else None)

    def _resolve_checked(self, host: str, port: int) -> str:
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get((host, port))
        if hit is not None and hit[0] > now:
            return hit[1]
        try:
            addresses = [ipaddress.ip_address(a.split("%")[0]) for a in self.resolver(host, port)]
        except (OSError, ValueError) as exc:
            raise AgentError("unreachable", f"cannot resolve {host}: {exc}") from exc
        if not addresses:
            raise AgentError("unreachable", f"cannot resolve {host}: no address")
        # one non-public answer refuses the name: the connection could go to any of them
        for address in addresses:
            if not self.address_allowed(address):
                raise EgressRefused(f"{host} resolves to a non-public address ({describe(address)}); "
                                    "such agents are not called here")
        chosen = str(addresses[0])
        if self.cache_seconds > 0:
            with self._lock:
                if len(self._cache) > 4096:
                    self._cache.clear()
                self._cache[(host, port)] = (now + self.cache_seconds, chosen)
        return chosen


def redirect_error(status: int, location: str | None, agent: str = "") -> AgentError:
    where = (location or "")[:200] or "somewhere else"
    return AgentError("refused", f"HTTP {status}: redirected to {where}; redirects are not followed "
                      "(register the final URL instead)", agent=agent)


def pinned(target: Target) -> dict[str, Any]:
    """The httpx request arguments that send a pinned request with its original names."""
    return {"headers": {"Host": target.host_header} if target.host_header else None,
            "extensions": {"sni_hostname": target.sni_hostname} if target.sni_hostname else None}


def read_bounded(response: Any, limit: int, deadline: float, agent: str = "") -> bytes:
    """An httpx streaming response's body: a redirect is refused, the body is capped after
    decompression, and reading stops at `deadline` (time.monotonic())."""
    if response.status_code in REDIRECT_STATUS:
        raise redirect_error(response.status_code, response.headers.get("location"), agent)
    body = BoundedBody(response.headers.get("content-encoding"), limit, agent)
    for chunk in raw_chunks(response):
        body.feed(chunk)
        if time.monotonic() > deadline:
            raise AgentError("timeout", "no complete reply in time", agent=agent)
    return body.finish()


def raw_chunks(response: Any) -> Iterator[bytes]:
    """An httpx response's bytes as they came off the wire (still compressed). A response
    an in-process transport built from bytes is already whole: it is yielded as is."""
    if response.is_stream_consumed:
        yield response.content
    else:
        yield from response.iter_raw()


class BoundedBody:
    """Collect a reply's raw bytes, decompressing gzip/deflate as they arrive, and stop
    as soon as the decoded body passes `limit` bytes (other encodings are refused)."""

    def __init__(self, content_encoding: str | None, limit: int, agent: str = "") -> None:
        self.limit = limit
        self.agent = agent
        encodings = [e.strip().lower() for e in (content_encoding or "").split(",") if e.strip()]
        encodings = [e for e in encodings if e != "identity"]
        if len(encodings) > 1:
            raise AgentError("bad_reply", f"reply encoded more than once ({content_encoding})", agent=agent)
        self._decoder: zlib._Decompress | None = None
        if encodings:
            if encodings[0] in ("gzip", "x-gzip"):
                self._decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
            elif encodings[0] == "deflate":
                self._decoder = zlib.decompressobj()
            else:
                raise AgentError("bad_reply", f"reply compressed with {encodings[0]!r}; only gzip and "
                                 "deflate are read", agent=agent)
        self._body = bytearray()
        self._raw = 0

    def _too_large(self) -> AgentError:
        return AgentError("bad_reply", f"reply larger than {self.limit} bytes", agent=self.agent)

    def feed(self, chunk: bytes) -> None:
        self._raw += len(chunk)
        if self._raw > self.limit:
            raise self._too_large()
        if self._decoder is None:
            self._body += chunk
        else:
            data = chunk
            try:
                while data:
                    room = self.limit + 1 - len(self._body)
                    out = self._decoder.decompress(data, room)
                    self._body += out
                    if len(self._body) > self.limit:
                        raise self._too_large()
                    data = self._decoder.unconsumed_tail
                    if not out and data:
                        break
            except zlib.error as exc:
                raise AgentError("bad_reply", f"reply is not valid compressed data: {exc}",
                                 agent=self.agent) from exc
        if len(self._body) > self.limit:
            raise self._too_large()

    def finish(self) -> bytes:
        if self._decoder is not None:
            try:
                rest = self._decoder.flush(self.limit + 1 - len(self._body))
            except zlib.error as exc:
                raise AgentError("bad_reply", f"reply is not valid compressed data: {exc}",
                                 agent=self.agent) from exc
            self._body += rest
            if len(self._body) > self.limit:
                raise self._too_large()
        return bytes(self._body)


__all__ = ["ACCEPT_ENCODING", "REDIRECT_STATUS", "BoundedBody", "EgressPolicy", "EgressRefused",
           "Embedded", "Target", "describe", "embedded_ipv4", "is_public", "pinned", "raw_chunks",
           "read_bounded", "redirect_error", "system_resolver"]
