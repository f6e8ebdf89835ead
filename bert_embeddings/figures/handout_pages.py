"""A page's parts for a lesson's handout: every page is composed once, by its own module's
``compose`` (settings.PAGE_MODULES), from the view's values (bert_embeddings.figures.check.values:
a view stands alone, every setting it does not name at its default, as a link opens it) read into
the page's ``Settings``, and ``Sources``, which computes what the app's caches hold in the same
way, once each per model. A page's own message (a word the model lacks, a position beyond its
table) becomes a note, as the page shows it instead of a figure.
"""

from __future__ import annotations

from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import settings
from bert_embeddings.figures.handout_parts import ERROR, Note, Part
from bert_embeddings.views.sources import Sources


def shown(page: str, values: dict, sources: Sources) -> list[Part]:
    """Everything a handout holds of ``page`` for a view's ``values``, in the page's order."""
    typed = settings.PAGE_MODULES.get(page)
    if typed is None:
        return [Note(f"This page cannot be drawn in a handout: open the {page} page to see it.")]
    try:
        return typed.compose(typed.Settings.of(values), sources).in_order()
    except ExplorerError as problem:  # what the page shows in place of its figures
        return [Note(str(problem), ERROR)]
