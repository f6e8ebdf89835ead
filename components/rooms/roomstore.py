"""The server process's one room store, shared by every session's pages (components/rooms/follow.py),
by the server's own wake-up (components/rooms/room_wake.py) and by the push route
(components/rooms/room_stream.py), which runs outside any Streamlit session. Which store is the host's
choice (``BERT_EXPLORER_ROOMS``): a SQLite file that every process on the host shares (the
default, in the cache folder), or a Redis server that replicas on several hosts share."""

from __future__ import annotations

import logging
import sqlite3
import threading

from bert_embeddings import config, rooms
from components.frame import host_secrets

_lock = threading.Lock()
_LOGGER = logging.getLogger(__name__)
_store: rooms.RoomStore | None = None


def open_store(setting: str, reserved: int = 0) -> rooms.RoomStore:
    """The store a setting names: a Redis URL, else a SQLite file's path. A setting that cannot
    be used turns rooms off with a message naming it; never a store of another kind in its
    place (two replicas would each keep rooms of their own, and followers would be split)."""
    if (problem := config.problem(config.ROOMS, setting)) is not None:
        raise rooms.RoomsOffError(problem)
    if setting.startswith(config.REDIS_SCHEMES):
        from bert_embeddings.rooms.room_redis import RedisRooms  # (redis-py only where Redis is used)

        return RedisRooms(setting, reserved=reserved)
    from bert_embeddings.rooms.room_sqlite import SqliteRooms

    try:
        return SqliteRooms(setting, reserved=reserved)
    except (sqlite3.Error, OSError) as problem:  # e.g. a folder this server may not write to
        _LOGGER.warning("Workshop rooms are off: %s cannot be used (%s)", setting, problem)
        raise rooms.RoomsOffError(
            f"{config.ROOMS} names {setting}, which cannot be used ({problem})"
        ) from None


def store() -> rooms.RoomStore:
    """The store, made on first use (RoomsOffError, a RoomError, while it cannot be made). Where
    the host set a presenter key, some rooms are kept for those who give it."""
    global _store
    with _lock:
        if _store is None:
            reserved = rooms.RESERVED_FOR_PRESENTERS if config.presenter_key(host_secrets.secrets()) else 0
            _store = open_store(config.rooms_store(), reserved)
        return _store
