"""Shareable links: what is on screen lives in the address bar, and a copied link brings it back.

On a session's first run ``restore`` reads the link's query parameters, checks each one, and
puts the valid ones into session state before any widget is drawn. A value that fails its
check is dropped, so its widget keeps the default, and ``restore`` names it in a notice.
On every run ``publish`` writes the settings of the page being shown back into the URL,
leaving out those still at their defaults, so the address bar is always a link to the view.
The page itself is the URL's path (``/neighbours``), which Streamlit routes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from urllib.parse import urlsplit

import streamlit as st

from bert_embeddings.figures import settings
from bert_embeddings.models import checkpoints
from bert_embeddings.spaces import stages
from bert_embeddings.views import link_text
from components.caches import model_caches
from components.parts import echo, models, widgets
from components.view_state import session_entries

# Longer sentences are left out of the link: browsers and proxies refuse very long URLs.
LINK_TEXT_LIMIT = 2000
# The fields of the session's link entry (session_entries.LINK).
RESTORED = "restored"  # set once the session's first run has read its link
UNUSED = "unused"  # what the link held that could not be used, until a page has said so
TAKEN = "taken"  # the link's parameters that were read, each named once (a repeated name: none)
# The defaults pages work out from the model in use (its last layer, its every dimension), by
# key: a value still at its page's default stays out of the link, like any other default.
PAGE_DEFAULTS = "page_defaults"
# The stages a view named ``last`` (any model's last layer), by key: the layer it stands for here,
# so that a link says ``last`` again while the stage stays there (it opens any model's last layer).
LAST_NAMED = "last_named"
# Streamlit's own parameters (embedding an app in a page) pass through untouched.
STREAMLIT_PARAMS = ("embed", "embed_options")


MODEL = "model"  # the model is two widgets (the picker and the free field), so it is handled apart
FOLLOW = "follow"  # a workshop room to follow (components/rooms/follow.py), not a setting
LESSON, STEP = "lesson", "step"  # a built-in lesson and its step (components/lessons), not settings
# Names earlier links used, read as today's: name -> (today's name, {old text: today's text}).
# The Neighbours page's "sim" and the Axes page's "origin" became the one geometry setting.
OLD_NAMES = {
    "sim": ("geometry", {"cosine": "raw", "centred": "centred"}),
    "origin": ("geometry", {"raw": "raw", "centred": "centred"}),
}


def _mine() -> dict:
    return session_entries.entry(session_entries.LINK)


def today(params: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """A link's parameters with earlier names read as today's (today's name wins if both are
    given), and one sentence for each old value that has no counterpart."""
    params, problems = dict(params), []
    for old, (new, values) in OLD_NAMES.items():
        if old not in params:
            continue
        text = params.pop(old)
        if text in values:
            params.setdefault(new, values[text])
        else:
            problems.append(f"{old}={text[:60]!r} (one of {', '.join(values)})")
    return params, problems


KNOWN = {MODEL, FOLLOW, LESSON, STEP, *(s.url for s in settings.LINKED), *OLD_NAMES, *STREAMLIT_PARAMS}


def _model_from_link(spec: str) -> tuple[str, str]:
    """The picker's option and the free field's text for a model named in a link."""
    if spec in models.model_options():
        return spec, ""
    if settings.OTHER not in models.model_options():
        raise ValueError("this app only offers the models in its list")
    # A link may name a Hub id but never a folder on the server that hosts the app.
    if not checkpoints.is_hub_id(spec):
        raise ValueError("not a Hugging Face Hub id")
    return settings.OTHER, spec


def _offered(setting: settings.Setting) -> bool:
    """Whether this app offers the setting: a Hub id to compare with only where the host lets
    people name any model (as for the sidebar's model)."""
    customs = {custom for _, custom in settings.OTHER_MODEL_FIELDS.values()}
    return setting.key not in customs or settings.OTHER in models.model_options()


def restore() -> bool:
    """On the session's first run, put the link's valid settings into session state, and keep
    one sentence per value that was not used for ``show_unused``. Returns whether this was the
    first run (later runs do nothing)."""
    state = _mine()
    if state.get(RESTORED):
        return False
    state[RESTORED] = True
    given = st.query_params.to_dict()
    # A name given twice is two answers to one question: neither is taken (no silent winner), for
    # a setting as for the room to follow, the lesson and its step (read from ``taken``).
    repeated = {name: len(values) for name in given if len(values := st.query_params.get_all(name)) > 1}
    given = state[TAKEN] = {name: text for name, text in given.items() if name not in repeated}
    problems = _read_into_state(given, reset=False)
    problems += [f"{name} (given {n} times; a link names each setting once)" for name, n in repeated.items()]
    problems += [f"{name} (not a setting of this app)" for name in given if name not in KNOWN]
    if problems:
        state[UNUSED] = problems
    return True


def taken() -> dict[str, str]:
    """The session's link as ``restore`` read it: each name given once, with its text."""
    return dict(_mine().get(TAKEN, {}))


def add_unused(problem: str) -> None:
    _mine().setdefault(UNUSED, []).append(problem)


def apply_view(params: dict[str, str]) -> None:
    """Make the session show a view given as a link's parameters: each setting a link carries
    is read (and checked) as from a link, and every one the view leaves out goes back to its
    default. Values that fail their check keep the default."""
    _read_into_state(params, reset=True)


def apply_named(params: dict[str, str]) -> list[str]:
    """Apply only the settings ``params`` names (a lesson's step): every other keeps its value.
    Returns one sentence per value its check refused (that setting keeps its value too)."""
    return _read_into_state(params, reset=False)


def differs_from(params: dict[str, str]) -> bool:
    """Whether any setting ``params`` names (as a link writes it) has another value now."""
    state = st.session_state
    by_url = {s.url: s for s in settings.LINKED}
    for name, text in params.items():
        if name == MODEL:
            if (_model_param() or models.model_options()[0]) != text:
                return True
            continue
        if (setting := by_url.get(name)) is None:
            continue
        try:
            wanted = setting.read(text)
        except ValueError:
            continue
        now = state.get(setting.key, settings.default(setting.key))
        if wanted == link_text.LAST_LAYER:  # a stage named for any model: its last layer, once read
            wanted = now if now == wanted else stages.stage_names(model_caches.require_model())[-1]
        if now != wanted:
            return True
    return False


def _read_into_state(params: dict[str, str], reset: bool) -> list[str]:
    """Each setting a link carries, read from ``params`` (checked by its parser) into session
    state; one sentence per value that fails its check. With ``reset``, a setting that is
    absent or fails goes back to its default; otherwise it is left as it is."""
    state = st.session_state
    params, problems = today(params)

    def model_default() -> None:
        state[settings.MODEL_KEY], state[settings.CUSTOM_MODEL_KEY] = models.model_options()[0], ""

    if MODEL in params:
        try:
            state[settings.MODEL_KEY], state[settings.CUSTOM_MODEL_KEY] = _model_from_link(params[MODEL])
        except ValueError as reason:
            problems.append(f"model={params[MODEL][:60]!r} ({reason})")
            if reset:
                model_default()
    elif reset:
        model_default()
    for setting in settings.LINKED:
        if setting.url in params:
            try:
                if not _offered(setting):
                    raise ValueError("this app only offers the models in its list")
                state[setting.key] = setting.read(params[setting.url])
                continue
            except ValueError as reason:
                problems.append(f"{setting.url}={params[setting.url][:60]!r} ({reason})")
        if reset and setting.default is None:
            widgets.forget(setting.key)
        elif reset:
            state[setting.key] = settings.default(setting.key)
    return problems


def same_view(shown: dict[str, str], applied: dict[str, str]) -> bool:
    """Whether the session still shows ``applied``: settings whose default depends on the model
    or the sentence (a page fills them in) count only if the view named them."""
    unnamed = {s.url for s in settings.LINKED if s.default is None} - set(applied)
    return {k: v for k, v in shown.items() if k not in unnamed} == applied


def show_unused() -> None:
    """Say once, on the page shown, which parts of the session's link could not be used."""
    if problems := _mine().pop(UNUSED, None):
        st.warning(echo.plain(notice(problems)), icon=":material/link_off:")


def notice(problems: list[str]) -> str:
    return (
        "Part of this link could not be used, so the default stands in for: "
        + "; ".join(problems)
        + ". Everything else in the link was applied."
    )


def _model_problem(spec: str) -> str | None:
    """Why a link cannot name this model (None: it can)."""
    if checkpoints.is_hub_id(spec):
        return None
    if spec.startswith("/"):
        return "a folder on this server, which followers cannot load"
    return "not a Hugging Face Hub id"


def _shown(page: str) -> Iterator[tuple[settings.Setting, object]]:
    """Each linked setting shown on ``page`` whose value differs from its default (the table's,
    or the one the page worked out from the model), with that value."""
    state = st.session_state
    page_defaults = _mine().get(PAGE_DEFAULTS, {})
    mode = state.get(settings.NB_MODE, settings.default(settings.NB_MODE))
    for param in settings.LINKED:
        if not param.on(page) or param.key not in state or not _offered(param):
            continue
        if param.mode is not None and mode != param.mode:
            continue
        value = state[param.key]
        if value is None or value == param.default:
            continue
        if param.key in page_defaults and value == page_defaults[param.key]:
            continue
        yield param, value


def _text_of(param: settings.Setting, value: object) -> str | None:
    """The link's text for a value, if the link can carry it and give it back (not 1.5 for k:
    the page shows its message and the link keeps the default); None otherwise."""
    try:
        text = param.write(value)
        return text if param.read(text) == value else None
    except (ValueError, TypeError, OverflowError, KeyError):
        return None


def _model_param() -> str | None:
    """The model as a link names it; None for the default, or for one a link cannot name."""
    state = st.session_state
    choice = state.get(settings.MODEL_KEY, models.model_options()[0])
    if choice == settings.OTHER:
        custom = (state.get(settings.CUSTOM_MODEL_KEY) or "").strip()
        return custom if checkpoints.is_hub_id(custom) else None
    return choice if choice != models.model_options()[0] and choice in models.model_options() else None


def model_params() -> dict[str, str]:
    """The model's part of a link to another view (empty for the default model)."""
    return {MODEL: model} if (model := _model_param()) is not None else {}


def geometry_params(shape: tuple[str, int]) -> dict[str, str]:
    """A geometry (its name and D) as a link writes it: ``geometry=`` unless raw, ``d=`` only for
    all-but-the-top (through the settings table's own writers)."""
    name, removed = shape
    params = {}
    if name != settings.default(settings.GEOMETRY):
        params[settings.BY_KEY[settings.GEOMETRY].url] = settings.BY_KEY[settings.GEOMETRY].write(name)
    if name == settings.GEOMETRIES[2]:
        params[settings.BY_KEY[settings.GEOMETRY_REMOVED].url] = str(int(removed))
    return params


def view_params(page: str, text_limit: int | None = LINK_TEXT_LIMIT) -> dict[str, str]:
    """The URL parameters for ``page``: each setting shown there that differs from its default.
    A text over ``text_limit`` characters stays out (browsers and proxies refuse very long
    URLs); with None, none does (a room's view is not an address)."""
    params = {}
    if (model := _model_param()) is not None:
        params[MODEL] = model
    last_named = _mine().get(LAST_NAMED, {})
    for param, value in _shown(page):
        text = link_text.LAST_LAYER if last_named.get(param.key) == value else _text_of(param, value)
        if text is not None and (text_limit is None or len(text) <= text_limit):
            params[param.url] = text
    return params


def left_out(page: str) -> list[str]:
    """What the view of ``page`` cannot carry for this session, as people read it: the model
    when a link cannot name it, and each setting whose value a link cannot hold (one the page
    refuses, such as k typed as 500). Long sentences are not named: rooms carry them."""
    state = st.session_state
    missing = []
    if state.get(settings.MODEL_KEY) == settings.OTHER and settings.OTHER in models.model_options():
        custom = (state.get(settings.CUSTOM_MODEL_KEY) or "").strip()
        if custom and (problem := _model_problem(custom)):
            missing.append(f"the model ({problem})")
    for param, value in _shown(page):
        if _text_of(param, value) is None:
            problem = "the value typed is not valid"
            if param.key in {c for _, c in settings.OTHER_MODEL_FIELDS.values()} and isinstance(value, str):
                problem = _model_problem(value.strip()) or problem
            missing.append(f"{settings.LABELS.get(param.key, param.url)} ({problem})")
    return missing


def publish(page: str, extra: dict[str, str] | None = None) -> None:
    """Make the address bar a link to this view, on every run.

    Written even when the server's copy of the query already says the same: that copy is what the
    run's request carried, not what the browser shows. A run replaced before its message reached
    the browser (a follower's page switch started by the server), or an earlier run's message
    landing after browser Back changed the page (Maps' settings left in the address of
    Positions), leaves the two apart, and only a message from a later run mends it.
    The browser changes its address, and its history, only when the text differs; the message is
    a few hundred bytes, and only whole runs send it (a fragment's rerun does not)."""
    wanted = {**view_params(page), **(extra or {})}
    current = st.query_params.to_dict()
    wanted.update({name: current[name] for name in STREAMLIT_PARAMS if name in current})
    st.query_params.from_dict(wanted)


def share_hint() -> None:
    """A line under the sidebar's inputs: how to share, and what a link leaves out."""
    too_long = [
        label
        for label, key in (("sentence A", settings.SENTENCE_A_KEY), ("sentence B", settings.SENTENCE_B_KEY))
        if len(st.session_state.get(key) or "") > LINK_TEXT_LIMIT
    ]
    hint = ":material/link: The address bar links to this view: copy it to share what you see."
    if too_long:
        hint += f" Over {LINK_TEXT_LIMIT:,} characters, {' and '.join(too_long)} stay out of the link."
    st.sidebar.caption(hint)


def keep_within(
    key: str,
    options,
    default,
    label: str,
    name: Callable[[object], str] | None = None,
    by_model: bool = False,
) -> object:
    """Before a widget whose choices depend on the model or the sentence: a value it does not
    offer (from a link, or left over from a longer sentence) becomes ``default`` (None: the
    widget's own), and the page says so; returns the value the widget will show (None: its own).
    Nothing set yet means the default. ``name`` words a value for that message. With
    ``by_model`` the default is the model's own (its last layer, its every dimension): links leave
    it out, a value still at the previous model's default moves to the new one without a word, and
    a value chosen stays if the new model has it."""
    state = st.session_state
    if by_model:
        page_defaults = _mine().setdefault(PAGE_DEFAULTS, {})
        if key in state and page_defaults.get(key, default) != default:  # another model
            # Still at the last model's default: the new one's. Else the value chosen, said
            # again: Streamlit would otherwise reset a widget whose range changed.
            state[key] = default if state[key] == page_defaults[key] else state[key]
        page_defaults[key] = default
    if key in state and state[key] not in options:
        if name is None:
            text = f"{label} {state[key]!r} is not available here, so {default!r} is shown instead."
        else:
            text = f"{name(state[key])} is not available here, so {name(default)} is shown instead."
        st.info(echo.plain(text[:1].upper() + text[1:]), icon=":material/link_off:")
        widgets.forget(key)
    if key not in state and default is not None:
        state[key] = default
    return state.get(key)


def last_layer(key: str, last: str) -> None:
    """Before the picker of a stage (What moved's): a view that names ``last`` for it is the
    model's last layer, ``last``. While the stage stays at the layer ``last`` stood for, links and
    rooms name it ``last`` again, and another model (with another last layer) moves it to its
    own; a stage chosen in the picker is named as it is."""
    state, named = st.session_state, _mine().setdefault(LAST_NAMED, {})
    if state.get(key) == link_text.LAST_LAYER or (key in named and state.get(key) == named[key]):
        state[key] = named[key] = last
    else:
        named.pop(key, None)


def follow_link(code: str) -> str:
    """The address that joins room ``code``: this app's, as the reader's browser reached it."""
    try:
        parts = urlsplit(st.context.url or "")
        base = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    except Exception:  # outside a browser session (headless tests)
        base = ""
    return f"{base}/?follow={code}"
