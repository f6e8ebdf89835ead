"""The Concepts page in the core: its one setting, declared once (bert_embeddings/views/fields.py),
and the toy space it shows, composed once for the page and a lesson's handout (it needs no model).
"""

from __future__ import annotations

from dataclasses import dataclass

from bert_embeddings import limits
from bert_embeddings.analysis import concepts, cosine
from bert_embeddings.figures import page_figures
from bert_embeddings.figures.handout_parts import Chart, Composed, Download, Note
from bert_embeddings.views import fields, link_text
from bert_embeddings.views.fields import linked
from bert_embeddings.views.sources import Sources


@dataclass(frozen=True)
class Settings(fields.PageSettings):
    PAGE = "concepts"
    PREFIX = "toy_"

    items: str = linked("items", concepts.DEFAULT_TEXT, "the items", link_text.text_of(limits.TOY_TEXT))


@dataclass(frozen=True)
class Page(Composed):
    space: Chart
    space_caption: Note
    space_download: Download
    similarity: Chart
    similarity_download: Download
    similarity_caption: Note


def compose(s: Settings, sources: Sources | None = None) -> Page:
    """The toy space of the items, and every item's cosine with every other."""
    space = concepts.parse(s.items)
    similarity = cosine.matrix(space.vectors)
    return Page(
        space=Chart("toy_space", page_figures.toy_space(space)),
        space_caption=Note("Each item is an arrow from the origin. Drag to turn the space around."),
        space_download=Download("toy space items", space.vectors, space.names, space.dimensions, "item"),
        similarity=Chart("toy_similarity", page_figures.toy_similarity(space, similarity)),
        similarity_download=Download("toy space cosine similarity", similarity, space.names, space.names),
        similarity_caption=Note(page_figures.toy_caption(space, similarity)),
    )
