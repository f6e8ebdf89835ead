"""Every cache the app keeps, keyed by strings and flags (model spec, revision, text), never by
arrays or tensors, with one exception: a neighbour search is keyed by its query vectors' bytes
(at most 512 x 1,024 floats), which is what the search reads.

``cache_resource`` holds what all sessions share read-only, per model (at most two models): the
embedding layer, its transformers reference module, the neighbour-search index, the vocabulary and
position PCA, and (one at a time) the whole model for the Context page. ``cache_data`` holds small
per-input results. Per-input breakdowns are not cached: numpy computes them in milliseconds, and
caching (tokens x hidden x stages) arrays for many inputs would cost a shared server memory.

model_caches turns these into what pages ask for (with their messages), and app_sources into the
results a view is drawn from; here, only a download's progress bar and a geometry's fitting are
said on the page while they run.
"""

from __future__ import annotations

import dataclasses
import threading

import numpy as np
import streamlit as st

from bert_embeddings.analysis import contextual, decompose, geometry, geometry_lab, projection, vocab_search
from bert_embeddings.models import checkpoints, threads, tokenize
from components.frame import runs
from components.view_state import inputs, session_entries

threads.for_shared_server()  # one BLAS thread per call: sessions share the cores side by side

ACTIVE = "active"  # in the session's model entry: (key, revision) of the model its pages use


def active() -> tuple[str, str]:
    """The model in use as the caches name it, (key, revision): the one model_caches.require_model
    loaded for this run (it runs before any other call)."""
    if (key := in_use()) is not None:
        return key
    i = inputs.current()
    return i.model_spec, i.revision


def use(key: tuple[str, str]) -> None:
    """The model cached under ``key`` is the one this session's pages use from now on."""
    session_entries.entry(session_entries.MODEL)[ACTIVE] = key


def in_use() -> tuple[str, str] | None:
    """The model this session's pages last used (None before any page loaded one)."""
    return session_entries.entry(session_entries.MODEL).get(ACTIVE)


@st.cache_data(max_entries=512, show_spinner=False)
def resolution(spec: str, revision: str) -> checkpoints.Resolution:
    # Small and per name: a stranger's many names cost a few bytes each here, and every one
    # that falls back resolves to the same key, so none of them can push the model that a
    # workshop uses out of model's two places. Only a listed model may fall back to the
    # bundled one: a name from the free field or a link that cannot be fetched is an error.
    return checkpoints.resolve(spec, revision, fallback=spec in checkpoints.listed_specs())


@st.cache_resource(max_entries=2, show_spinner=False)
def model(key: str, revision: str, _resolution=None, _progress=None) -> checkpoints.LoadedModel:
    # Keyed by what is loaded (a resolution's key), not by the name asked for. Arguments that
    # start with "_" are left out of the cache key. Without a resolution, a Hub model is read
    # from its local copy (it was downloaded when first loaded).
    return checkpoints.load_resolved(_resolution or checkpoints.Resolution(key, key), revision, _progress)


# Models this process has loaded. Streamlit may still evict one from model's cache; it is
# then loaded again, only without the progress bar.
loaded_once: set[tuple[str, str]] = set()


def open_model(spec: str, revision: str) -> tuple[checkpoints.LoadedModel, tuple[str, str]]:
    """The model a name resolves to, with its notice, and the (key, revision) it is cached under."""
    found = resolution(spec, revision)
    loaded = load_with_progress(found.key, revision, found)
    if found.notice:
        loaded = dataclasses.replace(loaded, notice=found.notice)
    return loaded, (found.key, revision)


def load_with_progress(key: str, revision: str, found: checkpoints.Resolution) -> checkpoints.LoadedModel:
    """Load a model (cached), drawing a progress bar while a download runs.

    The load runs in a helper thread that only updates plain numbers; the bar is drawn here,
    in the script's thread: a cached function must not write to elements created outside it.
    """
    if (key, revision) in loaded_once:  # almost every run: a cache hit needs no helper thread
        return model(key, revision, found)
    seen = {"done": 0, "total": 0}
    result, failure = [], []

    def work() -> None:
        try:
            progress = lambda done, total: seen.update(done=done, total=total)  # noqa: E731
            result.append(model(key, revision, found, progress))
        except BaseException as exc:  # handed to the script's thread below
            failure.append(exc)

    worker = threading.Thread(target=work, daemon=True, name=f"load-{key}")
    runs.in_this_run(worker)
    worker.start()
    bar = None
    while worker.is_alive():
        worker.join(0.25)
        if seen["total"] and worker.is_alive():
            bar = bar or st.progress(0.0)
            done, total = seen["done"], seen["total"]
            bar.progress(
                min(1.0, done / total),
                text=f"Downloading the embedding layer: {done / 1e6:.0f} of {total / 1e6:.0f} MB",
            )
    if bar is not None:
        bar.empty()
    if failure:
        raise failure[0]
    loaded_once.add((key, revision))
    return result[0]


@st.cache_resource(max_entries=2, show_spinner=False)
def reference_module(spec: str, revision: str):
    return decompose.build_reference_module(model(spec, revision))


@st.cache_resource(max_entries=2, show_spinner=False)
def vocab_index(spec: str, revision: str) -> vocab_search.VocabIndex:
    loaded = model(spec, revision)
    return vocab_search.build_index(loaded.tables.word_embeddings, loaded.tokenizer)


@st.cache_resource(max_entries=4, show_spinner=False)
def vocabulary_pca(
    spec: str, revision: str, name: str, removed: int
) -> tuple[projection.PcaBasis, np.ndarray]:
    """The basis fitted on every vocabulary row in a geometry, and every row's coordinates
    (vocab, 10): 1.2 MB for bert-base, kept; the geometry's rows are never held whole."""
    return geometry.pca(model(spec, revision).tables.word_embeddings, space(spec, revision, name, removed))


