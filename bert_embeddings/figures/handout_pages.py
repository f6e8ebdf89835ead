"""Which composer gives a page's parts for a lesson's handout: every page is composed once
(vocabulary_pages, and each typed page's module), from the view's values
(bert_embeddings.figures.check.values: a view stands alone, every setting it does not name at its
default, as a link opens it) and ``Sources``, which computes what the app's caches
hold in the same way, once each per model. ``shown(page, values, sources)`` gives a page's parts
in the page's order; a page's own message (a word the model lacks, a position beyond its table)
becomes a note, as the page shows it instead of a figure.
"""

from __future__ import annotations

from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import settings, vocabulary_pages
from bert_embeddings.figures.handout_parts import ERROR, Note, Part
from bert_embeddings.views.sources import Sources

# The composers, by page: each gives the page's parts, for the page and the handout.
COMPOSERS = vocabulary_pages.COMPOSERS


def shown(page: str, values: dict, sources: Sources) -> list[Part]:
    """Everything a handout holds of ``page`` for a view's ``values``, in the page's order."""
    composed, typed = COMPOSERS.get(page), settings.TYPED_PAGES.get(page)
    if composed is None and typed is None:
        return [Note(f"This page cannot be drawn in a handout: open the {page} page to see it.")]
    try:
        if typed is not None:
            return typed.compose(typed.Settings.of(values), sources).in_order()
        return list(composed(values, sources).values())
    except ExplorerError as problem:  # what the page shows in place of its figures
        return [Note(str(problem), ERROR)]
