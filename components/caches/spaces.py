"""What moved's caches: each side's space and neighbour lists (the background jobs', read from
disk once per process), the pieces two vocabularies share, the comparison (once per process for
each pair of spaces, geometry and k), a geometry fitted to a space's rows, the aligned maps and the
series through the layers. Keyed by strings (the model's folder and key, the lists' name, and for
what is read from disk the folder it is read from, so that a cache folder that changes is read
afresh); the arrays and models ride along unhashed (``_`` arguments)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from bert_embeddings import config
from bert_embeddings.analysis import geometry
from bert_embeddings.figures.job_results import TableMissingError
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import aligned, aligned_jobs, compare, pair, space_jobs, stages


class NotOnDiskError(Exception):
    """Raised inside a cached function, so that "not there yet" is not cached."""


@st.cache_resource(max_entries=6, show_spinner=False)
def _space(folder: str, stage: str, cache: str, _model: LoadedModel) -> pair.Space:
    # The token rows are the model's own (no copy); the output is made here (a fraction of a
    # second) and kept on disk; a layer is read from disk, where its job put it.
    found = pair.space_of(_model, stage, compute=stage in (stages.TOKEN, stages.OUTPUT))
    if found is None:
        raise NotOnDiskError(stage)
    return found


def space(model: LoadedModel, stage: str) -> pair.Space | None:
    """The model's stage as a space, or None while its table is not on disk (a layer)."""
    try:
        return _space(str(model.folder), stage, str(config.explorer_cache_dir()), model)
    except NotOnDiskError:
        return None


@st.cache_resource(max_entries=4, show_spinner=False)
def shared(
    folder_a: str, folder_b: str, _pieces_a: tuple[str, ...], _pieces_b: tuple[str, ...]
) -> compare.Shared:
    return compare.shared_pieces(_pieces_a, _pieces_b)


@st.cache_resource(max_entries=4, show_spinner=False)
def model_key(folder: str, _model: LoadedModel) -> str:
    return space_jobs.model_key(_model)  # (its weight files read once per process)


def lists(key: str, name: str, spec: space_jobs.Spec) -> np.ndarray:
    """The lists ``name`` of the space ``key``, as its job left them in the cache folder (raises
    NotOnDiskError while they are not there)."""
    return _lists(str(space_jobs.folder_for(key)), name, spec)


@st.cache_resource(max_entries=8, show_spinner=False)
def _lists(folder: str, name: str, _spec: space_jobs.Spec) -> np.ndarray:
    found = space_jobs.lists_for(Path(folder), _spec)
    if found is None:
        raise NotOnDiskError(name)
    return found


@st.cache_resource(max_entries=2, show_spinner=False)
def comparison(
    key: tuple, geometry_key: tuple[str, int], k: int, _a: pair.Space, _b: pair.Space, _lists: tuple, _shared
) -> compare.Comparison:
    """Every figure of the comparison, once per process for each pair of spaces, geometry and k
    (``key`` names the two spaces)."""
    return pair.compare_spaces(_a, _b, geometry_key, _lists, k, _shared)


@st.cache_resource(max_entries=4, show_spinner=False)
def fitted(key: tuple, geometry_key: tuple[str, int], _space: pair.Space, _rows) -> geometry.Geometry | None:
    # A geometry is a mean and a few directions: small, fitted once per space, rows and geometry.
    return pair.fitted(_space, _rows, geometry_key)


def aligned_maps(name: str, folder: Path) -> aligned.AlignedMaps:
    """The aligned maps ``name`` as their job left them in ``folder`` (raises NotOnDiskError while
    they are not there)."""
    return _aligned_maps(name, str(folder))


@st.cache_resource(max_entries=2, show_spinner=False)
def _aligned_maps(name: str, folder: str) -> aligned.AlignedMaps:
    found = aligned_jobs.finished(Path(folder))
    if found is None:
        raise NotOnDiskError(name)
    return found


@st.cache_resource(max_entries=4, show_spinner=False)
def through_the_stages(
    key: str, geometry_key: tuple[str, int], _model: LoadedModel, _lists: tuple
) -> np.ndarray:
    """pair.through_the_stages, kept per process (a few floats)."""
    rows = pair.through_the_stages(_model, _lists, geometry_key)
    if rows is None:
        raise TableMissingError()
    return rows
