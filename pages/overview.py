"""Overview: what the embedding layer does, in a few sentences and one figure."""

import streamlit as st

from bert_embeddings.figures import input_pages
from components.caches import model_caches
from components.frame import routing
from components.parts import draw

routing.through_app()
st.title("BERT's embedding layer")
st.markdown(
    """
Before any attention happens, BERT turns each word piece of your text into a vector with
one small layer. For every piece it **adds three rows**, each taken from a table that was
learned during pre-training:

- the **token** row: one row per piece of the vocabulary (30,522 rows in bert-base-uncased);
- the **position** row: one row per position 0, 1, 2, ... up to 511. These are learned rows,
  not the fixed sine and cosine waves of the original Transformer;
- the **segment** row: row 0 for sentence A, row 1 for sentence B.

The sum then goes through **LayerNorm**: each piece's vector is shifted to mean 0, scaled to
standard deviation 1, then multiplied by a learned *gamma* and shifted by a learned *beta*,
dimension by dimension. The result is what the first encoder layer receives. Type your own
sentence in the sidebar and follow it through the pages.
"""
)

model_caches.require_model()
with model_caches.friendly_errors():
    shown = input_pages.overview_page(model_caches.sentence_values(), model_caches.sources())
draw.parts(shown)
st.page_link("pages/tokens.py", label="See how your text is split into pieces", icon=":material/segment:")
st.page_link(
    "pages/embedding_layer.py", label="See every stage in full, and the proof", icon=":material/stacks:"
)
