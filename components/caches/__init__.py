"""Every st.cache_* wrapper of the app, one module per concern, keyed by strings and ints (a
model's name and revision, a text, a geometry), never by tensors or arrays: models and per-input
results (model_caches), the t-SNE maps (map_state), What moved's spaces (spaces), Your own axes' report
cards and WEAT (axis_tests). ``cache_resource`` for what every session shares (read-only), and
``cache_data`` for small per-input results."""
