"""The app's Plotly figures, as plain functions of data: a figure is returned, never shown.

The layering runs one way: the pure core (bert_embeddings, numpy only, no Plotly or
Streamlit), then these figures (Plotly, no Streamlit), then the Streamlit glue (components),
then the pages. They live in the installed package, beside the core they draw, so that a
notebook gets the very figures the app draws with `pip install .` and without importing
Streamlit; the computing core never imports them, only the lessons (a handout draws the pages'
own figures) and the host's command do.

charts      heatmaps, bars and the shared palette (Okabe-Ito), markers and text escaping
maps        vocabulary maps, the sentence's journey, the position path
map_marks   a clicked piece's marks, colourings and region labels on a map
lab_charts  the Geometry page's figures
views       whole figures as the pages arrange them (a page and a notebook call the same one):
            the Overview and the pages over the whole vocabulary
page_figures  the same for the pages about one input (Concepts to Context)
notebook    those figures from a model and a sentence, for Jupyter
<page>_page  a page whole: its settings (typed, declared once) and what it shows of them, composed
            once for the page and a handout (every page; a few with parts made beside them:
            moved_pieces, moved_whole, axes_checks, maps_tsne)
settings    the table of every setting, built from the pages' own; check a view read as a link is
handout_pages  a page's parts for a lesson's handout, from its own compose
"""

# Plotly looks pandas up in sys.modules, bypassing the import lock: a figure built in one thread
# (a session's run) while another thread imports pandas (a session's first table) met the module
# half-initialized ("partially initialized module 'pandas' has no attribute 'Series'") on a freshly
# started server with many sessions. Importing it here, where every figure begins, waits for the
# import under its lock. (pandas comes with the app; the core alone does not need it.)
try:
    import pandas  # noqa: F401
except ImportError:  # pragma: no cover - a notebook without pandas: Plotly then never looks for it
    pass
