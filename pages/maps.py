"""Maps: the whole vocabulary (PCA or t-SNE), the sentence stage by stage, and the positions."""

import dataclasses

import streamlit as st

from bert_embeddings.errors import ExplorerError, MapStorageError
from bert_embeddings.figures import maps_page, settings, views
from components.caches import map_state, model_caches
from components.frame import routing
from components.parts import draw, echo, job_panel, widgets
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
sources = model_caches.sources()
above = st.container()  # what the sentence's reading says, above the tabs (the maps without it still draw)


def compose(tab: str, clicks: map_view.Clicks | None = None) -> maps_page.Page:
    """Tab ``tab``'s parts for the values its widgets hold, with this page's own marks."""
    last = memory.last_search()
    chosen = dataclasses.replace(widgets.chosen(maps_page.Settings), tab=tab)
    with model_caches.friendly_errors():
        shown = maps_page.compose(
            chosen,
            sources,
            ink=draw.ink(),
            searched=None if last is None else views.search_mark(last.description, last.ids),
            marked=clicks,
        )
    with above:
        draw.shown(shown.sentence_problem, shown.notices)
    return shown


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


def tsne_panel(shape: tuple[str, int]) -> bool:
    """The t-SNE map of every row in the geometry ``shape``: its progress until it is computed
    (other tabs and pages go on as usual: it runs in its own low-priority process), then its
    options; whether it is there to draw."""
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
        return False
    except ExplorerError as problem:  # the geometry cannot be fitted to this table (e.g. D)
        st.error(echo.plain(problem), icon=":material/error:")
        return False
    if found is None:
        return False
    with st.container(horizontal=True, vertical_alignment="bottom"):
        map_view.colour_option()
        map_view.labels_switch()
    return True


def vocabulary_section() -> None:
    """Every row of the token table: PCA, or t-SNE once computed, in the geometry chosen. The
    PCA map's 2-D / 3-D and components are shown only with PCA; in their place, t-SNE says why
    it has none."""
    tsne = map_view.map_method() == settings.MAP_METHODS[1]
    shape = geometry_view.switch(index.table.shape[1])
    st.caption(GEOMETRY_ON_MAPS)
    if tsne:
        st.caption(TSNE_AXES)
    else:
        map_view.map_axes()
    map_view.piece_kinds()
    widgets.pattern_box("Highlight pieces matching (pattern)", settings.PCA_HIGHLIGHT)
    widgets.pattern_syntax()
    notes, clicks = st.container(), map_view.Clicks(index, shape)
    # With no t-SNE map to draw yet, what the pattern matches all the same.
    tsne = tsne and tsne_panel(shape)
    with st.spinner("Fitting PCA on every row of the vocabulary..." if not tsne else "Reading the map..."):
        shown = compose(settings.MAP_TABS[0], clicks).vocabulary
    with notes:
        draw.shown(shown.pattern_problem, shown.no_match)
    if tsne and shown.tsne is not None and shown.tsne.chart is not None:
        found = shown.tsne
        clicks.draw(found.chart)
        draw.shown(found.download_caption, found.download)
        name = f"{model.name} {views.described(shape)}"
        map_view.regions_file(
            map_state.neighbour_map_of_model(shape), index, map_state.map_labels(shape), name
        )
        draw.shown(found.faithfulness, found.kept_caption, found.caption, found.regions_caption)
        colour = widgets.chosen(maps_page.Settings).colour
        with st.expander(
            "Hubs: the pieces in the most lists of 10 nearest", expanded=colour == settings.MAP_COLOURS[2]
        ):
            draw.shown(found.hubs_title, found.hubs_caption)
            map_view.hubs_table(found.hubs, {**links.model_params(), **links.geometry_params(shape)})
    elif shown.pca is not None:
        found = shown.pca
        draw.shown(found.problem)
        if found.chart is not None:
            clicks.draw(found.chart)
        draw.shown(found.download, found.caption, found.variance, found.variance_download)


def positions_section() -> None:
    """The position table's rows, joined in order."""
    map_view.map_axes()
    draw.shown(compose(settings.MAP_TABS[2]).positions)


def journey_section() -> None:
    """The sentence's vectors after each stage of the layer."""
    try:
        sources.encoding(model_caches.sentence_values())
    except ExplorerError:  # said above the tabs; the journey says what it needs
        draw.shown(compose(settings.MAP_TABS[1]).journey.no_sentence)
        return
    map_view.map_axes()
    st.radio(
        "Project onto",
        settings.JOURNEY_BASES,
        horizontal=True,
        key=settings.PCA_JOURNEY_BASIS,
        persist_state="session",
    )
    draw.shown(compose(settings.MAP_TABS[1]).journey)


# Only the open tab runs and is sent: each map holds up to tens of thousands of points, and a
# workshop's thirty browsers need not draw the maps nobody is looking at. The tab is in the link.
tabs = widgets.tabs(settings.MAP_TABS, settings.MAP_TAB)
for tab, section in zip(tabs, (vocabulary_section, journey_section, positions_section), strict=True):
    if tab.open:
        with tab:
            section()
