"""The figures of one model and of a sentence in it, as a lesson's text names them: the model's
tables, a sentence's pieces and ids, the proof against the model's own module, the position rows,
the vocabulary's principal components, a word's nearest pieces, and a word in two contexts.
bert_embeddings.lessons.figures reads and shows them; each is computed as its page computes it."""

from __future__ import annotations

import numpy as np

from bert_embeddings.analysis import contextual, cosine, vocab_search
from bert_embeddings.errors import ExplorerError
from bert_embeddings.lessons.figure_kit import (
    K_ARG,
    SENTENCE_ARG,
    SENTENCE_B_ARG,
    Arg,
    Facts,
    Missing,
    Result,
    a_word,
    figure,
    listed,
    number,
    one_piece,
    percent,
    pieces_list,
    plain,
    whole,
    whole_in,
)
from bert_embeddings.lessons.text import CODE, Span


@figure("model", "the model's name")
def _model_name(facts: Facts, _: dict) -> Result:
    return plain(facts.model.name)


@figure("width", "numbers per piece (the token table's width)")
def _width(facts: Facts, _: dict) -> Result:
    return plain(whole(facts.width()))


@figure("vocab", "rows of the token table (pieces in the vocabulary)")
def _vocab(facts: Facts, _: dict) -> Result:
    return plain(whole(facts.model.tables.word_embeddings.shape[0]))


@figure("positions", "rows of the position table")
def _positions(facts: Facts, _: dict) -> Result:
    return plain(whole(facts.model.tables.position_embeddings.shape[0]))


@figure("segments", "rows of the segment table")
def _segments(facts: Facts, _: dict) -> Result:
    table = facts.model.tables.token_type_embeddings
    if table is None:
        return Missing(f"{facts.model.name} has no segment table")
    return plain(whole(table.shape[0]))


@figure("layers", "encoder layers")
def _layers(facts: Facts, _: dict) -> Result:
    return plain(whole(facts.layers())) if facts.layers() else Missing("the model's config names no layers")


@figure("module", "the transformers class of the model's embedding layer")
def _module(facts: Facts, _: dict) -> Result:
    return (Span(CODE, facts.model.family.embeddings_class),)


@figure("opening", "the special piece that opens every input")
def _opening(facts: Facts, _: dict) -> Result:
    return _special(facts, 0)


@figure("closing", "the special piece that closes each sentence")
def _closing(facts: Facts, _: dict) -> Result:
    return _special(facts, -1)


def _special(facts: Facts, at: int) -> Result:
    encoding = facts.model.encode("a")
    if not encoding.is_special[at]:
        return Missing(f"{facts.model.name} adds no special piece there")
    return (Span(CODE, encoding.pieces[at]),)


@figure("pieces", "the pieces a sentence (pair) becomes", text=SENTENCE_ARG, b=SENTENCE_B_ARG)
def _pieces(facts: Facts, a: dict) -> Result:
    return pieces_list(facts.model.encode(a["text"], a["b"]).pieces)


@figure("ids", "the ids of a sentence's pieces", text=SENTENCE_ARG, b=SENTENCE_B_ARG)
def _ids(facts: Facts, a: dict) -> Result:
    ids = [str(int(i)) for i in facts.model.encode(a["text"], a["b"]).ids]
    return plain(listed(ids))


@figure("count", "how many pieces a sentence (pair) becomes", text=SENTENCE_ARG, b=SENTENCE_B_ARG)
def _count_pieces(facts: Facts, a: dict) -> Result:
    return plain(whole(len(facts.model.encode(a["text"], a["b"]).pieces)))


@figure("word_pieces", "the pieces one word becomes, alone", word=Arg(a_word))
def _word_pieces(facts: Facts, a: dict) -> Result:
    encoding = facts.model.encode(a["word"], add_special_tokens=False)
    return pieces_list(encoding.pieces)


@figure("id", "a piece's id (a word that is not one piece is said so)", word=Arg(a_word))
def _id(facts: Facts, a: dict) -> Result:
    ids = one_piece(facts, a["word"])
    return ids if isinstance(ids, Missing) else plain(ids)


