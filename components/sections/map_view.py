"""The vocabulary maps' reading aids on the Maps page: what colours the points, the regions'
labels, a clicked piece's true and apparent neighbours, the hubs, and their downloads.

A click on a map marks the piece where it is (its 10 nearest pieces by cosine, joined to it by
lines; its 10 nearest points on the map; the overlap in words) rather than leaving the page:
the point of clicking a map is to see how it places that piece, and one more click searches it
on the Neighbours page.
"""

from __future__ import annotations

import dataclasses
from urllib.parse import urlencode

import numpy as np
import streamlit as st

from bert_embeddings.analysis import vocab_search
from bert_embeddings.figures import map_charts, map_marks, settings
from bert_embeddings.figures.handout_parts import Chart, Table
from bert_embeddings.maps import map_jobs, map_reading
from bert_embeddings.models.glyphs import legible
from components.caches import map_state, model_caches
from components.parts import draw, echo, exports, filters, job_panel, widgets
from components.view_state import memory

CLICKED, TRACES, SEEN = "map_clicked", "map_traces", "map_seen"  # memory's fields, each by chart key


def colour_option() -> None:
    st.segmented_control(
        "Colour points by",
        settings.MAP_COLOURS,
        **widgets.seeded(settings.MAP_COLOUR, "default"),
        help=(
            "Kind of piece: whole words, ## endings, numbers... How well its neighbours are kept: how many "
            "of a piece's 10 nearest pieces by cosine are among its 10 nearest points on this map. "
            "Hubness: in how many other pieces' 10 nearest it is."
        ),
    )


def labels_switch() -> None:
    st.toggle("Label the map's regions", **widgets.seeded(settings.MAP_LABELS))


def clicked(key: str) -> int | None:
    """The vocabulary id of the piece clicked last on chart ``key``: a new click is read from
    the chart's selection with the traces of the figure that was clicked (kept when drawn)."""
    points = ((st.session_state.get(key) or {}).get("selection") or {}).get("points") or []
    state = memory.mine()
    seen, picked = state.setdefault(SEEN, {}), state.setdefault(CLICKED, {})
    if points:
        where = (points[0].get("curve_number"), points[0].get("point_index"))
        traces = state.get(TRACES, {}).get(key) or []
        if seen.get(key) != where and isinstance(where[0], int) and isinstance(where[1], int):
            seen[key] = where
            if 0 <= where[0] < len(traces) and traces[where[0]] is not None:
                picked[key] = int(traces[where[0]][where[1]])
    return picked.get(key)


def click_marks(
    key: str,
    coords: np.ndarray,
    axes: tuple[int, ...],
    index: vocab_search.VocabIndex,
    shape: tuple[str, int],
):
    """(underlays, highlights, the overlap in words) for the piece clicked on chart ``key``;
    nothing while none is. Its true neighbours are the Neighbours page's answer in the map's
    geometry ``shape`` (every piece, specials too, but itself); its nearest points are
    map_reading's, as the colours count them."""
    row = clicked(key)
    if row is None or row >= index.size:
        return [], [], None
    true = model_caches.sources().nearest(
        index.table[row], 10, shape, vocab_search.Filters(hide_special=False, exclude_ids=(row,))
    )
    on_map = map_reading.map_nearest(coords[:, list(axes)], [row])[0]
    piece = legible(index.pieces[row])
    highlights = [
        map_marks.Highlight(f"clicked: {piece}", np.array([row]), *map_marks.CLICKED_MARK),
        map_marks.Highlight("its 10 nearest by cosine (joined)", true.ids, *map_marks.COSINE_MARK),
        map_marks.Highlight("its 10 nearest points here", on_map, *map_marks.ON_MAP_MARK),
    ]
    lines = [map_marks.neighbour_lines(coords, axes, row, true.ids)]
    return lines, highlights, map_marks.overlap_sentence(piece, true.ids, on_map)


class Clicks:
    """The vocabulary maps' clicks on this page: each map's record (views.vocabulary) gets the
    marks of the piece clicked last on it (its lines drawn with the record's underlays, its marks
    over its highlights) before it is drawn; then the map is drawn clickable, and the overlap said
    in words under it. ``shape``: the maps' geometry, where the clicked piece's true neighbours
    are found."""

    def __init__(self, index: vocab_search.VocabIndex, shape: tuple[str, int]) -> None:
        self.index, self.shape, self.said = index, shape, {}

    def __call__(self, key: str, request: map_charts.VocabularyMap) -> map_charts.VocabularyMap:
        lines, marks, self.said[key] = click_marks(key, request.coords, request.axes, self.index, self.shape)
        request = dataclasses.replace(
            request, underlays=[*lines, *request.underlays], highlights=[*request.highlights, *marks]
        )
        memory.mine().setdefault(TRACES, {})[key] = map_marks.trace_rows(
            self.index.kinds,
            request.shown_kinds,
            request.colouring,
            len(request.underlays),
            request.highlights,
        )
        return request

    def draw(self, shown: Chart) -> None:
        draw.chart(shown.figure, key=shown.key, on_select=True)
        clicked_notes(shown.key, self.said.get(shown.key), self.index)


