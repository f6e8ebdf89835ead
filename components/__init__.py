"""The Streamlit glue between the pages and the core, by concern:

view_state/  what a person sets and where it lives: links and their text (through the core's
             table of settings, bert_embeddings/figures/settings.py), settings held across pages,
             the sidebar's inputs as one value, the last search
caches/    every st.cache_* wrapper: models and per-input results (model_caches), maps (map_state),
           What moved's spaces (spaces), Your own axes' cards and WEAT (axis_tests)
sections/  what one page draws around its figures (a view per page or part of one)
parts/     the small parts every page uses: drawing a chart, downloads, echoed text, keyed
           widgets, search filters, the model pickers, the one job panel
frame/     app.py's plumbing: the table of pages, the sidebar, routing, and the one place that
           touches Streamlit's private names (runs)
rooms/     workshop rooms in the page
"""
