"""Pure computation behind the BERT embedding explorer: no Streamlit. One folder per concern,
importing one way (tests/test_architecture.py holds it; docs/architecture.md draws it):

config, errors, limits   the foundation: every host setting, what can go wrong, how much input
models/     where a model comes from: checkpoints, the Hub, the bundled model, tokenizers
analysis/   what the explorer measures: the embedding layer, neighbours, PCA, geometry, axes
maps/       the vocabulary's t-SNE maps: computing, reading, and their background jobs
rooms/      workshop rooms: the store's interface and its SQLite and Redis backends
figures/    the app's Plotly figures and files (no Streamlit); nothing else here imports them
api         the notebook interface; __main__ the host's command
"""
