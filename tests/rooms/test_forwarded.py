"""Who opens a room, behind the proxies a host trusts (bert_embeddings/rooms/forwarded.py): the limit on
opening rooms counts each person by their own address, never by the load balancer's, and a
client's own X-Forwarded-For header moves nothing."""

from __future__ import annotations

import ipaddress

import pytest

from bert_embeddings.rooms.forwarded import client

PROXY = [ipaddress.ip_network("127.0.0.1/32")]
TWO_HOPS = [ipaddress.ip_network("127.0.0.1/32"), ipaddress.ip_network("10.0.0.0/8")]


@pytest.mark.parametrize(
    ("peer", "headers", "trusted", "expected"),
    [
        # no proxy trusted: the connection's own address, loopback included (it was never limited)
        ("127.0.0.1", [], [], "127.0.0.1"),
        ("::1", [], [], "::1"),
        ("203.0.113.10", ["198.51.100.20"], [], "203.0.113.10"),  # a header from anyone is ignored
        # behind the trusted balancer: the address it forwards for
        ("127.0.0.1", ["203.0.113.10"], PROXY, "203.0.113.10"),
        ("127.0.0.1", ["198.51.100.20"], PROXY, "198.51.100.20"),
        # a client that writes its own header: the balancer appends where it really came from
        ("127.0.0.1", ["6.6.6.6, 203.0.113.10"], PROXY, "203.0.113.10"),
        ("127.0.0.1", ["6.6.6.6", "203.0.113.10"], PROXY, "203.0.113.10"),  # two header lines
        # a chain of trusted proxies: the first untrusted address from the right
        ("127.0.0.1", ["203.0.113.10, 10.1.2.3"], TWO_HOPS, "203.0.113.10"),
        # an untrusted peer never speaks for others, whatever it sends
        ("192.0.2.1", ["203.0.113.10"], PROXY, "192.0.2.1"),
        # a trusted proxy that forwards what is no address: counted as that proxy
        ("127.0.0.1", ["unknown"], PROXY, "127.0.0.1"),
        # an IPv4 client through an IPv6 socket is the IPv4 client
        ("::ffff:203.0.113.10", [], [], "203.0.113.10"),
        ("127.0.0.1", ["[2001:db8::1]"], PROXY, "2001:db8::1"),
        # no connection known (tests without a browser): no address, not limited
        (None, ["203.0.113.10"], PROXY, ""),
    ],
)
def test_the_client_is_the_first_untrusted_address(peer, headers, trusted, expected):
    assert client(peer, headers, trusted) == expected
