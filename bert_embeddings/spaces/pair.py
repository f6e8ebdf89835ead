"""Two spaces side by side: a model's stage as a ``Space``, and the comparison of two of them over
the pieces they share, with each one's neighbour lists read from the cache folder when they are
there (space_jobs), or computed here and kept there (a notebook, the host's command).

The app asks the background job for the lists instead; both then call ``compare_spaces``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from bert_embeddings.analysis import geometry
from bert_embeddings.jobs import files
from bert_embeddings.maps import knn
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import compare, space_jobs, stages


@dataclass(frozen=True)
class Space:
    """One stage of one model: a row per vocabulary piece."""

    model: str  # the model's name
    stage: str  # "token", "output" or a layer number as text
    pieces: tuple[str, ...]
    vectors: np.ndarray  # (vocab, width) float32, read-only
    key: str  # names the model's folder of spaces in the cache (space_jobs.model_key)
    model_folder: str

    @property
    def label(self) -> str:
        return f"{self.model}, {stages.stage_label(self.stage)}"


def space_of(
    model: LoadedModel, stage: object, compute: bool = True, progress: knn.Progress = knn.quiet
) -> Space | None:
    """The model's stage as a Space: its table from the cache folder, or (with ``compute``) made
    here and kept there (``progress(step, fraction)`` while it is made); None if it is not there
    and not to be made."""
    stage = stages.check_stage(model, stage)
    key = space_jobs.model_key(model)
    folder = space_jobs.folder_for(key)
    if stage == stages.TOKEN:
        table = stages.token_table(model)
    else:
        table = space_jobs.table_in(folder, stage)
        if table is None and not compute:
            return None
        if table is None:
            folder.mkdir(parents=True, exist_ok=True)
            table = space_jobs.make_stage(folder, model, stage, progress)
    table.flags.writeable = False
    pieces = tuple(model.tokenizer.id_to_token(i) or "" for i in range(model.vocab_size))
    return Space(model.name, stage, pieces, table, key, str(model.folder))


def spec(space: Space, shape: tuple[str, int], rows: np.ndarray | None) -> space_jobs.Spec:
    """The job that makes ``space``'s lists in ``shape`` over ``rows`` (None: every row)."""
    return space_jobs.Spec(space.model_folder, space.stage, shape, space_jobs.rows_name(rows))


def subset(shared: compare.Shared, side: int, rows_in_space: int) -> np.ndarray | None:
    """The shared rows of one side (0: A, 1: B), or None if they are every row in order."""
    rows = shared.rows_a if side == 0 else shared.rows_b
    whole = len(rows) == rows_in_space and np.array_equal(rows, np.arange(rows_in_space))
    return None if whole else rows


def lists_now(
    space: Space,
    shape: tuple[str, int],
    rows: np.ndarray | None,
    threads: int = 1,
    progress: knn.Progress = knn.quiet,
) -> np.ndarray:
    """``space``'s neighbour lists over ``rows``: from the cache folder, or computed here and kept
    (``progress(step, fraction)`` meanwhile)."""
    folder = space_jobs.folder_for(space.key)
    job = spec(space, shape, rows)
    found = space_jobs.lists_for(folder, job)
    if found is not None:
        return found
    table = space.vectors if rows is None else space.vectors[rows]
    lists = space_jobs.lists_of(table, shape, threads, progress)
    folder.mkdir(parents=True, exist_ok=True)
    space_jobs.save_lists(folder, job, lists)
    return lists


def fitted(space: Space, rows: np.ndarray | None, shape: tuple[str, int]) -> geometry.Geometry | None:
    """The geometry ``shape`` fitted to the space's rows (all, or the shared ones): a mean and a
    few directions; None for the raw geometry, which fits nothing."""
    if shape[0] == "raw":
        return None
    return geometry.fit(space.vectors if rows is None else space.vectors[rows], *shape)


def rows_of(space: Space, rows: np.ndarray | None, shape: tuple[str, int]) -> np.ndarray:
    """The space's rows (all, or the shared ones) in the geometry fitted to them."""
    table = space.vectors if rows is None else space.vectors[rows]
    return compare.in_geometry(table, *shape)


def compare_spaces(
    a: Space,
    b: Space,
    shape: tuple[str, int],
    lists: tuple[np.ndarray, np.ndarray],
    k: int = compare.WHOLE_K,
    shared: compare.Shared | None = None,
) -> compare.Comparison:
    """Every figure of the comparison, from both spaces' lists over their shared rows."""
    shared = compare.shared_pieces(a.pieces, b.pieces) if shared is None else shared
    table_a = rows_of(a, subset(shared, 0, len(a.pieces)), shape)
    table_b = rows_of(b, subset(shared, 1, len(b.pieces)), shape)
    return compare.compare(table_a, table_b, *lists, k)


@dataclass(frozen=True)
class Prepared:
    stage: str
    computed: bool  # False: its table and lists were already there
    folder: str


# The steps of one stage space, as prepare_stage reports them: its table (a layer stage's first
# makes every layer's, in one pass of the whole model), then its exact neighbour lists.
TABLE = "the stage's table"
STEPS = (TABLE, knn.STAGE)


def prepare_stage(
    model: LoadedModel,
    key: str,
    stage: str,
    shape: tuple[str, int],
    threads: int = 2,
    progress: knn.Progress = knn.quiet,
) -> Prepared:
    """One stage space of ``model`` (``key``: space_jobs.model_key) with its neighbour lists over
    the whole vocabulary in ``shape``, made here unless the cache folder holds them; ``progress``
    hears each of STEPS. Stopped or failing, it leaves no half-written file; what it finished (a
    table, every layer's table) is whole and kept."""
    folder = space_jobs.folder_for(key)
    there = space_jobs.lists_for(folder, space_jobs.Spec(str(model.folder), stage, shape)) is not None
    if not there:
        try:
            space = space_of(model, stage, progress=lambda _, done: progress(TABLE, done))
            lists_now(space, shape, None, threads, progress)
        finally:  # Ctrl-C, SIGTERM or a full disk: nothing half-written stays
            files.clear_parts(folder, os.getpid())
    return Prepared(stage, not there, str(folder))


def prepare_stages(model: LoadedModel, shape: tuple[str, int], threads: int = 2) -> list[Prepared]:
    """Every stage space of ``model`` with its neighbour lists over the whole vocabulary in
    ``shape``, made here unless the cache folder holds them (``python -m bert_embeddings map
    --stages`` does it a stage at a time, with a progress bar): what the What moved page then
    reads at once."""
    key = space_jobs.model_key(model)
    return [prepare_stage(model, key, stage, shape, threads) for stage in stages.stage_names(model)]


def through_the_stages(
    model: LoadedModel, lists: tuple[np.ndarray, ...], shape: tuple[str, int]
) -> np.ndarray | None:
    """(stages, 2): each stage's mean overlap@10 with the token rows (``lists``: every stage's
    neighbour lists, in stages.stage_names order) and its mean cosine in the geometry ``shape``,
    read a stage at a time (one table in memory at once). None if a stage's table is not on disk."""
    rows = []
    for stage, found in zip(stages.stage_names(model), lists, strict=True):
        space = space_of(model, stage, compute=False)
        if space is None:
            return None
        k = min(compare.WHOLE_K, found.shape[1])
        overlap = float(compare.overlap(lists[0], found, k).mean())
        rows.append((overlap, compare.mean_cosine(compare.in_geometry(space.vectors, *shape))))
    return np.array(rows)
