"""Embedding layer: every stage as a heatmap, and proof that it equals transformers."""

import streamlit as st

from bert_embeddings.figures import embedding_layer_page, page_figures, settings
from bert_embeddings.views import link_text
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, widgets
from components.view_state import links

routing.through_app()
st.title("The embedding layer, stage by stage")
model = model_caches.require_model()
terms = [
    r"\text{token}[x_i]",
    *([r"\text{segment}[s_i]"] if model.family.has_segments else []),
    r"\text{position}[p_i]",
]
draw.formula(  # on a phone, the sum named, a term per line
    r"\text{output}_i = \mathrm{LayerNorm}\big(" + " + ".join(terms) + r"\big)",
    r"\begin{aligned}\text{output}_i &= \mathrm{LayerNorm}(e_i) \\ e_i &= "
    + r" \\ &\quad + ".join(terms)
    + r"\end{aligned}",
)
sources = model_caches.sources()
with model_caches.friendly_errors():
    stages = embedding_layer_page.stages(widgets.chosen(embedding_layer_page.Settings), sources)
# The check needs torch and transformers, which take seconds to import on a cold start, so
# its panel is placed here but filled at the end, after the heatmaps are drawn.
notices, proof, overview = st.container(), st.container(border=True), st.container()

# Every stage at a glance, as colours only; then one stage in full, every value exact on hover.
links.keep_within(settings.LAYER_STAGE, list(stages), next(iter(stages)), "Stage")
st.segmented_control(
    "Stage in full",
    list(stages),
    format_func=lambda c: stages[c].title,
    key=settings.LAYER_STAGE,
    persist_state="session",
)
every = page_figures.every_dimension(model)
links.keep_within(
    settings.DIMENSIONS,
    link_text.Span(*every),  # the (first, last) pairs a range slider offers
    every,
    "Dimensions",
    name=lambda span: f"the range of dimensions {span[0]}-{span[1]}",
    by_model=True,
)
widgets.dimension_range(model.hidden_size)
chosen = widgets.chosen(embedding_layer_page.Settings)
with model_caches.friendly_errors():
    shown = embedding_layer_page.compose(chosen, sources, proof=False)
with notices:
    draw.shown(*shown.notices)
with overview:
    draw.shown(shown.no_segment, shown.overview, shown.overview_caption)
draw.shown(shown.detail, shown.detail_caption)
with st.popover("Download every stage", icon=":material/download:"):
    for each, download in zip(stages.values(), shown.downloads, strict=True):
        st.markdown(each.title)
        draw.shown(download)

st.header("Inside LayerNorm")
draw.shown(shown.token_stats, shown.token_stats_download, shown.token_stats_caption)
draw.shown(shown.params, shown.params_caption, shown.params_download)

with proof:
    st.markdown("**Proof: this page's output equals the model's own embedding module**")
    with st.spinner("Running the same input through transformers' own embedding module..."):
        with model_caches.friendly_errors():
            checked = embedding_layer_page.checked(chosen, sources)
    left, right = st.columns([1, 2])
    with left:
        draw.shown(checked.error)
    with right:
        draw.shown(checked.verdict, checked.caption)
