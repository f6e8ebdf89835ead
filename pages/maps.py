"""Maps: the whole vocabulary (PCA or t-SNE), the sentence stage by stage, and the positions."""

import numpy as np
import streamlit as st

from bert_embeddings.analysis import decompose, projection
from bert_embeddings.errors import ExplorerError, MapStorageError
from bert_embeddings.figures import map_charts, map_marks, views
from bert_embeddings.maps import map_jobs
from bert_embeddings.views import settings
from components.caches import map_state, model_caches
from components.frame import routing
from components.parts import draw, echo, exports, job_panel, widgets
from components.sections import geometry_view, map_view
from components.view_state import links, memory

routing.through_app()
st.title("Maps")
st.markdown(
    "**PCA** (principal component analysis) finds the directions along which vectors vary most; "
    "plotting the first two or three shows as much of a high-dimensional space as a flat picture can, "
    "exactly. **t-SNE** instead places every piece near the pieces that are its neighbours in the "
    "table, so clusters (numbers, word endings, names, topics) show. Every row is used, nothing sampled."
)

model = model_caches.require_model()
index = model_caches.vocab_index()
encoding = model_caches.require_encoding(stop=False)  # the maps that do not need the sentence still draw


def export_map(what: str, coords: np.ndarray, axes: tuple[int, ...], rows=None, corner: str = "") -> None:
    """Download buttons for a map: the coordinates on the components it shows, named as its axes."""
    names, columns = map_charts.shown_components(coords, axes)
    exports.matrix(f"{model.name} {what} on {'-'.join(names)}", columns, rows, names, corner)


def highlight_marks() -> list[map_marks.Highlight]:
    """The pattern's matches, the sentence's pieces and the latest neighbour search, to mark."""
    pattern = widgets.pattern_box("Highlight pieces matching (pattern)", settings.PCA_HIGHLIGHT)
    widgets.pattern_syntax()
    highlights = []
    with model_caches.friendly_errors(stop=False):
        if pattern:
            matches = np.flatnonzero(model_caches.pattern_rows(index, pattern))
            if matches.size:
                highlights.append(views.pattern_mark(pattern, matches))
            else:
                st.warning(
                    echo.plain(f"No piece of the vocabulary matches '{pattern}'."),
                    icon=":material/search_off:",
                )
    if encoding is not None:
        highlights.append(views.sentence_mark(encoding.ids, draw.ink()))
    if (last := memory.last_search()) is not None:
        highlights.append(views.search_mark(last.description, last.ids))
    return highlights


MARKS_CAPTION = (
    "Hover a point for its piece; click one to mark its 10 nearest pieces by cosine (circles, joined to "
    "it by lines) and its 10 nearest points on this map (triangles). Marked on top, each in its own "
    "shape: your sentence's pieces (squares, in the text colour), pieces matching the highlight "
    "pattern (diamonds) and the latest search on the Neighbours page (crosses); the legend names each."
)


def tsne_map(shape: tuple[str, int], kinds: list[int], highlights: list[map_marks.Highlight]) -> None:
    """The t-SNE map of every row in the geometry ``shape``, once computed; meanwhile its
    progress (other tabs and pages go on as usual: it runs in its own low-priority process)."""
    offer = map_view.big_map_offer(index.size) if map_state.asks_first(index.size) else None
    try:
        found = job_panel.wait_for(
            "map_start",
            lambda start: [map_state.neighbour_map_of_model(shape, start=start)],
            [f"The t-SNE map of all {index.size:,} pieces"],
            offer,
            map_view.MAP_NOTE,
        )
    except MapStorageError as problem:  # the host's cache folder: say what to fix, offer a retry
        st.error(echo.plain(problem), icon=":material/error:")
        st.button("Try again", key="map_retry")
        return
    except ExplorerError as problem:  # the geometry cannot be fitted to this table (e.g. D)
        st.error(echo.plain(problem), icon=":material/error:")
        return
    if found is None:
        return
    (result,) = found
    with model_caches.friendly_errors(stop=False):
        finished_tsne_map(shape, result, kinds, highlights)


def finished_tsne_map(
    shape: tuple[str, int], result: map_jobs.Done, kinds: list[int], highlights: list[tuple]
) -> None:
    """The finished t-SNE map: its options, the map, its downloads and how to read it."""
    with st.container(horizontal=True, vertical_alignment="bottom"):
        colour = map_view.colour_option()
        labelled = map_view.labels_switch()
    labels, described = map_state.map_labels(shape), geometry_view.described(shape)
    ink = draw.ink()
    request = views.vocabulary(
        index,
        shape,
        result.coords,
        (0, 1),
        shown_kinds=kinds,
        highlights=highlights,
        colouring=map_view.colouring(colour, result),
        underlays=[views.region_labels(result, labels, ink)] if labelled else [],
    )
    map_view.vocabulary("tsne_vocabulary", request, index, shape)
    map_view.downloads(result, index, labels, f"{model.name} {described}")
    meta = result.meta
    recall, pca_recall = meta["recall_at_10"], meta["pca_recall_at_10"]
    st.markdown(
        f"**Faithfulness: neighbour recall@10 = {recall:.3f}.** On average {10 * recall:.1f} of each "
        f"piece's 10 nearest neighbours by cosine in this geometry (as the Neighbours page finds them in "
        f"it) are among its 10 nearest points on this map; on the PCA map of the same geometry it is "
        f"{10 * pca_recall:.2f} ({pca_recall:.4f})."
    )
    map_view.kept_caption(result)
    used = meta["settings"]
    st.caption(
        "t-SNE keeps neighbours, not distances: clusters are real, but the space between them and their "
        f"sizes mean little. Every row is mapped, nothing sampled; perplexity {used['perplexity']:g}, "
        f"{used['iterations']} iterations, seed {used['seed']}: the same table and settings give the "
        "same picture to the last bit, however many threads compute it. " + MARKS_CAPTION
    )
    if labelled:
        st.caption(map_view.REGIONS)
    with st.expander(
        "Hubs: the pieces in the most lists of 10 nearest", expanded=colour == settings.MAP_COLOURS[2]
    ):
        search = {**links.model_params(), **links.geometry_params(shape)}
        map_view.hubs_table(result, index, search, f"{model.name} {described}")


