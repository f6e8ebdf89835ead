"""Keyed widget groups that return plain values.

The sidebar (model picker, sentence A and B, special tokens) is drawn once by app.py on
every run and returns them as one value, which app.py hands to components.inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from bert_embeddings import config, limits
from bert_embeddings.analysis import patterns, vocab_search
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import charts
from bert_embeddings.models import checkpoints, glyphs
from bert_embeddings.models.architectures import CURATED
from components import echo, persistence, settings
from components.inputs import Inputs

PRESENTER_SCALE = 1.35  # text on a projector, read from the back of a room


_CURATED = {m.spec: m for m in CURATED}


def model_options() -> list[str]:
    """The default model, the curated list, the bundled model, then (if allowed) any other."""
    options = list(checkpoints.listed_specs())
    return options + [settings.OTHER] if config.custom_models_allowed(st.secrets) else options


def model_label(option: str) -> str:
    if option == settings.OTHER:
        return "Other Hub id or local folder..."
    if option == checkpoints.BUNDLED:
        return "all-MiniLM-L6-v2 (bundled, works offline)"
    return option


def _model_caption(option: str) -> str:
    if option in _CURATED:
        return f"{_CURATED[option].size}: {_CURATED[option].description}."
    if option == checkpoints.BUNDLED:
        return "22M parameters, 30,522 x 384: ships with the app, needs no network."
    return ""


def sidebar() -> Inputs:
    """Draw the shared inputs in the sidebar and return their values."""
    with st.sidebar:
        choice = st.selectbox("Model", model_options(), format_func=model_label, key=settings.MODEL_KEY)
        if caption := _model_caption(choice):
            st.caption(caption)
        if choice == settings.OTHER:
            st.text_input(
                "Hub id or folder",
                key=settings.CUSTOM_MODEL_KEY,
                placeholder="e.g. google-bert/bert-base-cased or /models/my-bert",
                help="A Hub id, or a folder on this server written as an absolute path (starting with /).",
            )
        st.text_area(
            "Sentence A",
            **seeded(settings.SENTENCE_A_KEY),
            height=90,
            help=f"Up to {limits.SENTENCE.most:,} characters; BERT reads its first 512 pieces.",
        )
        st.text_area(
            "Sentence B (optional)",
            **seeded(settings.SENTENCE_B_KEY),
            height=90,
            help=f"A second sentence makes a pair: its pieces get segment 1. Up to {limits.SENTENCE.most:,} "
            "characters.",
        )
        st.toggle(
            "Add special tokens [CLS] / [SEP]",
            **seeded(settings.SPECIAL_TOKENS_KEY),
            help="BERT is trained with them. Off shows the bare word pieces, numbered from position 0.",
        )
        st.toggle(
            "Presenter mode (larger text)",
            key=settings.PRESENTER_KEY,
            help="Bigger text in the app and in every figure, for a projector. Only this tab changes.",
        )
    page_style()
    return _read()


def whole_number_box(label: str, where=st, **kwargs) -> float:
    """A number box that sends what was typed: 1.5 stays 1.5 and 1e3 is 1000, where an
    integer box would silently make both 1. The core checks it is whole and in range."""
    return where.number_input(label, step=1.0, format="%g", **kwargs)


def chart(figure, key: str, on_select=False):
    """Draw a Plotly figure; in presenter mode with every text size enlarged for a projector.
    With ``on_select``, a click on a point reruns the page and the point is returned (a function
    given as ``on_select`` is called first, as a widget's callback is)."""
    if st.session_state.get(settings.PRESENTER_KEY):
        figure = charts.enlarge(figure, PRESENTER_SCALE)
    charts.finish(figure)
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
# Each chart's toolbar keeps what a reader needs: save as PNG, zoom, pan, reset (four Tab
# stops instead of eight or more).
CHART_CONFIG = {
    "displaylogo": False,
    "modeBarButtonsToRemove": [
        "select2d",
        "lasso2d",
        "zoomIn2d",
        "zoomOut2d",
        "autoScale2d",
        "resetCameraLastSave3d",
    ],
}


def host_settings() -> None:
    """On every page while the host's settings (variables or secrets) hold a value the app cannot
    use: which, what it takes, and what the app does instead. The rest of the app works."""
    if found := config.problems(st.secrets):
        st.warning(
            echo.plain("This server's settings need a look: " + "; ".join(found) + "."),
            icon=":material/build:",
        )


def page_style() -> None:
    """Styles for every page: toolbars that show on keyboard focus; in presenter mode, all of
    the app's text grows too (Streamlit sizes its text in rem)."""
    style = FOCUS_STYLE
    if st.session_state.get(settings.PRESENTER_KEY):
        style += f"html {{ font-size: {PRESENTER_SCALE * 100:.0f}%; }}"
    st.html(f"<style>{style}</style>")


def _read() -> Inputs:
    """The sidebar's values as plain data."""
    state = st.session_state
    choice = state.get(settings.MODEL_KEY, model_options()[0])
    if choice not in model_options():  # e.g. the free field after the host switched it off
        choice = model_options()[0]
    spec = state.get(settings.CUSTOM_MODEL_KEY, "") if choice == settings.OTHER else choice
    return Inputs(
        model_spec=(spec or "").strip(),
        revision=config.revision(),
        text_a=state.get(settings.SENTENCE_A_KEY, settings.default(settings.SENTENCE_A_KEY)) or "",
        text_b=state.get(settings.SENTENCE_B_KEY, settings.default(settings.SENTENCE_B_KEY)) or "",
        add_special_tokens=bool(state.get(settings.SPECIAL_TOKENS_KEY, True)),
    )


def dimension_range(hidden_size: int, key: str = settings.DIMENSIONS) -> range:
    """A slider over the hidden dimensions; returns the chosen dims as a range."""
    first, last = st.slider(
        "Dimensions to show",
        min_value=0,
        max_value=hidden_size - 1,
        value=(0, hidden_size - 1),  # every dimension of the model in use
        key=key,
        help="Drag both ends to zoom into a few dimensions, e.g. 300-320.",
    )
    return range(first, last + 1)


# --- the neighbours page -------------------------------------------------------------------


@dataclass(frozen=True)
class FilterChoices:
    """What one page's filters let through (Neighbours and Axes each have a set)."""

    hide_continuation: bool
    hide_special: bool
    leave_out: bool  # the query's (or the axis') own pieces
    include: str
    exclude: str
    valid: bool = True  # False: a pattern's problem is already shown under the boxes

    @classmethod
    def defaults(cls, keys: settings.FilterKeys) -> FilterChoices:
        """The filters a fresh page starts with, from the settings table."""
        fields = ("hide_continuation", "hide_special", "leave_out", "include", "exclude")
        return cls(*(settings.default(getattr(keys, name)) for name in fields))

    def filters(self, own_ids: tuple[int, ...] = ()) -> vocab_search.Filters:
        """The search filters; ``own_ids`` (the query's or the axis' pieces) left out if asked."""
        return vocab_search.Filters(
            hide_continuation=self.hide_continuation,
            hide_special=self.hide_special,
            include=self.include,
            exclude=self.exclude,
            exclude_ids=own_ids if self.leave_out else (),
        )


@dataclass(frozen=True)
class SearchOptions:
    k: float  # as typed; the search checks that it is a whole number in range
    shape: tuple[str, int]  # the geometry and D (components.geometry_view.switch)
    choices: FilterChoices

    @classmethod
    def defaults(cls) -> SearchOptions:
        """The options a fresh Neighbours page starts with, from the settings table."""
        d = settings.default
        return cls(
            d(settings.NB_K),
            (d(settings.GEOMETRY), 0),  # D counts only for all-but-the-top
            FilterChoices.defaults(settings.NB_FILTERS),
        )

    @property
    def patterns_valid(self) -> bool:
        return self.choices.valid

    def filters(self, query_ids: tuple[int, ...] = ()) -> vocab_search.Filters:
        return self.choices.filters(query_ids)


def query_mode() -> str:
    # Defaults live in session state, not in the widgets: clicking a neighbour sets these
    # keys too, and Streamlit warns when a widget has both.
    mode = st.segmented_control("Query by", settings.QUERY_MODES, **seeded(settings.NB_MODE, "default"))
    return mode or "word"


def piece_choice(pieces: list[str]) -> int | None:
    """For a word of several pieces: None for their mean, else the chosen piece's position."""
    options = [None, *range(len(pieces))]
    shown = [echo.plain(glyphs.legible(piece)) for piece in pieces]
    return st.radio(
        "This word is several pieces. Search with",
        options,
        format_func=lambda i: "the mean of all pieces" if i is None else f"piece {shown[i]}",
        horizontal=True,
        key=settings.NB_PIECE,
    )


def search_options(shape: tuple[str, int]) -> SearchOptions:
    """k and the filters, with the geometry chosen above them (``shape``)."""
    left, _ = st.columns([1, 2])
    k = whole_number_box(
        "How many neighbours (k)", left, **seeded(settings.NB_K), help=f"From 1 to {vocab_search.MAX_K}."
    )
    choices = filter_boxes(settings.NB_FILTERS, "Leave out the query's own pieces")
    return SearchOptions(k, shape, choices)


def filter_boxes(keys: settings.FilterKeys, leave_out_label: str) -> FilterChoices:
    """Which vocabulary rows a search may return: an expander of toggles and two patterns."""
    with st.expander("Filters"):
        a, b, c = st.columns(3)
        hide_continuation = a.toggle("Hide ## continuation pieces", **seeded(keys.hide_continuation))
        hide_special = b.toggle("Hide [CLS], [SEP], [unusedN]...", **seeded(keys.hide_special))
        leave_out = c.toggle(leave_out_label, **seeded(keys.leave_out))
        a, b = st.columns(2)
        include = pattern_box("Only pieces matching (pattern)", keys.include, a, "e.g. ^un")
        exclude = pattern_box("Leave out pieces matching (pattern)", keys.exclude, b, "e.g. \\d")
        pattern_syntax()
        valid = patterns_valid({"Only": include, "Leave out": exclude})
    return FilterChoices(hide_continuation, hide_special, leave_out, include, exclude, valid)


def pattern_box(label: str, key: str, where=st, placeholder: str = "") -> str:
    """A text box for a pattern (RE2 syntax; the page says so)."""
    return where.text_input(
        label,
        **seeded(key),
        placeholder=placeholder,
        help=f"At most {limits.PATTERN.most} characters. {patterns.SYNTAX}",
    )


def pattern_syntax() -> None:
    """Under pattern boxes: which syntax they accept."""
    st.caption(echo.plain(patterns.SYNTAX))


def patterns_valid(named: dict[str, str]) -> bool:
    """Check each non-empty pattern once; show the first problem, once, where it was typed."""
    for name, pattern in named.items():
        if pattern:
            try:
                patterns.compile_pattern(pattern, f"The '{name}' pattern")
            except ExplorerError as problem:
                st.error(echo.plain(problem), icon=":material/error:")
                return False
    return True


def search_neighbours_of(piece: str) -> None:
    """Open the Neighbours page with ``piece`` as its word query (its link then carries it)."""
    st.session_state[settings.NB_MODE] = "word"
    st.session_state[settings.NB_WORD] = piece
    persistence.forget(settings.NB_PIECE)
    st.switch_page("pages/neighbours.py")


def follow_neighbour() -> None:
    """on_change of the neighbour pills: make the clicked piece the next word query."""
    piece = st.session_state.get(settings.NB_NEXT)
    if piece:
        st.session_state[settings.NB_MODE] = "word"
        st.session_state[settings.NB_WORD] = piece
        st.session_state[settings.NB_NEXT] = None
        persistence.forget(settings.NB_PIECE)


# --- the PCA page --------------------------------------------------------------------------


def seeded(key: str, param: str | None = "value") -> dict[str, object]:
    """A widget's key and default, as keyword arguments, with the default also put in
    session state (unless a link or the user set the value already).

    The widget gets the default as its own ``param`` too (``value``, or ``default`` for
    segmented controls): should the browser ever send the widget back without its state, it
    then falls back to this default, not to the widget type's own (0 for a number, "" for
    text, off for a toggle). ``None`` where the type's own default is already the same."""
    st.session_state.setdefault(key, settings.default(key))
    return {"key": key} if param is None else {"key": key, param: settings.default(key)}


def map_axes() -> tuple[float, ...]:
    """2-D or 3-D, and which components (numbered from 1) go on each axis. Drawn only where they
    act (not over a t-SNE map); while hidden, they keep their values on this page."""
    dims = st.segmented_control(
        "Map", settings.MAP_DIMS, **seeded(settings.PCA_DIMS, "default"), persist_state="page"
    )
    names = ("x", "y", "z") if dims == settings.MAP_DIMS[1] else ("x", "y")
    columns = st.columns(3)
    return tuple(
        whole_number_box(f"Component on {name}", column, **seeded(key), help="1 to 10", persist_state="page")
        for column, name, key in zip(
            columns, names, (settings.PCA_X, settings.PCA_Y, settings.PCA_Z), strict=False
        )
    )


def map_method() -> str:
    method = st.segmented_control(
        "Method",
        settings.MAP_METHODS,
        **seeded(settings.MAP_METHOD, "default"),
        help=(
            "PCA: exact, computed at once, keeps the directions of greatest variance. t-SNE: keeps each "
            "piece's neighbours; computed once per model in the background (a minute or two), then kept."
        ),
    )
    return method or settings.MAP_METHODS[0]


def piece_kinds() -> list[int]:
    shown = st.pills(
        "Kinds of piece to show",
        list(range(len(vocab_search.KINDS))),
        format_func=vocab_search.KINDS.__getitem__,
        selection_mode="multi",
        default=settings.default(settings.PCA_KINDS),  # every kind
        key=settings.PCA_KINDS,
    )
    return list(shown or [])
