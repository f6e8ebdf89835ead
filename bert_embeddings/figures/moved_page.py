"""The What moved page in the core: its settings, declared once (bert_embeddings/views/fields.py),
and what it shows of them, composed once for the page and a lesson's handout: two spaces (two
stages of one model, or a stage of each of two) compared over the pieces they share, from each
space's exact neighbour lists. The lists are a background job's (space_jobs), read where the job
left them and never started or waited for here: while a side's are not there the composition
holds a note saying so, which the page leaves out (its job panel says it) and a handout writes.
``other`` is the second model's Sources (None: the sidebar's model again). The page draws its
parts where its widgets are (moved_pieces, moved_whole); ``compose`` gives them all, in its order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings import limits
from bert_embeddings.figures import moved_pieces, moved_whole, views
from bert_embeddings.figures.handout_parts import BLOCKED, INK, WARNING, Composed, Note, geometry_of, within
from bert_embeddings.figures.job_results import TableMissingError, model_key, stage_lists
from bert_embeddings.figures.moved_pieces import Compared
from bert_embeddings.models import checkpoints
from bert_embeddings.spaces import aligned_jobs, compare, pair, space_jobs, stages
from bert_embeddings.views import fields, link_text
from bert_embeddings.views.fields import linked, shared
from bert_embeddings.views.sources import Sources

SAME = "same"  # the second-model picker's "the sidebar's model": two stages of one model, whichever it is
STEPS = {step: step for step in ("0", "25", "50", "75", "100")}  # from A's aligned map to B's, in percent


@dataclass(frozen=True)
class Settings(fields.PageSettings, fields.Filtered):
    PAGE = "moved"
    PREFIX = "mv_"

    model: str = linked(
        "vs", checkpoints.BUNDLED, "the model to compare with", link_text.listed_model_or(SAME)
    )
    # A Hub id, only where the host allows any model.
    custom: str = linked("vs_id", "", "the other model to compare with", link_text.hub_id)
    stage_a: str = linked("from", "token", "the first space's stage", link_text.stage)
    stage_b: str = linked("to", "output", "the second space's stage", link_text.stage)
    k: float = linked("mv_k", 10.0, "k", link_text.whole_number(1, 100, "k"), link_text.whole_text)
    piece: str = linked("mv_piece", "", "the piece side by side", link_text.text_of(limits.WORD))
    hide_continuation: bool = linked("mv_hide_pieces", False, "hide ## continuation pieces", *fields.FLAGS)
    hide_special: bool = linked("mv_hide_special", True, "hide [CLS], [SEP], [unusedN]...", *fields.FLAGS)
    leave_out: bool = linked(
        "mv_leave_out", False, "leave out pieces that keep every neighbour", *fields.FLAGS
    )
    include: str = linked("mv_only", "", "the 'Only pieces matching' pattern", link_text.pattern)
    exclude: str = linked("mv_not", "", "the 'Leave out pieces matching' pattern", link_text.pattern)
    step: str = linked("mv_step", "0", "how far from A's map to B's", link_text.one_of(STEPS))
    geometry: str = shared(fields.GEOMETRY)
    geometry_removed: int | None = shared(fields.GEOMETRY_REMOVED)


_DEFAULT = Settings()


@dataclass(frozen=True)
class Page(Composed):
    """The page's parts, in its order; where the comparison cannot be made yet, only what the
    vocabularies share and why."""

    shared: Note
    only_embeddings: Note | None = None
    lists_pending: Note | None = None
    whole: moved_whole.Whole | None = None
    movers: moved_pieces.Movers | None = None
    files: moved_whole.Files | None = None
    side: moved_pieces.SideBySide | None = None
    aligned: moved_pieces.Aligned | None = None
    picture: moved_whole.Picture | None = None
    layers: moved_whole.Layers | None = None


def compose(s: Settings, sources: Sources, other: Sources | None = None, *, ink: str = INK) -> Page:
    """Everything the page shows of the view: what the two vocabularies share, the whole spaces'
    figures, the movers, every shared piece's figures and lists as files, a piece side by side, the
    aligned maps, the whole picture and the sidebar's model through its layers; a note for each
    that waits on lists or maps not there yet. The page adds the text colour of its theme (``ink``)."""
    found = compared(s, sources, other)
    if not isinstance(found, Compared):
        return found
    order, problem = moved_pieces.ranked(found, s.filters(), s.leave_out, sources)
    row, side = side_of(found, s.piece, sources, other, order)
    return Page(
        shared_caption(found.shared),
        whole=moved_whole.whole(found.result, len(found.shared.pieces)),
        movers=moved_pieces.movers(found, order, problem),
        files=moved_whole.files(found),
        side=side,
        aligned=aligned_of(found, s.step, sources, other, first_of(order) if row is None else row, ink),
        picture=moved_whole.picture(found),
        layers=moved_whole.through_the_layers(found.shape, sources),
    )


def stage_of(model, value: object, default: str) -> str:
    """The stage a view names for a side: ``last`` is the model's last layer; a stage the model
    lacks is the page's ``default``."""
    names = stages.stage_names(model)
    stage = names[-1] if value == link_text.LAST_LAYER else str(value)
    return within(stage, names, default)


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


