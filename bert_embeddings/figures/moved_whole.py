"""What the What moved page shows of the whole spaces, composed once for the page and a lesson's
handout (through moved_page): the whole spaces' figures, every shared piece's figures and lists as
files, how many neighbours the pieces keep (and by kind of piece), and the sidebar's model through
its layers, each from the two spaces compared (``moved_pieces.Compared``) or from the lists a
background job left."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings.figures import space_charts, views
from bert_embeddings.figures.handout_parts import Chart, Composed, Download, Metric, Note
from bert_embeddings.figures.job_results import TableMissingError, model_key, stage_lists
from bert_embeddings.figures.moved_pieces import Compared
from bert_embeddings.spaces import compare, pair, stages
from bert_embeddings.views.sources import Sources


@dataclass(frozen=True)
class Whole(Composed):
    """The whole spaces' figures, each named by the k it is computed at."""

    metrics: tuple[Metric, ...]
    k_note: Note | None = None  # too few shared pieces for compare.WHOLE_K: which k instead, and why


@dataclass(frozen=True)
class ListsFile(Composed):
    caption: Note
    download: Download


@dataclass(frozen=True)
class Files(Composed):
    """Every shared piece's figures, and each side's neighbour lists."""

    caption: Note
    figures: Download
    lists: tuple[ListsFile, ...]


@dataclass(frozen=True)
class Picture(Composed):
    histogram: Chart
    histogram_download: Download
    kinds: Chart
    kinds_download: Download


@dataclass(frozen=True)
class Layers(Composed):
    """The sidebar's model stage by stage; or why not (only its embeddings, or lists not made yet)."""

    only_embeddings: Note | None = None
    pending: Note | None = None
    chart: Chart | None = None
    download: Download | None = None
    caption: Note | None = None


def whole(result: compare.Comparison, pieces: int) -> Whole:
    """overlap@k, and the overlap at compare.WHOLE_K (or at the most the shared pieces allow) when
    that is another k; with too few shared ``pieces`` for compare.WHOLE_K, why."""
    figures = {f"Mean overlap@{result.k}": f"{result.mean_overlap:.3f}"}
    if result.whole_k != result.k:
        figures[f"Mean overlap@{result.whole_k}"] = f"{result.mean_overlap_10:.3f}"
    figures["Linear CKA"] = f"{result.cka:.3f}"
    residual = result.procrustes
    figures["Procrustes residual"] = "widths differ" if residual is None else f"{residual:.3f}"
    note = None
    if result.whole_k != compare.WHOLE_K:
        note = Note(
            f"Mean overlap@{compare.WHOLE_K} needs at least {compare.WHOLE_K + 1} shared pieces; with "
            f"{pieces:,}, each has {pieces - 1:,} others, so the whole spaces' overlap is given at "
            f"k = {result.whole_k}."
        )
    return Whole(tuple(Metric(label, value) for label, value in figures.items()), note)


def files(found: Compared) -> Files:
    """Every shared piece's figures and both neighbour lists (row numbers among the shared
    pieces, in this order), as CSV and .npy."""
    result, pieces, name = found.result, found.shared.pieces, found.name
    k = result.k
    lists = tuple(
        ListsFile(
            Note(f"Each piece's {k} nearest in {label}, as row numbers of the file above (from 0)"),
            Download(f"neighbours in {side}, {name}", each[:, :k], pieces, list(range(1, k + 1)), "piece"),
        )
        for side, each, label in zip("AB", found.lists, found.labels, strict=True)
    )
    return Files(
        Note(f"Every shared piece (the filters aside): overlap@{k} and second-order similarity"),
        Download(
            f"per-piece figures, {name}",
            np.column_stack([result.overlap, result.second_order]),
            pieces,
            [f"overlap@{k}", "second-order"],
            "piece",
        ),
        lists,
    )


def picture(found: Compared) -> Picture:
    """How many neighbours the pieces keep, and by kind of piece, each with its numbers."""
    result, name = found.result, found.name
    k = result.k
    counts = space_charts.kept_counts(result.overlap, k)
    by_kind = compare.overlap_by_kind(result.overlap, compare.piece_kinds(found.shared.pieces))
    title = f"How many of {k} neighbours each piece keeps"
    return Picture(
        Chart("mv_hist", space_charts.overlap_histogram(result.overlap, k, title)),
        Download(
            f"pieces by neighbours kept, {name}", counts[:, None], list(range(k + 1)), ["pieces"], "kept"
        ),
        Chart("mv_kinds", space_charts.kind_bars(by_kind, k, "By kind of piece")),
        Download(
            f"by kind of piece, {name}",
            np.array([[count, mean] for _, count, mean in by_kind]),
            [kind for kind, _, _ in by_kind],
            ["pieces", f"mean overlap@{k}"],
            "kind",
        ),
    )


def through_the_layers(shape: tuple[str, int], sources: Sources) -> Layers:
    """The sidebar's model stage by stage in geometry ``shape``: each stage's mean overlap@10 with
    the token rows and its mean cosine, once every stage's neighbour lists are on disk; else a
    note saying what waits."""
    model = sources.model
    names = stages.stage_names(model)
    if len(names) > 2 and not stages.has_whole_model(model):
        return Layers(only_embeddings=Note(stages.only_embeddings(model)))
    lists = [stage_lists(sources, stage, shape) for stage in names]
    if any(found is None for found in lists):
        return Layers(pending=Note(LAYERS_PENDING))
    made = lambda model, lists: pair.through_the_stages(model, lists, shape)  # noqa: E731
    rows = sources.held("through the stages", (model_key(sources), shape), made, model, tuple(lists))
    if rows is None:  # a stage's table went missing after its lists were made
        raise TableMissingError()
    labels = [stages.stage_label(stage) for stage in names]
    series = {"mean overlap@10 with the token rows": rows[:, 0], "mean cosine (anisotropy)": rows[:, 1]}
    title = f"{model.name}, stage by stage ({views.described(shape)})"
    return Layers(
        chart=Chart("mv_layers_chart", space_charts.through_the_stages(labels, series, title)),
        download=Download(f"through the layers, {title}", rows, labels, list(series), "stage"),
        caption=Note(LAYERS_CAPTION),
    )


LAYERS_PENDING = (
    "Through the layers needs every stage's neighbour lists, computed once in the background by the "
    "explorer's server: open the step's page in the explorer to see it."
)
LAYERS_CAPTION = (
    "Mean cosine is the average over every pair of different pieces, exactly: ‖Σ uᵢ‖² − Σ ‖uᵢ‖² over "
    "n(n − 1), with uᵢ each piece's vector scaled to length 1. For BERT, Ethayarajh (2019) found that it "
    "stays low in the embedding layer and rises in the last layers; set your model's line beside that."
)
