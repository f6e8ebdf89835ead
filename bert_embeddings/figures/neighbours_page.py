"""The Neighbours page in the core: its settings, declared once, and what it shows of them,
composed once for the page, a lesson's figures and a handout.

Each field of ``Settings`` carries its name in a link, its default, its reader and its label
(bert_embeddings/views/fields.py); the table of settings takes its rows from it, so links, rooms,
lessons and handouts carry a new field with no other edit, and the page keys its widgets by
``Settings.key``. ``search`` and ``grid`` give the page's two parts (the page reruns the search
alone when only the query changes), ``compose`` both, in the page's order.
"""

from __future__ import annotations

from dataclasses import dataclass

from bert_embeddings import limits
from bert_embeddings.analysis import decompose, geometry, vocab_search
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import export, views
from bert_embeddings.figures.handout_parts import (
    ERROR,
    Chart,
    Composed,
    Note,
    Table,
    geometry_of,
    ranked,
    within,
)
from bert_embeddings.models import glyphs
from bert_embeddings.views import fields, link_text
from bert_embeddings.views.fields import linked, shared
from bert_embeddings.views.sources import Sources

QUERY_MODES = ("word", "token id", "sentence token", "arithmetic")
_MODES = dict(zip(("word", "id", "token", "sum"), QUERY_MODES, strict=True))
_K = link_text.whole_number(1, vocab_search.MAX_K, "k")


@dataclass(frozen=True)
class Settings(fields.WithSentences, fields.Filtered):
    PAGE = "neighbours"
    PREFIX = "nb_"

    mode: str = linked("mode", QUERY_MODES[0], "the query mode", *fields.coded(_MODES))
    word: str = linked("q", "king", "the word or piece", link_text.text_of(limits.WORD), mode="word")
    # The piece of a split word to search with, by position (None: the mean of its pieces).
    piece: int | None = linked(
        "piece",
        None,
        "the piece of the word to search with",
        link_text.integer(0, limits.WORD.most, "The piece"),
        mode="word",
    )
    id: float = linked(
        "id",
        2054.0,
        "the token id",
        link_text.whole_number(0, None, "A token id"),
        link_text.whole_text,
        mode="token id",
    )
    expression: str = linked(
        "sum",
        "king - man + woman",
        "the vector arithmetic",
        link_text.text_of(limits.ARITHMETIC),
        mode="arithmetic",
    )
    token: int | None = linked(
        "token",
        None,
        "the token of your sentence",
        link_text.integer(0, None, "The token"),
        mode="sentence token",
    )
    stage: str = linked(
        "stage", decompose.STAGES[0], "the stage the token is taken at", *fields.STAGES, mode="sentence token"
    )
    k: float = linked("k", 10.0, "k", _K, link_text.whole_text)
    hide_continuation: bool = linked("hide_pieces", False, "hide ## continuation pieces", *fields.FLAGS)
    hide_special: bool = linked("hide_special", True, "hide [CLS], [SEP], [unusedN]...", *fields.FLAGS)
    leave_out: bool = linked("leave_out", True, "leave out the query's own pieces", *fields.FLAGS)
    include: str = linked("only", "", "the 'Only pieces matching' pattern", link_text.pattern)
    exclude: str = linked("not", "", "the 'Leave out pieces matching' pattern", link_text.pattern)
    grid_stage: str = linked("grid", decompose.STAGES[0], "the grid's stage", *fields.STAGES)
    grid_k: float = linked(
        "grid_k",
        5.0,
        "the grid's neighbours per token",
        link_text.whole_number(1, 10, "The grid's neighbours per token"),
        link_text.whole_text,
    )
    geometry: str = shared(fields.GEOMETRY)
    geometry_removed: int | None = shared(fields.GEOMETRY_REMOVED)


COMPARED = 10  # "k of the 10 nearest change from raw"


@dataclass(frozen=True)
class Search(Composed):
    query_problem: Note | None = None  # under the query's boxes
    search_problem: Note | None = None  # under the options (k, a pattern)
    changed: Note | None = None  # under a geometry but raw: how many of the nearest change
    table: Table | None = None
    bars: Chart | None = None


@dataclass(frozen=True)
class Grid(Composed):
    problem: Note | None = None
    table: Table | None = None
    caption: Note | None = None


@dataclass(frozen=True)
class Page(Composed):
    search: Search
    grid: Grid


