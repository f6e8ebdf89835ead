"""The server wakes its own followers (components/rooms/room_wake.py): each process watches a room
once and reruns the sessions that follow it; the browsers' push is only the way back. Here with
a real room registry and a recorded rerun in place of Streamlit's; tests/rooms/test_follow_browser.py
checks the real thing against a real server. And the private Streamlit parts components/frame/runs.py
uses: an upgrade that moves them fails here."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from bert_embeddings.rooms.room_sqlite import SqliteRooms
from components.frame import runs
from components.rooms import room_wake, roomstore


@pytest.fixture
def registry(monkeypatch):
    """A fresh room registry and waker state; ``as_session(id)`` makes the calling code run as
    that session; ``reruns`` lists every session rerun, in order."""
    store = SqliteRooms(":memory:")
    monkeypatch.setattr(roomstore, "store", lambda: store)
    monkeypatch.setattr(room_wake, "_followers", {})
    monkeypatch.setattr(room_wake, "_watching", {})
    monkeypatch.setattr(room_wake, "_woken", {})
    current, reruns, gone = [None], [], set()
    monkeypatch.setattr(runs, "this_session", lambda: current[0])

    def rerun(sessions: list[str], page: str | None, then) -> list[str]:
        reruns.extend((session, page) for session in sessions)
        then()
        return [session for session in sessions if session in gone]

    def as_session(session):
        current[0] = session

    return store, as_session, reruns, gone, rerun


def watchers(store: SqliteRooms, code: str) -> int:
    return len(store.watchers._by_code.get(code, {}))


def test_each_new_version_reruns_the_rooms_followers_here_and_no_one_else(registry):
    store, as_session, reruns, _, rerun = registry
    code, token = store.open({"page": "tokens"})
    other, other_token = store.open({"page": "tokens"})
    for session, room in (("s1", code), ("s2", code), ("s3", other)):
        as_session(session)
        room_wake.follow(room, rerun)
        room_wake.follow(room, rerun)  # every run of the follower's section says so again
    assert room_wake.followers(code) == {"s1", "s2"} and watchers(store, code) == 1  # one watch
    store.show(code, token, {"page": "tokens"})  # no change: nobody reruns
    assert reruns == []
    store.show(code, token, {"page": "pca"})
    assert sorted(reruns) == [
        ("s1", "maps"),
        ("s2", "maps"),
    ]  # on the room's page (its old address read as today's)
    reruns.clear()
    store.show(other, other_token, {"page": "axes"})
    assert reruns == [("s3", "axes")]


def test_a_run_the_server_started_knows_it_until_it_has_applied_the_view(registry):
    store, as_session, _, _, rerun = registry
    code, token = store.open({"page": "tokens"})
    as_session("s1")
    room_wake.follow(code, rerun)
    assert room_wake.begun() is None  # a run nobody woke (the follower's own step)
    store.show(code, token, {"page": "pca"})
    first = room_wake.begun()
    assert first is not None  # the run the server started
    # replaced before it applied the view (the next wake-up's run interrupted it): the run that
    # replaces it is the server's too, not the follower's step onto another page
    assert room_wake.begun() is first
    store.show(code, token, {"page": "axes"})  # a newer wake-up, while that run was going
    room_wake.settled(first)  # the older run settling leaves the newer mark in place
    newer = room_wake.begun()
    assert newer is not None and newer is not first and newer[1] == first[1] + 1
    room_wake.settled(newer)
    assert room_wake.begun() is None  # the next is the follower's own again


def test_a_follower_who_leaves_or_follows_another_room_is_not_woken_by_the_first(registry):
    store, as_session, reruns, _, rerun = registry
    code, token = store.open({"page": "tokens"})
    other, _ = store.open({"page": "tokens"})
    as_session("s1")
    room_wake.follow(code, rerun)
    room_wake.follow(other, rerun)  # the same session now follows another room
    as_session("s2")
    room_wake.follow(code, rerun)
    room_wake.leave()
    store.show(code, token, {"page": "pca"})
    assert reruns == [] and room_wake.followers(code) == set()
    assert watchers(store, code) == 0  # nobody here follows it: the process stops watching
    assert room_wake.followers(other) == {"s1"}


def test_sessions_gone_are_forgotten_and_a_closed_room_wakes_its_followers_once(registry):
    store, as_session, reruns, gone, rerun = registry
    code, token = store.open({"page": "tokens"})
    for session in ("s1", "s2"):
        as_session(session)
        room_wake.follow(code, rerun)
    gone.add("s2")  # its browser went
    store.show(code, token, {"page": "pca"})
    assert room_wake.followers(code) == {"s1"}
    reruns.clear()
    store.close(code, token)  # the follower's run then reads that the room closed
    assert reruns == [("s1", None)]  # on the page it is on
    assert room_wake.followers(code) == set() and code not in room_wake._watching


def test_following_a_room_that_is_not_open_leaves_nothing_behind(registry):
    store, as_session, reruns, _, rerun = registry
    code, token = store.open({"page": "tokens"})
    store.close(code, token)
    as_session("s1")
    room_wake.follow(code, rerun)
    assert room_wake.followers(code) == set() and room_wake._watching == {}
    as_session(None)  # outside a script run (no session): nothing to wake
    room_wake.follow("ABCDEF", rerun)
    assert room_wake._watching == {}


def test_an_answer_reruns_the_live_tallies_of_its_room_here_and_forgets_those_gone(monkeypatch):
    """A leader's live tally (a fragment) says it watches its room's answers on each of its runs;
    an answer in that room reruns that fragment of each such session, and of no other room's."""
    monkeypatch.setattr(room_wake, "_tallies", {})
    current, reruns, gone = [(None, None)], [], set()
    monkeypatch.setattr(runs, "this_session", lambda: current[0][0])
    monkeypatch.setattr(runs, "this_fragment", lambda: current[0][1])

    def rerun_fragments(fragments: dict[str, str]) -> list[str]:
        reruns.append(dict(fragments))
        return [session for session in fragments if session in gone]

    monkeypatch.setattr(runs, "rerun_fragments", rerun_fragments)
    for session, fragment, room in (
        ("lead1", "f1", "ROOM01"),
        ("lead2", "f2", "ROOM01"),
        ("lead3", "f3", "ROOM02"),
    ):
        current[0] = (session, fragment)
        room_wake.watch_answers(room)
    current[0] = ("lead2", "f2-new")  # its page ran again: the tally's fragment has a new id
    room_wake.watch_answers("ROOM01")
    room_wake.answered("ROOM01")
    assert reruns == [{"lead1": "f1", "lead2": "f2-new"}]
    current[0] = ("lead1", "f1")  # the leader of ROOM01 now leads ROOM03: watched there alone
    room_wake.watch_answers("ROOM03")
    gone.add("lead2")
    reruns.clear()
    room_wake.answered("ROOM01")
    room_wake.answered("ROOM01")
    assert reruns == [{"lead2": "f2-new"}]  # and then nobody: lead2's browser went
    current[0] = (None, None)  # outside a fragment (a whole run's code): nothing is watched
    room_wake.watch_answers("ROOM04")
    room_wake.answered("ROOM04")
    assert "ROOM04" not in room_wake._tallies and reruns == [{"lead2": "f2-new"}]


