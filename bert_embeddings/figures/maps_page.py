"""The Maps page in the core: its settings, declared once (bert_embeddings/views/fields.py), and
what it shows of them, composed once for the page and a lesson's handout: the open tab's map (the
vocabulary's by PCA, or by t-SNE once its background job has made it: maps_tsne; the sentence's
journey; the positions'), its files and how to read it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import decompose, projection, vocab_search
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import map_charts, map_marks, maps_tsne, views
from bert_embeddings.figures.handout_parts import (
    ERROR,
    INFO,
    INK,
    WARNING,
    Chart,
    Composed,
    Download,
    Note,
    geometry_of,
    notices,
)
from bert_embeddings.views import fields, link_text
from bert_embeddings.views.fields import linked, shared
from bert_embeddings.views.sources import Sources

DIMS = ("2-D", "3-D")
METHODS = ("PCA", "t-SNE")
TABS = ("Vocabulary", "Sentence journey", "Positions")  # the page's tabs, by label
COLOURS = maps_tsne.COLOURS
BASES = ("the vocabulary's components", "your sentence's own components")  # the journey's projection
_COMPONENT = link_text.whole_number(1, 10, "A component")
_KINDS = dict(zip(("word", "continuation", "special", "number", "punctuation"), range(5), strict=True))


def _component(url: str, default: float, axis: str):
    return linked(url, default, f"the component on {axis}", _COMPONENT, link_text.whole_text)


@dataclass(frozen=True)
class Settings(fields.WithSentences):
    PAGE = "maps"
    PREFIX = "map_"

    dims: str = linked("map", DIMS[0], "2-D or 3-D", *fields.coded({"2": DIMS[0], "3": DIMS[1]}))
    tab: str = linked(
        "tab",
        TABS[0],
        "the map's tab",
        *fields.coded(dict(zip(("vocabulary", "journey", "positions"), TABS, strict=True))),
    )
    method: str = linked(
        "method", METHODS[0], "the map's method", *fields.coded({"pca": METHODS[0], "tsne": METHODS[1]})
    )
    colour: str = linked(
        "colour",
        COLOURS[0],
        "what colours the map",
        *fields.coded(dict(zip(("kind", "kept", "hubs"), COLOURS, strict=True))),
    )
    labels: bool = linked("labels", True, "the map's region labels", *fields.FLAGS)
    x: float = _component("x", 1.0, "x")
    y: float = _component("y", 2.0, "y")
    z: float = _component("z", 3.0, "z")
    kinds: list = linked(
        "kinds",
        list(range(len(vocab_search.KINDS))),
        "the kinds of piece to show",
        link_text.several_of(_KINDS, "kind of piece"),
        link_text.codes_of(_KINDS),
    )
    highlight: str = linked("highlight", "", "the highlight pattern", link_text.pattern)
    basis: str = linked(
        "basis",
        BASES[0],
        "the journey's projection",
        *fields.coded(dict(zip(("vocabulary", "sentence"), BASES, strict=True))),
    )
    geometry: str = shared(fields.GEOMETRY)
    geometry_removed: int | None = shared(fields.GEOMETRY_REMOVED)

    def components(self) -> tuple[float, ...]:
        """The components asked for on x and y (and z for a 3-D map), numbered from 1."""
        return (self.x, self.y, self.z)[: 3 if self.dims == DIMS[1] else 2]


# What a page adds to a vocabulary map before it is drawn (its key, its record): a click's marks.
Marked = Callable[[str, map_charts.VocabularyMap], map_charts.VocabularyMap]


@dataclass(frozen=True)
class Positions(Composed):
    problem: Note | None = None
    chart: Chart | None = None
    download: Download | None = None
    caption: Note | None = None


@dataclass(frozen=True)
class Journey(Composed):
    no_sentence: Note | None = None
    caption: Note | None = None
    problem: Note | None = None
    chart: Chart | None = None
    download: Download | None = None


@dataclass(frozen=True)
class Pca(Composed):
    """The vocabulary's PCA map (or why not) and the variance each component explains."""

    problem: Note | None = None
    chart: Chart | None = None
    download: Download | None = None
    caption: Note | None = None
    variance: Chart | None = None
    variance_download: Download | None = None


@dataclass(frozen=True)
class Vocabulary(Composed):
    pattern_problem: Note | None = None
    no_match: Note | None = None
    pca: Pca | None = None
    tsne: maps_tsne.Tsne | None = None


@dataclass(frozen=True)
class Page(Composed):
    """What the sentence's reading says, then the open tab's map."""

    sentence_problem: Note | None = None
    notices: tuple[Note, ...] = ()
    vocabulary: Vocabulary | None = None
    journey: Journey | None = None
    positions: Positions | None = None


def compose(
    s: Settings,
    sources: Sources,
    *,
    ink: str = INK,
    searched: map_marks.Highlight | None = None,
    marked: Marked | None = None,
) -> Page:
    """The map of the tab the view opens: the vocabulary's (PCA, or t-SNE once computed), the
    sentence's journey or the positions'. The page adds what only it has: the text colour of its
    theme (``ink``), the latest search on the Neighbours page (``searched``) and a click's marks
    (``marked``)."""
    tab = s.tab or TABS[0]
    problem, said = None, ()
    try:
        encoding = sources.encoding(s.values())
    except ExplorerError as error:  # the maps that do not need the sentence still draw
        encoding, problem = None, Note(str(error), ERROR)
    else:
        said = notices(encoding)
    if tab == TABS[2]:
        return Page(problem, said, positions=_positions_map(s, sources))
    if tab == TABS[1]:
        return Page(problem, said, journey=_journey(s, sources, encoding))
    marked = marked or (lambda key, map_: map_)
    return Page(problem, said, vocabulary=_vocabulary(s, sources, encoding, ink, searched, marked))