def query(s: Settings, sources: Sources) -> vocab_search.Query:
    """The query the page's query mode makes of the settings."""
    model, index = sources.model, sources.index()
    mode = s.mode or QUERY_MODES[0]
    if mode == "token id":
        return vocab_search.id_query(index, s.id)
    if mode == "arithmetic":
        return vocab_search.arithmetic_query(index, model.tokenizer, s.expression)
    if mode == "sentence token":
        encoding = sources.encoding(s.values())
        stages = decompose.stage_vectors(sources.breakdown(encoding))
        position = within(s.token, range(len(encoding)), min(1, len(encoding) - 1))
        stage = within(s.stage, stages, decompose.STAGES[0])
        label = f"{encoding.labels[position]} at {stage}"
        return vocab_search.Query(stages[stage][position], (int(encoding.ids[position]),), label)
    count = len(vocab_search.word_ids(index, model.tokenizer, s.word))
    piece = within(s.piece, range(count), None) if count > 1 else None
    return vocab_search.word_query(index, model.tokenizer, s.word, piece)


def _shape(s: Settings, sources: Sources) -> tuple[str, int]:
    return geometry.key(*geometry_of(s.values(), sources.index().table.shape[1]))


def search(s: Settings, sources: Sources) -> Search:
    """The query's nearest pieces as a ranked table and bars; under a geometry but raw, how many
    of its 10 nearest change from raw cosine."""
    try:
        asked = query(s, sources)
    except ExplorerError as problem:
        return Search(query_problem=Note(str(problem), ERROR))
    shape, chosen, changed = _shape(s, sources), s.filters(asked.ids), None
    try:
        result = sources.nearest(asked.vector, s.k, shape, chosen, weight=asked.weight)
        if shape[0] != geometry.GEOMETRIES[0]:
            raw = sources.nearest(asked.vector, COMPARED, (geometry.GEOMETRIES[0], 0), chosen)
            here = sources.nearest(asked.vector, COMPARED, shape, chosen, weight=asked.weight)
            moved = len(set(here.ids.tolist()) - set(raw.ids.tolist()))
            changed = Note(
                f"{moved} of the {len(here.ids)} nearest change from raw cosine in the "
                f"{views.described(shape)} geometry."
            )
    except ExplorerError as problem:
        return Search(search_problem=Note(str(problem), ERROR))
    name = (
        f"{sources.model.name} neighbours of",
        export.Verbatim(asked.description),
        f"({views.described(shape)}, k {len(result.ids)})",
    )
    return Search(
        changed=changed,
        table=ranked(name, result, key="nb_table"),
        bars=Chart("nb_bars", views.neighbours(asked, result)),
    )


def grid(s: Settings, sources: Sources) -> Grid:
    """The nearest (``grid_k``) of every token of the sentence at the grid's stage, with the same filters."""
    encoding = sources.encoding(s.values())
    stages = decompose.stage_vectors(sources.breakdown(encoding))
    stage = within(s.grid_stage, stages, next(iter(stages)))
    shape = _shape(s, sources)
    try:
        k = limits.whole_number(s.grid_k, "The grid's neighbours per token", 1, 10)
        found = sources.nearest(stages[stage], k, shape, s.filters(), each=True)
    except ExplorerError as problem:
        return Grid(problem=Note(str(problem), ERROR))
    columns: dict[str, list] = {"token": list(encoding.labels)}
    for rank in range(len(found[0].ids)):
        columns[f"#{rank + 1}"] = [
            f"{glyphs.legible(each.pieces[rank])}  {each.scores[rank]:.2f}" for each in found
        ]
    described = views.described(shape)
    return Grid(
        table=Table(
            columns, f"{sources.model.name} top {k} of each token at {stage} ({described})", key="nb_grid"
        ),
        caption=Note(
            f"Top {k} of each token by cosine in the {described} geometry, with the filters above; one "
            "matrix product for all."
        ),
    )


def compose(s: Settings, sources: Sources) -> Page:
    """The search, then the grid of every token of the sentence (the page draws the two apart:
    a new search reruns only its own part of the page)."""
    try:
        below = grid(s, sources)
    except ExplorerError as problem:  # the search is shown all the same
        below = Grid(problem=Note(str(problem), ERROR))
    return Page(search(s, sources), below)
