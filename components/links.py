"""Shareable links: what is on screen lives in the address bar, and a copied link brings it back.

On a session's first run ``restore`` reads the link's query parameters, checks each one, and
puts the valid ones into session state before any widget is drawn. A value that fails its
check is dropped, so its widget keeps the default, and ``restore`` names it in a notice.
On every run ``publish`` writes the settings of the page being shown back into the URL,
leaving out those still at their defaults, so the address bar is always a link to the view.
The page itself is the URL's path (``/neighbours``), which Streamlit routes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from bert_embeddings import checkpoints, decompose, limits, patterns, vocab_search
from bert_embeddings.errors import ExplorerError
from components import echo
from components import widgets as w

# Longer sentences are left out of the link: browsers and proxies refuse very long URLs.
LINK_TEXT_LIMIT = 2000
RESTORED = "_link_restored"  # set once the session's first run has read its link
# Streamlit's own parameters (embedding an app in a page) pass through untouched.
STREAMLIT_PARAMS = ("embed", "embed_options")


@dataclass(frozen=True)
class Param:
    """One setting in the URL: its name there, its widget key, and how to read it back."""

    name: str
    key: str
    page: str | None  # the url_path of the page it belongs to; None for the sidebar
    read: Callable[[str], object]  # raises ValueError, with the reason, for an invalid value
    write: Callable[[object], str] = str
    mode: str | None = None  # a neighbour query's input counts only in its own query mode


def _whole_number(low: int, high: int | None = None) -> Callable[[str], float]:
    """A whole number in a link, as the float its number box holds."""

    def read(text: str) -> float:
        try:
            number = int(text)
        except ValueError:
            raise ValueError("not a whole number") from None
        if number < low or (high is not None and number > high):
            raise ValueError(f"outside {low} to {high}" if high is not None else f"below {low}")
        return float(number)

    return read


def _int(low: int) -> Callable[[str], int]:
    """A whole number for a select box, which holds ints."""
    read = _whole_number(low)
    return lambda text: int(read(text))


def _whole_text(value: object) -> str:
    return str(int(value))


def _one_of(codes: dict[str, object]) -> Callable[[str], object]:
    def read(text: str) -> object:
        if text not in codes:
            raise ValueError("one of " + ", ".join(codes))
        return codes[text]

    return read


def _code_of(codes: dict[str, object]) -> Callable[[object], str]:
    names = {value: code for code, value in codes.items()}
    return lambda value: names[value]


def _text(limit: limits.Limit) -> Callable[[str], str]:
    def read(text: str) -> str:
        if len(text) > limit.most:
            raise ValueError(f"longer than {limit.most:,} characters")
        return text

    return read


def _pattern(text: str) -> str:
    try:
        patterns.compile_pattern(text)
    except ExplorerError as problem:
        raise ValueError(str(problem)) from None
    return text


_FLAGS = {"1": True, "0": False}
_MODES = {"word": "word", "id": "token id", "token": "sentence token", "sum": "arithmetic"}
_SIMILARITIES = {"cosine": w.SIMILARITIES[0], "centred": w.SIMILARITIES[1]}
_STAGES = dict(zip(("token", "position", "segment", "layernorm"), decompose.STAGES, strict=True))
_MAP_DIMS = {"2": "2-D", "3": "3-D"}
_COMPONENT = _whole_number(1, 10)

PARAMS = (
    # An empty sentence A is a view like any other (the pages say what is missing), so a link
    # may hold it: the address bar shows ?a= after A is cleared, and reopening it must work.
    Param("a", w.SENTENCE_A_KEY, None, _text(limits.SENTENCE)),
    Param("b", w.SENTENCE_B_KEY, None, _text(limits.SENTENCE)),
    Param("special", w.SPECIAL_TOKENS_KEY, None, _one_of(_FLAGS), _code_of(_FLAGS)),
    Param("mode", w.NB_MODE, "neighbours", _one_of(_MODES), _code_of(_MODES)),
    Param("q", w.NB_WORD, "neighbours", _text(limits.WORD), mode="word"),
    Param("id", w.NB_ID, "neighbours", _whole_number(0), _whole_text, mode="token id"),
    Param("sum", w.NB_EXPRESSION, "neighbours", _text(limits.ARITHMETIC), mode="arithmetic"),
    Param("token", w.NB_TOKEN, "neighbours", _int(0), mode="sentence token"),
    Param("stage", w.NB_STAGE, "neighbours", _one_of(_STAGES), _code_of(_STAGES), mode="sentence token"),
    Param("k", w.NB_K, "neighbours", _whole_number(1, vocab_search.MAX_K), _whole_text),
    Param("sim", w.NB_SIMILARITY, "neighbours", _one_of(_SIMILARITIES), _code_of(_SIMILARITIES)),
    Param("hide_pieces", w.NB_HIDE_CONTINUATION, "neighbours", _one_of(_FLAGS), _code_of(_FLAGS)),
    Param("hide_special", w.NB_HIDE_SPECIAL, "neighbours", _one_of(_FLAGS), _code_of(_FLAGS)),
    Param("leave_out", w.NB_LEAVE_OUT, "neighbours", _one_of(_FLAGS), _code_of(_FLAGS)),
    Param("only", w.NB_INCLUDE, "neighbours", _pattern),
    Param("not", w.NB_EXCLUDE, "neighbours", _pattern),
    Param("map", w.PCA_DIMS, "pca", _one_of(_MAP_DIMS), _code_of(_MAP_DIMS)),
    Param("x", w.PCA_X, "pca", _COMPONENT, _whole_text),
    Param("y", w.PCA_Y, "pca", _COMPONENT, _whole_text),
    Param("z", w.PCA_Z, "pca", _COMPONENT, _whole_text),
    Param("highlight", w.PCA_HIGHLIGHT, "pca", _pattern),
)
MODEL = "model"  # the model is two widgets (the picker and the free field), so it is handled apart
KNOWN = {MODEL, *(p.name for p in PARAMS), *STREAMLIT_PARAMS}


def _model_from_link(spec: str) -> tuple[str, str]:
    """The picker's option and the free field's text for a model named in a link."""
    if spec in w.model_options():
        return spec, ""
    if w.OTHER not in w.model_options():
        raise ValueError("this app only offers the models in its list")
    # A link may name a Hub id but never a folder on the server that hosts the app.
    if not checkpoints.is_hub_id(spec):
        raise ValueError("not a Hugging Face Hub id")
    return w.OTHER, spec


def restore() -> list[str]:
    """On the session's first run, put the link's valid settings into session state.

    Returns one sentence per value that was not used, for a notice; later runs return [].
    """
    state = st.session_state
    if state.get(RESTORED):
        return []
    state[RESTORED] = True
    given = st.query_params.to_dict()
    problems = []
    if MODEL in given:
        try:
            state[w.MODEL_KEY], state[w.CUSTOM_MODEL_KEY] = _model_from_link(given[MODEL])
        except ValueError as reason:
            problems.append(f"model={given[MODEL][:60]!r} ({reason})")
    for param in PARAMS:
        if param.name in given:
            try:
                state[param.key] = param.read(given[param.name])
            except ValueError as reason:
                problems.append(f"{param.name}={given[param.name][:60]!r} ({reason})")
    problems += [f"{name} (not a setting of this app)" for name in given if name not in KNOWN]
    return problems


def notice(problems: list[str]) -> str:
    return (
        "Part of this link could not be used, so the default stands in for: "
        + "; ".join(problems)
        + ". Everything else in the link was applied."
    )


def settings(page: str) -> dict[str, str]:
    """The URL parameters for ``page``: each setting shown there that differs from its default."""
    state = st.session_state
    params = {}
    choice = state.get(w.MODEL_KEY, w.model_options()[0])
    if choice == w.OTHER:
        custom = (state.get(w.CUSTOM_MODEL_KEY) or "").strip()
        if checkpoints.is_hub_id(custom):
            params[MODEL] = custom
    elif choice != w.model_options()[0] and choice in w.model_options():
        params[MODEL] = choice
    for param in PARAMS:
        if param.page not in (None, page) or param.key not in state:
            continue
        if param.mode is not None and state.get(w.NB_MODE, w.DEFAULTS[w.NB_MODE]) != param.mode:
            continue
        value = state[param.key]
        if value is None or value == w.DEFAULTS.get(param.key):
            continue
        # Only a value the link can carry and give back: not 1.5 for k (the page shows its
        # message; the link keeps the default), nor a sentence too long for an address.
        try:
            text = param.write(value)
            if len(text) <= LINK_TEXT_LIMIT and param.read(text) == value:
                params[param.name] = text
        except (ValueError, TypeError, OverflowError):
            continue
    return params


def publish(page: str) -> None:
    """Make the address bar a link to this view (writing only when something changed)."""
    wanted = settings(page)
    current = st.query_params.to_dict()
    wanted.update({name: current[name] for name in STREAMLIT_PARAMS if name in current})
    if wanted != current:
        st.query_params.from_dict(wanted)


def share_hint() -> None:
    """A line under the sidebar's inputs: how to share, and what a link leaves out."""
    too_long = [
        label
        for label, key in (("sentence A", w.SENTENCE_A_KEY), ("sentence B", w.SENTENCE_B_KEY))
        if len(st.session_state.get(key) or "") > LINK_TEXT_LIMIT
    ]
    hint = ":material/link: The address bar links to this view: copy it to share what you see."
    if too_long:
        hint += f" Over {LINK_TEXT_LIMIT:,} characters, {' and '.join(too_long)} stay out of the link."
    st.sidebar.caption(hint)


def keep_within(key: str, options, default, label: str) -> None:
    """Before a selectbox: a value it does not offer (from a link, or left over from a longer
    sentence) becomes ``default``, and the page says so. Nothing set yet means the default."""
    state = st.session_state
    if key not in state:
        state[key] = default
    elif state[key] not in options:
        st.info(
            echo.plain(f"{label} {state[key]!r} is not available here, so {default!r} is shown instead."),
            icon=":material/link_off:",
        )
        state[key] = default
