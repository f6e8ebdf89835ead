"""Pure computation behind the BERT embedding explorer: no Streamlit, no Plotly. The
subpackage ``figures`` (Plotly, still no Streamlit) draws it; nothing here imports it.

checkpoints  where a model comes from and loading only its embedding layer
tokenize     text (A, optional B) -> pieces, ids, segment ids, positions
decompose    the embedding layer stage by stage, and its check against transformers
vocab_search exact cosine nearest neighbours over the token table
projection   PCA bases and projections
positions    the original Transformer's sinusoid, cosine matrices
contextual   the whole model's hidden states (the Context page only)
concepts     a toy embedding space with named dimensions
"""
