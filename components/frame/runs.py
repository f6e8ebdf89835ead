"""The one place that leans on Streamlit's private parts: whether a page was drawn to its end,
how the server reruns another reader's session, a helper thread that reaches the caches,
whether a run is a fragment's own, and whether the browser's history asked for it.

A run can end before the page is drawn because another run replaced it: the reader's browser
asked for a rerun (a widget, a fragment's wake-up) while it was running, or the script switched
page. Streamlit then raises its ``RerunException`` inside the script. ``st.stop()`` and an
error, by contrast, end a page that was drawn as far as it goes. Streamlit has no public way to
tell the two apart, so this adapter imports the private exception.

No public API lets one session rerun another either (streamlit/streamlit#2838). A room's
follower is woken on the server the way Streamlit's own "run on save" reruns a session when a
source file changes: ``AppSession.request_rerun`` with the session's last client state (its
query, no widget values, so the session keeps its own) on the page asked for, called on the
server's event loop; a leader's live tally, likewise, with the fragment's id in the client
state. tests/rooms/test_follow.py (the exception) and tests/rooms/test_room_wake.py (the rerun)
fail loudly if an upgrade moves or renames any of it.
"""

from __future__ import annotations

from collections.abc import Callable

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException
from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState


def run_to_the_end(page: Callable[[], None], drawn: Callable[[], None], replaced: Callable[[], None]) -> None:
    """Run ``page``, calling ``drawn`` first and ``replaced`` if another run replaced it before it
    ended. (The mark comes first because Streamlit keeps nothing a run writes after ``st.stop()``;
    it does keep what a replaced run writes.)"""
    drawn()
    try:
        page()
    except RerunException:
        replaced()
        raise


def in_this_run(thread) -> None:
    """Let ``thread`` (before it starts) reach the cached functions as this run would: Streamlit's
    caches look for the script run's context in the calling thread."""
    add_script_run_ctx(thread, get_script_run_ctx())


def fragment_alone() -> bool:
    """Whether this run is a fragment's own rerun (app.py and the rest of the page did not run)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def from_the_history() -> bool:
    """Whether the browser's back or forward button asked for this run (its address is one the
    reader had before, not the one the session last wrote)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return bool(ctx is not None and ctx.is_history_navigation)


def this_session() -> str | None:
    """The id of the session whose script is running in this thread (None outside a run)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else None


def this_fragment() -> str | None:
    """The id of the fragment whose function is running (None outside one)."""
    try:
        return ThreadState.get().fragment_id
    except RuntimeError:  # outside a script run
        return None


def rerun_sessions(session_ids: list[str], page: str | None, then: Callable[[], None]) -> list[str]:
    """Ask this server to rerun each of ``session_ids``'s apps from the top, from any thread, on
    the page whose address is ``page`` (or the page each ran last), as if its reader had asked:
    the runs start on the server at once, whatever the browsers are doing. ``then`` is called
    once every run has been asked for. Returns the sessions this server does not have (ended,
    their browser away, or in another process)."""

    def asked(client: ClientState) -> None:
        # The page by its address: the session's last page may be a run behind (a run that
        # switched page may still be starting), and a run on it would look like the reader's
        # own step back.
        if page is not None:
            client.page_script_hash, client.page_name = "", page

    return _rerun(dict.fromkeys(session_ids, asked), then)


def rerun_fragments(fragments: dict[str, str]) -> list[str]:
    """Ask this server to rerun one fragment of each session (session id -> fragment id), from
    any thread, as the fragment's own timer would. Returns the sessions this server does not
    have; a fragment that a session no longer holds is not rerun (Streamlit checks)."""

    def of(fragment_id: str) -> Callable[[ClientState], None]:
        def asked(client: ClientState) -> None:
            client.fragment_id = fragment_id

        return asked

    return _rerun({session_id: of(fragment) for session_id, fragment in fragments.items()}, lambda: None)


def _rerun(sessions: dict[str, Callable[[ClientState], None]], then: Callable[[], None]) -> list[str]:
    """Each session's rerun with its last client state (its query, no widget values, so that the
    session keeps its own), as ``sessions`` amends it."""
    try:
        manager = Runtime.instance()._session_mgr
    except (RuntimeError, AttributeError):  # no server (tests' AppTest: none, or a stand-in without one)
        then()
        return list(sessions)
    here = {}
    for session_id in sessions:
        info = manager.get_session_info(session_id)
        if info is not None and manager.is_active_session(session_id):
            here[session_id] = info.session

    def rerun() -> None:  # on the event loop, where Streamlit handles every rerun request
        try:
            for session_id, session in here.items():
                if manager.is_active_session(session_id):
                    client = ClientState()
                    client.CopyFrom(session._client_state)
                    sessions[session_id](client)
                    session.request_rerun(client)
        finally:
            then()

    try:
        if here:
            next(iter(here.values()))._event_loop.call_soon_threadsafe(rerun)  # (one loop per server)
        else:
            then()
    except RuntimeError:  # the server is stopping: its loop has closed
        then()
        return list(sessions)
    return [session_id for session_id in sessions if session_id not in here]


def peer_address() -> str | None:
    """The address this session's connection came from, as the server's socket saw it: the
    reader's, or a proxy's in front of the app (``st.context.ip_address`` hides 127.0.0.1 and
    ::1, so that a proxy on the same host would go unseen). None outside a browser session."""
    from streamlit.runtime.context import _get_client_context

    try:
        context = _get_client_context()
    except Exception:  # no session (AppTest), or a runtime that is stopping
        return None
    address = getattr(context, "remote_ip", None)
    return address if isinstance(address, str) else None
