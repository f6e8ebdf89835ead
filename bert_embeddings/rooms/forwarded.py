"""Who a connection comes from, behind the proxies a host trusts: the address the limit on
opening workshop rooms counts (bert_embeddings/rooms/__init__.py, ``OPENS_PER_CLIENT``).

Behind a load balancer every connection arrives from the balancer's address, so one person's
rooms would use up everyone's limit. A proxy says whom it forwards in the ``X-Forwarded-For``
header, each proxy appending the address it saw. Anyone can write that header, so it is read
only as far as the chain is trusted: starting from the connection's own peer, each address the
host listed (``BERT_EXPLORER_TRUSTED_PROXIES``) vouches for the hop before it, and the first
address that is not listed is the client (the rule of RFC 7239's section 8.3 and of nginx's
``real_ip_recursive``). A client cannot move its own place in the chain: the first proxy it
reaches appends the address it really came from.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _address(text: str) -> Address | None:
    """An address as written in a header or by the server; None if it is not one."""
    try:
        address = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    # An IPv4 client seen through an IPv6 socket (::ffff:203.0.113.10) is that IPv4 client.
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped if mapped is not None else address


def client(peer: str | None, forwarded_for: Iterable[str], trusted: Sequence[Network]) -> str:
    """The address that opened the connection ``peer`` (the TCP peer the server saw), given the
    ``X-Forwarded-For`` headers it carried (each a comma-separated list) and the networks of the
    proxies the host trusts. "" when the server knows no peer (a test without a browser)."""
    here = _address(peer or "")
    if here is None:
        return ""
    hops = [hop for header in forwarded_for for hop in header.split(",") if hop.strip()]
    while hops and any(here in network for network in trusted):
        before = _address(hops.pop())
        if before is None:  # a trusted proxy passed on what is not an address: stop at the proxy
            break
        here = before
    return str(here)
