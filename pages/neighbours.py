"""Neighbours: the vocabulary's rows closest to a word, an id, a sentence token or a sum."""

import pandas as pd
import streamlit as st

from bert_embeddings import limits
from bert_embeddings.analysis import decompose, vocab_search
from bert_embeddings.figures import views
from bert_embeddings.models import glyphs
from bert_embeddings.views import settings
from components.caches import model_caches
from components.frame import routing, runs
from components.parts import draw, echo, exports, filters, widgets
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


def word_query_ui() -> vocab_search.Query:
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
    piece = filters.piece_choice([index.pieces[i] for i in ids]) if count > 1 else None
    return vocab_search.word_query(index, model.tokenizer, word, piece)


def id_query_ui() -> vocab_search.Query:
    token_id = widgets.whole_number_box("Token id", **widgets.seeded(settings.NB_ID))
    return vocab_search.id_query(index, token_id)


def arithmetic_query_ui() -> vocab_search.Query:
    expression = st.text_input(
        "Vector arithmetic",
        **widgets.seeded(settings.NB_EXPRESSION),
        help=f"Up to {limits.ARITHMETIC_TERMS.most} words, each added (+) or subtracted (-).",
    )
    st.caption("Each word's token row, added or subtracted; a word of several pieces counts as their mean.")
    return vocab_search.arithmetic_query(index, model.tokenizer, expression)


def sentence_token_query_ui() -> vocab_search.Query:
    # What is worth knowing about the sentence (truncation, unknown pieces) is said once, above
    # the grid of every token below, which each query mode shows.
    encoding = model_caches.require_encoding(notices=False)
    stages = decompose.stage_vectors(model_caches.breakdown(model, encoding))
    # The first word rather than [CLS]; a linked token or stage this sentence or model lacks
    # falls back to the default, with a notice.
    links.keep_within(settings.NB_TOKEN, range(len(encoding)), min(1, len(encoding) - 1), "Token")
    links.keep_within(settings.NB_STAGE, list(stages), decompose.STAGES[0], "Stage")
    left, right = st.columns(2)
    position = left.selectbox(
        "Token of your sentence",
        range(len(encoding)),
        format_func=encoding.labels.__getitem__,
        key=settings.NB_TOKEN,
        persist_state="session",
    )
    stage = right.selectbox("Taken at stage", list(stages), key=settings.NB_STAGE, persist_state="session")
    st.caption(
        "The search still runs over the token table. After the token row, the vector also carries "
        "its position and segment (and then LayerNorm's rescaling), so its neighbours show which "
        "pieces it still resembles once those are mixed in."
    )
    label = f"{encoding.labels[position]} at {stage}"
    return vocab_search.Query(stages[stage][position], (int(encoding.ids[position]),), label)


QUERY_UIS = {
    "word": word_query_ui,
    "token id": id_query_ui,
    "arithmetic": arithmetic_query_ui,
    "sentence token": sentence_token_query_ui,
}


def results_ui(query: vocab_search.Query, result: vocab_search.Neighbours, shape: tuple[str, int]) -> None:
    """The ranked table with its download (named by the geometry ``shape``), the bars, and a
    neighbour to search from next."""
    left, right = st.columns([2, 3])
    with left:
        exports.ranked(
            (
                f"{model.name} neighbours of",
                exports.Verbatim(query.description),
                f"({geometry_view.described(shape)}, k {len(result.ids)})",
            ),
            result,
            key="nb_table",
        )
    with right:
        draw.chart(views.neighbours(query, result), key="nb_bars")
    st.pills(
        "Search a neighbour next",
        result.pieces,
        format_func=lambda piece: echo.plain(glyphs.legible(piece)),
        key=settings.NB_NEXT,
        on_change=filters.follow_neighbour,
    )


@st.fragment
def search() -> filters.SearchOptions:
    """The query, its settings and its results. A new word or k reruns only this part of the
    page: the sidebar and the sentence grid stay as they are, on the server and in the browser."""
    alone = runs.fragment_alone()  # this part rerun by itself
    if alone:  # app.py did not run: it otherwise keeps the address bar current
        follow.publish("neighbours")
    query = result = None
    with model_caches.friendly_errors(stop=False):
        query = QUERY_UIS[filters.query_mode()]()
    options = filters.search_options(geometry_view.switch(index.table.shape[1]))
    st.caption(
        "BERT's token rows share a common direction, which crowds raw cosine scores together; the other "
        "geometries take it out in different ways. The Geometry page measures why and how much."
    )
    if query is not None and options.patterns_valid:
        with model_caches.friendly_errors(stop=False):
            chosen = options.filters(query.ids)
            result = model_caches.nearest(query.vector, options.k, options.shape, chosen, weight=query.weight)
            geometry_view.changed_from_raw(query, options.shape, chosen)
    if result is not None:
        memory.remember_search(query.description, result.ids)
        results_ui(query, result, options.shape)
    if alone and memory.grid_options() != (options.shape, options.filters()):
        st.rerun(scope="app")  # the similarity or a filter changed: the grid needs them too
    return options


options = search()
memory.remember_grid_options((options.shape, options.filters()))

st.header("Every token of your sentence at once")
encoding = model_caches.require_encoding()
stages = decompose.stage_vectors(model_caches.breakdown(model, encoding))
grid_stage = st.selectbox("Stage", list(stages), **widgets.seeded(settings.NB_GRID_STAGE, None))
vectors = stages[grid_stage]
if not options.patterns_valid:
    st.info("The grid uses the same filters: it appears again once the pattern above is fixed.")
    st.stop()
with model_caches.friendly_errors(stop=False):
    grid = model_caches.nearest(vectors, 5, options.shape, options.filters(), each=True)
    cells = [
        [label, *(f"{glyphs.legible(p)}  {score:.2f}" for p, score in zip(n.pieces, n.scores, strict=True))]
        for label, n in zip(encoding.labels, grid, strict=True)
    ]
    table = pd.DataFrame(
        cells,
        columns=["token", *(f"#{r}" for r in range(1, len(grid[0].ids) + 1))],
    )
    described = geometry_view.described(options.shape)
    name = f"{model.name} top 5 of each token at {grid_stage} ({described})"
    exports.dataframe(name, table, hide_index=True, key="nb_grid")
    st.caption(
        f"Top 5 of each token by cosine in the {geometry_view.described(options.shape)} geometry, with the "
        "filters above; one matrix product for all."
    )
