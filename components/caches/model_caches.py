"""Every cache of the app, and where errors become messages on the page (parts/messages.py).

Caches are keyed by strings and flags (model spec, revision, text), never by arrays or
tensors, with one exception: a neighbour search is keyed by its query vectors' bytes (at most
512 x 1,024 floats), which is what the search reads. ``cache_resource`` holds what all
sessions share read-only, per model (at most two models): the embedding layer, its
transformers reference module, the neighbour-search index, the vocabulary and position PCA,
and (one at a time) the whole model for the Context page.
``cache_data`` holds small per-input results. Per-input breakdowns are not cached: numpy
computes them in milliseconds, and caching (tokens x hidden x stages) arrays for many inputs
would cost a shared server memory.
"""

from __future__ import annotations

import dataclasses
import threading

import numpy as np
import streamlit as st

from bert_embeddings import config
from bert_embeddings.analysis import (
    contextual,
    decompose,
    geometry,
    geometry_lab,
    projection,
    vocab_search,
)
from bert_embeddings.models import checkpoints, threads, tokenize
from bert_embeddings.views import settings
from bert_embeddings.views.sources import Sources
from components.frame import runs
from components.parts import echo
from components.parts.messages import friendly_errors, show_notices  # the pages' through here
from components.view_state import inputs

threads.for_shared_server()  # one BLAS thread per call: sessions share the cores side by side


@st.cache_data(max_entries=512, show_spinner=False)
def _resolution(spec: str, revision: str) -> checkpoints.Resolution:
    # Small and per name: a stranger's many names cost a few bytes each here, and every one
    # that falls back resolves to the same key, so none of them can push the model that a
    # workshop uses out of _model's two places. Only a listed model may fall back to the
    # bundled one: a name from the free field or a link that cannot be fetched is an error.
    return checkpoints.resolve(spec, revision, fallback=spec in checkpoints.listed_specs())


@st.cache_resource(max_entries=2, show_spinner=False)
def _model(key: str, revision: str, _resolution=None, _progress=None) -> checkpoints.LoadedModel:
    # Keyed by what is loaded (a resolution's key), not by the name asked for. Arguments that
    # start with "_" are left out of the cache key. Without a resolution, a Hub model is read
    # from its local copy (it was downloaded when first loaded).
    return checkpoints.load_resolved(_resolution or checkpoints.Resolution(key, key), revision, _progress)


def _open(spec: str, revision: str) -> tuple[checkpoints.LoadedModel, tuple[str, str]]:
    """The model a name resolves to, with its notice, and the (key, revision) it is cached under."""
    resolution = _resolution(spec, revision)
    model = _load_with_progress(resolution.key, revision, resolution)
    if resolution.notice:
        model = dataclasses.replace(model, notice=resolution.notice)
    return model, (resolution.key, revision)


def _load_with_progress(
    key: str, revision: str, resolution: checkpoints.Resolution
) -> checkpoints.LoadedModel:
    """Load a model (cached), drawing a progress bar while a download runs.

    The load runs in a helper thread that only updates plain numbers; the bar is drawn here,
    in the script's thread: a cached function must not write to elements created outside it.
    """
    if (key, revision) in _loaded_once:  # almost every run: a cache hit needs no helper thread
        return _model(key, revision, resolution)
    seen = {"done": 0, "total": 0}
    result, failure = [], []

    def work() -> None:
        try:
            progress = lambda done, total: seen.update(done=done, total=total)  # noqa: E731
            result.append(_model(key, revision, resolution, progress))
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
    _loaded_once.add((key, revision))
    return result[0]


# Models this process has loaded. Streamlit may still evict one from _model's cache; it is
# then loaded again, only without the progress bar.
_loaded_once: set[tuple[str, str]] = set()


@st.cache_resource(max_entries=2, show_spinner=False)
def _reference_module(spec: str, revision: str):
    return decompose.build_reference_module(_model(spec, revision))


@st.cache_resource(max_entries=2, show_spinner=False)
def _vocab_index(spec: str, revision: str) -> vocab_search.VocabIndex:
    model = _model(spec, revision)
    return vocab_search.build_index(model.tables.word_embeddings, model.tokenizer)


@st.cache_resource(max_entries=4, show_spinner=False)
def _vocabulary_pca(
    spec: str, revision: str, name: str, removed: int
) -> tuple[projection.PcaBasis, np.ndarray]:
    """The basis fitted on every vocabulary row in a geometry, and every row's coordinates
    (vocab, 10): 1.2 MB for bert-base, kept; the geometry's rows are never held whole."""
    return geometry.pca(_model(spec, revision).tables.word_embeddings, _space(spec, revision, name, removed))


@st.cache_resource(max_entries=2, show_spinner=False)
def _position_pca(spec: str, revision: str) -> tuple[projection.PcaBasis, np.ndarray]:
    table = _model(spec, revision).tables.position_embeddings
    basis = projection.fit(table)
    return basis, projection.project(basis, table)


