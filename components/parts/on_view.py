"""A chart far below the fold of a phone's screen is drawn when it comes into view.

On a phone a page's charts lie below the fold (under the lesson's bar, the title and the
settings), and drawing them on arrival was most of what a page switch cost a slow CPU. Streamlit
draws every chart it is sent, so on a narrow screen a page sends each chart as a placeholder of
the chart's height: a small component that watches (IntersectionObserver) for the placeholder
coming within a quarter of a screen of the view, and then reruns the page, which draws the chart
in its place. A chart drawn once stays drawn on every later run of the page's visit.

Whether the screen is narrow is the browser's to say: a second component, mounted on every page,
reports it (a media query, the width at which the app's phone layout starts) when it differs from
what the server knows. Until the browser has said so (a session's first run, or a client that is
no browser) the screen counts as wide and every chart that run reaches is drawn at once (the
report can stop the first run part way: a rerun follows), and stays drawn. A wide screen draws
every chart at once: a desktop draws a step's figures in a fraction of the time a slowed phone
takes, and its placeholders would show while a mouse wheel scrolls; and the report, which a wide
screen never sends, would cost every session a second run of its first page.
"""

from __future__ import annotations

import html
import re

import streamlit as st

from components.frame import runs
from components.view_state import session_entries

NARROW_PX = 640  # a phone's screen is at most this wide (the app's phone styles read it too)
NARROW_QUERY = f"(max-width: {NARROW_PX}px)"
AHEAD = "0px 0px 25% 0px"  # a placeholder asks for its chart a quarter of a screen before it is in view
PLACEHOLDER = "drawn-on-view"  # the placeholder's class (tests and benchmarks look for it)
_DEFAULT_HEIGHT = 450  # Plotly's, for a figure that names none
TOOLBAR_ROOM = "2.5rem"  # above each chart, for its toolbar (draw.TOOLBAR_STYLE); a placeholder keeps it

# Mounted once in the sidebar, it stays mounted from page to page with the data of its first run,
# so it keeps what it last told the server itself. (Its element says so too: tests wait for it
# before they move to another page.)
_SCREEN_JS = """
export default function ({ data, parentElement, setStateValue }) {
  const narrow = window.matchMedia(data.query);
  let told = data.narrow;
  const report = () => {
    if (narrow.matches !== told) {
      told = narrow.matches;
      setStateValue("narrow", told);
    }
    parentElement.dataset.narrow = String(told);
  };
  report();
  narrow.addEventListener("change", report);
  return () => narrow.removeEventListener("change", report);
}
"""
_screen = st.components.v2.component("screen_width", js=_SCREEN_JS, isolate_styles=False)

# A trigger: a placeholder asks each time it comes near the view (a rerun lost, it asks again when
# scrolled to; the server draws a chart once), and Streamlit folds the reruns of a page asked for
# at once, triggers and all, into one run.
_PLACEHOLDER_JS = """
export default function ({ data, parentElement, setTriggerValue }) {
  const box = document.createElement("div");
  box.className = data.kind;
  box.style.height = `${data.height}px`;
  const said = document.createElement("p");
  said.textContent = data.said;
  box.appendChild(said);
  parentElement.appendChild(box);
  const watch = new IntersectionObserver((seen) => {
    if (seen.some((entry) => entry.isIntersecting)) { setTriggerValue("seen", true); }
  }, { rootMargin: data.ahead });
  watch.observe(box);
  return () => { watch.disconnect(); box.remove(); };
}
"""
_PLACEHOLDER_CSS = (
    f".{PLACEHOLDER} {{ display: flex; align-items: center; justify-content: center; box-sizing: border-box;"
    f" border: 1px dashed currentColor; border-radius: 0.5rem; margin-top: {TOOLBAR_ROOM}; padding: 1rem; }}"
    f" .{PLACEHOLDER} p {{ margin: 0; font-size: 0.875rem; text-align: center; }}"
)
# Not in a shadow root: the placeholder takes the page's text colour, and the tests find it.
_placeholder = st.components.v2.component(
    "drawn_on_view", js=_PLACEHOLDER_JS, css=_PLACEHOLDER_CSS, isolate_styles=False
)

_SEEN, _NARROW = "seen_charts", "narrow"


def arrive(moved: bool) -> None:
    """First in every run, told whether the page is another than the last run's
    (widgets.arrive): on another, none of its charts has been seen yet."""
    kept = session_entries.entry(session_entries.FRAME)
    if moved or _SEEN not in kept:
        kept[_SEEN] = set()


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


def later(figure, key: str) -> None:
    """In place of the chart under ``key``: a placeholder of its height that names it, which reruns
    the page once it comes near the view (or the fragment it is in: that run draws at once, as a
    part of the page that reruns alone does); that run draws the chart. (A rerun of the page, not
    of a fragment of its own: Streamlit ran one of several fragments asked for at once, while a
    page's rerun asked for by several placeholders at once is one run that draws them all.)"""
    seen = session_entries.entry(session_entries.FRAME).setdefault(_SEEN, set())
    _placeholder(
        key=f"on_view_{key}",
        data={
            "kind": PLACEHOLDER,
            "height": figure.layout.height or _DEFAULT_HEIGHT,
            "ahead": AHEAD,
            "said": said(figure),
        },
        height="content",
        on_seen_change=lambda: seen.add(key),
    )


def said(figure) -> str:
    """What a placeholder says, as plain text: which chart comes there."""
    title = re.sub(r"<[^>]{0,200}>", " ", figure.layout.title.text or "")
    title = " ".join(html.unescape(title).split())
    return f"{title}: drawn when you scroll to it." if title else "A chart, drawn when you scroll to it."
