"""What the What moved page shows of a view, composed once for the page and a lesson's handout: two
spaces (two stages of one model, or a stage of each of two) compared over the pieces they share,
from each space's exact neighbour lists. The lists are a background job's (space_jobs), read where
the job left them and never started or waited for here: while a side's are not there the
composition holds a note saying so, which the page leaves out (its job panel says it) and a
handout writes. ``other`` is the second model's Sources (None: the sidebar's model again).
"""

from __future__ import annotations

import numpy as np

from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import moved_pieces, settings, space_charts, views
from bert_embeddings.figures.handout_parts import (
    BLOCKED,
    INK,
    WARNING,
    Chart,
    Download,
    Metric,
    Note,
    Parts,
    geometry_of,
    within,
)
from bert_embeddings.figures.job_results import model_key, stage_lists
from bert_embeddings.figures.moved_pieces import Compared
from bert_embeddings.spaces import aligned_jobs, compare, pair, space_jobs, stages
from bert_embeddings.views import link_text
from bert_embeddings.views.sources import Sources


class TableMissingError(ExplorerError):
    def __init__(self) -> None:
        super().__init__(
            "A stage's table is no longer in the cache folder (removed, or found damaged): reload the page "
            "and compute its neighbour lists again."
        )


def stage_of(model, value: object, key: str) -> str:
    """The stage a view names for a side: ``last`` is the model's last layer; a stage the model
    lacks is the page's default."""
    names = stages.stage_names(model)
    stage = names[-1] if value == link_text.LAST_LAYER else str(value)
    return within(stage, names, settings.default(key))


def shared_pieces(sources: Sources, other: Sources) -> compare.Shared:
    """The pieces both vocabularies hold, matched by their string."""
    a, b = sources.model, other.model
    return sources.held(
        "shared",
        (str(a.folder), str(b.folder)),
        compare.shared_pieces,
        sources.index().pieces,
        other.index().pieces,
    )


def stage_space(sources: Sources, stage: str) -> pair.Space | None:
    """The model's stage as a space, or None while its table is not on disk (a layer)."""
    model = sources.model
    return sources.held(
        "stage space",
        (str(model.folder), stage),
        lambda loaded: pair.space_of(loaded, stage, compute=stage in (stages.TOKEN, stages.OUTPUT)),
        model,
    )


def side_labels(models: tuple[str, str], chosen: tuple[str, str]) -> tuple[str, str]:
    """Each side as the page names it: "A: model, stage", "B: model, stage"."""
    return tuple(
        f"{side}: {model}, {stages.stage_label(stage)}"
        for side, model, stage in zip("AB", models, chosen, strict=True)
    )


def file_name(models: tuple[str, str], stage_names: tuple[str, str], described: str, k: int) -> str:
    """What the page's files hold, for their names: the page, each side's model (named once when
    both are one model) and stage, the geometry and k, each a clause of its own, so that a name
    shortened for its length keeps them all (export.file_stem)."""
    labels = [stages.stage_label(stage) for stage in stage_names]
    if models[0] == models[1]:
        spaces = f"{models[0]}, {labels[0]} → {labels[1]}"
    else:
        spaces = f"{models[0]}, {labels[0]} → {models[1]}, {labels[1]}"
    return f"what moved: {spaces} ({described}, k {k})"


def compared(values: dict, sources: Sources, other: Sources | None = None) -> Compared | Parts:
    """The comparison of the view's two spaces; else the parts that say why there is none yet
    (what the vocabularies share, then: a layer of a model with only its embeddings, or the
    lists not computed)."""
    other = other or sources
    a, b = sources.model, other.model
    chosen = (
        stage_of(a, values[settings.MV_STAGE_A], settings.MV_STAGE_A),
        stage_of(b, values[settings.MV_STAGE_B], settings.MV_STAGE_B),
    )
    shape = geometry_of(values, sources.index().table.shape[1])
    shared = shared_pieces(sources, other)
    k = compare.check_k(values[settings.MV_K], len(shared.pieces))
    for model, stage in zip((a, b), chosen, strict=True):
        if stage not in (stages.TOKEN, stages.OUTPUT) and not stages.has_whole_model(model):
            said = Note(stages.only_embeddings(model), WARNING, icon=BLOCKED)
            return shared_caption(shared) | {"only_embeddings": said}
    rows = (pair.subset(shared, 0, a.vocab_size), pair.subset(shared, 1, b.vocab_size))
    lists = tuple(
        stage_lists(each, stage, shape, side_rows)
        for each, stage, side_rows in zip((sources, other), chosen, rows, strict=True)
    )
    if any(found is None for found in lists):
        return shared_caption(shared) | {"lists_pending": Note(_pending(chosen, k))}
    spaces = (stage_space(sources, chosen[0]), stage_space(other, chosen[1]))
    if spaces[0] is None or spaces[1] is None:  # its table went missing after its lists were made
        raise TableMissingError()
    key = (model_key(sources), chosen[0], model_key(other), chosen[1])
    result = sources.held(
        "comparison",
        (key, shape, k),
        lambda *made: pair.compare_spaces(made[0], made[1], shape, made[2], k, made[3]),
        *spaces,
        lists,
        shared,
    )
    labels = side_labels((a.name, b.name), chosen)
    name = file_name((a.name, b.name), chosen, views.described(shape), k)
    return Compared(chosen, shared, labels, name, lists, result, shape, spaces)