@st.cache_resource(max_entries=1, show_spinner=False)
def _full_model(spec: str, revision: str):
    # One whole model per process: it is several times the embedding layer's size.
    return contextual.load_full_model(_model(spec, revision))


# Few: a sentence of bert-base's 512 positions holds 20 MB of states. The room that shows one
# Context view runs it once for all its followers.
@st.cache_resource(max_entries=4, show_spinner=False)
def _hidden_states(spec: str, revision: str, text: str) -> np.ndarray:
    states = contextual.hidden_states(_full_model(spec, revision), _model(spec, revision).encode(text))
    states.flags.writeable = False  # (shared by every session)
    return states


@st.cache_data(max_entries=256, show_spinner=False)
def _encoding(spec: str, revision: str, text_a: str, text_b: str, special: bool) -> tokenize.Encoding:
    return _model(spec, revision).encode(text_a, text_b, add_special_tokens=special)


@st.cache_data(max_entries=256, show_spinner=False)
def _verification(
    spec: str, revision: str, text_a: str, text_b: str, special: bool
) -> decompose.Verification:
    model = _model(spec, revision)
    encoding = _encoding(spec, revision, text_a, text_b, special)
    return decompose.verify(_reference_module(spec, revision), encoding, decompose.decompose(model, encoding))


ACTIVE_MODEL = "active_model"  # (key, revision) of the model this session's pages use


def _active() -> tuple[str, str]:
    """The model in use: the one require_model loaded for this run (set before any other call)."""
    i = inputs.current()
    return st.session_state.get(ACTIVE_MODEL, (i.model_spec, i.revision))


model_key = _active  # the model in use as caches name it, (key, revision), for components


def require_model() -> checkpoints.LoadedModel:
    """The model chosen in the sidebar, with a notice when another one stands in for it.

    If the chosen model cannot be loaded, its message is shown and the page carries on with
    the last model that loaded in this session, or on a first visit (a link naming a model
    that cannot be had) with the app's default model.
    """
    chosen = inputs.current()
    previous = st.session_state.get(ACTIVE_MODEL)
    default = checkpoints.default_spec()
    model = None
    with friendly_errors(stop=previous is None and chosen.model_spec == default):
        with st.spinner(echo.plain(f"Loading the embedding layer of {chosen.model_spec or 'the model'}...")):
            model, st.session_state[ACTIVE_MODEL] = _open(chosen.model_spec, chosen.revision)
    if model is None:  # the chosen model failed: go on with one that loads
        with friendly_errors():  # the previous one may have left the cache and need loading again
            if previous is not None:
                model, shown = _model(*previous), "Still showing {}, the last model that loaded."
            else:
                model, st.session_state[ACTIVE_MODEL] = _open(default, chosen.revision)
                shown = "Showing {}, the app's default model, instead."
        # The name of what is really shown: after a fallback it is the bundled model, not
        # the one the earlier choice asked for.
        st.warning(echo.plain(shown.format(model.name)), icon=":material/history:")
    if model.notice:
        st.info(echo.plain(model.notice), icon=":material/cloud_off:")
    return model


def model_at_hand() -> checkpoints.LoadedModel | None:
    """The sidebar's model, as require_model loads it, where that needs no download; else None:
    a model still to be fetched from the Hub (the first page, which needs no model, states its
    figures without making a newcomer wait for one), or one that cannot be had (the next page that
    needs it says why). Nothing is shown here."""
    chosen = inputs.current()
    try:
        resolution = _resolution(chosen.model_spec, chosen.revision)
        if resolution.hub_files and (resolution.key, chosen.revision) not in _loaded_once:
            return None
        return _open(chosen.model_spec, chosen.revision)[0]
    except Exception:  # noqa: BLE001 - whatever it is, a page that needs the model shows it as a message
        return None


def require_encoding(stop: bool = True, notices: bool = True) -> tokenize.Encoding | None:
    """The sidebar's sentences as the model reads them; notices about the input shown, unless
    ``notices=False`` (a page that reads the sentence twice shows them in one place).

    A bad input shows its message and stops the page, or with ``stop=False`` returns None
    so that parts of the page that do not need the sentence can still be drawn.
    """
    i = inputs.current()
    encoding = None
    with friendly_errors(stop=stop):
        encoding = _encoding(*_active(), i.text_a, i.text_b, i.add_special_tokens)
    if encoding is not None and notices:
        show_notices(encoding)
    return encoding


def breakdown(model: checkpoints.LoadedModel, encoding: tokenize.Encoding) -> decompose.EmbeddingBreakdown:
    with friendly_errors():
        return decompose.decompose(model, encoding)


def vocab_index() -> vocab_search.VocabIndex:
    """The sidebar model's neighbour-search index: built once per model, shared by all sessions."""
    with friendly_errors(), st.spinner("Preparing the vocabulary for search..."):
        return _vocab_index(*_active())


@st.cache_data(max_entries=128, show_spinner=False)
def _pattern_rows(key: str, revision: str, pattern: str, _label: str) -> np.ndarray:
    # 30 KB a pattern; "_label" only words a message, so it is left out of the key.
    return vocab_search.matching_rows(_vocab_index(key, revision), pattern, _label)


