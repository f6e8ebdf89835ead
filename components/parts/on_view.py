"""A chart far below the fold of a phone's screen is drawn when it comes into view.

On a phone a page's charts lie below the fold (under the lesson's bar, the title and the
settings), and drawing them on arrival was most of what a page switch cost a slow CPU. Streamlit
draws every chart it is sent, so on a narrow screen a page sends each chart as a placeholder of
the chart's height: a small component that watches (IntersectionObserver) for the placeholder
coming within a quarter of a screen of the view, and then reruns its fragment, which draws the
chart in its place. A chart drawn once stays drawn on every later run of the page's visit.

Whether the screen is narrow is the browser's to say: a second component, mounted on every page,
reports it (a media query, the width at which the app's phone layout starts) when it differs from
what the server knows. Until the browser has said so (the session's first run, or a client without
a browser) the screen counts as wide and every chart is drawn at once; the charts already drawn
then stay drawn when the report arrives.
"""

from __future__ import annotations

import html
import re

import streamlit as st

from components.frame import runs
from components.view_state import session_entries

NARROW_QUERY = "(max-width: 640px)"  # a phone, as the app's phone styles read it
AHEAD = "0px 0px 25% 0px"  # a placeholder starts its chart half a screen before it comes into view
RETRY_MS = 2000
PLACEHOLDER = "drawn-on-view"  # the placeholder's class (tests and benchmarks look for it)
_DEFAULT_HEIGHT = 450  # Plotly's, for a figure that names none

_SCREEN_JS = """
export default function ({ data, setStateValue }) {
  const narrow = window.matchMedia(data.query);
  const report = () => { if (narrow.matches !== data.narrow) { setStateValue("narrow", narrow.matches); } };
  report();
  narrow.addEventListener("change", report);
  return () => narrow.removeEventListener("change", report);
}
"""
_screen = st.components.v2.component("screen_width", js=_SCREEN_JS)

# A trigger, not a state: a rerun asked for while another fragment's runs can be lost, and the
# placeholder, still there, asks again (every RETRY_MS) until its chart replaces it.
_PLACEHOLDER_JS = """
export default function ({ data, parentElement, setTriggerValue }) {
  const box = document.createElement("div");
  box.className = data.kind;
  box.style.height = `${data.height}px`;
  const said = document.createElement("p");
  said.textContent = data.said;
  box.appendChild(said);
  parentElement.appendChild(box);
  let again = null;
  const watch = new IntersectionObserver((seen) => {
    if (seen.some((entry) => entry.isIntersecting)) {
      watch.disconnect();
      setTriggerValue("seen", true);
      again = setInterval(() => setTriggerValue("seen", true), data.retry);
    }
  }, { rootMargin: data.ahead });
  watch.observe(box);
  return () => { watch.disconnect(); clearInterval(again); box.remove(); };
}
"""
_PLACEHOLDER_CSS = (
    f".{PLACEHOLDER} {{ display: flex; align-items: center; justify-content: center; box-sizing: border-box;"
    " border: 1px dashed currentColor; border-radius: 0.5rem; margin-top: 2.5rem; padding: 1rem; }"
    f" .{PLACEHOLDER} p {{ margin: 0; font-size: 0.875rem; text-align: center; }}"
)
# Not in a shadow root: the placeholder takes the page's text colour, and the tests find it.
_placeholder = st.components.v2.component(
    "drawn_on_view", js=_PLACEHOLDER_JS, css=_PLACEHOLDER_CSS, isolate_styles=False
)

_PAGE, _SEEN, _NARROW = "seen_page", "seen_charts", "narrow"


def arrive(page: str) -> None:
    """First in every run of ``page`` (its url path): on another page than the last run's, none
    of its charts has been seen yet."""
    kept = session_entries.entry(session_entries.FRAME)
    if kept.get(_PAGE) != page:
        kept[_PAGE], kept[_SEEN] = page, set()


def mount() -> None:
    """Once per page (app.py): the browser says whether its screen is narrow, when the server
    does not know it yet or it has changed (a rerun follows)."""
    kept = session_entries.entry(session_entries.FRAME)
    told = _screen(
        key="screen_width",
        data={"query": NARROW_QUERY, "narrow": bool(kept.get(_NARROW))},
        height=0,
        on_narrow_change=lambda: None,
    )
    if told.narrow is not None:
        kept[_NARROW] = bool(told.narrow)


def now(key: str) -> bool:
    """Whether the chart under ``key`` is drawn at once: on a wide screen (or one not known yet),
    a chart drawn before on this visit of the page, and a chart in a part of the page that reruns
    alone (the part the reader has just changed, or a live tally)."""
    kept = session_entries.entry(session_entries.FRAME)
    seen = kept.setdefault(_SEEN, set())
    if not kept.get(_NARROW) or key in seen or runs.fragment_alone():
        seen.add(key)
        return True
    return False


@st.fragment
def later(figure, key: str, draw) -> None:
    """The chart under ``key``, drawn by ``draw(figure, key)`` once its placeholder has come into
    view (a fragment: only this reruns then)."""
    seen = session_entries.entry(session_entries.FRAME).setdefault(_SEEN, set())
    if key in seen:
        draw(figure, key)
        return
    height = figure.layout.height or _DEFAULT_HEIGHT
    _placeholder(
        key=f"on_view_{key}",
        data={"kind": PLACEHOLDER, "height": height, "ahead": AHEAD, "retry": RETRY_MS, "said": said(figure)},
        height="content",
        on_seen_change=lambda: seen.add(key),
    )


def said(figure) -> str:
    """What a placeholder says, as plain text: which chart comes there."""
    title = re.sub(r"<[^>]{0,200}>", " ", figure.layout.title.text or "")
    title = " ".join(html.unescape(title).split())
    return f"{title}: drawn when you scroll to it." if title else "A chart, drawn when you scroll to it."