def clicked_notes(key: str, sentence: str | None, index: vocab_search.VocabIndex) -> None:
    """Under a map with a clicked piece: the overlap, and the ways on (search it; clear)."""
    row = memory.mine().get(CLICKED, {}).get(key)
    if sentence is None or row is None:
        return
    st.markdown(echo.plain(sentence))
    with st.container(horizontal=True):
        if st.button(
            f"Search “{echo.plain(legible(index.pieces[row]))}” on the Neighbours page", key=f"{key}_search"
        ):
            filters.search_neighbours_of(index.pieces[row])
        if st.button("Clear the marks", key=f"{key}_clear"):
            memory.mine()[CLICKED].pop(key, None)
            st.rerun()


def hubs_table(hubs: Table, search: dict[str, str]) -> None:
    """The biggest hubs, each with a link that searches it with ``search``'s parameters (the model
    and the map's geometry, so that the search ranks as the map does)."""
    import pandas as pd

    links = [f"neighbours?{urlencode({**search, 'q': piece})}" for piece in hubs.columns["piece"]]
    exports.dataframe(
        hubs.name,
        pd.DataFrame({**hubs.columns, "search it": links}),
        pd.DataFrame({**hubs.shown, "search it": links}),  # the download keeps the pieces
        hide_index=True,
        column_config={"search it": st.column_config.LinkColumn("search it", display_text="Neighbours page")},
    )


def regions_file(done: map_jobs.Done, index: vocab_search.VocabIndex, labels, name: str) -> None:
    """Every region's label with its members, as a file."""
    import pandas as pd

    of_row = done.regions.of_row
    members = [np.flatnonzero(of_row == number) for number in range(len(labels))]
    frame = pd.DataFrame(
        {
            "region": range(len(labels)),
            "label": [label.short for label in labels],
            "pieces": [len(ids) for ids in members],
            "most central first": [" ".join(index.pieces[i] for i in c) for c in done.regions.central],
            "every member, by id": [" ".join(index.pieces[i] for i in ids) for ids in members],
        }
    )
    st.caption("Every region's label, size, most central pieces and members:")
    exports.table(f"{name} t-SNE regions", frame)


def duration(seconds: float) -> str:
    """Seconds as people say them: "50 s", "4 min"."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def big_map_offer(rows: int) -> job_panel.Offer:
    """Before a big vocabulary's t-SNE map starts: what it will cost, and the button that starts it."""

    def before() -> None:
        seconds, megabytes, paced = map_state.cost()
        where = (
            "on this server (at the pace of its last map)"
            if paced
            else "on a 2-core machine like Streamlit Community Cloud's (this server has made no map yet "
            "to measure its own pace)"
        )
        st.info(
            f"This vocabulary has {rows:,} pieces. Its t-SNE map takes about {duration(seconds.low)} to "
            f"{duration(seconds.high)} {where}, and about {megabytes:,.0f} MB of memory while it runs, in a "
            "background process at low priority. It is computed once, kept on disk and shown to everyone "
            "who opens it afterwards.",
            icon=":material/schedule:",
        )

    return job_panel.Offer("Compute the map", before=before)


MAP_NOTE = (
    "It runs in the background at low priority: the other tabs and pages work meanwhile, and anyone "
    "else asking for this map waits for the same computation. Once done, it is kept on disk."
)


# --- the map's controls -------------------------------------------------------------------


def map_axes() -> None:
    """2-D or 3-D, and which components (numbered from 1) go on each axis. Drawn only where they
    act (not over a t-SNE map); while hidden, they keep their values on this page."""
    dims = st.segmented_control("Map", settings.MAP_DIMS, **widgets.seeded(settings.PCA_DIMS, "default"))
    names = ("x", "y", "z") if dims == settings.MAP_DIMS[1] else ("x", "y")
    columns = st.columns(3)
    for column, name, key in zip(
        columns, names, (settings.PCA_X, settings.PCA_Y, settings.PCA_Z), strict=False
    ):
        widgets.whole_number_box(f"Component on {name}", column, **widgets.seeded(key), help="1 to 10")


def map_method() -> str:
    method = st.segmented_control(
        "Method",
        settings.MAP_METHODS,
        **widgets.seeded(settings.MAP_METHOD, "default"),
        help=(
            "PCA: exact, computed at once, keeps the directions of greatest variance. t-SNE: keeps each "
            "piece's neighbours; computed once per model in the background (a minute or two), then kept."
        ),
    )
    return method or settings.MAP_METHODS[0]


def piece_kinds() -> None:
    st.pills(
        "Kinds of piece to show",
        list(range(len(vocab_search.KINDS))),
        format_func=vocab_search.KINDS.__getitem__,
        selection_mode="multi",
        default=settings.default(settings.PCA_KINDS),  # every kind
        key=settings.PCA_KINDS,
        persist_state="session",
    )