def pattern_rows(index: vocab_search.VocabIndex, pattern: str, label: str = "The pattern") -> np.ndarray:
    """vocab_search.matching_rows, scanning the vocabulary once per model and pattern: the
    Neighbours page filters its search and its grid with the same patterns on every run, and a
    scan takes about 40 ms. An index other than the model in use is scanned directly."""
    if index is not _vocab_index(*_active()):
        return vocab_search.matching_rows(index, pattern, label)
    return _pattern_rows(*_active(), pattern, label)


@st.cache_resource(max_entries=8, show_spinner=False)
def _space(key: str, revision: str, name: str, removed: int) -> geometry.Geometry:
    # A few vectors and one float per row (0.3 MB for bert-base), shared by every session.
    return geometry.fit(_vocab_index(key, revision).table, name, removed)


def space(name: str, removed: int, key: tuple[str, str] | None = None) -> geometry.Geometry:
    """The geometry ``name`` fitted to the model in use's token table (``removed``: D for
    all-but-the-top), or to the model cached under ``key``, once per model for every session."""
    with st.spinner(f"Fitting the {name} geometry to the token table..."):
        return _space(*(key or _active()), *geometry.key(name, removed))


@st.cache_resource(max_entries=2, show_spinner=False)
def _lab(key: str, revision: str, removed: int) -> geometry_lab.Lab:
    # The output table (94 MB for bert-base) is made for this and dropped; what is kept is a
    # few MB of statistics and row norms.
    model, index = _model(key, revision), _vocab_index(key, revision)
    outputs = lambda start, stop: decompose.vocabulary_outputs(model, start, stop)  # noqa: E731
    return geometry_lab.measure(index.table, outputs, index.pieces, removed)


def lab(removed: int) -> geometry_lab.Lab:
    """The Geometry page's measurements of the model in use, once per model and D."""
    with friendly_errors(), st.spinner("Measuring every row of both tables in every geometry..."):
        return _lab(*_active(), removed)


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
    index, fitted = _vocab_index(key, revision), _space(key, revision, *geometry_key)
    if each:
        return vocab_search.nearest_for_each(index, vectors, k, fitted, filters, match=pattern_rows)
    return vocab_search.nearest(index, vectors[0], k, fitted, filters, pattern_rows, weight)


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
    key = key or _active()
    space(*geometry_key, key=key)  # fitted here, with its spinner, if no session has yet
    return _nearest(*key, vectors.tobytes(), vectors.shape[1], k, geometry_key, filters, each, float(weight))


def vocabulary_pca(geometry_key: tuple[str, int] = ("raw", 0)) -> tuple[projection.PcaBasis, np.ndarray]:
    """PCA of the whole token table in the geometry ``geometry_key`` (its name and D): fitted once
    per model, shared by every session. PCA centres the rows itself, so centred is raw's map."""
    name, removed = geometry.pca_key(*geometry_key)
    with friendly_errors(), st.spinner("Fitting PCA on every row of the vocabulary..."):
        space(name, removed)
        return _vocabulary_pca(*_active(), name, removed)


def position_pca() -> tuple[projection.PcaBasis, np.ndarray]:
    """PCA of the position table: fitted once per model, shared by every session."""
    with friendly_errors():
        return _position_pca(*_active())


def full_model():
    """The whole model with every encoder layer. Only the Context page asks for it."""
    key, revision = _active()
    message = (
        f"Loading the whole model ({_model(key, revision).name}: every encoder layer, not only the "
        "embeddings). This happens once for everyone using this server..."
    )
    with friendly_errors(), st.spinner(echo.plain(message)):
        return _full_model(key, revision)


def second_model(spec: str) -> tuple[checkpoints.LoadedModel, vocab_search.VocabIndex] | None:
    """Another model to compare with (same caches, at most two models resident); None if it fails."""
    revision = config.revision()
    loaded = None
    with friendly_errors(stop=False), st.spinner(echo.plain(f"Loading the embedding layer of {spec}...")):
        model, active = _open(spec, revision)
        loaded = (model, _vocab_index(*active))
    return loaded


def sources(key: tuple[str, str] | None = None) -> Sources:
    """The results the pages draw from, read from these caches, for the model cached under ``key``
    (model_key's answer; by default the model in use, which require_model has loaded)."""
    from components.caches import app_sources  # (which reads these caches)

    return app_sources.Cached(*(key or _active()))


def sources_of(spec: str, revision: str) -> Sources:
    """The same for the model ``spec`` names, resolved and loaded as the pages load it."""
    from components.caches import app_sources

    resolution = _resolution(spec, revision)
    return app_sources.Cached(resolution.key, revision, _model(resolution.key, revision, resolution))


def sentence_values() -> dict:
    """The sidebar's sentences, as a view's values name them."""
    i = inputs.current()
    keys = (settings.SENTENCE_A_KEY, settings.SENTENCE_B_KEY, settings.SPECIAL_TOKENS_KEY)
    return dict(zip(keys, (i.text_a, i.text_b, i.add_special_tokens), strict=True))