def _pending(chosen: tuple[str, str], k: int) -> str:
    said = []
    for stage in chosen:
        label = stages.stage_label(stage)
        said.append(f"the {label}" if stage in (stages.TOKEN, stages.OUTPUT) else label)
    return (
        f"This step's figures are not in the handout. What moved compares every piece's {k} nearest "
        f"neighbours in {said[0]} and in {said[1]}, over the whole vocabulary, exactly: the "
        "explorer's server computes each space's neighbour lists once, in the background, and keeps "
        "them for everyone. Open the step's page in the explorer to see its figures."
    )


def moved_page(values: dict, sources: Sources, other: Sources | None = None, *, ink: str = INK) -> Parts:
    """The page's parts: what the two vocabularies share, the whole spaces' figures, the movers,
    every shared piece's figures and lists as files, a piece side by side, the aligned maps, the
    whole picture and the sidebar's model through its layers; a note for each that waits on lists
    or maps not there yet. The page adds the text colour of its theme (``ink``)."""
    found = compared(values, sources, other)
    if not isinstance(found, Compared):
        return found
    return parts_of(found, values, sources, other, ink) | through_the_layers(values, sources)


def parts_of(found: Compared, values: dict, sources: Sources, other: Sources | None, ink: str = INK) -> Parts:
    """The page's parts of a comparison, in the page's order (through the layers aside)."""
    order, problem = moved_pieces.ranked(found, values, sources)
    row, side = side_of(found, values, sources, other, order)
    return (
        shared_caption(found.shared)
        | whole(found.result, len(found.shared.pieces))
        | problem
        | moved_pieces.movers(found, order)
        | downloads(found)
        | side
        | aligned_of(found, values, sources, other, first_of(order) if row is None else row, ink)
        | whole_picture(found)
    )


def first_of(order: np.ndarray) -> int:
    """The piece side by side when the view names none: the top mover."""
    return int(order[0]) if len(order) else 0


def side_of(
    found: Compared, values: dict, sources: Sources, other: Sources | None, order: np.ndarray
) -> tuple[int | None, Parts]:
    """The piece the view puts side by side (the top mover if it names none) and its parts; None
    and a note for a piece the two vocabularies do not share."""
    typed = values[settings.MV_PIECE]
    row = moved_pieces.piece_row(found.shared.pieces, typed, first_of(order))
    if row is None:
        return None, moved_pieces.not_shared(typed)
    return row, moved_pieces.side_by_side(found, (sources, other or sources), row)


def aligned_spec(found: Compared, sources: Sources, other: Sources | None) -> aligned_jobs.PairSpec:
    """The aligned maps' job: both sides' stages over their shared rows, in the view's geometry."""
    specs = []
    for side, (each, stage) in enumerate(zip((sources, other or sources), found.stages, strict=True)):
        rows = pair.subset(found.shared, side, each.model.vocab_size)
        specs.append(space_jobs.Spec(str(each.model.folder), stage, found.shape, space_jobs.rows_name(rows)))
    return aligned_jobs.PairSpec(model_key(sources), specs[0], model_key(other or sources), specs[1])


def aligned_of(
    found: Compared, values: dict, sources: Sources, other: Sources | None, row: int, ink: str
) -> Parts:
    """The aligned maps at the view's step, where their job left them; else a note saying so."""
    spec = aligned_spec(found, sources, other)
    maps = sources.kept(
        "aligned maps",
        (spec.name(), aligned_jobs.folder_for(spec)),
        lambda: aligned_jobs.finished(aligned_jobs.folder_for(spec)),
    )
    if maps is None:
        return {"aligned_pending": Note(ALIGNED_PENDING)}
    step = int(within(values[settings.MV_STEP], settings.MV_STEPS, settings.default(settings.MV_STEP)))
    return moved_pieces.aligned_maps(found, maps, step, row, ink)


ALIGNED_PENDING = (
    "The aligned maps (A's t-SNE map of every shared piece, and B's laid out from it) are drawn on "
    "request, once, by the explorer's server: open the step's page in the explorer to see them."
)


def shared_caption(shared: compare.Shared) -> Parts:
    left_out = (
        f"; left out: {shared.only_a:,} of A's pieces and {shared.only_b:,} of B's"
        if shared.only_a or shared.only_b
        else ""
    )
    said = f"{len(shared.pieces):,} pieces in both vocabularies, matched by their string{left_out}."
    return {"shared": Note(said)}


