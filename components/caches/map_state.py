"""The t-SNE map's caches: which map the model in use has, read from disk once per process,
and its region labels (components/caches/store.py's caches, continued for maps)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from bert_embeddings import config
from bert_embeddings.analysis import geometry
from bert_embeddings.figures import views
from bert_embeddings.jobs import backend, files
from bert_embeddings.maps import forecast, map_jobs, map_reading, neighbour_map, pace
from bert_embeddings.models import checkpoints
from components.caches import store
from components.parts.messages import friendly_errors

RAW = ("raw", 0)


@st.cache_resource(max_entries=2, show_spinner=False)
def _table_fingerprint(spec: str, revision: str) -> str:
    return files.fingerprint(store.model(spec, revision).tables.word_embeddings)


class _NotFinishedError(Exception):
    """Raised inside _finished_map, so that "no map yet" is not cached."""


@st.cache_resource(max_entries=4, show_spinner=False)
def _finished_map(folder: str) -> map_jobs.Done:
    # A finished map is about 2 MB of arrays, read and checked once per process.
    done = map_jobs.load(Path(folder))
    if done is None:
        raise _NotFinishedError(folder)
    return done


def _fingerprint(key: str, revision: str, geometry_key: tuple[str, int]) -> str:
    return map_jobs.map_name(_table_fingerprint(key, revision), geometry_key)


@st.cache_resource(max_entries=4, show_spinner=False)
def _map_labels(
    key: str, revision: str, settings: neighbour_map.Settings, geometry_key: tuple[str, int]
) -> tuple[map_reading.Label, ...]:
    done = _finished_map(str(map_jobs.folder_for(_fingerprint(key, revision, geometry_key), settings)))
    return views.map_labels(done, store.vocab_index(key, revision))


def map_labels(geometry_key: tuple[str, int] = RAW) -> tuple[map_reading.Label, ...]:
    """The finished t-SNE map's region labels, made once per process (after the map is read)."""
    return _map_labels(*store.active(), map_settings(), geometry.key(*geometry_key))


def kept(name: str, active: tuple[str, str], geometry_key: tuple[str, int]):
    """What model_caches.sources reads of a model's t-SNE map in a geometry, here: the finished
    map (None while it is not), or its region labels."""
    if name == "map labels":
        return _map_labels(*active, map_settings(), geometry_key)
    try:
        return _finished_map(str(map_jobs.folder_for(_fingerprint(*active, geometry_key), map_settings())))
    except _NotFinishedError:
        return None


def map_settings() -> neighbour_map.Settings:
    return map_jobs.default_settings()


# A vocabulary this big is mapped only when someone asks, having seen what it costs.
ASK_FIRST_ROWS = 60_000


def asks_first(rows: int) -> bool:
    return rows >= ASK_FIRST_ROWS


def cost() -> tuple[forecast.TimeLeft, float, bool]:
    """What the model in use's map will cost on this server: (seconds, as a range; the worker's
    peak MB; whether the seconds are scaled by this server's own pace, measured on its last map)."""
    shape = forecast.Shape.of(*store.model(*store.active()).tables.word_embeddings.shape, map_settings())
    measured = pace.read(config.explorer_cache_dir() / "maps")
    return forecast.before_start(shape, measured or 1.0), forecast.peak_mb(shape), measured is not None


def neighbour_map_of_model(
    geometry_key: tuple[str, int] = RAW, start: bool = True
) -> map_jobs.Done | backend.Job | None:
    """The t-SNE map of the model in use in the geometry ``geometry_key`` (its name and D): finished
    (read from disk once), or the job computing it, which this call starts (unless ``start`` is
    False and this process knows no job for it: None then) unless it already runs for any session
    of this process. A geometry's map
    is of the transformed rows, made only for the worker to read, so that its cosine neighbours
    are that geometry's."""
    geometry_key = geometry.key(*geometry_key)
    table, print_ = (
        store.model(*store.active()).tables.word_embeddings,
        _fingerprint(*store.active(), geometry_key),
    )
    folder = str(map_jobs.folder_for(print_, map_settings()))
    try:
        return _finished_map(folder)
    except _NotFinishedError:
        pass
    if not start and backend.job_in(Path(folder)) is None:
        return None  # (a job this process knows of is joined: running, waiting its turn, or failed)
    fitted = None if geometry_key == RAW else store.fitted(*geometry_key)
    prepare = None if fitted is None else (lambda rows: geometry.transformed_table(rows, fitted))
    result = map_jobs.start(table, map_settings(), print_, prepare)
    return _finished_map(folder) if isinstance(result, map_jobs.Done) else result


def precompute_default_map() -> None:
    """At a server's first run (if the host asked for it): start the default model's map."""
    if config.precompute_maps() and not _precompute_started:
        _precompute_started.append(True)
        with friendly_errors(stop=False):
            model, active = store.open_model(checkpoints.default_spec(), config.revision())
            map_jobs.start(model.tables.word_embeddings, map_settings(), _table_fingerprint(*active))


_precompute_started: list[bool] = []
