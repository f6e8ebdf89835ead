"""What the Maps page shows of a view, composed once for the page and a lesson's handout
(bert_embeddings.figures.vocabulary_pages): the open tab's map (the vocabulary's by PCA, or by
t-SNE once its background job has made it; the sentence's journey; the positions'), its files and
how to read it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bert_embeddings.analysis import (
    decompose,
    geometry,
    projection,
)
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import map_charts, map_marks, settings, views
from bert_embeddings.figures.handout_parts import (
    ERROR,
    INFO,
    INK,
    TEXT,
    WARNING,
    Chart,
    Download,
    Note,
    Parts,
    Table,
    geometry_of,
    named_notices,
)
from bert_embeddings.jobs import files
from bert_embeddings.maps import map_jobs, map_reading
from bert_embeddings.models import glyphs
from bert_embeddings.views.sources import Sources

MARKS_CAPTION = (
    "Hover a point for its piece; click one to mark its 10 nearest pieces by cosine (circles, joined to "
    "it by lines) and its 10 nearest points on this map (triangles). Marked on top, each in its own "
    "shape: your sentence's pieces (squares, in the text colour), pieces matching the highlight "
    "pattern (diamonds) and the latest search on the Neighbours page (crosses); the legend names each."
)
REGIONS = (
    "Labels: the map's densest islands (at most 30), found on the map itself, each named after what most "
    "of its pieces are and its three most central pieces by cosine in the table; hover a label for more."
)
HUBS = (
    "Some rows sit near the middle of the cloud, close to very many others, and crowd into everyone's "
    "lists of nearest neighbours: hubs. With 10 neighbours per piece, each piece is on average in 10 "
    "others' lists; a hub is in hundreds, and many pieces are in none. Counted exactly from the map's "
    "neighbour lists."
)

# What a page adds to a vocabulary map before it is drawn (its key, its record): a click's marks.
Marked = Callable[[str, map_charts.VocabularyMap], map_charts.VocabularyMap]


def maps_page(
    values: dict,
    sources: Sources,
    *,
    ink: str = INK,
    searched: map_marks.Highlight | None = None,
    marked: Marked | None = None,
) -> Parts:
    """The map of the tab the view opens: the vocabulary's (PCA, or t-SNE once computed), the
    sentence's journey or the positions'. The page adds what only it has: the text colour of its
    theme (``ink``), the latest search on the Neighbours page (``searched``) and a click's marks
    (``marked``)."""
    tab = values[settings.MAP_TAB] or settings.MAP_TABS[0]
    found: Parts = {}
    try:
        encoding = sources.encoding(values)
    except ExplorerError as problem:  # the maps that do not need the sentence still draw
        encoding, found["sentence_problem"] = None, Note(str(problem), ERROR)
    else:
        found |= named_notices(encoding)
    if tab == settings.MAP_TABS[2]:
        return found | _positions_map(values, sources)
    if tab == settings.MAP_TABS[1]:
        return found | _journey(values, sources, encoding)
    return found | _vocabulary(values, sources, encoding, ink, searched, marked or (lambda key, map_: map_))


def components(values: dict) -> tuple[float, ...]:
    """The components asked for on x and y (and z for a 3-D map), numbered from 1."""
    keys = (settings.PCA_X, settings.PCA_Y, settings.PCA_Z)
    return tuple(values[key] for key in keys[: 3 if values[settings.PCA_DIMS] == settings.MAP_DIMS[1] else 2])


def _map_download(sources: Sources, what: str, coords, axes, rows=None, corner: str = "") -> Download:
    """A map's coordinates on the components it shows, named as its axes."""
    names, columns = map_charts.shown_components(coords, axes)
    return Download(f"{sources.model.name} {what} on {'-'.join(names)}", columns, rows, names, corner)


def _positions_map(values: dict, sources: Sources) -> Parts:
    basis, coords = sources.position_pca()
    try:
        axes = projection.check_components(basis, *components(values))
    except ExplorerError as problem:
        return {"map_problem": Note(str(problem), ERROR)}
    return {
        "pca_positions": Chart("pca_positions", views.position_path((basis, coords), axes)),
        "pca_positions_download": _map_download(sources, "positions", coords, axes, corner="position"),
        "pca_positions_caption": Note(
            "Each dot is the learned row of one position, coloured from first (dark) to last (yellow); the "
            "grey line joins consecutive positions. Whatever shape the path takes was learned from data: "
            "BERT's positions are a table of rows, not a formula."
        ),
    }


