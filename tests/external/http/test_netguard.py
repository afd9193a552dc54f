"""The address checks of bots served over HTTP (bohnarena/external/http/netguard.py),
with a stand-in resolver: no connection is made here."""

from __future__ import annotations

import socket
import time

import pytest

from bohnarena.core.services import UrlError, parse_url
from bohnarena.external.channel import CRASH, TIMEOUT
from bohnarena.external.http.netguard import Unreachable, addresses, refusal

PUBLIC = "93.184.215.14"


@pytest.mark.parametrize(
    "address, why",
    [
        ("127.0.0.1", "a loopback address"),
        ("127.8.9.10", "a loopback address"),
        ("::1", "a loopback address"),
        ("10.1.2.3", "a private address"),
        ("172.16.0.1", "a private address"),
        ("192.168.1.1", "a private address"),
        ("fd00::1", "a private address"),
        ("169.254.169.254", "a link-local address"),  # cloud metadata
        ("fe80::1", "a link-local address"),
        ("0.0.0.0", "an unspecified address"),
        ("::", "an unspecified address"),
        ("224.0.0.1", "a multicast address"),
        ("100.64.0.1", "not a public address"),  # carrier-grade NAT
        ("198.18.0.1", "a private address"),  # benchmarking
        ("::ffff:127.0.0.1", "a loopback address"),  # IPv4-mapped
        ("2002:7f00:1::", "a loopback address"),  # 6to4 of 127.0.0.1
        ("64:ff9b::a00:1", "a private address"),  # NAT64 of 10.0.0.1
        # Every IPv6 form that carries an IPv4 address is that address:
        ("::127.0.0.1", "a loopback address"),  # IPv4-compatible
        ("::7f00:1", "a loopback address"),
        ("::10.0.0.1", "a private address"),
        ("::ffff:7f00:1", "a loopback address"),  # mapped, in hex
        ("::ffff:0:127.0.0.1", "a loopback address"),  # IPv4-translated
        ("::ffff:0:a00:1", "a private address"),
        ("64:ff9b::7f00:1", "a loopback address"),  # NAT64
        ("64:ff9b::169.254.169.254", "a link-local address"),
        ("64:ff9b:1::7f00:1", "a local-use NAT64 address"),
        ("64:ff9b:1:7f00:1::", "a local-use NAT64 address"),  # its /48 form
        ("2002:a00:1::5", "a private address"),  # 6to4 of 10.0.0.1
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "a loopback address"),  # Teredo
        ("2606:4700::5efe:7f00:1", "a loopback address"),  # ISATAP
        ("2606:4700::200:5efe:a00:1", "a private address"),
        # ... and passes where that address is public:
        ("::8.8.8.8", None),
        ("::ffff:8.8.8.8", None),
        ("64:ff9b::8.8.8.8", None),
        ("2606:4700::5efe:808:808", None),
        (PUBLIC, None),
        ("2606:4700:4700::1111", None),
    ],
)
def test_only_public_addresses_pass(address, why):
    assert refusal(address) == why


@pytest.mark.parametrize(
    "url, parsed",
    [
        ("http://bots.example.org/play", ("http", "bots.example.org", 80, "/play")),
        ("HTTPS://Bots.Example.org", ("https", "bots.example.org", 443, "/")),
        ("http://127.0.0.1:8000/?v=2", ("http", "127.0.0.1", 8000, "/?v=2")),
        ("http://[::1]:9000/x", ("http", "::1", 9000, "/x")),
    ],
)
def test_bot_urls_are_read(url, parsed):
    u = parse_url(url)
    assert (u.scheme, u.host, u.port, u.target) == parsed
    assert parse_url(u.text) == u


@pytest.mark.parametrize(
    "url, says",
    [
        ("ftp://x.org/", "starts with http:// or https://"),
        ("http:///path", "no host"),
        ("http://x.org:99999/", "not a usable URL"),
        ("http://x.org/#top", "no #fragment"),
        ("http://bücher.example/", "ASCII"),
        ("http://x.org/a b", "no spaces"),
        ("http://user:pw@x.org/", "must not hold credentials"),
    ],
)
def test_unusable_urls_are_refused(url, says):
    with pytest.raises(UrlError, match=says) as e:
        parse_url(url)
    assert "pw" not in str(e.value)


def fake_resolver(monkeypatch, answers):
    """``getaddrinfo`` that gives each address list of ``answers`` in turn."""
    calls = []

    def resolve(host, port, *args, **kwargs):
        calls.append(host)
        found = answers[min(len(calls), len(answers)) - 1]
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in found]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    return calls


def deadline():
    return time.perf_counter() + 30


def test_every_address_of_a_name_is_checked_each_time(monkeypatch):
    url = parse_url("http://bot.example/")
    calls = fake_resolver(monkeypatch, [[PUBLIC], [PUBLIC, "10.0.0.7"], ["127.0.0.1"]])
    assert addresses(url, False, deadline()) == [PUBLIC]
    # One private address among public ones refuses the name whole.
    with pytest.raises(Unreachable, match=r"resolves to 10\.0\.0\.7, a private address") as e:
        addresses(url, False, deadline())
    assert e.value.kind == CRASH
    # A name that resolves elsewhere later (DNS rebinding) is caught then.
    with pytest.raises(Unreachable, match=r"resolves to 127\.0\.0\.1, a loopback address"):
        addresses(url, False, deadline())
    assert addresses(url, True, deadline()) == ["127.0.0.1"]  # allowed when the league says so
    assert calls == ["bot.example"] * 4  # resolved afresh every time


def test_an_address_in_the_url_is_not_resolved(monkeypatch):
    calls = fake_resolver(monkeypatch, [[PUBLIC]])
    assert addresses(parse_url("http://[::1]:8000/"), True, deadline()) == ["::1"]
    with pytest.raises(Unreachable, match="::1 is a loopback address"):
        addresses(parse_url("http://[::1]:8000/"), False, deadline())
    with pytest.raises(Unreachable, match=r"::127\.0\.0\.1 is a loopback address"):
        addresses(parse_url("http://[::127.0.0.1]:8000/"), False, deadline())
    assert calls == []


def test_a_name_that_does_not_resolve_in_time_is_a_timeout(monkeypatch):
    def slow(*args, **kwargs):
        time.sleep(1)
        return []

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    with pytest.raises(Unreachable, match="did not resolve in time") as e:
        addresses(parse_url("http://slow.example/"), False, time.perf_counter() + 0.05)
    assert e.value.kind == TIMEOUT


def test_a_name_that_does_not_resolve_is_a_crash(monkeypatch):
    def fail(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    with pytest.raises(Unreachable, match="does not resolve: Name or service not known"):
        addresses(parse_url("http://nowhere.example/"), False, deadline())
