"""What the pages ask of the caches (components/caches/store.py): the model in use, loaded with its
notices, the sidebar's sentences as it reads them, and the results a view is drawn from
(``sources``); the three slow results a page waits for before it goes on, with a spinner; and where
errors become messages on the page (parts/messages.py)."""

from __future__ import annotations

import streamlit as st

from bert_embeddings import config
from bert_embeddings.analysis import vocab_search
from bert_embeddings.figures import settings
from bert_embeddings.models import checkpoints, tokenize
from bert_embeddings.views.sources import Sources
from components.caches import store
from components.caches.app_sources import Cached
from components.parts import echo
from components.parts.messages import friendly_errors, show_notices  # the pages' through here
from components.view_state import inputs

model_key = store.active  # the model in use as caches name it, (key, revision), for components


def require_model() -> checkpoints.LoadedModel:
    """The model chosen in the sidebar, with a notice when another one stands in for it.

    If the chosen model cannot be loaded, its message is shown and the page carries on with
    the last model that loaded in this session, or on a first visit (a link naming a model
    that cannot be had) with the app's default model.
    """
    chosen = inputs.current()
    previous = store.in_use()
    default = checkpoints.default_spec()
    model = None
    with friendly_errors(stop=previous is None and chosen.model_spec == default):
        with st.spinner(echo.plain(f"Loading the embedding layer of {chosen.model_spec or 'the model'}...")):
            model, key = store.open_model(chosen.model_spec, chosen.revision)
            store.use(key)
    if model is None:  # the chosen model failed: go on with one that loads
        with friendly_errors():  # the previous one may have left the cache and need loading again
            if previous is not None:
                model, shown = store.model(*previous), "Still showing {}, the last model that loaded."
            else:
                model, key = store.open_model(default, chosen.revision)
                store.use(key)
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
        found = store.resolution(chosen.model_spec, chosen.revision)
        if found.hub_files and (found.key, chosen.revision) not in store.loaded_once:
            return None
        return store.open_model(chosen.model_spec, chosen.revision)[0]
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
        encoding = store.encoding(*store.active(), i.text_a, i.text_b, i.add_special_tokens)
    if encoding is not None and notices:
        show_notices(encoding)
    return encoding


def second_model(spec: str) -> tuple[checkpoints.LoadedModel, vocab_search.VocabIndex] | None:
    """Another model to compare with (same caches, at most two models resident); None if it fails."""
    revision = config.revision()
    loaded = None
    with friendly_errors(stop=False), st.spinner(echo.plain(f"Loading the embedding layer of {spec}...")):
        model, active = store.open_model(spec, revision)
        loaded = (model, store.vocab_index(*active))
    return loaded


def sources(key: tuple[str, str] | None = None) -> Sources:
    """The results the pages draw from, read from the caches, for the model cached under ``key``
    (model_key's answer; by default the model in use, which require_model has loaded)."""
    return Cached(*(key or store.active()))


def sources_of(spec: str, revision: str) -> Sources:
    """The same for the model ``spec`` names, resolved and loaded as the pages load it."""
    found = store.resolution(spec, revision)
    return Cached(found.key, revision, store.model(found.key, revision, found))


def vocab_index() -> vocab_search.VocabIndex:
    """The model in use's neighbour-search index (``sources().index()``), for a page that needs it
    before it goes on: built once per model for every session, with a spinner the first time."""
    with friendly_errors(), st.spinner("Preparing the vocabulary for search..."):
        return sources().index()


def lab(removed: int):
    """The Geometry page's measurements of the model in use (``sources().lab``), once per model and D."""
    with friendly_errors(), st.spinner("Measuring every row of both tables in every geometry..."):
        return sources().lab(removed)


def full_model():
    """The whole model with every encoder layer (``sources().full_model()``): only Context asks."""
    found = sources()
    message = (
        f"Loading the whole model ({found.model.name}: every encoder layer, not only the "
        "embeddings). This happens once for everyone using this server..."
    )
    with friendly_errors(), st.spinner(echo.plain(message)):
        return found.full_model()


def sentence_values() -> dict:
    """The sidebar's sentences, as a view's values name them."""
    i = inputs.current()
    keys = (settings.SENTENCE_A_KEY, settings.SENTENCE_B_KEY, settings.SPECIAL_TOKENS_KEY)
    return dict(zip(keys, (i.text_a, i.text_b, i.add_special_tokens), strict=True))
