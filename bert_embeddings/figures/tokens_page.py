"""The Tokens page in the core: the sidebar's sentence as pieces, with their ids, segments and
positions, composed once for the page and a lesson's handout (it has no settings of its own).
"""

from __future__ import annotations

from dataclasses import dataclass

from bert_embeddings.figures import page_figures
from bert_embeddings.figures.handout_parts import Composed, Note, Pieces, Table, notices
from bert_embeddings.models import glyphs
from bert_embeddings.views import fields
from bert_embeddings.views.sources import Sources


@dataclass(frozen=True)
class Settings(fields.WithSentences):
    PAGE = "tokens"
    PREFIX = "tokens_"


@dataclass(frozen=True)
class Page(Composed):
    notices: tuple[Note, ...]
    pieces: Pieces  # the chips: the page's own drawing (a handout holds the table)
    table: Table


def compose(s: Settings, sources: Sources) -> Page:
    encoding = sources.encoding(s.values())
    columns = page_figures.pieces_table(encoding)
    legible = {**columns, "piece": [glyphs.legible(piece) for piece in columns["piece"]]}
    return Page(
        notices=notices(encoding),
        pieces=Pieces(encoding),
        table=Table(columns, f"{sources.model.name} pieces", legible, key="pieces_table"),
    )