@st.cache_resource(max_entries=2, show_spinner=False)
def position_pca(spec: str, revision: str) -> tuple[projection.PcaBasis, np.ndarray]:
    table = model(spec, revision).tables.position_embeddings
    basis = projection.fit(table)
    return basis, projection.project(basis, table)


@st.cache_resource(max_entries=1, show_spinner=False)
def full_model(spec: str, revision: str):
    # One whole model per process: it is several times the embedding layer's size.
    return contextual.load_full_model(model(spec, revision))


# Few: a sentence of bert-base's 512 positions holds 20 MB of states. The room that shows one
# Context view runs it once for all its followers.
@st.cache_resource(max_entries=4, show_spinner=False)
def hidden_states(spec: str, revision: str, text: str) -> np.ndarray:
    states = contextual.hidden_states(full_model(spec, revision), model(spec, revision).encode(text))
    states.flags.writeable = False  # (shared by every session)
    return states


@st.cache_data(max_entries=256, show_spinner=False)
def encoding(spec: str, revision: str, text_a: str, text_b: str, special: bool) -> tokenize.Encoding:
    return model(spec, revision).encode(text_a, text_b, add_special_tokens=special)


@st.cache_data(max_entries=256, show_spinner=False)
def verification(spec: str, revision: str, text_a: str, text_b: str, special: bool) -> decompose.Verification:
    encoded = encoding(spec, revision, text_a, text_b, special)
    checked = decompose.decompose(model(spec, revision), encoded)
    return decompose.verify(reference_module(spec, revision), encoded, checked)


@st.cache_data(max_entries=128, show_spinner=False)
def pattern_rows(key: str, revision: str, pattern: str, _label: str) -> np.ndarray:
    # 30 KB a pattern; "_label" only words a message, so it is left out of the key.
    return vocab_search.matching_rows(vocab_index(key, revision), pattern, _label)


def pattern_rows_of(index: vocab_search.VocabIndex, pattern: str, label: str = "The pattern") -> np.ndarray:
    """vocab_search.matching_rows, scanning the vocabulary once per model and pattern: the
    Neighbours page filters its search and its grid with the same patterns on every run, and a
    scan takes about 40 ms. An index other than the model in use is scanned directly."""
    if index is not vocab_index(*active()):
        return vocab_search.matching_rows(index, pattern, label)
    return pattern_rows(*active(), pattern, label)


@st.cache_resource(max_entries=8, show_spinner=False)
def space(key: str, revision: str, name: str, removed: int) -> geometry.Geometry:
    # A few vectors and one float per row (0.3 MB for bert-base), shared by every session.
    return geometry.fit(vocab_index(key, revision).table, name, removed)


def fitted(name: str, removed: int, key: tuple[str, str] | None = None) -> geometry.Geometry:
    """The geometry ``name`` fitted to the model in use's token table (``removed``: D for
    all-but-the-top), or to the model cached under ``key``, once per model for every session."""
    with st.spinner(f"Fitting the {name} geometry to the token table..."):
        return space(*(key or active()), *geometry.key(name, removed))


@st.cache_resource(max_entries=2, show_spinner=False)
def lab(key: str, revision: str, removed: int) -> geometry_lab.Lab:
    # The output table (94 MB for bert-base) is made for this and dropped; what is kept is a
    # few MB of statistics and row norms.
    loaded, index = model(key, revision), vocab_index(key, revision)
    outputs = lambda start, stop: decompose.vocabulary_outputs(loaded, start, stop)  # noqa: E731
    return geometry_lab.measure(index.table, outputs, index.pieces, removed)


@st.cache_data(max_entries=64, show_spinner=False)
def _nearest(
    key: str,
    revision: str,
    queries: bytes,
    hidden: int,
    k: int,
    geometry_key: tuple[str, int],
    filters,
    each: bool,
    weight: float,
) -> vocab_search.Neighbours | list[vocab_search.Neighbours]:
    # Keyed by the query vectors' float32 bytes (the search reads them as float32 anyway): a
    # workshop's followers all ask for the same search, and only the first one pays for it.
    vectors = np.frombuffer(queries, dtype=np.float32).reshape(-1, hidden)
    index, shape = vocab_index(key, revision), space(key, revision, *geometry_key)
    if each:
        return vocab_search.nearest_for_each(index, vectors, k, shape, filters, match=pattern_rows_of)
    return vocab_search.nearest(index, vectors[0], k, shape, filters, pattern_rows_of, weight)


def nearest(
    query: np.ndarray,
    k: float,
    geometry_key: tuple[str, int],
    filters: vocab_search.Filters,
    each: bool = False,
    weight: float = 1.0,
    key: tuple[str, str] | None = None,
) -> vocab_search.Neighbours | list[vocab_search.Neighbours]:
    """vocab_search.nearest over the model in use (or ``key``'s) under the geometry ``geometry_key``
    (its name and D), or with ``each``, nearest_for_each for every row of ``query``; cached for every
    session: the same search gives the same answer. ``weight`` as vocab_search.Query has it."""
    vectors = np.ascontiguousarray(np.atleast_2d(query), dtype=np.float32)
    k = vocab_search.check_k(k)
    geometry_key = geometry.key(*geometry_key)
    key = key or active()
    fitted(*geometry_key, key=key)  # fitted here, with its spinner, if no session has yet
    return _nearest(*key, vectors.tobytes(), vectors.shape[1], k, geometry_key, filters, each, float(weight))
