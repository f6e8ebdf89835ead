"""Overview: what the embedding layer does, in a few sentences and one figure."""

import streamlit as st

from bert_embeddings.figures import overview_page
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, echo, widgets

routing.through_app()
st.title("BERT's embedding layer")
# The tables' sizes are the model's on screen (a lesson's {{vocab}} and {{positions}}), not bert-base's.
model = model_caches.require_model()
name = echo.plain(model.name)
segments = model.tables.token_type_embeddings
if segments is None:
    segment_row = f"- there is no **segment** row: {name} has no segment table."
elif segments.shape[0] < 2:
    segment_row = f"- the **segment** row: {name} has one, which every sentence gets."
else:
    segment_row = "- the **segment** row: row 0 for sentence A, row 1 for sentence B."
st.markdown(
    f"""
Before any attention happens, BERT turns each word piece of your text into a vector with
one small layer. For every piece it **adds** a row from each of its tables, learned during
pre-training:

- the **token** row: one row per piece of the vocabulary ({model.vocab_size:,} rows in {name});
- the **position** row: one row per position in the input ({model.max_positions:,} rows in {name}),
  learned rows, not the fixed sine and cosine waves of the original Transformer;
{segment_row}

The sum then goes through **LayerNorm**: each piece's vector is shifted to mean 0, scaled to
standard deviation 1, then multiplied by a learned *gamma* and shifted by a learned *beta*,
dimension by dimension. The result is what the first encoder layer receives. Type your own
sentence in the sidebar and follow it through the pages.
"""
)

with model_caches.friendly_errors():
    shown = overview_page.compose(widgets.chosen(overview_page.Settings), model_caches.sources())
draw.shown(shown)
st.page_link("pages/tokens.py", label="See how your text is split into pieces", icon=":material/segment:")
st.page_link(
    "pages/embedding_layer.py", label="See every stage in full, and the proof", icon=":material/stacks:"
)