@figure("proof", "the largest difference from the model's own embedding module", text=SENTENCE_ARG)
def _proof(facts: Facts, a: dict) -> Result:
    encoding = facts.model.encode(a["text"])
    return plain(number(facts.sources.verification(encoding).max_abs_error))


@figure("position_lengths", "the shortest and longest learned position row")
def _position_lengths(facts: Facts, _: dict) -> Result:
    lengths = np.linalg.norm(facts.model.tables.position_embeddings, axis=1)
    return plain(f"{lengths.min():.2f} to {lengths.max():.2f}")


@figure(
    "pca_share", "the share of variance the first n principal components explain", n=Arg(whole_in(1, 10), "2")
)
def _pca_share(facts: Facts, a: dict) -> Result:
    basis, _ = facts.sources.vocabulary_pca()
    return plain(percent(float(np.sum(basis.explained_variance_ratio[: a["n"]])), 1))


@figure(
    "neighbours", "a word's nearest pieces by cosine, as Neighbours lists them", word=Arg(a_word), k=K_ARG
)
def _neighbours(facts: Facts, a: dict) -> Result:
    found = _nearest(facts, a["word"], a["k"])
    return found if isinstance(found, Missing) else pieces_list(found.pieces[: a["k"]])


def _nearest(facts: Facts, word: str, k: int) -> vocab_search.Neighbours | Missing:
    index = facts.index()
    try:
        query = vocab_search.word_query(index, facts.model.tokenizer, word)
    except ExplorerError as problem:
        return Missing(str(problem).rstrip("."))
    keep_out = vocab_search.Filters(exclude_ids=query.ids)
    return vocab_search.nearest(
        index, query.vector, k, facts.geometry("raw", 0), keep_out, weight=query.weight
    )


@figure("rank", "where a piece stands among a word's 100 nearest", piece=Arg(a_word), of=Arg(a_word))
def _rank(facts: Facts, a: dict) -> Result:
    found = _nearest(facts, a["of"], 100)
    if isinstance(found, Missing):
        return found
    if a["piece"] not in found.pieces:
        return Missing(f"“{a['piece']}” is not among the 100 nearest to “{a['of']}” in {facts.model.name}")
    return plain(whole(found.pieces.index(a["piece"]) + 1))


@figure("cosine", "the cosine of two pieces' token rows", a=Arg(a_word), b=Arg(a_word))
def _cosine(facts: Facts, a: dict) -> Result:
    ids = [one_piece(facts, a[end]) for end in ("a", "b")]
    if missing := next((i for i in ids if isinstance(i, Missing)), None):
        return missing
    rows = facts.index().table[ids]
    return plain(number(cosine.paired(rows[:1], rows[1:])[0]))


@figure(
    "context",
    "the cosine of one word in two sentences after a layer (0: the embedding output)",
    word=Arg(a_word),
    s1=SENTENCE_ARG,
    s2=SENTENCE_ARG,
    layer=Arg(lambda t: t if t == "last" else str(whole_in(0, 48)(t)), "last", "a layer, 0 to the last"),
)
def _context(facts: Facts, a: dict) -> Result:
    full = facts.full_model()
    encodings = [facts.model.encode(a[s]) for s in ("s1", "s2")]
    try:
        ids = vocab_search.word_ids(facts.index(), facts.model.tokenizer, a["word"])
        where = [contextual.find_word(e, ids, f"sentence {n}") for n, e in enumerate(encodings, 1)]
    except ExplorerError as problem:
        return Missing(str(problem).rstrip("."))
    states = [contextual.hidden_states(full, e) for e in encodings]
    layer = len(states[0]) - 1 if a["layer"] == "last" else int(a["layer"])
    if layer >= len(states[0]):
        return Missing(f"{facts.model.name} has {len(states[0]) - 1} layers")
    return plain(number(contextual.word_similarity_by_layer(states[0], where[0], states[1], where[1])[layer]))
