"""The app's figures for a notebook: each returns the Plotly figure its page draws for the same
input and settings (returned, not shown; display it, or call ``.show()``). No Streamlit.

>>> from bert_embeddings import api
>>> from bert_embeddings.figures import notebook as figures
>>> fig = figures.overview(api.load(), "I am Sinan")
>>> [panel.text for panel in fig.layout.annotations][:2]
['token row', '+ position row']

Every example here runs as a doctest (tests/test_api.py); tests/test_figures_notebook.py
checks each figure against the one its page sends to the browser.
"""

from __future__ import annotations

import plotly.graph_objects as go

from bert_embeddings import api, axes, decompose, geometry, vocab_search
from bert_embeddings.errors import UnknownWordError
from bert_embeddings.figures import charts, views
from bert_embeddings.model import LoadedModel

__all__ = ["overview", "neighbours", "words_on_axes"]


def overview(model: LoadedModel, text_a: str, text_b: str = "") -> go.Figure:
    """The Overview page's figure: the first 12 pieces and 32 dimensions of every stage, from
    the token row to LayerNorm's output."""
    encoding = model.encode(text_a, text_b)
    panels = views.overview_panels(decompose.decompose(model, encoding), encoding.labels)
    return charts.finish(views.overview(panels, encoding.labels))


def neighbours(
    model: LoadedModel, query: str | int, k: int = 10, geometry_name: str = "raw", d: int | None = None
) -> go.Figure:
    """The Neighbours page's bars: ``api.neighbours`` of a word, an id or arithmetic, in a geometry.

    >>> fig = neighbours(api.load(), "dog", k=3)
    >>> fig.layout.title.text, list(fig.data[0].y)
    ('Closest to dog', ['1. dogs', '2. canine', '3. puppy'])
    """
    return charts.finish(views.neighbours(*api.search(model, query, k, geometry_name, d)))


def words_on_axes(
    model: LoadedModel,
    ends: dict[str, tuple[str, str]],
    words: str,
    geometry_name: str = "raw",
    d: int | None = None,
) -> go.Figure:
    """Your own axes' chart: ``words`` (separated by commas) placed on the axes named in
    ``ends``, x (needed), y and z, each (from, to), every end one or more words.

    >>> fig = words_on_axes(api.load(), {"x": ("cold", "hot")}, "ice, fire")
    >>> fig.layout.xaxis.title.text
    'x: cold → hot'
    """
    index = vocab_search.build_index(model.tables.word_embeddings, model.tokenizer)
    space = geometry.fit(index.table, *api.geometry_shape(model, geometry_name, d))
    chosen = axes.in_space(axes.build_axes(index, model.tokenizer, ends), space)
    placed, problems = axes.words_to_place(index, model.tokenizer, words)
    if problems:
        raise UnknownWordError(problems[0])
    return charts.finish(views.words_on_axes(chosen, views.axis_groups(chosen, placed, space), model.name))
