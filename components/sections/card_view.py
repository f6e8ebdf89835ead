"""Your own axes, can you trust them: each axis' report card and WEAT, in the page. Both are
computed once per model, texts and geometry for every session (a second or two each), and each
comes with its numbers as CSV and every resample's figure as .npy.

A figure the words cannot give is shown as a dash with the reason beside it, and left empty in
the CSV with the reason in its own column: never as "nan", and a card without its figures gives
no verdict."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from bert_embeddings.analysis import axis_card, geometry, weat, word_tests
from bert_embeddings.figures import views
from bert_embeddings.views import settings
from components.caches import axis_tests, model_caches
from components.parts import draw, echo, exports, widgets
from components.sections import geometry_view

NOT_GIVEN = views.NOT_GIVEN  # a figure the words cannot give (the reason is said beside it)


def _other_shape(shape: tuple[str, int], hidden: int) -> tuple[str, int]:
    """The geometry the card is set beside: all-but-the-top (raw when that is the one shown)."""
    if shape[0] == "all-but-the-top":
        return ("raw", 0)
    return geometry.key("all-but-the-top", geometry.default_removed(hidden))


def card(
    name: str, texts: tuple[str, str, str], shape: tuple[str, int], described: str, model_name: str
) -> None:
    """Axis ``name``'s card: the verdict and its figures, then, folded, the words' intervals, the
    same card under the other geometry and the files. ``texts``: the ends and the words placed
    (only words that can be placed)."""
    index, model = model_caches.vocab_index(), model_caches.require_model()
    found, other = None, None
    with model_caches.friendly_errors(stop=False), st.spinner("Drawing 1,000 random axes..."):
        found = axis_tests.card(
            model_caches.model_key(), texts, shape, index, model.tokenizer, model_caches.space(*shape)
        )
        second = _other_shape(shape, index.table.shape[1])
        other = axis_tests.card(
            model_caches.model_key(), texts, second, index, model.tokenizer, model_caches.space(*second)
        )
    if found is None:
        return
    c = found.card
    verdict = echo.plain(f"Axis {name}: {c.verdict()}.")
    if not c.assessed:
        st.info(verdict, icon=":material/block:")
    elif "this axis separates its poles" in c.verdict():
        st.success(verdict, icon=":material/fact_check:")
    else:
        st.warning(verdict, icon=":material/fact_check:")
    figures = views.card_figures(c)
    for column, (label, value) in zip(st.columns(len(figures)), figures.items(), strict=True):
        column.metric(label, value)
    if c.missing:
        said = "; ".join(f"{m.figure}, {m.reason}" for m in c.missing)
        st.caption(echo.plain(f"Not assessed: {said}."))
    with st.expander(f"Axis {name}: the words' intervals, the other geometry, the files"):
        if c.random_coherence is not None and len(c.random_coherence):
            st.caption(
                f"Random pairs of whole words: first component {np.mean(c.random_coherence):.1%} on average."
            )
        if found.split:
            st.caption(
                echo.plain(f"Split into pieces (each counts as their mean): {', '.join(found.split)}.")
            )
        other_name = geometry_view.described(second)
        st.caption(
            echo.plain(
                f"The same card in the {other_name} geometry (rogue dimensions can make any axis look "
                f"strong): {other.card.verdict() if other else 'cannot be computed'}."
            )
        )
        if (figure := views.card_intervals(name, found)) is not None:
            draw.chart(figure, key=f"ax_card_{name}")
        _downloads(f"{model_name} axis {name} report card ({described})", found)


def _downloads(stem: str, found: word_tests.CardResult) -> None:
    c = found.card
    interval = c.direction_interval or (None, None)
    rows = [
        ("held out", c.held_out if c.held_total else None, c.why_not(axis_card.HELD_OUT)),
        ("could be held out", c.held_total, None),
        ("direction's cosine, 2.5 %", interval[0], c.why_not(axis_card.STABILITY)),
        ("direction's cosine, 97.5 %", interval[1], c.why_not(axis_card.STABILITY)),
        ("separation", c.separation, c.why_not(axis_card.CHANCE)),
        ("p against random axes", c.p_value, c.why_not(axis_card.CHANCE)),
        ("coherence", c.coherence, c.why_not(axis_card.COHERENCE)),
    ]
    st.caption("The card's figures")
    exports.table(f"{stem}, figures", _figures(rows))
    if c.resampled_coordinates is not None:
        st.caption("Each word's coordinate on each of the 1,000 resampled axes")
        exports.matrix(
            f"{stem}, resampled coordinates", c.resampled_coordinates, None, list(found.words), "resample"
        )
    if c.random_separations is not None:
        st.caption("The separation of each of the 1,000 random axes")
        exports.matrix(
            f"{stem}, random axes' separations", c.random_separations[:, None], None, ["separation"], "axis"
        )


def _figures(rows: list[tuple[str, object, str | None]]) -> pd.DataFrame:
    """A CSV's table of figures: a figure not given is an empty cell, with the reason beside it."""
    return pd.DataFrame(
        {
            "figure": [r[0] for r in rows],
            "value": pd.Series([r[1] for r in rows], dtype=object),
            "not given because": [r[2] or "" for r in rows],
        }
    )