def test_runs_outside_a_server_reruns_nothing():
    told = []
    assert runs.rerun_sessions(["no-such-session"], None, lambda: told.append(1)) == ["no-such-session"]
    assert runs.rerun_fragments({"no-such-session": "f"}) == ["no-such-session"]
    assert told == [1]


def test_the_private_streamlit_parts_runs_uses_are_still_there():
    """components/frame/runs.py reruns a session as Streamlit's own "run on save" does; this fails
    loudly if an upgrade moves any part of that."""
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime import Runtime
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.scriptrunner_utils.script_run_context import FragmentThreadState
    from streamlit.runtime.session_manager import SessionManager

    assert "self._session_mgr" in inspect.getsource(Runtime.__init__)
    assert "self._event_loop" in inspect.getsource(AppSession.__init__)
    assert "self._client_state" in inspect.getsource(AppSession.__init__)
    assert list(inspect.signature(AppSession.request_rerun).parameters) == ["self", "client_state"]
    assert "self.request_rerun(self._client_state)" in inspect.getsource(AppSession._on_source_file_changed)
    # a fragment's rerun: its id in the client state, as a fragment's own timer asks for it
    assert "fragment_id = client_state.fragment_id" in inspect.getsource(AppSession.request_rerun)
    assert "fragment_id" in ClientState.DESCRIPTOR.fields_by_name
    assert "fragment_id" in {f.name for f in dataclasses.fields(FragmentThreadState)}
    assert runs.this_fragment() is None  # (outside a script run)
    for name in ("get_session_info", "is_active_session"):
        assert callable(getattr(SessionManager, name))


def test_a_trace_says_when_the_process_heard_a_view_and_had_asked_for_every_run(
    registry, monkeypatch, tmp_path
):
    """bench.jobs reads where a wake-up's time went: "heard" before the first run is asked for,
    "asked" once the last one was, each naming this process rather than a session."""
    from bert_embeddings.config import ROOM_TRACE

    trace = tmp_path / "rooms.trace"
    monkeypatch.setenv(ROOM_TRACE, str(trace))
    store, as_session, reruns, _, record = registry
    code, token = store.open({"page": "tokens"})
    lines_when_asked = []

    def rerun(sessions, page, then):
        lines_when_asked.append(trace.read_text().splitlines())
        return record(sessions, page, then)

    for session in ("s1", "s2"):
        as_session(session)
        room_wake.follow(code, rerun)
    store.show(code, token, {"page": "pca"})
    assert len(reruns) == 2
    events = [line.split() for line in trace.read_text().splitlines()]
    assert [e[0] for e in events] == ["heard", "asked"]
    assert [line.split()[0] for line in lines_when_asked[0]] == [
        "heard"
    ]  # heard before any run was asked for
    assert all(e[1] == code and int(e[2]) == store.look(code).version for e in events)
    assert {e[4] for e in events} == {room_wake.PROCESS} and float(events[0][3]) <= float(events[1][3])
