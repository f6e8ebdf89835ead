"""The Context page in the core: its settings, declared once (bert_embeddings/views/fields.py),
and what it shows of them, composed once for the page and a lesson's handout: one word in two
sentences compared layer by layer through the whole model, and sentence 1's vectors after a
layer of the reader's choice.
"""

from __future__ import annotations

from dataclasses import dataclass

from bert_embeddings import limits
from bert_embeddings.analysis import contextual, vocab_search
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import export, page_figures
from bert_embeddings.figures.handout_parts import (
    ERROR,
    INFO,
    Chart,
    Composed,
    Download,
    Note,
    notices,
    within,
)
from bert_embeddings.views import fields, link_text
from bert_embeddings.views.fields import linked
from bert_embeddings.views.sources import Sources


@dataclass(frozen=True)
class Settings(fields.PageSettings):
    PAGE = "context"
    PREFIX = "ctx_"

    first: str = linked(
        "s1", "He sat on the bank of the river.", "sentence 1", link_text.text_of(limits.SENTENCE)
    )
    second: str = linked(
        "s2", "She paid the cash into her bank account.", "sentence 2", link_text.text_of(limits.SENTENCE)
    )
    word: str = linked("word", "bank", "the word to follow", link_text.text_of(limits.WORD))
    # None: the model's last layer (the page works it out, and links leave it out).
    layer: int | None = linked(
        "layer", None, "the layer to show", link_text.integer(0, link_text.MOST_LAYERS, "The layer")
    )


@dataclass(frozen=True)
class Page(Composed):
    notices: tuple[Note, ...] = ()  # each sentence's (that it was cut at the model's positions)
    problem: Note | None = None  # the word is not in a sentence: the page stops after it
    same: Note | None = None
    similarity: Chart | None = None
    similarity_download: Download | None = None
    similarity_caption: Note | None = None
    heatmap: Chart | None = None
    heatmap_download: Download | None = None


def last_layer(sources: Sources) -> int:
    """The last layer the page offers: the whole model's last encoder layer."""
    return sources.full_model().config.num_hidden_layers


def compose(s: Settings, sources: Sources) -> Page:
    model, index = sources.model, sources.index()
    encodings = [model.encode(text) for text in (s.first, s.second)]
    said = tuple(
        note
        for number, encoding in enumerate(encodings, start=1)
        for note in notices(encoding, f"Sentence {number}")
    )
    try:
        piece_ids = vocab_search.word_ids(index, model.tokenizer, s.word)
        where = [
            contextual.find_word(e, piece_ids, f"sentence {n}") for n, e in enumerate(encodings, start=1)
        ]
    except ExplorerError as problem:
        return Page(said, problem=Note(str(problem), ERROR))
    same = None
    if s.first.strip() == s.second.strip():
        same = Note(
            "The two sentences are the same, so the word has the same vector at every layer (cosine 1). "
            "Change one sentence to see context at work.",
            INFO,
        )
    states = [sources.hidden_states(text) for text in (s.first, s.second)]
    in_context = page_figures.word_in_context(model, encodings, where, states)
    last = len(in_context.states) - 1
    layer = within(s.layer, range(last + 1), last)
    return Page(
        said,
        same=same,
        similarity=Chart("ctx_similarity", page_figures.context_similarity(in_context, s.word)),
        similarity_download=Download(
            (model.name, export.Verbatim(s.word), "cosine by layer"),
            in_context.similarity,
            in_context.stages,
            ["cosine"],
            "stage",
        ),
        similarity_caption=Note(
            "At the token row the two vectors are identical. The embedding output adds each one's position "
            f"row (the word is at position {where[0][0]} in sentence 1 and {where[1][0]} in sentence 2; both "
            "sentences are segment A); each encoder layer then mixes in the rest of its sentence."
        ),
        heatmap=Chart("ctx_heatmap", page_figures.context_layer(in_context, encodings[0].labels, layer)),
        heatmap_download=Download(
            f"{model.name} sentence 1 layer {layer}",
            in_context.states[layer],
            encodings[0].labels,
            corner="token",
        ),
    )
