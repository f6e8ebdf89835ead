"""The host's Streamlit secrets (a presenter key, settings given as secrets), read cheaply.

Where the host wrote no secrets file, every read of ``st.secrets`` looks for the files again and
raises, and a page's run reads the secrets several times: in a room of thirty that was a few per
cent of the server's time. They are read here once and kept for a few seconds (a secrets file
added or changed shows within that time); a secrets object replaced (each AppTest run with
secrets has its own) is read afresh.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import streamlit as st

KEEP_SECONDS = 10.0
_kept: tuple[object, float, Mapping] | None = None  # (the secrets object read, when, what it held)


def secrets() -> Mapping:
    """What the host's secrets hold (empty without any), as config's functions take them."""
    global _kept
    given, now, kept = st.secrets, time.monotonic(), _kept
    if kept is not None and kept[0] is given and now - kept[1] < KEEP_SECONDS:
        return kept[2]
    try:
        found: Mapping = given.to_dict()
    except Exception:  # no secrets file (Streamlit raises on reading), or one it cannot read
        found = {}
    _kept = (given, now, found)
    return found
