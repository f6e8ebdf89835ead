"""Neighbours: the vocabulary's rows closest to a word, an id, a sentence token or a sum."""

import streamlit as st

from bert_embeddings import limits
from bert_embeddings.analysis import decompose, vocab_search
from bert_embeddings.figures import neighbours_page, settings
from bert_embeddings.models import glyphs
from components.caches import model_caches
from components.frame import routing, runs
from components.parts import draw, echo, filters, widgets
from components.rooms import follow
from components.sections import geometry_view
from components.view_state import links, memory

routing.through_app()
st.title("Nearest neighbours in the vocabulary")
st.markdown(
    "Which pieces have token rows pointing the same way as yours? Every row of the token table "
    "is scored by **cosine similarity**, exactly, nothing sampled. Click a neighbour to search from it next."
)

model = model_caches.require_model()
index = model_caches.vocab_index()
sources = model_caches.sources()


def word_query_ui() -> None:
    word = st.text_input("Word or piece", **widgets.seeded(settings.NB_WORD))
    ids = vocab_search.word_ids(index, model.tokenizer, word)
    # A linked piece this word lacks (or one chosen of a longer word) falls back to the mean.
    count = len(ids)
    pieces_are = "is one piece" if count == 1 else f"has pieces 0 to {count - 1}"
    links.keep_within(
        settings.NB_PIECE,
        [None, *range(count)] if count > 1 else [None],
        None,
        "Piece",
        name=lambda i: "the mean of its pieces" if i is None else f"piece {i} (this word {pieces_are})",
    )
    if count > 1:
        filters.piece_choice([index.pieces[i] for i in ids])


def id_query_ui() -> None:
    widgets.whole_number_box("Token id", **widgets.seeded(settings.NB_ID))


def arithmetic_query_ui() -> None:
    st.text_input(
        "Vector arithmetic",
        **widgets.seeded(settings.NB_EXPRESSION),
        help=f"Up to {limits.ARITHMETIC_TERMS.most} words, each added (+) or subtracted (-).",
    )
    st.caption("Each word's token row, added or subtracted; a word of several pieces counts as their mean.")


def sentence_token_query_ui() -> None:
    # What is worth knowing about the sentence (truncation, unknown pieces) is said once, above
    # the grid of every token below, which each query mode shows.
    encoding = model_caches.require_encoding(notices=False)
    stages = decompose.stage_vectors(sources.breakdown(encoding))
    # The first word rather than [CLS]; a linked token or stage this sentence or model lacks
    # falls back to the default, with a notice.
    links.keep_within(settings.NB_TOKEN, range(len(encoding)), min(1, len(encoding) - 1), "Token")
    links.keep_within(settings.NB_STAGE, list(stages), decompose.STAGES[0], "Stage")
    left, right = st.columns(2)
    left.selectbox(
        "Token of your sentence",
        range(len(encoding)),
        format_func=encoding.labels.__getitem__,
        key=settings.NB_TOKEN,
        persist_state="session",
    )
    right.selectbox("Taken at stage", list(stages), key=settings.NB_STAGE, persist_state="session")
    st.caption(
        "The search still runs over the token table. After the token row, the vector also carries "
        "its position and segment (and then LayerNorm's rescaling), so its neighbours show which "
        "pieces it still resembles once those are mixed in."
    )


QUERY_UIS = {
    "word": word_query_ui,
    "token id": id_query_ui,
    "arithmetic": arithmetic_query_ui,
    "sentence token": sentence_token_query_ui,
}


def grid_inputs(shown: neighbours_page.Settings) -> tuple:
    """What the sentence grid is drawn with besides its own stage (the search reruns alone)."""
    return shown.geometry, shown.geometry_removed, shown.filters()


def results_ui(shown: neighbours_page.Search) -> None:
    """The ranked table with its download, the bars, and a neighbour to search from next."""
    left, right = st.columns([2, 3])
    with left:
        draw.shown(shown.table)
    with right:
        draw.shown(shown.bars)
    st.pills(
        "Search a neighbour next",
        shown.table.columns["piece"],
        format_func=lambda piece: echo.plain(glyphs.legible(piece)),
        key=settings.NB_NEXT,
        on_change=filters.follow_neighbour,
    )


@st.fragment
def search() -> bool:
    """The query, its settings and its results; whether the filters' patterns are valid. A new word
    or k reruns only this part of the page: the sidebar and the sentence grid stay as they are, on
    the server and in the browser."""
    alone = runs.fragment_alone()  # this part rerun by itself
    if alone:  # app.py did not run: it otherwise keeps the address bar current
        follow.publish("neighbours")
    asked, mode = False, filters.query_mode()
    with model_caches.friendly_errors(stop=False):
        QUERY_UIS[mode]()
        asked = True
    problem = st.container()  # what the query's values cannot make, said under its boxes
    geometry_view.switch(index.table.shape[1])
    valid = filters.search_options()
    st.caption(
        "BERT's token rows share a common direction, which crowds raw cosine scores together; the other "
        "geometries take it out in different ways. The Geometry page measures why and how much."
    )
    values, shown = widgets.chosen(neighbours_page.Settings), neighbours_page.Search()
    if asked and valid:
        with model_caches.friendly_errors(stop=False):
            shown = neighbours_page.search(values, sources)
        with problem:
            draw.shown(shown.query_problem)
        draw.shown(shown.search_problem, shown.changed)
    if shown.table is not None:
        memory.remember_search(neighbours_page.query(values, sources).description, shown.table.columns["id"])
        results_ui(shown)
    if alone and memory.grid_options() != grid_inputs(values):
        st.rerun(scope="app")  # the similarity or a filter changed: the grid needs them too
    return valid


valid = search()
memory.remember_grid_options(grid_inputs(widgets.chosen(neighbours_page.Settings)))

st.header("Every token of your sentence at once")
encoding = model_caches.require_encoding()
with model_caches.friendly_errors():
    stages = decompose.stage_vectors(sources.breakdown(encoding))
left, right = st.columns([2, 1])
left.selectbox("Stage", list(stages), **widgets.seeded(settings.NB_GRID_STAGE, None))
widgets.whole_number_box(
    "Neighbours per token",
    right,
    **widgets.seeded(neighbours_page.Settings.key("grid_k")),
    help="From 1 to 10.",
)
if not valid:
    st.info("The grid uses the same filters: it appears again once the pattern above is fixed.")
    st.stop()
with model_caches.friendly_errors(stop=False):
    grid = neighbours_page.grid(widgets.chosen(neighbours_page.Settings), sources)
    draw.shown(grid.problem, grid.table, grid.caption)
