"""Your own axes, can you trust them: each axis' report card and WEAT, in the page, as
bert_embeddings.figures.axes_checks composes them. Both are computed once per model, texts
and geometry for every session (a second or two each; components/caches/axis_tests.py), and each
comes with its numbers as CSV and every resample's figure as .npy.

A figure the words cannot give is shown as a dash with the reason beside it, and left empty in
the CSV with the reason in its own column: never as "nan", and a card without its figures gives
no verdict."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from bert_embeddings.analysis import axis_card, weat, word_tests
from bert_embeddings.figures import axes_checks, settings
from bert_embeddings.figures.handout_parts import Table
from components.caches import model_caches
from components.parts import draw, exports, widgets


def card(
    shown: axes_checks.Card | None, name: str, texts: tuple[str, str, str], shape: tuple[str, int], stem: str
) -> None:
    """Axis ``name``'s card as composed (bert_embeddings.figures.axes_checks; None: the axis is
    left empty): the verdict and its figures, then, folded, the words' intervals, the same card
    under the other geometry and the files (``stem``: their names'; ``texts``: the ends and the
    words placed)."""
    if shown is None:
        return
    draw.shown(shown.problem, shown.other_problem)
    if shown.verdict is None:
        return
    draw.shown(shown.verdict)
    for column, figure in zip(st.columns(len(shown.figures)), shown.figures, strict=True):
        with column:
            draw.shown(figure)
    draw.shown(shown.missing)
    # Folded, and drawn only once unfolded: its charts and files are a card's largest.
    if more := widgets.fold(
        f"Axis {name}: the words' intervals, the other geometry, the files", f"ax_card_more_{name}"
    ):
        with more:
            draw.shown(shown.coherence, shown.split, shown.other, shown.intervals)
            _downloads(stem, model_caches.sources().card(texts, shape))


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


def weat_boxes() -> None:
    """The four groups of WEAT, with a classic test to start from."""
    st.pills(
        "Start from a classic test",
        list(word_tests.CLASSIC),
        key=settings.AX_WEAT_CLASSIC,
        on_change=_fill_classic,
    )
    boxes = st.columns(4)
    labels = {"X": "Targets X", "Y": "Targets Y", "A": "Attributes A", "B": "Attributes B"}
    for box, g in zip(boxes, word_tests.WEAT_GROUPS, strict=True):
        box.text_area(labels[g], **widgets.seeded(settings.AX_WEAT[g]), height=120)


def weat_section(shown: axes_checks.Weat, texts: tuple[str, ...], model_name: str) -> None:
    """WEAT of the four groups typed, as composed, then its files."""
    draw.shown(shown.problem)
    if not shown.figures:
        return
    for column, figure in zip(st.columns(4), shown.figures, strict=True):
        with column:
            draw.shown(figure)
    draw.shown(shown.how, shown.missing, shown.split)
    if more := widgets.fold("WEAT: each word's association, the bootstrap, the files", "ax_weat_more"):
        with more:
            _weat_files(model_name, model_caches.sources().weat(texts), shown.associations)


def _weat_files(model_name: str, found: word_tests.WeatResult, associations: Table) -> None:
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
    draw.part(associations)
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