def weat_section(model_name: str) -> None:
    """WEAT of the four groups typed, with a classic test to start from."""
    st.pills(
        "Start from a classic test",
        list(word_tests.CLASSIC),
        key=settings.AX_WEAT_CLASSIC,
        on_change=_fill_classic,
    )
    boxes = st.columns(4)
    labels = {"X": "Targets X", "Y": "Targets Y", "A": "Attributes A", "B": "Attributes B"}
    texts = tuple(
        box.text_area(labels[g], **widgets.seeded(settings.AX_WEAT[g]), height=120)
        for box, g in zip(boxes, word_tests.WEAT_GROUPS, strict=True)
    )
    found = None
    with model_caches.friendly_errors(stop=False):
        found = axis_tests.weat(
            model_caches.model_key(),
            texts,
            model_caches.vocab_index(),
            model_caches.require_model().tokenizer,
        )
    if found is None:
        return
    w = found.test
    how = (
        f"exact, over all {w.partitions:,} partitions"
        if w.exact
        else f"{w.partitions:,} random partitions (seed 0): over 100,000 of them, too many to count in time"
    )
    figures = {
        "Effect size d": NOT_GIVEN if w.effect_size is None else f"{w.effect_size:.3f}",
        "d's 95 % interval (bootstrap)": (
            NOT_GIVEN if w.interval is None else f"{w.interval[0]:.2f} – {w.interval[1]:.2f}"
        ),
        "p-value (one-sided)": f"{w.p_value:.4g}",
        "Statistic S": f"{w.statistic:.4f}",
    }
    for column, (label, value) in zip(st.columns(4), figures.items(), strict=True):
        column.metric(label, value)
    st.caption(echo.plain(f"p-value {how}."))
    if w.missing:
        said = "; ".join(dict.fromkeys(m.reason for m in w.missing))
        st.caption(echo.plain(f"Not assessed: {said}."))
    if found.split:
        st.caption(echo.plain(f"Split into pieces (each counts as their mean): {', '.join(found.split)}."))
    with st.expander("WEAT: each word's association, the bootstrap, the files"):
        _weat_files(model_name, found)


def _weat_files(model_name: str, found: word_tests.WeatResult) -> None:
    w = found.test
    interval = w.interval or (None, None)
    st.caption("WEAT's figures")
    rows = [
        ("statistic S", w.statistic, None),
        ("effect size d", w.effect_size, w.why_not(weat.EFFECT_SIZE)),
        ("d, 2.5 %", interval[0], w.why_not(weat.INTERVAL)),
        ("d, 97.5 %", interval[1], w.why_not(weat.INTERVAL)),
        ("p-value", w.p_value, None),
        ("exact", float(w.exact), None),
        ("partitions", w.partitions, None),
    ]
    exports.table(f"{model_name} WEAT figures", _figures(rows))
    words = [*found.groups["X"], *found.groups["Y"]]
    groups = ["X"] * len(found.groups["X"]) + ["Y"] * len(found.groups["Y"])
    frame = pd.DataFrame({"word": words, "group": groups, "s(w, A, B)": w.s})
    exports.dataframe(f"{model_name} WEAT associations", frame, hide_index=True)
    if len(w.resampled):
        st.caption(f"The effect size of each of the {len(w.resampled):,} bootstrap samples in which s varied")
        exports.matrix(
            f"{model_name} WEAT bootstrap effect sizes", w.resampled[:, None], None, ["d"], "resample"
        )


def _fill_classic() -> None:
    chosen = st.session_state.get(settings.AX_WEAT_CLASSIC)
    if chosen in word_tests.CLASSIC:
        for group, text in word_tests.CLASSIC[chosen].items():
            st.session_state[settings.AX_WEAT[group]] = text
    st.session_state[settings.AX_WEAT_CLASSIC] = None
