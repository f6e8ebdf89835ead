"""Exact neighbours against a brute-force numpy reference: all rows, float64, full sort."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bert_embeddings.analysis import geometry
from bert_embeddings.analysis import vocab_search as vs
from bert_embeddings.errors import (
    EmptyQueryError,
    InvalidRegexError,
    NothingLeftError,
    OutOfRangeError,
    QuerySyntaxError,
    UnknownWordError,
    ZeroVectorError,
)
from testkit import brute

SHAPES = [("raw", 0), ("centred", 0), ("all-but-the-top", 3), ("standardised", 0)]


def brute_force(table, pieces, query, k, shape=("raw", 0), filters=None, terms=None):
    """Cosine over every explicitly transformed row in float64, sorted by (-score, id); filters
    applied by hand. With ``terms`` [(sign, row), ...] the query is the signed sum of the
    terms' transformed rows (``query`` unused)."""
    filters = filters or vs.Filters()
    w = brute.transformed(table, *shape)
    if terms is None:
        q = brute.transformed(table, *shape, rows=query)[0]
    else:
        q = sum(sign * brute.transformed(table, *shape, rows=row)[0] for sign, row in terms)
    norms = np.linalg.norm(w, axis=1)
    scores = np.where(norms > 0, w @ q / np.where(norms > 0, norms, 1) / np.linalg.norm(q), 0.0)
    keep = []
    for i, piece in enumerate(pieces):
        if filters.hide_continuation and piece.startswith("##"):
            continue
        if filters.hide_special and re.match(r"^\[[^\]]+\]$", piece):
            continue
        if filters.include and not re.search(filters.include, piece):
            continue
        if filters.exclude and re.search(filters.exclude, piece):
            continue
        if i in filters.exclude_ids:
            continue
        keep.append(i)
    ranked = sorted(keep, key=lambda i: (-scores[i], i))[:k]
    return np.array(ranked), scores[ranked]


class FakeTokenizer:
    """Just enough of a tokenizer for build_index on a random table."""

    def __init__(self, pieces):
        self.pieces = pieces

    def get_vocab(self):
        return {p: i for i, p in enumerate(self.pieces)}


def random_index(rows=3000, hidden=48, seed=0, duplicates=0):
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((rows, hidden)).astype(np.float32) + 0.3  # a shared direction, like BERT's
    for n in range(duplicates):  # exact copies of row 7 at later ids: ties to break by id
        table[100 + 37 * n] = table[7]
    table[5] = 0  # an all-zero row, like an untrained [PAD]
    pieces = [f"w{i}" if i % 5 else f"##w{i}" for i in range(rows)]
    pieces[:4] = ["[PAD]", "[CLS]", "[SEP]", "[unused0]"]
    return vs.build_index(table, FakeTokenizer(pieces)), table, pieces


FILTERS = [
    vs.Filters(hide_special=False),
    vs.Filters(),
    vs.Filters(hide_continuation=True),
    vs.Filters(include=r"^w1"),
    vs.Filters(exclude=r"7"),
    vs.Filters(hide_continuation=True, include=r"2", exclude=r"^w2", exclude_ids=(11, 12, 13)),
]


