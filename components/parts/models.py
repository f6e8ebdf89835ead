"""Which models a person can pick, what the sidebar says about the model in use, and the picker
for a second model that Compare models and What moved share: a listed model, or any Hub id where
the host allows any model (the sidebar's rule), loaded through the same caches as the sidebar's
model; a model that cannot be had is a message."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from bert_embeddings import config
from bert_embeddings.analysis import vocab_search
from bert_embeddings.figures import settings
from bert_embeddings.models import checkpoints
from bert_embeddings.models.architectures import CURATED
from bert_embeddings.spaces import stages
from components.caches import model_caches, store
from components.frame import host_secrets
from components.parts import echo, widgets

_CURATED = {m.spec: m for m in CURATED}


def model_options() -> list[str]:
    """The default model, the curated list, the bundled model, then (if allowed) any other."""
    options = list(checkpoints.listed_specs())
    return options + [settings.OTHER] if config.custom_models_allowed(host_secrets.secrets()) else options


def model_label(option: str) -> str:
    if option == settings.OTHER:
        return "Other Hub id or local folder..."
    if option == checkpoints.BUNDLED:
        return "all-MiniLM-L6-v2 (bundled, works offline)"
    return option


def in_use(choice: str, typed: str = "") -> str:
    """The sidebar's words (Markdown) about the model the pages run for the picker's ``choice``
    (``typed``: the free field's name), read off the loaded model itself: its name, layers and
    table; and when another model stands in for the one chosen, that it does and why. The model
    is resolved and loaded here (every page but the first loads it next anyway) unless it still
    has to be downloaded: the page that needs it fetches it, with its progress bar. A typed Hub id
    is described once a page has loaded it: one that fails is the page's to explain, and asking
    the Hub for it here would ask twice. '' when there is nothing to say yet."""
    revision = config.revision()
    spec = typed.strip() if choice == settings.OTHER else choice
    loaded = store.in_use() == (spec, revision)
    if not spec or (choice == settings.OTHER and not spec.startswith("/") and not loaded):
        return ""
    try:
        resolution = store.resolution(spec, revision)
        if resolution.hub_files and (resolution.key, revision) not in store.loaded_once:
            listed = f" ({_CURATED[spec].size}: {_CURATED[spec].description})" if spec in _CURATED else ""
            return echo.plain(f"{spec}{listed}, fetched from the Hub when a page first needs it.")
        model = store.model(resolution.key, revision, resolution)
    except Exception:  # noqa: BLE001 - whatever it is, the page shows it as a message next
        return ""
    layers = stages.layer_count(model)
    said = (
        f"{model.name}: {layers} {'layer' if layers == 1 else 'layers'}, a token table of "
        f"{model.vocab_size:,} x {model.hidden_size}, {model.max_positions:,} positions"
    )
    if resolution.notice:
        return f"**In use:** {echo.plain(said)}. **Fell back:** {echo.plain(resolution.notice)}"
    known = _CURATED[model.spec].description if model.spec in _CURATED else ""
    if model.spec == checkpoints.BUNDLED:
        known = "ships with the app, needs no network"
    return f"**In use:** {echo.plain(said + (f'; {known}' if known else ''))}."


def no_second_model(left: checkpoints.LoadedModel, right: checkpoints.LoadedModel) -> str | None:
    """Why a comparison of ``left`` with ``right`` would say nothing (Markdown), when they are one
    model's files (offline, every listed model falls back to the bundled one): and how to get a
    second model, as the host's settings and docs/deploy.md have it. None for two models."""
    if Path(left.folder).resolve() != Path(right.folder).resolve():
        return None
    field = settings.OTHER in model_options()
    lines = [
        f"**There is no second model to compare with.** 'Compare with' gives {echo.plain(right.name)}, "
        "the sidebar's model in use, and a model shares every neighbour with itself. To compare two "
        "models, pick another one in 'Compare with':",
        "- With a network, a listed model is fetched from the Hugging Face Hub"
        + (", and so is a Hub id typed in the field below." if field else "."),
        "- Without one, a model must already be on this server: in the Hugging Face cache, fetched "
        "beforehand on a machine with a network (`hf download`, then a copy of the cache folder: "
        "docs/deploy.md, 'Running offline')"
        + (", or a checkpoint folder typed in the field below as an absolute path." if field else "."),
    ]
    if not field:
        lines.append(
            "- The field for any Hub id or folder is switched off on this server "
            "(BERT_EXPLORER_ALLOW_CUSTOM_MODELS)."
        )
    if left.notice or right.notice:
        lines.append(
            "- The bundled model stands in for a listed model the Hub could not give, until the app "
            "restarts: once the Hub can be reached, restart it."
        )
    return "\n".join(lines)


def second_model(page: str, where=st) -> tuple[checkpoints.LoadedModel, vocab_search.VocabIndex] | None:
    """Draw the picker of a second model on ``page`` (in ``where``) and load it: the listed models,
    and a field for any Hub id or local folder where the host allows any model (a link may name a
    Hub id there, never a folder). None, with the reason on the page, if it cannot be had."""
    listed, custom = settings.OTHER_MODEL_FIELDS[page]
    options = [o for o in model_options() if o != settings.OTHER]
    if page == "moved":  # two stages of the sidebar's model, whichever it is (a lesson's view names it)
        options.insert(0, settings.SAME)
    label = lambda option: "The sidebar's model" if option == settings.SAME else model_label(option)  # noqa: E731
    chosen = where.selectbox("Compare with", options, format_func=label, **widgets.seeded(listed, None))
    if chosen == settings.SAME:
        return model_caches.require_model(), model_caches.vocab_index()
    if settings.OTHER in model_options():
        typed = where.text_input(
            "...or another Hub id or local folder (absolute path)", **widgets.seeded(custom)
        )
        chosen = typed.strip() or chosen
    found = model_caches.second_model(chosen)
    if found is not None and found[0].notice:
        st.info(echo.plain(found[0].notice), icon=":material/cloud_off:")
    return found
