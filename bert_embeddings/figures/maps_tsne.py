"""The Maps page's t-SNE map of the vocabulary, composed once for the page and a lesson's handout
(through maps_page): the map where its background job left it (never started or waited for here:
a note while it is not there), coloured as asked, with its region labels, its file, how faithful it
is and how to read it, and its hubs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import geometry
from bert_embeddings.figures import map_charts, map_marks, views
from bert_embeddings.figures.handout_parts import TEXT, Chart, Composed, Download, Note, Table
from bert_embeddings.jobs import files
from bert_embeddings.maps import map_jobs, map_reading
from bert_embeddings.models import glyphs
from bert_embeddings.views.sources import Sources

COLOURS = ("kind of piece", "how well its neighbours are kept", "hubness")  # what colours its points
MARKS_CAPTION = (
    "Hover a point for its piece; click one to mark its 10 nearest pieces by cosine (circles, joined to "
    "it by lines) and its 10 nearest points on this map (triangles). Marked on top, each in its own "
    "shape: your sentence's pieces (squares, in the text colour), pieces matching the highlight "
    "pattern (diamonds) and the latest search on the Neighbours page (crosses); the legend names each. "
    "Their labels keep clear of each other even on a phone: one with no room left is left out, and hover "
    "names its point."
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


@dataclass(frozen=True)
class Tsne(Composed):
    """The t-SNE map and what reads it; only a note while its job has not made it."""

    waiting: Note | None = None
    chart: Chart | None = None
    download_caption: Note | None = None
    download: Download | None = None
    faithfulness: Note | None = None
    kept_caption: Note | None = None
    caption: Note | None = None
    regions_caption: Note | None = None
    hubs_title: Note | None = None
    hubs_caption: Note | None = None
    hubs: Table | None = None


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


def colouring(choice: str, done: map_jobs.Done) -> map_marks.Colouring | None:
    if choice == COLOURS[1]:
        return map_marks.kept_colouring(done.kept)
    if choice == COLOURS[2]:
        return map_marks.hub_colouring(done.occurrence)
    return None


def compose(sources: Sources, shape, kinds, highlights, how: tuple[str, bool], ink: str, marked) -> Tsne:
    """The map in geometry ``shape`` with the ``kinds`` of piece and the ``highlights`` asked for,
    coloured and labelled as ``how`` says (what colours it; whether its regions are labelled);
    ``marked`` adds a click's marks before it is drawn."""
    index, model = sources.index(), sources.model
    described = views.described(shape)
    done = tsne_map(sources, shape)
    if done is None:
        return Tsne(
            waiting=Note(
                f"The page shows the t-SNE map of all {index.size:,} pieces in the {described} geometry, "
                "computed once in the background and kept: open the page to see it."
            )
        )
    colour, labelled = how
    request = views.vocabulary(
        index,
        shape,
        done.coords,
        (0, 1),
        shown_kinds=kinds,
        highlights=highlights,
        colouring=colouring(colour or COLOURS[0], done),
        underlays=[views.region_labels(done, map_labels(sources, shape, done), ink)] if labelled else [],
    )
    name = f"{model.name} {described}"
    top = map_reading.top_hubs(done.occurrence, 20)
    hubs = {
        "piece": [index.pieces[i] for i in top],
        "id": top.astype(int),
        "in how many pieces' 10 nearest": done.occurrence[top].astype(int),
    }
    return Tsne(
        chart=Chart("tsne_vocabulary", map_charts.vocabulary_map(marked("tsne_vocabulary", request))),
        download_caption=Note("Every piece's place, neighbours kept, k-occurrence and region (-1 for none):"),
        download=Download(
            f"{name} vocabulary t-SNE",
            np.column_stack(
                [done.coords.astype(np.float64), done.kept, done.occurrence, done.regions.of_row]
            ),
            index.pieces,
            ["t-SNE 1", "t-SNE 2", "neighbours kept of 10", "k-occurrence", "region"],
            "piece",
        ),
        **_reading(done),
        regions_caption=Note(REGIONS) if labelled else None,
        hubs_title=Note("The 20 biggest hubs", TEXT, bold="The 20 biggest hubs"),
        hubs_caption=Note(HUBS),
        hubs=Table(hubs, f"{name} t-SNE hubs", {**hubs, "piece": list(map(glyphs.legible, hubs["piece"]))}),
    )


def _reading(done: map_jobs.Done) -> dict[str, Note]:
    """How faithful a finished t-SNE map is, and how to read it."""
    meta = done.meta
    recall, pca_recall, used = meta["recall_at_10"], meta["pca_recall_at_10"], meta["settings"]
    none, half = float(np.mean(done.kept == 0)), float(np.mean(done.kept >= 5))
    return {
        "faithfulness": Note(
            f"**Faithfulness: neighbour recall@10 = {recall:.3f}.** On average {10 * recall:.1f} of each "
            f"piece's 10 nearest neighbours by cosine in this geometry (as the Neighbours page finds them in "
            f"it) are among its 10 nearest points on this map; on the PCA map of the same geometry it is "
            f"{10 * pca_recall:.2f} ({pca_recall:.4f}).",
            TEXT,
            markup=True,  # the explorer's own words and numbers: no joiners in what a reader copies
        ),
        "kept_caption": Note(
            f"Per piece: {none:.1%} of pieces keep none of their 10 nearest pieces by cosine among their 10 "
            f"nearest points here, and {half:.1%} keep 5 or more. The recall@10 above is the mean of these "
            "counts, divided by 10."
        ),
        "caption": Note(
            "t-SNE keeps neighbours, not distances: clusters are real, but the space between them and their "
            f"sizes mean little. Every row is mapped, nothing sampled; perplexity {used['perplexity']:g}, "
            f"{used['iterations']} iterations, seed {used['seed']}: the same table and settings give the "
            "same picture to the last bit, however many threads compute it. " + MARKS_CAPTION
        ),
    }
