"""What the room tests share: stores that share one place, as a deployment's replicas do."""

from __future__ import annotations

import secrets

import pytest

from bert_embeddings.rooms.room_redis import RedisRooms
from bert_embeddings.rooms.room_sqlite import SqliteRooms


@pytest.fixture(params=["sqlite-file", pytest.param("redis", marks=pytest.mark.server("a Redis server"))])
def replicas(request, tmp_path):
    """Makes stores that share one place, as the replicas of one deployment do."""
    if request.param == "sqlite-file":
        path = tmp_path / "rooms.sqlite3"
        return lambda **options: SqliteRooms(path, **options)
    url, prefix = request.getfixturevalue("redis_url"), f"test-{secrets.token_hex(4)}:"
    return lambda **options: RedisRooms(url, prefix=prefix, **options)
