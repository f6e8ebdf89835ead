"""What the explorer measures, exactly, from a loaded model.

decompose     the embedding layer stage by stage, and its check against transformers
cosine        cosine similarity matrices
vocab_search  exact nearest neighbours over the whole token table
patterns      RE2 patterns (linear time) for the vocabulary's filters
projection    PCA bases and projections
positions     the original Transformer's sinusoid
geometry      the geometries (raw, centred, all-but-the-top, standardised), mean cosine
geometry_lab  what the Geometry page measures for a model
axes          your own semantic axes
concepts      a toy embedding space with named dimensions
contextual    the whole model's hidden states (the Context page)
"""
