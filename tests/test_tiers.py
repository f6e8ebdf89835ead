"""The quick tier (`make check`): the tables in tests/conftest.py that mark tests `server` or `slow`
name tests that exist, so that a renamed test cannot slip into the tier unnoticed, and the marks
reach the tests they name."""

from __future__ import annotations

import ast

import pytest

from testkit.apptest import ROOT
from tests import conftest


def defined_tests(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    }


@pytest.mark.parametrize("table", ["SERVER", "SLOW"])
def test_every_name_in_the_tier_tables_is_a_test(table):
    for path, names in getattr(conftest, table).items():
        assert (ROOT / path).is_file(), f"{table} names {path}, which is not there"
        missing = set(names) - {"*"} - defined_tests(path)
        assert not missing, (
            f"{table} in tests/conftest.py names tests {path} no longer has: {sorted(missing)}"
        )


class Collected:
    """What the marking hook reads of a collected test."""

    def __init__(self, nodeid: str, fixturenames=(), params=None):
        self.nodeid, self.originalname = nodeid, nodeid.split("::")[1].split("[")[0]
        self.fixturenames = list(fixturenames)
        if params is not None:
            self.callspec = type("CallSpec", (), {"params": params})()
        self.marks = []

    def add_marker(self, mark):
        self.marks.append(mark.mark)


def test_the_tables_mark_what_they_name():
    """A test the tables name gets its mark with the reason; one using a server's fixture, or a
    Redis store, is a server test; any other test gets no mark."""
    items = {
        "kernel": Collected("tests/test_notebook.py::test_every_cell_runs_and_no_cell_errs"),
        "whole file": Collected("tests/test_services.py::test_redis_server_context_manager"),
        "sweep": Collected("tests/app/test_hostile.py::test_hostile_link_values[cmp]"),
        "redis": Collected("tests/rooms/test_rooms.py::test_x[redis]", params={"make_rooms": "redis"}),
        "fixture": Collected("tests/rooms/test_rooms.py::test_y", fixturenames=["redis_url"]),
        "quick": Collected(
            "tests/app/test_hostile.py::test_a_huge_sentence_names_the_limit", params={"n": 3}
        ),
    }
    conftest.pytest_collection_modifyitems(None, list(items.values()))
    marks = {key: [(m.name, m.args[0]) for m in item.marks] for key, item in items.items()}
    assert marks["kernel"] == [("server", "a Jupyter kernel runs the notebook")]
    assert marks["whole file"] == [("server", "Redis and HAProxy servers")]
    assert [name for name, _ in marks["sweep"]] == ["slow"]
    assert marks["redis"] == marks["fixture"] == [("server", "a Redis server")]
    assert marks["quick"] == []
