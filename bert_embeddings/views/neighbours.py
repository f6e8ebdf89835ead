"""The Neighbours page's settings, declared once: links, rooms and lessons carry each by its
field's ``url``, the page's widgets are keyed by ``Settings.key``, and the page, a lesson's figures
and a handout compose the same parts from them (bert_embeddings/figures/neighbours_page.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from bert_embeddings import limits
from bert_embeddings.analysis import decompose, vocab_search
from bert_embeddings.views import fields, link_text
from bert_embeddings.views.fields import linked, shared

QUERY_MODES = ("word", "token id", "sentence token", "arithmetic")
_MODES = dict(zip(("word", "id", "token", "sum"), QUERY_MODES, strict=True))
_K = link_text.whole_number(1, vocab_search.MAX_K, "k")


@dataclass(frozen=True)
class Settings(fields.PageSettings):
    PAGE = "neighbours"
    PREFIX = "nb_"

    mode: str = linked("mode", QUERY_MODES[0], "the query mode", *fields.coded(_MODES))
    word: str = linked("q", "king", "the word or piece", link_text.text_of(limits.WORD), mode="word")
    # The piece of a split word to search with, by position (None: the mean of its pieces).
    piece: int | None = linked(
        "piece",
        None,
        "the piece of the word to search with",
        link_text.integer(0, limits.WORD.most, "The piece"),
        mode="word",
    )
    id: float = linked(
        "id",
        2054.0,
        "the token id",
        link_text.whole_number(0, None, "A token id"),
        link_text.whole_text,
        mode="token id",
    )
    expression: str = linked(
        "sum",
        "king - man + woman",
        "the vector arithmetic",
        link_text.text_of(limits.ARITHMETIC),
        mode="arithmetic",
    )
    token: int | None = linked(
        "token",
        None,
        "the token of your sentence",
        link_text.integer(0, None, "The token"),
        mode="sentence token",
    )
    stage: str = linked(
        "stage", decompose.STAGES[0], "the stage the token is taken at", *fields.STAGES, mode="sentence token"
    )
    k: float = linked("k", 10.0, "k", _K, link_text.whole_text)
    hide_continuation: bool = linked("hide_pieces", False, "hide ## continuation pieces", *fields.FLAGS)
    hide_special: bool = linked("hide_special", True, "hide [CLS], [SEP], [unusedN]...", *fields.FLAGS)
    leave_out: bool = linked("leave_out", True, "leave out the query's own pieces", *fields.FLAGS)
    include: str = linked("only", "", "the 'Only pieces matching' pattern", link_text.pattern)
    exclude: str = linked("not", "", "the 'Leave out pieces matching' pattern", link_text.pattern)
    grid_stage: str = linked("grid", decompose.STAGES[0], "the grid's stage", *fields.STAGES)
    grid_k: float = linked(
        "grid_k",
        5.0,
        "the grid's neighbours per token",
        link_text.whole_number(1, 10, "The grid's neighbours per token"),
        link_text.whole_text,
    )
    geometry: str = shared(fields.GEOMETRY)
    geometry_removed: int | None = shared(fields.GEOMETRY_REMOVED)
    sentence_a: str = shared(fields.SENTENCE_A_KEY)
    sentence_b: str = shared(fields.SENTENCE_B_KEY)
    special_tokens: bool = shared(fields.SPECIAL_TOKENS_KEY)

    def filters(self, own_ids: tuple[int, ...] = ()) -> vocab_search.Filters:
        """The search's filters; the query's own pieces ``own_ids`` left out if asked."""
        return vocab_search.Filters(
            hide_continuation=self.hide_continuation,
            hide_special=self.hide_special,
            include=self.include,
            exclude=self.exclude,
            exclude_ids=own_ids if self.leave_out else (),
        )
