"""Positions: BERT's learned position rows beside the original Transformer's sinusoid."""

import numpy as np
import streamlit as st

from bert_embeddings.analysis import cosine, positions
from bert_embeddings.figures import page_figures
from bert_embeddings.views import settings
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, exports, widgets

routing.through_app()
st.title("Positions: learned, not a formula")
st.markdown(
    "The original Transformer gave each position a fixed pattern of sine and cosine waves. BERT instead "
    "**learns one row per position**, like a vocabulary of places. Here are both, at the same size."
)

model = model_caches.require_model()
learned, formula = page_figures.position_tables(model)  # each (positions, hidden)
n, hidden = learned.shape
cosines = (cosine.matrix(learned), cosine.matrix(formula))
names = (f"{model.name} position cosine", f"sinusoid {n}x{hidden} position cosine")
cosine_charts = page_figures.position_cosine_charts(model, *cosines)
for column, (key, figure), matrix, name in zip(st.columns(2), cosine_charts, cosines, names, strict=True):
    with column:
        draw.chart(figure, key=key)
        exports.matrix(name, matrix, corner="position")
st.caption(
    f"Cosine similarity of every position with every other ({n} x {n}); position 0 is top left. "
    + (
        "Every second position is drawn (a screen shows no more); hover gives each one's exact value, "
        "and the downloads hold all of them."
        if n > 256
        else ""
    )
)
draw.chart(page_figures.position_norms(learned, formula), key="pos_norms")
st.caption(page_figures.position_norms_caption(learned, formula))
norms = np.stack([positions.row_norms(learned), positions.row_norms(formula)], axis=1)
exports.matrix(f"{model.name} position norms", norms, columns=["learned", "sinusoid"], corner="position")

st.header("Compare two positions")
a, b = st.columns(2)
first = widgets.whole_number_box("First position", a, **widgets.seeded(settings.POS_FIRST))
second = widgets.whole_number_box("Second position", b, **widgets.seeded(settings.POS_SECOND))
with model_caches.friendly_errors(stop=False):
    p, q = positions.check_position(first, n), positions.check_position(second, n)
    pair = cosine.matrix(np.stack([learned[p], learned[q], formula[p], formula[q]]))
    a.metric(f"cosine, learned rows {p} and {q}", f"{pair[0, 1]:.3f}")
    b.metric(f"cosine, sinusoid rows {p} and {q}", f"{pair[2, 3]:.3f}")
    draw.chart(page_figures.position_pair(learned, p, q), key="pos_pair")
    exports.matrix(
        f"{model.name} position rows {p} and {q}",
        np.stack([learned[p], learned[q]], axis=1),
        columns=[f"position {p}", f"position {q}"],
        corner="dim",
    )
