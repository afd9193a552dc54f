"""Where a bot served over HTTP may be reached: its URL checked up front,
and every address its name resolves to checked before a connection is made.

A league file can come from anyone. Without a check, a bot spec such as
``http://10.0.0.7:8080/admin`` or ``http://metadata.internal/`` would make
bohnarena probe the organiser's own network. So a bot's service may be on a
public address only, unless the league says ``allow_private = true`` for
that bot. The check is made on the addresses actually connected to: the
name is resolved here, every address it gives is checked, and the
connection goes to a checked address (the name stays the Host header and
the TLS server name), so a name that resolves elsewhere later (DNS
rebinding) is caught at its next connection.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time

from ...core.services import BotUrl
from ..channel import CRASH, TIMEOUT, BotFault

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
#: IPv6 prefixes whose last 32 bits are an IPv4 address, checked as that
#: address: IPv4-compatible (deprecated, RFC 4291), IPv4-translated (RFC
#: 2765) and NAT64's well-known prefix (RFC 6052).
IN_LAST_32 = tuple(ipaddress.ip_network(n) for n in ("::/96", "::ffff:0:0:0/96", "64:ff9b::/96"))
#: NAT64 for a local network (RFC 8215): where the IPv4 address sits depends
#: on the prefix length that network chose, so none of it is public.
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")
#: ISATAP's interface identifiers (RFC 5214): ``0:5efe:a.b.c.d`` (or ``200:``)
#: under any prefix.
ISATAP = (0x00005EFE, 0x02005EFE)


class Unreachable(BotFault):
    """The service could not be reached: its name, its address, the
    connection or the TLS handshake failed (type ``crash``, or ``timeout``
    when it took too long). Each counts toward a worker's rest from the
    service (:func:`.transport.resting`); a seat forfeits a match after
    three connection faults (see :mod:`.seat`)."""


def refusal(address: str) -> str | None:
    """Why a service at ``address`` may not be reached without
    ``allow_private``, or None for a public address. Not public: loopback,
    private, link-local, shared (carrier NAT), multicast, unspecified,
    reserved, documentation and benchmarking ranges (everything Python's
    ``is_global`` rejects), local-use NAT64, and any IPv6 address that wraps
    such an IPv4 address (compatible, mapped, translated, 6to4, Teredo,
    NAT64, ISATAP): the kernel or a gateway on the way may reach that address."""
    ip: IP = ipaddress.ip_address(address.split("%", 1)[0])
    if ip in LOCAL_NAT64:
        return "a local-use NAT64 address"
    for inner in _wrapped(ip):
        why = refusal(str(inner))
        if why is not None:
            return why
    for what, test in (
        ("a loopback address", ip.is_loopback),
        ("a link-local address", ip.is_link_local),
        ("a multicast address", ip.is_multicast),
        ("an unspecified address", ip.is_unspecified),
        ("a private address", ip.is_private),
    ):
        if test:
            return what
    if not ip.is_global:
        return "not a public address"
    return None


def _wrapped(ip: IP) -> list[ipaddress.IPv4Address]:
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    found = [ip.ipv4_mapped, ip.sixtofour]
    if ip.teredo is not None:
        found += list(ip.teredo)
    last = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    # (:: and ::1 are their own addresses, not IPv4-compatible ones)
    if any(ip in net for net in IN_LAST_32) and int(ip) > 1:
        found.append(last)
    if (int(ip) >> 32) & 0xFFFFFFFF in ISATAP:
        found.append(last)
    return [a for a in found if a is not None]


def addresses(url: BotUrl, allow_private: bool, deadline: float) -> list[str]:
    """The addresses to connect to for ``url``, each checked: the host's own
    if it is an IP address, else every address its name resolves to now
    (resolved within ``deadline``, a perf_counter time). Raises a BotFault:
    ``crash`` if the name does not resolve or gives an address the bot may
    not use (one such address refuses the name whole), ``timeout`` if the
    name does not resolve in time."""
    try:
        found = [str(ipaddress.ip_address(url.host))]
        literal = True
    except ValueError:
        found, literal = _resolve(url.host, url.port, deadline), False
    if not allow_private:
        for address in found:
            why = refusal(address)
            if why is not None:
                named = " is" if literal else f" resolves to {address},"
                raise Unreachable(
                    CRASH,
                    f"{url.host}{named} {why}: not reached without allow_private = true",
                )
    return found


def _resolve(host: str, port: int, deadline: float) -> list[str]:
    """``host``'s addresses, looked up in a thread of its own: a resolver can
    take many seconds, and the worker's watchdog must go on ticking meanwhile."""
    result: list[list[str] | BaseException] = []

    def lookup() -> None:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            result.append(list(dict.fromkeys(str(info[4][0]) for info in infos)))
        except BaseException as e:  # handed to the waiting thread
            result.append(e)

    thread = threading.Thread(target=lookup, name=f"resolve {host}", daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.perf_counter()))
    if not result:
        raise Unreachable(TIMEOUT, f"the name {host} did not resolve in time")
    found = result[0]
    if isinstance(found, BaseException):
        why = found.strerror if isinstance(found, OSError) and found.strerror else found
        raise Unreachable(CRASH, f"the name {host} does not resolve: {why}")
    if not found:
        raise Unreachable(CRASH, f"the name {host} has no address")
    return found
