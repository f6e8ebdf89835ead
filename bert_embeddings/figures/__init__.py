"""The app's Plotly figures, as plain functions of data: a figure is returned, never shown.

The layering runs one way: the pure core (bert_embeddings, numpy only, no Plotly or
Streamlit), then these figures (Plotly, no Streamlit), then the Streamlit glue (components),
then the pages. They live in the installed package, beside the core they draw, so that a
notebook gets the very figures the app draws with `pip install .` and without importing
Streamlit; the core itself never imports them, but for the host's command, which writes a
lesson's handout with them.

charts      heatmaps, bars and the shared palette (Okabe-Ito), markers and text escaping
maps        vocabulary maps, the sentence's journey, the position path
map_marks   a clicked piece's marks, colourings and region labels on a map
lab_charts  the Geometry page's figures
views       whole figures as the pages arrange them (a page and a notebook call the same one):
            the Overview and the pages over the whole vocabulary
page_figures  the same for the pages about one input (Concepts to Context)
notebook    those figures from a model and a sentence, for Jupyter
input_pages  what each page about one input shows of a view, composed once for the page and a handout
handout_pages  what the other pages show of a lesson step's view, built by those same functions
handout     a lesson as one self-contained HTML file, its figures interactive
"""
