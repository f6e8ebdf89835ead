"""The Streamlit glue between the pages and the core, by concern:

settings/  what a person sets and where it lives: the one table of settings (this package's own
           module), links and their text, settings held across pages, the sidebar's inputs as one
           value, the last search
caches/    every st.cache_* wrapper: models and per-input results (state), maps (map_state),
           What moved's spaces (spaces), Your own axes' cards (axes)
sections/  what one page draws around its figures (a view per page or part of one)
parts/     the small parts every page uses: drawing a chart, downloads, echoed text, keyed
           widgets, search filters, the model pickers, the one job panel
frame/     app.py's plumbing: the table of pages, the sidebar, routing, and the one place that
           touches Streamlit's private names (runs)
rooms/     workshop rooms in the page
"""
