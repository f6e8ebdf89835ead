"""Drawing a Plotly figure on a page: the theme's text colour, a toolbar a keyboard can reach,
every text size enlarged in presenter mode (for a projector), and on a phone drawn only once it
comes into view (components/parts/on_view.py); and drawing a page's composed parts
(bert_embeddings.figures.handout_parts), each as the page has always shown it."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from bert_embeddings.figures import charts, settings
from bert_embeddings.figures import handout_parts as kinds
from components.parts import echo, exports, on_view

PRESENTER_SCALE = 1.35  # text on a projector, read from the back of a room
BARE = go.layout.Template()


def chart(figure, key: str, on_select=False, at_once: bool = False):
    """Draw a Plotly figure; in presenter mode with every text size enlarged for a projector; on
    a phone, once it comes into view (on_view), unless ``at_once``. With ``on_select``, a click
    on a point reruns the page and the point is returned (a function given as ``on_select`` is
    called first, as a widget's callback is); a chart not drawn yet has none to return."""
    if st.session_state.get(settings.PRESENTER_KEY):
        figure = charts.enlarge(figure, PRESENTER_SCALE)
    charts.finish(figure)
    # The browser's Streamlit theme styles a chart through its template's layout; the Python side's
    # default template (Streamlit's own, set when streamlit is imported) would add 3 kB to every
    # chart sent, for styles the theme gives anyway. So every chart names its own colours (finish
    # sets the colorway; each colour field names its colour scale).
    figure.layout.template = BARE
    if not at_once and not on_view.now(key):
        on_view.later(figure, key)
        return None
    if on_select:
        return st.plotly_chart(
            figure,
            key=key,
            config=CHART_CONFIG,
            on_select=on_select if callable(on_select) else "rerun",
            selection_mode="points",
        )
    st.plotly_chart(figure, key=key, config=CHART_CONFIG)
    return None


def ink() -> str:
    """The text colour of the theme in use: near-black on light, near-white on dark."""
    return charts.INK["dark" if st.context.theme.type == "dark" else "light"]


# Plotly shows a chart's toolbar only while the mouse is over the chart: a keyboard reader
# would tab through invisible buttons. They show whenever one of them has the focus, with a
# visible outline on the focused one.
FOCUS_STYLE = (
    ".js-plotly-plot .plotly .modebar:focus-within { opacity: 1 !important; }"
    ".js-plotly-plot .plotly .modebar-btn:focus-visible"
    " { outline: 2px solid currentColor; outline-offset: 1px; }"
)

# A displayed formula does not wrap: one too long for a phone has a form on several lines, and
# each screen shows one of the two (``formula``). On a phone, a table's toolbar (shown on a tap,
# above the table's right end) gets a line of its own, where on a wide screen it would lie over
# the end of the text above. A chart's toolbar (shown on hover, or on a tap on a touch screen)
# gets a line of its own above the chart on every screen: over the plot's top right corner it lay
# over the end of any title long enough, a chart's in half a desktop's width as on a phone. The
# chart and its box let it show there (Streamlit clips a chart to its box: the toolbar was hidden,
# and a click on it went to the page).
_WIDE_FORMULA, _NARROW_FORMULA = "formula-wide", "formula-narrow"
_FORMULA_STYLE = (
    f"@media (min-width: {on_view.NARROW_PX + 1}px) {{ .st-key-{_NARROW_FORMULA} {{ display: none; }} }}"
    f"@media (max-width: {on_view.NARROW_PX}px) {{ .st-key-{_WIDE_FORMULA} {{ display: none; }} }}"
)
TOOLBAR_STYLE = (
    f"@media (max-width: {on_view.NARROW_PX}px) {{"
    " [data-testid='stElementContainer']:has([data-testid='stDataFrame']) { margin-top: 2.75rem; } }"
    "[data-testid='stElementContainer']:has([data-testid='stPlotlyChart'])"
    f" {{ margin-top: {on_view.TOOLBAR_ROOM}; overflow: visible !important; }}"
    "[data-testid='stPlotlyChart'] .js-plotly-plot { overflow: visible !important; }"
    f".js-plotly-plot .plotly .modebar-container {{ top: -{on_view.TOOLBAR_ROOM} !important; }}"
)

# The toolbar every chart has (the handout's too): its camera downloads the chart as an SVG, at
# its size and theme on screen (charts.CHART_CONFIG says why SVG, and why one format).
CHART_CONFIG = charts.CHART_CONFIG


def shown(*found: kinds.Part | kinds.Composed | tuple | None) -> None:
    """Draw each part of a typed composition given, in order (a group of parts, each of its own;
    a tuple, each of it); None (nothing to show there) is passed over."""
    for one in found:
        for each in one if isinstance(one, tuple) else (one,):
            if each is not None:
                for drawn in each.in_order() if isinstance(each, kinds.Composed) else (each,):
                    part(drawn)


_NOTES = {
    kinds.INFO: (st.info, ":material/info:"),
    kinds.SUCCESS: (st.success, ":material/check_circle:"),
    kinds.WARNING: (st.warning, ":material/content_cut:"),  # only truncation, which loses input, warns
    kinds.ERROR: (st.error, ":material/error:"),
}


def part(shown: kinds.Part) -> None:
    if isinstance(shown, kinds.Chart):
        chart(shown.figure, key=shown.key)
    elif isinstance(shown, kinds.Download):
        exports.matrix(shown.name, shown.values, shown.rows, shown.columns, shown.corner)
    elif isinstance(shown, kinds.Table):
        table(shown)
    elif isinstance(shown, kinds.Metric):
        st.metric(shown.label, shown.value)
    elif isinstance(shown, kinds.Note) and shown.kind in _NOTES:
        say, icon = _NOTES[shown.kind]
        say(_markdown(shown), icon=shown.icon or icon)
    elif isinstance(shown, kinds.Note):
        (st.markdown if shown.kind == kinds.TEXT else st.caption)(_markdown(shown))
    else:
        raise TypeError(f"{type(shown).__name__} is the page's own to draw")


def _markdown(note: kinds.Note) -> str:
    """A note's text as Markdown: the explorer's own Markdown as it is, any other text plain
    (echo.plain), its bold part in bold."""
    if note.markup:
        return note.text
    before, bold, after = note.text.partition(note.bold) if note.bold else (note.text, "", "")
    return echo.plain(before) + (f"**{echo.plain(bold)}**" if bold else "") + echo.plain(after)


def table(shown: kinds.Table, index: str | None = None, **options) -> None:
    """A composed table with its download; ``index``: the column shown as the rows' names (the
    download keeps it as a column; without it, the first column names the rows and is pinned as
    they are); ``options``: st.dataframe's (a column's format, beside the table's own number
    formats)."""
    import pandas as pd

    frame, legible = pd.DataFrame(shown.columns), shown.shown and pd.DataFrame(shown.shown)
    if index is not None:
        legible = (frame if legible is None else legible).set_index(index).rename_axis(None)
    formats = {name: st.column_config.NumberColumn(format=f) for name, f in (shown.formats or {}).items()}
    if index is None and shown.columns:  # the rows' names stay in view while a phone scrolls sideways
        formats.setdefault(next(iter(shown.columns)), st.column_config.Column(pinned=True))
    if formats or "column_config" in options:
        options["column_config"] = formats | options.get("column_config", {})
    options = {"hide_index": True if index is None else None, "key": shown.key or None, **options}
    exports.dataframe(shown.name, frame, legible, **options)


def formula(wide: str, narrow: str) -> None:
    """The LaTeX ``wide`` on a wide screen and ``narrow`` (the same, on several lines) on a phone's
    (one formula per page: the keys are fixed). Its style comes with it, so that the two are never
    shown at once."""
    st.html(f"<style>{_FORMULA_STYLE}</style>")
    for key, latex in ((_WIDE_FORMULA, wide), (_NARROW_FORMULA, narrow)):
        with st.container(key=key):
            st.latex(latex)