JOURNEY_CAPTIONS = (
    "The vocabulary's components show where your sentence sits among all pieces. Adding the position and "
    "segment rows, and above all LayerNorm's rescaling, carries the vectors far from the token rows they "
    "started as.",
    "Components fitted on this sentence's own stage vectors spread them out as much as possible: the "
    "picture shows how the stages differ from each other, not where they sit in the vocabulary, so it "
    "looks quite different.",
)


def _journey(values: dict, sources: Sources, encoding) -> Parts:
    if encoding is None:
        return {
            "no_sentence": Note(
                "Type a sentence in the sidebar to see its journey.", INFO, icon=":material/edit:"
            )
        }
    stages = decompose.stage_vectors(sources.breakdown(encoding))
    own = values[settings.PCA_JOURNEY_BASIS] == settings.JOURNEY_BASES[1]
    basis = projection.fit(np.concatenate(list(stages.values()))) if own else sources.vocabulary_pca()[0]
    found: Parts = {"journey_caption": Note(JOURNEY_CAPTIONS[own])}
    try:
        axes = projection.check_components(basis, *components(values))
    except ExplorerError as problem:
        return found | {"map_problem": Note(str(problem), ERROR)}
    stage_coords = views.journey_coordinates(basis, stages)
    return found | {
        "pca_journey": Chart("pca_journey", views.journey(stage_coords, encoding.labels, axes, basis)),
        "pca_journey_download": _map_download(
            sources,
            "sentence journey",
            np.concatenate([c for _, c in stage_coords]),
            axes,
            [f"{stage} | {label}" for stage, _ in stage_coords for label in encoding.labels],
            "stage | token",
        ),
    }


def _vocabulary(values, sources, encoding, ink, searched, marked: Marked) -> Parts:
    index = sources.index()
    shape = geometry_of(values, index.table.shape[1])
    found: Parts = {}
    highlights = []
    if pattern := values[settings.PCA_HIGHLIGHT]:
        try:
            matches = np.flatnonzero(sources.pattern_rows(pattern))
        except ExplorerError as problem:
            found["pattern_problem"] = Note(str(problem), ERROR)
        else:
            if matches.size:
                highlights.append(views.pattern_mark(pattern, matches))
            else:
                said = f"No piece of the vocabulary matches '{pattern}'."
                found["no_match"] = Note(said, WARNING, icon=":material/search_off:")
    if encoding is not None:
        highlights.append(views.sentence_mark(encoding.ids, ink))
    if searched is not None:
        highlights.append(searched)
    kinds = list(values[settings.PCA_KINDS] or [])
    if (values[settings.MAP_METHOD] or settings.MAP_METHODS[0]) == settings.MAP_METHODS[1]:
        return found | _tsne(values, sources, shape, kinds, highlights, ink, marked)
    return found | _pca(values, sources, shape, kinds, highlights, marked)


def _pca(values, sources: Sources, shape, kinds, highlights, marked: Marked) -> Parts:
    index, model = sources.index(), sources.model
    basis, coords = sources.vocabulary_pca(shape)
    described = views.described(shape)
    found: Parts = {}
    try:
        request = views.pca_vocabulary(
            index, shape, (basis, coords), components(values), shown_kinds=kinds, highlights=highlights
        )
    except ExplorerError as problem:
        found["map_problem"] = Note(str(problem), ERROR)
    else:
        found |= {
            "pca_vocabulary": Chart(
                "pca_vocabulary", map_charts.vocabulary_map(marked("pca_vocabulary", request))
            ),
            "pca_vocabulary_download": _map_download(
                sources, f"vocabulary ({described})", coords, request.axes, index.pieces, "piece"
            ),
            "pca_vocabulary_caption": Note("Fitted once on every row of the token table. " + MARKS_CAPTION),
        }
    ratios = basis.explained_variance_ratio
    return found | {
        "pca_variance": Chart("pca_variance", views.explained_variance(basis)),
        "pca_variance_download": Download(
            f"{model.name} vocabulary PCA explained variance ({described})",
            ratios,
            [map_charts.component_name(c) for c in range(len(ratios))],
            ["explained variance ratio"],
            "component",
        ),
    }


def tsne_map(sources: Sources, shape: tuple[str, int]) -> map_jobs.Done | None:
    """The finished t-SNE map of the vocabulary in the geometry ``shape``, where its job left it;
    else None."""
    table, shape = sources.model.tables.word_embeddings, geometry.key(*shape)

    def read() -> map_jobs.Done | None:
        name = map_jobs.map_name(files.fingerprint(table), shape)
        return map_jobs.load(map_jobs.folder_for(name, map_jobs.default_settings()))

    return sources.kept("t-SNE map", (shape,), read)


