"""Concepts: what an embedding is, with a toy space of three named dimensions."""

import streamlit as st

from bert_embeddings import limits
from bert_embeddings.figures import concepts_page, settings
from components.caches import model_caches
from components.frame import routing
from components.lessons import opening
from components.parts import draw, echo, widgets

routing.through_app()
st.title("What is an embedding?")
# The width is the model's in use, as the lesson's own step says it ({{width}} in {{model}}); a
# model still to be downloaded is not waited for here (the toy needs none): bert-base's, named so.
model = model_caches.model_at_hand()
width = (
    "768 in bert-base"
    if model is None
    else f"{model.hidden_size:,} in {echo.plain(model.name)}, the model in use"
)
st.markdown(
    "An **embedding** describes each thing by a list of numbers: its position along some dimensions. "
    "Here there are three, with names, and you choose the numbers. Things that are alike point in "
    "similar directions, and **cosine similarity** measures that: 1 for the same direction, 0 for "
    f"unrelated, -1 for opposite. BERT works the same way with many more dimensions ({width}), which "
    "have no names: their numbers were learned from text."
)
opening.take_a_lesson()
st.text_area(
    "Items: a header line, then one item per line (name, then one number per dimension). Edit or add lines.",
    height=230,
    **widgets.seeded(settings.TOY_ITEMS),
    help=f"Up to {limits.TOY_ITEMS.most} items; names up to {limits.TOY_NAME.most} characters.",
)
with model_caches.friendly_errors():
    shown = concepts_page.compose(widgets.chosen(concepts_page.Settings))
left, right = st.columns([3, 2])
with left:
    draw.shown(shown.space, shown.space_caption, shown.space_download)
with right:
    draw.shown(shown.similarity, shown.similarity_download, shown.similarity_caption)
st.page_link("pages/overview.py", label="Now see how BERT embeds a sentence", icon=":material/arrow_forward:")