def compared(s: Settings, sources: Sources, other: Sources | None = None) -> Compared | Page:
    """The comparison of the view's two spaces; else the parts that say why there is none yet
    (what the vocabularies share, then: a layer of a model with only its embeddings, or the
    lists not computed)."""
    other = other or sources
    a, b = sources.model, other.model
    chosen = (stage_of(a, s.stage_a, _DEFAULT.stage_a), stage_of(b, s.stage_b, _DEFAULT.stage_b))
    shape = geometry_of(s.values(), sources.index().table.shape[1])
    shared = shared_pieces(sources, other)
    k = compare.check_k(s.k, len(shared.pieces))
    for model, stage in zip((a, b), chosen, strict=True):
        if stage not in (stages.TOKEN, stages.OUTPUT) and not stages.has_whole_model(model):
            said = Note(stages.only_embeddings(model), WARNING, icon=BLOCKED)
            return Page(shared_caption(shared), only_embeddings=said)
    rows = (pair.subset(shared, 0, a.vocab_size), pair.subset(shared, 1, b.vocab_size))
    lists = tuple(
        stage_lists(each, stage, shape, side_rows)
        for each, stage, side_rows in zip((sources, other), chosen, rows, strict=True)
    )
    if any(found is None for found in lists):
        return Page(shared_caption(shared), lists_pending=Note(_pending(chosen, k)))
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


def first_of(order: np.ndarray) -> int:
    """The piece side by side when the view names none: the top mover."""
    return int(order[0]) if len(order) else 0


def side_of(
    found: Compared, typed: str, sources: Sources, other: Sources | None, order: np.ndarray
) -> tuple[int | None, moved_pieces.SideBySide]:
    """The piece ``typed`` side by side (the top mover if it is empty) and its parts; None and a
    note for a piece the two vocabularies do not share."""
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
    found: Compared, step: str, sources: Sources, other: Sources | None, row: int, ink: str
) -> moved_pieces.Aligned:
    """The aligned maps at ``step`` (percent, as text), where their job left them; else a note
    saying so."""
    spec = aligned_spec(found, sources, other)
    maps = sources.kept(
        "aligned maps",
        (spec.name(), aligned_jobs.folder_for(spec)),
        lambda: aligned_jobs.finished(aligned_jobs.folder_for(spec)),
    )
    if maps is None:
        return moved_pieces.Aligned(pending=Note(ALIGNED_PENDING))
    return moved_pieces.aligned_maps(found, maps, int(within(step, STEPS, _DEFAULT.step)), row, ink)


ALIGNED_PENDING = (
    "The aligned maps (A's t-SNE map of every shared piece, and B's laid out from it) are drawn on "
    "request, once, by the explorer's server: open the step's page in the explorer to see them."
)


def shared_caption(shared: compare.Shared) -> Note:
    left_out = (
        f"; left out: {shared.only_a:,} of A's pieces and {shared.only_b:,} of B's"
        if shared.only_a or shared.only_b
        else ""
    )
    said = f"{len(shared.pieces):,} pieces in both vocabularies, matched by their string{left_out}."
    return Note(said)