def map_labels(sources: Sources, shape: tuple[str, int], done: map_jobs.Done) -> tuple:
    """A finished map's region labels, made once."""
    index = sources.index()
    return sources.kept("map labels", (geometry.key(*shape),), lambda: views.map_labels(done, index))


def _tsne(values, sources: Sources, shape, kinds, highlights, ink: str, marked: Marked) -> Parts:
    index, model = sources.index(), sources.model
    described = views.described(shape)
    done = tsne_map(sources, shape)
    if done is None:
        return {
            "tsne_waiting": Note(
                f"The page shows the t-SNE map of all {index.size:,} pieces in the {described} geometry, "
                "computed once in the background and kept: open the page to see it."
            )
        }
    colour = values[settings.MAP_COLOUR] or settings.MAP_COLOURS[0]
    labelled = bool(values[settings.MAP_LABELS])
    labels = map_labels(sources, shape, done)
    request = views.vocabulary(
        index,
        shape,
        done.coords,
        (0, 1),
        shown_kinds=kinds,
        highlights=highlights,
        colouring=colouring(colour, done),
        underlays=[views.region_labels(done, labels, ink)] if labelled else [],
    )
    name = f"{model.name} {described}"
    found: Parts = {
        "tsne_vocabulary": Chart(
            "tsne_vocabulary", map_charts.vocabulary_map(marked("tsne_vocabulary", request))
        ),
        "tsne_download_caption": Note(
            "Every piece's place, neighbours kept, k-occurrence and region (-1 for none):"
        ),
        "tsne_download": Download(
            f"{name} vocabulary t-SNE",
            np.column_stack(
                [done.coords.astype(np.float64), done.kept, done.occurrence, done.regions.of_row]
            ),
            index.pieces,
            ["t-SNE 1", "t-SNE 2", "neighbours kept of 10", "k-occurrence", "region"],
            "piece",
        ),
    }
    return found | _reading(done, labelled) | _hubs(done, index, name)


def _reading(done: map_jobs.Done, labelled: bool) -> Parts:
    """How faithful a finished t-SNE map is, and how to read it."""
    meta = done.meta
    recall, pca_recall, used = meta["recall_at_10"], meta["pca_recall_at_10"], meta["settings"]
    none, half = float(np.mean(done.kept == 0)), float(np.mean(done.kept >= 5))
    found: Parts = {
        "tsne_faithfulness": Note(
            f"**Faithfulness: neighbour recall@10 = {recall:.3f}.** On average {10 * recall:.1f} of each "
            f"piece's 10 nearest neighbours by cosine in this geometry (as the Neighbours page finds them in "
            f"it) are among its 10 nearest points on this map; on the PCA map of the same geometry it is "
            f"{10 * pca_recall:.2f} ({pca_recall:.4f}).",
            TEXT,
            markup=True,  # the explorer's own words and numbers: no joiners in what a reader copies
        ),
        "tsne_kept_caption": Note(
            f"Per piece: {none:.1%} of pieces keep none of their 10 nearest pieces by cosine among their 10 "
            f"nearest points here, and {half:.1%} keep 5 or more. The recall@10 above is the mean of these "
            "counts, divided by 10."
        ),
        "tsne_caption": Note(
            "t-SNE keeps neighbours, not distances: clusters are real, but the space between them and their "
            f"sizes mean little. Every row is mapped, nothing sampled; perplexity {used['perplexity']:g}, "
            f"{used['iterations']} iterations, seed {used['seed']}: the same table and settings give the "
            "same picture to the last bit, however many threads compute it. " + MARKS_CAPTION
        ),
    }
    return found | ({"tsne_regions_caption": Note(REGIONS)} if labelled else {})


def _hubs(done: map_jobs.Done, index, name: str) -> Parts:
    """The 20 pieces in the most lists of 10 nearest, with their counts."""
    top = map_reading.top_hubs(done.occurrence, 20)
    hubs = {
        "piece": [index.pieces[i] for i in top],
        "id": top.astype(int),
        "in how many pieces' 10 nearest": done.occurrence[top].astype(int),
    }
    return {
        "hubs_title": Note("The 20 biggest hubs", TEXT, bold="The 20 biggest hubs"),
        "hubs_caption": Note(HUBS),
        "hubs": Table(
            hubs, f"{name} t-SNE hubs", {**hubs, "piece": list(map(glyphs.legible, hubs["piece"]))}
        ),
    }


def colouring(choice: str, done: map_jobs.Done) -> map_marks.Colouring | None:
    if choice == settings.MAP_COLOURS[1]:
        return map_marks.kept_colouring(done.kept)
    if choice == settings.MAP_COLOURS[2]:
        return map_marks.hub_colouring(done.occurrence)
    return None
