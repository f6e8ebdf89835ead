"""The app's figures for a notebook: each returns the Plotly figure its page draws for the same
input and settings (returned, not shown; display it, or call ``.show()``). No Streamlit.

>>> from bert_embeddings import api
>>> from bert_embeddings.figures import notebook as figures
>>> fig = figures.overview(api.load(), "I am Sinan")
>>> [panel.text for panel in fig.layout.annotations][:2]
['token row', '+ position<br>row']

Each figure takes the page's default settings (filters off, presenter mode off, no sentence
group on the axes). Every example here runs as a doctest (tests/test_api.py);
tests/app/test_figures_notebook.py checks each figure against the one its page sends to the
browser.
"""

from __future__ import annotations

import plotly.graph_objects as go

from bert_embeddings import api
from bert_embeddings.analysis import axes, decompose, geometry, projection, vocab_search
from bert_embeddings.errors import OutOfRangeError
from bert_embeddings.figures import charts, map_charts, views
from bert_embeddings.models.model import LoadedModel

__all__ = ["overview", "neighbours", "words_on_axes", "pca_map", "tsne_map"]


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
    ends: dict[str, tuple[axes.Words, axes.Words]],
    words: axes.Words,
    geometry_name: str = "raw",
    d: int | None = None,
) -> go.Figure:
    """Your own axes' chart: ``words`` (separated by commas, or a list) placed on the axes named
    in ``ends``, x (needed), y and z, each (from, to), every end one or more words. A word that
    cannot be placed is an error naming every such word, as in ``api``.

    >>> fig = words_on_axes(api.load(), {"x": ("cold", "hot")}, "ice, fire")
    >>> fig.layout.xaxis.title.text
    'x: cold → hot'
    """
    index = vocab_search.build_index(model.tables.word_embeddings, model.tokenizer)
    space = geometry.fit(index.table, *api.geometry_shape(model, geometry_name, d))
    chosen = axes.in_space(axes.build_axes(index, model.tokenizer, ends), space)
    placed, problems = axes.words_to_place(index, model.tokenizer, words)
    if problems:  # the notebook API's rule: every word placed, or an error naming each one that is not
        raise axes.unplaced(problems)
    return charts.finish(views.words_on_axes(chosen, views.axis_groups(chosen, placed, space), model.name))


def pca_map(
    model: LoadedModel,
    geometry_name: str = "raw",
    d: int | None = None,
    components: tuple[int, ...] = (1, 2),
    text_a: str = "",
    text_b: str = "",
    theme: str = "light",
) -> go.Figure:
    """The Maps page's PCA map of every vocabulary row in a geometry, on two or three
    components (numbered from 1, up to 10), with a sentence's pieces marked if one is given,
    in the text colour of ``theme`` (``"light"`` or ``"dark"``, as the notebook's background).

    >>> fig = pca_map(api.load(), components=(1, 3), text_a="I am Sinan")
    >>> fig.layout.title.text, fig.layout.xaxis.title.text[:4], fig.data[-1].name
    ('The whole vocabulary (30,522 pieces), PCA,<br>raw geometry', 'PC1 ', 'your sentence')
    """
    shape = api.geometry_shape(model, geometry_name, d)
    table = model.tables.word_embeddings
    basis, coords = geometry.pca(table, geometry.fit(table, *shape))
    shown = projection.check_components(basis, *components)
    ratios = basis.explained_variance_ratio
    return _vocabulary(model, _index(model), coords, shown, ratios, shape, (text_a, text_b, theme))


def tsne_map(
    model: LoadedModel,
    geometry_name: str = "raw",
    d: int | None = None,
    text_a: str = "",
    text_b: str = "",
    labels: bool = True,
    compute: bool = False,
    theme: str = "light",
) -> go.Figure:
    """The Maps page's t-SNE map of every vocabulary row in a geometry, with its region labels
    (``labels``) and a sentence's pieces marked if one is given, both in ``theme``'s text
    colour. The map is read from the cache folder the app fills; ``compute`` makes it first if
    it is not there (see ``api.tsne_map``)."""
    shape = api.geometry_shape(model, geometry_name, d)
    done = api.finished_map(model, geometry_name, d, compute)  # or an error saying how to make it
    index = _index(model)
    ink = _ink(theme)
    underlays = [views.region_labels(done, views.map_labels(done, index), ink)] if labels else []
    return _vocabulary(model, index, done.coords, (0, 1), None, shape, (text_a, text_b, theme), underlays)


def _ink(theme: str) -> str:
    if theme not in charts.INK:
        raise OutOfRangeError(f"The theme is 'light' or 'dark', not {theme!r}.")
    return charts.INK[theme]


def _index(model: LoadedModel) -> vocab_search.VocabIndex:
    return vocab_search.build_index(model.tables.word_embeddings, model.tokenizer)


def _vocabulary(model, index, coords, shown, ratios, shape, texts, underlays=()) -> go.Figure:
    """A vocabulary map with every kind of piece shown, as the page shows it at first; ``texts``
    is (sentence A, sentence B, theme)."""
    text_a, text_b, theme = texts
    marks = [views.sentence_mark(model.encode(text_a, text_b).ids, _ink(theme))] if text_a.strip() else []
    every_kind = list(range(len(vocab_search.KINDS)))
    request = views.vocabulary(
        index, shape, coords, shown, ratios, shown_kinds=every_kind, highlights=marks, underlays=underlays
    )
    return charts.finish(map_charts.vocabulary_map(request))