def _map_download(sources: Sources, what: str, coords, axes, rows=None, corner: str = "") -> Download:
    """A map's coordinates on the components it shows, named as its axes."""
    names, columns = map_charts.shown_components(coords, axes)
    return Download(f"{sources.model.name} {what} on {'-'.join(names)}", columns, rows, names, corner)


def _positions_map(s: Settings, sources: Sources) -> Positions:
    basis, coords = sources.position_pca()
    try:
        axes = projection.check_components(basis, *s.components())
    except ExplorerError as problem:
        return Positions(problem=Note(str(problem), ERROR))
    return Positions(
        chart=Chart("pca_positions", views.position_path((basis, coords), axes)),
        download=_map_download(sources, "positions", coords, axes, corner="position"),
        caption=Note(
            "Each dot is the learned row of one position, coloured from first (dark) to last (yellow); the "
            "grey line joins consecutive positions. Whatever shape the path takes was learned from data: "
            "BERT's positions are a table of rows, not a formula."
        ),
    )


JOURNEY_CAPTIONS = (
    "The vocabulary's components show where your sentence sits among all pieces. Adding the position and "
    "segment rows, and above all LayerNorm's rescaling, carries the vectors far from the token rows they "
    "started as.",
    "Components fitted on this sentence's own stage vectors spread them out as much as possible: the "
    "picture shows how the stages differ from each other, not where they sit in the vocabulary, so it "
    "looks quite different.",
)


def _journey(s: Settings, sources: Sources, encoding) -> Journey:
    if encoding is None:
        said = Note("Type a sentence in the sidebar to see its journey.", INFO, icon=":material/edit:")
        return Journey(no_sentence=said)
    stages = decompose.stage_vectors(sources.breakdown(encoding))
    own = s.basis == BASES[1]
    basis = projection.fit(np.concatenate(list(stages.values()))) if own else sources.vocabulary_pca()[0]
    caption = Note(JOURNEY_CAPTIONS[own])
    try:
        axes = projection.check_components(basis, *s.components())
    except ExplorerError as problem:
        return Journey(caption=caption, problem=Note(str(problem), ERROR))
    stage_coords = views.journey_coordinates(basis, stages)
    return Journey(
        caption=caption,
        chart=Chart("pca_journey", views.journey(stage_coords, encoding.labels, axes, basis)),
        download=_map_download(
            sources,
            "sentence journey",
            np.concatenate([c for _, c in stage_coords]),
            axes,
            [f"{stage} | {label}" for stage, _ in stage_coords for label in encoding.labels],
            "stage | token",
        ),
    )


def _vocabulary(s: Settings, sources, encoding, ink, searched, marked: Marked) -> Vocabulary:
    index = sources.index()
    shape = geometry_of(s.values(), index.table.shape[1])
    problem = no_match = None
    highlights = []
    if pattern := s.highlight:
        try:
            matches = np.flatnonzero(sources.pattern_rows(pattern))
        except ExplorerError as error:
            problem = Note(str(error), ERROR)
        else:
            if matches.size:
                highlights.append(views.pattern_mark(pattern, matches))
            else:
                said = f"No piece of the vocabulary matches '{pattern}'."
                no_match = Note(said, WARNING, icon=":material/search_off:")
    if encoding is not None:
        highlights.append(views.sentence_mark(encoding.ids, ink))
    if searched is not None:
        highlights.append(searched)
    kinds = list(s.kinds or [])
    if (s.method or METHODS[0]) == METHODS[1]:
        how = (s.colour, bool(s.labels))
        tsne = maps_tsne.compose(sources, shape, kinds, highlights, how, ink, marked)
        return Vocabulary(problem, no_match, tsne=tsne)
    return Vocabulary(problem, no_match, pca=_pca(s, sources, shape, kinds, highlights, marked))


def _pca(s: Settings, sources: Sources, shape, kinds, highlights, marked: Marked) -> Pca:
    index, model = sources.index(), sources.model
    basis, coords = sources.vocabulary_pca(shape)
    described = views.described(shape)
    ratios = basis.explained_variance_ratio
    variance = Chart("pca_variance", views.explained_variance(basis))
    variance_download = Download(
        f"{model.name} vocabulary PCA explained variance ({described})",
        ratios,
        [map_charts.component_name(c) for c in range(len(ratios))],
        ["explained variance ratio"],
        "component",
    )
    try:
        request = views.pca_vocabulary(
            index, shape, (basis, coords), s.components(), shown_kinds=kinds, highlights=highlights
        )
    except ExplorerError as problem:
        return Pca(Note(str(problem), ERROR), variance=variance, variance_download=variance_download)
    return Pca(
        chart=Chart("pca_vocabulary", map_charts.vocabulary_map(marked("pca_vocabulary", request))),
        download=_map_download(
            sources, f"vocabulary ({described})", coords, request.axes, index.pieces, "piece"
        ),
        caption=Note("Fitted once on every row of the token table. " + maps_tsne.MARKS_CAPTION),
        variance=variance,
        variance_download=variance_download,
    )