def whole(result: compare.Comparison, pieces: int) -> Parts:
    """The whole spaces' figures, each named by the k it was computed at: overlap@k, and the
    overlap at compare.WHOLE_K (or at the most the shared pieces allow) when that is another k;
    with too few shared ``pieces`` for compare.WHOLE_K, why."""
    figures = {f"Mean overlap@{result.k}": f"{result.mean_overlap:.3f}"}
    if result.whole_k != result.k:
        figures[f"Mean overlap@{result.whole_k}"] = f"{result.mean_overlap_10:.3f}"
    figures["Linear CKA"] = f"{result.cka:.3f}"
    residual = result.procrustes
    figures["Procrustes residual"] = "widths differ" if residual is None else f"{residual:.3f}"
    parts: Parts = {f"whole {label}": Metric(label, value) for label, value in figures.items()}
    if result.whole_k != compare.WHOLE_K:
        parts["whole_k_note"] = Note(
            f"Mean overlap@{compare.WHOLE_K} needs at least {compare.WHOLE_K + 1} shared pieces; with "
            f"{pieces:,}, each has {pieces - 1:,} others, so the whole spaces' overlap is given at "
            f"k = {result.whole_k}."
        )
    return parts


def downloads(found: Compared) -> Parts:
    """Every shared piece's figures and both neighbour lists (row numbers among the shared
    pieces, in this order), as CSV and .npy."""
    result, pieces, name = found.result, found.shared.pieces, found.name
    k = result.k
    parts: Parts = {
        "figures_caption": Note(
            f"Every shared piece (the filters aside): overlap@{k} and second-order similarity"
        ),
        "figures_download": Download(
            f"per-piece figures, {name}",
            np.column_stack([result.overlap, result.second_order]),
            pieces,
            [f"overlap@{k}", "second-order"],
            "piece",
        ),
    }
    for side, lists, label in zip("AB", found.lists, found.labels, strict=True):
        parts[f"lists_caption {side}"] = Note(
            f"Each piece's {k} nearest in {label}, as row numbers of the file above (from 0)"
        )
        parts[f"lists_download {side}"] = Download(
            f"neighbours in {side}, {name}", lists[:, :k], pieces, list(range(1, k + 1)), "piece"
        )
    return parts


def whole_picture(found: Compared) -> Parts:
    """How many neighbours the pieces keep, and by kind of piece, each with its numbers."""
    result, name = found.result, found.name
    k = result.k
    counts = space_charts.kept_counts(result.overlap, k)
    by_kind = compare.overlap_by_kind(result.overlap, compare.piece_kinds(found.shared.pieces))
    title = f"How many of {k} neighbours each piece keeps"
    return {
        "mv_hist": Chart("mv_hist", space_charts.overlap_histogram(result.overlap, k, title)),
        "mv_hist_download": Download(
            f"pieces by neighbours kept, {name}", counts[:, None], list(range(k + 1)), ["pieces"], "kept"
        ),
        "mv_kinds": Chart("mv_kinds", space_charts.kind_bars(by_kind, k, "By kind of piece")),
        "mv_kinds_download": Download(
            f"by kind of piece, {name}",
            np.array([[count, mean] for _, count, mean in by_kind]),
            [kind for kind, _, _ in by_kind],
            ["pieces", f"mean overlap@{k}"],
            "kind",
        ),
    }


def through_the_layers(values: dict, sources: Sources) -> Parts:
    """The sidebar's model stage by stage: each stage's mean overlap@10 with the token rows and
    its mean cosine, once every stage's neighbour lists are on disk; else a note saying what waits."""
    model = sources.model
    names = stages.stage_names(model)
    if len(names) > 2 and not stages.has_whole_model(model):
        return {"layers_only_embeddings": Note(stages.only_embeddings(model))}
    shape = geometry_of(values, sources.index().table.shape[1])
    lists = [stage_lists(sources, stage, shape) for stage in names]
    if any(found is None for found in lists):
        return {"layers_pending": Note(LAYERS_PENDING)}
    made = lambda model, lists: pair.through_the_stages(model, lists, shape)  # noqa: E731
    rows = sources.held("through the stages", (model_key(sources), shape), made, model, tuple(lists))
    if rows is None:  # a stage's table went missing after its lists were made
        raise TableMissingError()
    labels = [stages.stage_label(stage) for stage in names]
    series = {"mean overlap@10 with the token rows": rows[:, 0], "mean cosine (anisotropy)": rows[:, 1]}
    title = f"{model.name}, stage by stage ({views.described(shape)})"
    return {
        "layers_chart": Chart("mv_layers_chart", space_charts.through_the_stages(labels, series, title)),
        "layers_download": Download(f"through the layers, {title}", rows, labels, list(series), "stage"),
        "layers_caption": Note(LAYERS_CAPTION),
    }


LAYERS_PENDING = (
    "Through the layers needs every stage's neighbour lists, computed once in the background by the "
    "explorer's server: open the step's page in the explorer to see it."
)
LAYERS_CAPTION = (
    "Mean cosine is the average over every pair of different pieces, exactly: ‖Σ uᵢ‖² − Σ ‖uᵢ‖² over "
    "n(n − 1), with uᵢ each piece's vector scaled to length 1. For BERT, Ethayarajh (2019) found that it "
    "stays low in the embedding layer and rises in the last layers; set your model's line beside that."
)

COMPOSERS = {"moved": moved_page}
