"""Your own axes, can you trust them: each axis' report card and WEAT, in the page. Both are
computed once per model, texts and geometry for every session (a second or two each), and each
comes with its numbers as CSV and every resample's figure as .npy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from bert_embeddings.analysis import geometry, word_tests
from bert_embeddings.figures import space_charts
from components import echo, exports, geometry_view, settings, state, widgets


@st.cache_resource(max_entries=8, show_spinner=False)
def _card(model_key: tuple, texts: tuple[str, str, str], shape: tuple[str, int], _index, _tokenizer, _space):
    return word_tests.card_for(_index, _tokenizer, *texts, space=_space)


@st.cache_resource(max_entries=4, show_spinner=False)
def _weat(model_key: tuple, texts: tuple[str, ...], _index, _tokenizer) -> word_tests.WeatResult:
    return word_tests.weat_for(_index, _tokenizer, dict(zip(word_tests.WEAT_GROUPS, texts, strict=True)))


def _other_shape(shape: tuple[str, int], hidden: int) -> tuple[str, int]:
    """The geometry the card is set beside: all-but-the-top (raw when that is the one shown)."""
    if shape[0] == "all-but-the-top":
        return ("raw", 0)
    return geometry.shape("all-but-the-top", geometry.default_removed(hidden))


def card(
    name: str, texts: tuple[str, str, str], shape: tuple[str, int], described: str, model_name: str
) -> None:
    """Axis ``name``'s card: the verdict, its figures, the words' intervals, and the same under
    the other geometry."""
    index, model = state.vocab_index(), state.require_model()
    found, other = None, None
    with state.friendly_errors(stop=False), st.spinner("Drawing 1,000 random axes..."):
        found = _card(state.model_key(), texts, shape, index, model.tokenizer, state.space(*shape))
        second = _other_shape(shape, index.table.shape[1])
        other = _card(state.model_key(), texts, second, index, model.tokenizer, state.space(*second))
    if found is None:
        return
    c = found.card
    verdict = c.verdict()
    (st.success if "separates its poles" in verdict and "depends" not in verdict else st.warning)(
        echo.plain(f"Axis {name}: {verdict}."), icon=":material/fact_check:"
    )
    figures = {
        "Held out on their own side": f"{c.held_out} of {c.held_total}" if c.held_total else "none",
        "Beats random axes": f"{c.beats:.1%}",
        "Direction's cosine, 95 %": f"{c.direction_interval[0]:.2f} – {c.direction_interval[1]:.2f}",
    }
    if c.coherence is not None:
        figures["Pairs' first component"] = f"{c.coherence:.1%}"
    for column, (label, value) in zip(st.columns(len(figures)), figures.items(), strict=True):
        column.metric(label, value)
    if c.random_coherence is not None:
        st.caption(
            f"Random pairs of whole words: first component {np.mean(c.random_coherence):.1%} on average."
        )
    if found.split:
        st.caption(echo.plain(f"Split into pieces (each counts as their mean): {', '.join(found.split)}."))
    other_name = geometry_view.described(second)
    st.caption(
        echo.plain(
            f"The same card in the {other_name} geometry (rogue dimensions can make any axis look strong): "
            f"{other.card.verdict() if other else 'cannot be computed'}."
        )
    )
    if len(found.words):
        title = f"Axis {name}: the words placed, with 95 % intervals from resampling the pole words"
        figure = space_charts.intervals(found.words, c.coordinates, c.word_intervals, title)
        widgets.chart(figure, key=f"ax_card_{name}")
    _downloads(f"{model_name} axis {name} report card ({described})", found)


def _downloads(stem: str, found: word_tests.CardResult) -> None:
    c = found.card
    summary = pd.DataFrame(
        {
            "figure": ["held out", "could be held out", "separation", "p against random axes", "coherence"],
            "value": [
                c.held_out,
                c.held_total,
                c.separation,
                c.p_value,
                np.nan if c.coherence is None else c.coherence,
            ],
        }
    )
    st.caption("The card's figures")
    exports.table(f"{stem}, figures", summary)
    st.caption("Each word's coordinate on each of the 1,000 resampled axes")
    exports.matrix(
        f"{stem}, resampled coordinates", c.resampled_coordinates, None, list(found.words), "resample"
    )
    st.caption("The separation of each of the 1,000 random axes")
    exports.matrix(
        f"{stem}, random axes' separations", c.random_separations[:, None], None, ["separation"], "axis"
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
    with state.friendly_errors(stop=False):
        found = _weat(state.model_key(), texts, state.vocab_index(), state.require_model().tokenizer)
    if found is None:
        return
    w = found.test
    how = (
        f"exact, over all {w.partitions:,} partitions"
        if w.exact
        else f"{w.partitions:,} random partitions (seed 0): over 100,000 of them, too many to count in time"
    )
    figures = {
        "Effect size d": f"{w.effect_size:.3f}",
        "d's 95 % interval (bootstrap)": f"{w.interval[0]:.2f} – {w.interval[1]:.2f}",
        "p-value (one-sided)": f"{w.p_value:.4g}",
        "Statistic S": f"{w.statistic:.4f}",
    }
    for column, (label, value) in zip(st.columns(4), figures.items(), strict=True):
        column.metric(label, value)
    st.caption(echo.plain(f"p-value {how}."))
    if found.split:
        st.caption(echo.plain(f"Split into pieces (each counts as their mean): {', '.join(found.split)}."))
    st.caption("WEAT's figures")
    exports.table(
        f"{model_name} WEAT figures",
        pd.DataFrame(
            {
                "figure": [
                    "statistic S",
                    "effect size d",
                    "d, 2.5 %",
                    "d, 97.5 %",
                    "p-value",
                    "exact",
                    "partitions",
                ],
                "value": [w.statistic, w.effect_size, *w.interval, w.p_value, float(w.exact), w.partitions],
            }
        ),
    )
    words = [*found.groups["X"], *found.groups["Y"]]
    groups = ["X"] * len(found.groups["X"]) + ["Y"] * len(found.groups["Y"])
    frame = pd.DataFrame({"word": words, "group": groups, "s(w, A, B)": w.s})
    exports.dataframe(f"{model_name} WEAT associations", frame, hide_index=True)
    st.caption("The effect size of each of the 1,000 bootstrap samples")
    exports.matrix(f"{model_name} WEAT bootstrap effect sizes", w.resampled[:, None], None, ["d"], "resample")


def _fill_classic() -> None:
    chosen = st.session_state.get(settings.AX_WEAT_CLASSIC)
    if chosen in word_tests.CLASSIC:
        for group, text in word_tests.CLASSIC[chosen].items():
            st.session_state[settings.AX_WEAT[group]] = text
    st.session_state[settings.AX_WEAT_CLASSIC] = None