TSNE_AXES = (
    "The t-SNE map is 2-D only: this app does not compute a 3-D t-SNE map. Its two axes are the "
    "layout's, with no meaning of their own, so there are no components to choose. PCA offers 3-D "
    "and any of the first 10 components on each axis."
)


GEOMETRY_ON_MAPS = (
    "In a geometry, each map is of the rows as that geometry transforms them, and a click marks the "
    "nearest pieces in it. PCA centres the rows itself, so raw and centred draw the same PCA map, and "
    "all-but-the-top D shows raw's components D+1 onward; standardising gives every dimension the same "
    "weight. Each geometry's t-SNE map is computed once, on its own."
)


def vocabulary_section() -> None:
    """Every row of the token table: PCA, or t-SNE once computed, in the geometry chosen. The
    PCA map's 2-D / 3-D and components are shown only with PCA; in their place, t-SNE says why
    it has none."""
    tsne = map_view.map_method() == settings.MAP_METHODS[1]
    shape = geometry_view.switch(index.table.shape[1])
    st.caption(GEOMETRY_ON_MAPS)
    if tsne:
        st.caption(TSNE_AXES)
        tsne_map(shape, map_view.piece_kinds(), highlight_marks())
    else:
        pca_map(shape, map_view.map_axes(), map_view.piece_kinds(), highlight_marks())


def pca_map(
    shape: tuple[str, int], wanted: tuple[float, ...], kinds: list[int], highlights: list[tuple]
) -> None:
    """Every row of the token table on the chosen components, and the variance of each."""
    basis, coords = model_caches.vocabulary_pca(shape)
    described = geometry_view.described(shape)
    with model_caches.friendly_errors(stop=False):
        request = views.pca_vocabulary(
            index, shape, (basis, coords), wanted, shown_kinds=kinds, highlights=highlights
        )
        map_view.vocabulary("pca_vocabulary", request, index, shape)
        export_map(f"vocabulary ({described})", coords, request.axes, index.pieces, "piece")
        st.caption("Fitted once on every row of the token table. " + MARKS_CAPTION)
    draw.chart(views.explained_variance(basis), key="pca_variance")
    exports.matrix(
        f"{model.name} vocabulary PCA explained variance ({described})",
        basis.explained_variance_ratio,
        [map_charts.component_name(c) for c in range(len(basis.explained_variance_ratio))],
        ["explained variance ratio"],
        "component",
    )


def positions_section() -> None:
    """The position table's rows, joined in order."""
    wanted = map_view.map_axes()
    basis, coords = model_caches.position_pca()
    with model_caches.friendly_errors(stop=False):
        axes = projection.check_components(basis, *wanted)
        draw.chart(views.position_path((basis, coords), axes), key="pca_positions")
        export_map("positions", coords, axes, corner="position")
        st.caption(
            "Each dot is the learned row of one position, coloured from first (dark) to last (yellow); the "
            "grey line joins consecutive positions. Whatever shape the path takes was learned from data: "
            "BERT's positions are a table of rows, not a formula."
        )


def journey_section() -> None:
    """The sentence's vectors after each stage of the layer."""
    if encoding is None:
        st.info("Type a sentence in the sidebar to see its journey.", icon=":material/edit:")
    else:
        wanted = map_view.map_axes()
        choice = st.radio(
            "Project onto",
            settings.JOURNEY_BASES,
            horizontal=True,
            key=settings.PCA_JOURNEY_BASIS,
            persist_state="session",
        )
        stages = decompose.stage_vectors(model_caches.breakdown(model, encoding))
        if choice == settings.JOURNEY_BASES[0]:
            basis, _ = model_caches.vocabulary_pca()
            st.caption(
                "The vocabulary's components show where your sentence sits among all pieces. Adding the "
                "position and segment rows, and above all LayerNorm's rescaling, carries the vectors far "
                "from the token rows they started as."
            )
        else:
            basis = projection.fit(np.concatenate(list(stages.values())))
            st.caption(
                "Components fitted on this sentence's own stage vectors spread them out as much as "
                "possible: the picture shows how the stages differ from each other, not where they sit "
                "in the vocabulary, so it looks quite different."
            )
        with model_caches.friendly_errors(stop=False):
            axes = projection.check_components(basis, *wanted)
            stage_coords = views.journey_coordinates(basis, stages)
            draw.chart(views.journey(stage_coords, encoding.labels, axes, basis), key="pca_journey")
            export_map(
                "sentence journey",
                np.concatenate([c for _, c in stage_coords]),
                axes,
                [f"{stage} | {label}" for stage, _ in stage_coords for label in encoding.labels],
                "stage | token",
            )


# Only the open tab runs and is sent: each map holds up to tens of thousands of points, and a
# workshop's thirty browsers need not draw the maps nobody is looking at. The tab is in the link.
tabs = widgets.tabs(settings.MAP_TABS, settings.MAP_TAB)
for tab, section in zip(tabs, (vocabulary_section, journey_section, positions_section), strict=True):
    if tab.open:
        with tab:
            section()
