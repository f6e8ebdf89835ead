"""The room's small browser component, and the trace bench/follow reads.

``WATCH_JS`` runs in a follower's or a leader's browser (components/rooms/follow.py mounts it in
the sidebar's room section). For a follower it holds an ``EventSource`` on the room's push route
(components/rooms/room_stream.py) and wakes the section on a new version that no run followed (the
server reruns its own followers itself, components/rooms/room_wake.py), on a periodic check, and when
a run ended with no page drawn; every wake-up waits until the run in progress has ended.
For a leader it beats every minute and keeps the room in the tab's session storage, so that a
reload of that tab leads it again, and in a cookie, so that another tab of the same browser
(or the tab reopened) can take it back with a click.
"""

from __future__ import annotations

import secrets
import threading
import time

import streamlit as st

from bert_embeddings import config
from components.view_state import session_entries

WATCH_JS = """
export default function ({ data, setTriggerValue }) {
  let source = null, open = false, timer = null, count = 0, waiting = null, due = null;
  let blank = 0, seen = null, late = null, ran = false;
  const state = () => document.querySelector("[data-testid='stApp']")?.getAttribute("data-test-script-state");
  const busy = () => { const now = state(); return now != null && now !== "notRunning"; };
  // Every wake-up waits for the run in progress to end: Streamlit runs a rerun the browser asks
  // for after that run, with the values the browser held when it asked, older than what the
  // run is applying. Wake-ups meanwhile count as one.
  const wake = (why) => {
    due = due === "push" ? due : why;
    if (waiting) { return; }
    const fire = () => {
      if (busy()) { waiting = setTimeout(fire, 50); return; }
      waiting = null;
      const reason = due;
      due = null;
      setTriggerValue("wake", reason + ":" + (++count));
    };
    fire();
  };
  if (data.cookie) { document.cookie = data.cookie; }
  if (data.keep !== undefined) {  // the room this tab leads, kept across a reload of this tab
    if (data.keep) { sessionStorage.setItem(data.name, data.keep); }
    else { sessionStorage.removeItem(data.name); }
  }
  if (data.resume) {  // a reloaded tab that led a room hands it back
    const kept = sessionStorage.getItem(data.name);
    if (kept) { setTriggerValue("resume", kept); }
  }
  // The server reruns its own followers itself (components/rooms/room_wake.py): a push wakes the page
  // only if no run began there within grace_ms of it (a session in another process, a reconnect).
  const app = document.querySelector("[data-testid='stApp']");
  const runs = new MutationObserver(() => { if (busy()) { ran = true; } });
  if (app) { runs.observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] }); }
  if (data.stream) {
    source = new EventSource(new URL(data.stream, document.baseURI));
    source.onopen = () => { open = true; };
    source.onmessage = (event) => {
      if (event.data !== seen) {
        seen = event.data;
        ran = false;
        clearTimeout(late);
        late = setTimeout(() => { if (!ran) { wake("push"); } }, data.grace_ms);
      }
      if (event.data === "0") { source.close(); open = false; }
    };
    source.onerror = () => { open = false; };
  }
  const next = () => {
    timer = setTimeout(() => { wake("check"); next(); }, open ? data.every_ms : data.fallback_ms);
  };
  if (data.every_ms) { next(); }
  // A follower's page that shows no page for 10 s after its run ended (Streamlit's browser side
  // can clear a page during quick page switches) asks for its page again.
  const look = data.stream ? setInterval(() => {
    blank = !busy() && !document.querySelector("[data-testid='stMain'] h1") ? blank + 1 : 0;
    if (blank >= 10) { blank = 0; wake("blank"); }
  }, 1000) : null;
  return () => {
    clearTimeout(timer); clearTimeout(waiting); clearTimeout(late); clearInterval(look); runs.disconnect();
    if (source) { source.close(); }
  };
}
"""
mount = st.components.v2.component("room_watch", js=WATCH_JS)
_trace_lock = threading.Lock()


def trace(event: str, code: str, version: int, when: float | None = None, session: str | None = None) -> None:
    """For bench/follow and bench/jobs: one line each time a leader's run publishes a view, a
    server process hears of it and has asked for its followers' runs, a follower's room section
    is woken or fetches a view for its run, or a follower's run applies one (the benchmarks read
    each version's first), with the server's clock (``when``, or now), where the host asked for it
    (never in normal use). ``session``: the name written for an event of the whole process
    (outside any session's run); a run's own events name its session."""
    path = config.room_trace()
    if not path:
        return
    # (a short name of this session, kept in its room fields)
    if session is None:
        session = session_entries.entry(session_entries.ROOM).setdefault("session", secrets.token_hex(4))
    with _trace_lock, open(path, "a") as out:
        out.write(f"{event} {code} {version} {time.time() if when is None else when:.4f} {session}\n")