@pytest.mark.parametrize("filters", FILTERS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", [0, 1])
def test_random_tables_equal_brute_force(filters, shape, seed):
    """Ids in the same order and scores to 1e-5, for every filter and every geometry."""
    index, table, pieces = random_index(seed=seed)
    space = geometry.fit(table, *shape)
    rng = np.random.default_rng(100 + seed)
    for query in (rng.standard_normal(table.shape[1]), table[42], table[42] * 3 - table[9]):
        got = vs.nearest(index, query, k=25, space=space, filters=filters)
        ids, scores = brute_force(table, pieces, query, 25, shape, filters)
        np.testing.assert_array_equal(got.ids, ids)
        np.testing.assert_allclose(got.scores, scores, atol=1e-5)
        assert got.pieces == tuple(pieces[i] for i in ids)


def test_ties_are_broken_by_the_lower_id():
    """Identical rows score identically and come out in id order."""
    index, table, pieces = random_index(duplicates=6)
    got = vs.nearest(index, table[7], k=10)
    copies = [7] + [100 + 37 * n for n in range(6)]
    assert got.ids[:7].tolist() == copies
    assert len(set(got.scores[:7].tolist())) == 1
    np.testing.assert_array_equal(got.ids, brute_force(table, pieces, table[7], 10)[0])


def test_grid_equals_one_query_at_a_time():
    """The all-tokens grid (one matrix product) gives what single queries give."""
    index, table, _ = random_index()
    queries = np.random.default_rng(3).standard_normal((70, table.shape[1])).astype(np.float32)
    for shape in SHAPES:
        space = geometry.fit(table, *shape)
        grid = vs.nearest_for_each(index, queries, k=5, space=space, chunk=32)
        for query, row in zip(queries, grid, strict=True):
            single = vs.nearest(index, query, k=5, space=space)
            np.testing.assert_array_equal(row.ids, single.ids)
            np.testing.assert_allclose(row.scores, single.scores, atol=1e-6)


def test_the_table_is_not_copied(bundled):
    """The index references the model's table; it is built once and shared read-only."""
    index = vs.build_index(bundled.tables.word_embeddings, bundled.tokenizer)
    assert index.table is bundled.tables.word_embeddings
    assert not index.norms.flags.writeable and not index.special.flags.writeable


@pytest.fixture(scope="module")
def bert_index(bundled):
    return vs.build_index(bundled.tables.word_embeddings, bundled.tokenizer)


@pytest.mark.slow("brute force over the whole vocabulary")
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("filters", [vs.Filters(), vs.Filters(hide_continuation=True, exclude=r"^k")])
def test_bundled_model_equals_brute_force(bundled, bert_index, shape, filters):
    """On the bundled model's 30,522 rows, results equal the brute-force reference, in every geometry."""
    space = geometry.fit(bundled.tables.word_embeddings, *shape)
    for word in ("king", "running", "paris"):
        query = vs.word_query(bert_index, bundled.tokenizer, word)
        got = vs.nearest(bert_index, query.vector, k=20, space=space, filters=filters)
        ids, scores = brute_force(
            bundled.tables.word_embeddings, bert_index.pieces, query.vector, 20, shape, filters
        )
        np.testing.assert_array_equal(got.ids, ids)
        np.testing.assert_allclose(got.scores, scores, atol=1e-5)


@pytest.mark.slow("brute force over the whole vocabulary")
@pytest.mark.parametrize("shape", SHAPES)
def test_arithmetic_in_a_geometry_adds_the_transformed_words(bundled, bert_index, shape):
    """king - man + woman in a geometry is T(king) - T(man) + T(woman): the mean counts once per
    sign, so king + queen (signs add to 2) and paris - france + italy - rome (to 0) rank as the
    brute-force sum of explicitly transformed rows does, and king - king has no direction."""
    table = bundled.tables.word_embeddings
    space = geometry.fit(table, *shape)
    for expression in ("king - man + woman", "king + queen", "paris - france + italy - rome", "- dog"):
        query = vs.arithmetic_query(bert_index, bundled.tokenizer, expression)
        parsed = vs.parse_arithmetic(expression)
        terms = [(sign, table[bundled.tokenizer.token_to_id(word)]) for sign, word in parsed]
        assert query.weight == sum(sign for sign, _ in terms)
        got = vs.nearest(bert_index, query.vector, k=10, space=space, weight=query.weight)
        ids, scores = brute_force(table, bert_index.pieces, None, 10, shape, terms=terms)
        np.testing.assert_array_equal(got.ids, ids, err_msg=expression)
        np.testing.assert_allclose(got.scores, scores, atol=1e-5, err_msg=expression)
    nothing = vs.arithmetic_query(bert_index, bundled.tokenizer, "king - king")
    with pytest.raises(ZeroVectorError):
        vs.nearest(bert_index, nothing.vector, space=space, weight=nothing.weight)


@pytest.mark.parametrize(
    "word,expected",
    [("dogs", "dog"), ("cars", "car"), ("happy", "glad"), ("king", "queen"), ("big", "large")],
)
def test_unmistakable_neighbours(bundled, bert_index, word, expected):
    """A plural finds its singular, a word finds its close synonym, among the top 10."""
    query = vs.word_query(bert_index, bundled.tokenizer, word)
    got = vs.nearest(bert_index, query.vector, k=10, filters=vs.Filters(exclude_ids=query.ids))
    assert expected in got.pieces, got.pieces


def test_king_minus_man_plus_woman(bundled, bert_index):
    """The classic analogy lands on 'queen' once the query's own words are left out."""
    query = vs.arithmetic_query(bert_index, bundled.tokenizer, "king - man + woman")
    got = vs.nearest(bert_index, query.vector, k=3, filters=vs.Filters(exclude_ids=query.ids))
    assert got.pieces[0] == "queen"


def test_word_queries(bundled, bert_index):
    """Pieces as written, a word of several pieces (one piece or the mean), and ids."""
    tok = bundled.tokenizer
    assert vs.word_ids(bert_index, tok, "##ing") == (tok.token_to_id("##ing"),)
    assert vs.word_ids(bert_index, tok, "King") == (tok.token_to_id("king"),)
    ids = vs.word_ids(bert_index, tok, "embeddings")
    assert [bert_index.pieces[i] for i in ids] == ["em", "##bed", "##ding", "##s"]
    mean = vs.word_query(bert_index, tok, "embeddings")
    np.testing.assert_allclose(mean.vector, bundled.tables.word_embeddings[list(ids)].mean(axis=0))
    second = vs.word_query(bert_index, tok, "embeddings", piece=1)
    assert second.ids == (ids[1],) and second.description == "##bed"
    assert vs.id_query(bert_index, 2054).description == f"id 2054 ({bert_index.pieces[2054]})"


@pytest.mark.parametrize(
    "call,error",
    [
        (lambda ix, tok: vs.word_query(ix, tok, "   "), EmptyQueryError),
        (lambda ix, tok: vs.word_query(ix, tok, "🦜"), UnknownWordError),
        (lambda ix, tok: vs.word_query(ix, tok, "two words"), QuerySyntaxError),
        (lambda ix, tok: vs.word_query(ix, tok, "embeddings", piece=9), OutOfRangeError),
        (lambda ix, tok: vs.id_query(ix, 30522), OutOfRangeError),
        (lambda ix, tok: vs.id_query(ix, -1), OutOfRangeError),
        (lambda ix, tok: vs.arithmetic_query(ix, tok, ""), EmptyQueryError),
        (lambda ix, tok: vs.arithmetic_query(ix, tok, "king +"), QuerySyntaxError),
        (lambda ix, tok: vs.arithmetic_query(ix, tok, "king - - man"), QuerySyntaxError),
        (lambda ix, tok: vs.arithmetic_query(ix, tok, "king man"), QuerySyntaxError),
        (lambda ix, tok: vs.arithmetic_query(ix, tok, "king - 🦜"), UnknownWordError),
        (lambda ix, tok: vs.nearest(ix, vs.arithmetic_query(ix, tok, "king - king").vector), ZeroVectorError),
        (lambda ix, tok: vs.nearest(ix, ix.table[1], k=0), OutOfRangeError),
        (lambda ix, tok: vs.nearest(ix, ix.table[1], k=101), OutOfRangeError),
        (lambda ix, tok: vs.nearest(ix, ix.table[1], filters=vs.Filters(include="([")), InvalidRegexError),
        (
            lambda ix, tok: vs.nearest(ix, ix.table[1], filters=vs.Filters(include="^zzzzqq$")),
            NothingLeftError,
        ),
    ],
)
def test_bad_queries_raise_named_errors(bundled, bert_index, call, error):
    """Each bad query raises its named error with a message for the user."""
    with pytest.raises(error) as raised:
        call(bert_index, bundled.tokenizer)
    assert len(str(raised.value)) > 20
