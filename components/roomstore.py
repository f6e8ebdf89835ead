"""The server process's one room registry, shared by every session's pages (components/follow.py)
and by the push route (components/room_stream.py), which runs outside any Streamlit session.
The next step puts rooms in a shared store; only ``store`` changes then."""

from __future__ import annotations

import threading

import streamlit as st

from bert_embeddings import config, rooms

_lock = threading.Lock()
_store: rooms.RoomStore | None = None


def store() -> rooms.RoomStore:
    """The registry, made on first use. Where the host set a presenter key, some rooms are kept
    for those who give it."""
    global _store
    with _lock:
        if _store is None:
            reserved = rooms.RESERVED_FOR_PRESENTERS if config.presenter_key(st.secrets) else 0
            _store = rooms.MemoryRooms(reserved=reserved)
        return _store
