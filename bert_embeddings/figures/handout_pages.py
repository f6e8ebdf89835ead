"""What the pages not yet composed once show of a view, for a lesson's handout (the pages about
one input and Maps, Your own axes and Geometry are: bert_embeddings.figures.input_pages and
vocabulary_pages compose their parts, for the page and the handout alike). Its figures are built
by the very functions the page draws them with (bert_embeddings.figures.page_figures and views),
from the same core results, for the view's values (bert_embeddings.views.check.values: a view
stands alone, every setting it does not name at its default, as a link opens it); its tables;
and notes in words where the page says something a figure does not, or computes in the background.

``Sources`` computes what the app's caches hold (components/caches/model_caches.py), in the same
way, once each per model; ``shown(page, model, values, sources)`` gives a page's parts in the
page's order, from the page's composer where it has one. A page's own message (a word the model
lacks, a position beyond its table) becomes a note, as the page shows it instead of a figure.
"""

from __future__ import annotations

from bert_embeddings.analysis import (
    contextual,
    decompose,
    vocab_search,
)
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import input_pages, page_figures, views, vocabulary_pages
from bert_embeddings.figures.handout_parts import (
    ERROR,
    Chart,
    Note,
    Part,
    geometry_of,
    notices,
    within,
)
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import stages as space_stages
from bert_embeddings.views import link_text, settings
from bert_embeddings.views.sources import Sources


def shown(page: str, model: LoadedModel, values: dict, sources: Sources) -> list[Part]:
    """Everything a handout holds of ``page`` for a view's ``values``, in the page's order."""
    composed, draw = COMPOSERS.get(page), PAGES.get(page)
    if composed is None and draw is None:
        return [Note(f"This page cannot be drawn in a handout: open the {page} page to see it.")]
    try:
        return list(composed(values, sources).values()) if composed else draw(model, values, sources)
    except ExplorerError as problem:  # what the page shows in place of its figures
        return [Note(str(problem), ERROR)]


# The pages composed once: their composers give the page's parts, for the page and the handout.
COMPOSERS = {**input_pages.COMPOSERS, **vocabulary_pages.COMPOSERS}


# --- the pages about one input, not composed once yet -----------------------------------------


def _embedding_layer(model, values, sources) -> list[Part]:
    encoding = sources.encoding(values)
    parts, labels = sources.breakdown(encoding), encoding.labels
    stages = page_figures.layer_stages(model, parts)
    stage = stages[within(values[settings.LAYER_STAGE], stages, next(iter(stages)))]
    every = page_figures.every_dimension(model)
    first, last = within(values[settings.DIMENSIONS], link_text.Span(*every), every)
    dims = range(first, last + 1)
    check = sources.verification(encoding)
    said = "within" if check.passed else "more than"
    return [
        *notices(encoding),
        Note(
            f"The page's proof: the largest difference from transformers' {check.module_name} (eval mode) "
            f"over all {len(encoding)} × {model.hidden_size} numbers is {check.max_abs_error:.2e}, "
            f"{said} {check.tolerance:g}."
        ),
        Chart("stage_overview", page_figures.stage_overview(stages, labels)),
        Chart(
            "stage_detail",
            page_figures.stage_detail(stage, labels, page_figures.shown_dimensions(stage, model, dims)),
        ),
        Chart("token_stats", page_figures.token_statistics(parts, labels)),
        Chart("layer_norm_params", page_figures.layer_norm_parameters(model, dims)),
    ]


def _context(model, values, sources) -> list[Part]:
    index, full = sources.index(), sources.full_model()
    first, second, word = values[settings.CTX_FIRST], values[settings.CTX_SECOND], values[settings.CTX_WORD]
    encodings = [model.encode(text) for text in (first, second)]
    notes = [Note(f"Sentence {n}: {note}") for n, e in enumerate(encodings, 1) for note in e.notices]
    piece_ids = vocab_search.word_ids(index, model.tokenizer, word)
    where = [contextual.find_word(e, piece_ids, f"sentence {n}") for n, e in enumerate(encodings, start=1)]
    found = page_figures.word_in_context(model, encodings, where, full)
    last = len(found.states) - 1
    layer = within(values[settings.CTX_LAYER], range(last + 1), last)
    return [
        *notes,
        Chart("ctx_similarity", page_figures.context_similarity(found, word)),
        Chart("ctx_heatmap", page_figures.context_layer(found, encodings[0].labels, layer)),
    ]


# --- the pages over the whole vocabulary ---------------------------------------------------------


def _neighbours(model, values, sources) -> list[Part]:
    index = sources.index()
    query = _query(model, values, sources, index)
    shape = geometry_of(values, index.table.shape[1])
    filters = vocab_search.Filters(
        hide_continuation=values[settings.NB_HIDE_CONTINUATION],
        hide_special=values[settings.NB_HIDE_SPECIAL],
        include=values[settings.NB_INCLUDE],
        exclude=values[settings.NB_EXCLUDE],
        exclude_ids=query.ids if values[settings.NB_LEAVE_OUT] else (),
    )
    result = sources.nearest(query.vector, values[settings.NB_K], shape, filters, weight=query.weight)
    return [Chart("nb_bars", views.neighbours(query, result))]


def _query(model, values, sources, index) -> vocab_search.Query:
    """The query the page's query mode makes of the view's values."""
    mode = values[settings.NB_MODE] or settings.QUERY_MODES[0]
    if mode == "token id":
        return vocab_search.id_query(index, values[settings.NB_ID])
    if mode == "arithmetic":
        return vocab_search.arithmetic_query(index, model.tokenizer, values[settings.NB_EXPRESSION])
    if mode == "sentence token":
        encoding = sources.encoding(values)
        stages = decompose.stage_vectors(sources.breakdown(encoding))
        position = within(values[settings.NB_TOKEN], range(len(encoding)), min(1, len(encoding) - 1))
        stage = within(values[settings.NB_STAGE], stages, decompose.STAGES[0])
        label = f"{encoding.labels[position]} at {stage}"
        return vocab_search.Query(stages[stage][position], (int(encoding.ids[position]),), label)
    word = values[settings.NB_WORD]
    count = len(vocab_search.word_ids(index, model.tokenizer, word))
    piece = within(values[settings.NB_PIECE], range(count), None) if count > 1 else None
    return vocab_search.word_query(index, model.tokenizer, word, piece)


def _moved(model, values, sources) -> list[Part]:
    """What moved's figures come from each space's exact neighbour lists, which the explorer's
    server computes in the background and keeps: the handout says so, in words."""
    last = space_stages.stage_names(model)[-1]
    stages = []
    for key in (settings.MV_STAGE_A, settings.MV_STAGE_B):
        stage = last if values[key] == link_text.LAST_LAYER else str(values[key])
        label = space_stages.stage_label(stage)
        stages.append(f"the {label}" if stage in (space_stages.TOKEN, space_stages.OUTPUT) else label)
    k = int(values[settings.MV_K])
    return [
        Note(
            f"This step's figures are not in the handout. What moved compares every piece's {k} nearest "
            f"neighbours in {stages[0]} and in {stages[1]}, over the whole vocabulary, exactly: the "
            "explorer's server computes each space's neighbour lists once, in the background, and keeps "
            "them for everyone. Open the step's page in the explorer to see its figures."
        )
    ]


def _compare(model, values, sources) -> list[Part]:
    return [
        Note(
            "Compare models loads a second model beside this one: open the page to see the two side by side."
        )
    ]


PAGES = {
    "embedding_layer": _embedding_layer,
    "neighbours": _neighbours,
    "compare": _compare,
    "moved": _moved,
    "context": _context,
}
