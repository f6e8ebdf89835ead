"""The reader's own axes: coordinates and the whole-vocabulary extremes against numpy brute
force (float64, every row, a full sort), on random tables and on the bundled model; bad input;
and the page itself."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings import limits
from bert_embeddings.analysis import axes, geometry
from bert_embeddings.analysis import vocab_search as vs
from bert_embeddings.errors import (
    EmptyQueryError,
    InputTooLongError,
    NotTextError,
    QuerySyntaxError,
    UnknownWordError,
    ZeroVectorError,
)
from bert_embeddings.figures import settings
from testkit import brute
from testkit.apptest import ROOT, array, figures, messages

# --- brute force ----------------------------------------------------------------------------

pytestmark = pytest.mark.usefixtures("offline")  # the default model resolves offline at once


def brute_direction(table: np.ndarray, start: list[list[int]], end: list[list[int]]) -> np.ndarray:
    """Each word the mean of its rows, each end the mean of its words, in float64."""
    w = table.astype(np.float64)
    low = np.mean([w[ids].mean(axis=0) for ids in start], axis=0)
    high = np.mean([w[ids].mean(axis=0) for ids in end], axis=0)
    return (high - low) / np.linalg.norm(high - low)


SHAPES = [("raw", 0), ("centred", 0), ("all-but-the-top", 3), ("standardised", 0)]


def brute_direction_in(table, direction, length, name, removed):
    """An axis' direction in a geometry: its two ends transformed explicitly, subtracted, made unit."""
    ends = brute.transformed(table, name, removed, np.stack([np.zeros_like(direction), direction * length]))
    along = ends[1] - ends[0]
    return along / np.linalg.norm(along)


def brute_extremes(table, pieces, direction, shape, filters, k=axes.EXTREMES):
    """Every row's coordinate in float64 (explicitly transformed rows on the axis' direction
    there); the k highest and k lowest allowed rows, ties by id."""
    scores = brute.transformed(table, *shape) @ direction
    keep = [
        i
        for i, piece in enumerate(pieces)
        if not (filters.hide_continuation and piece.startswith("##"))
        and not (filters.hide_special and re.match(r"^\[[^\]]+\]$", piece))
        and not (filters.include and not re.search(filters.include, piece))
        and not (filters.exclude and re.search(filters.exclude, piece))
        and i not in filters.exclude_ids
    ]
    high = sorted(keep, key=lambda i: (-scores[i], i))[:k]
    low = sorted(keep, key=lambda i: (scores[i], i))[:k]
    return (np.array(high), scores[high]), (np.array(low), scores[low])


class PieceTokenizer:
    """A tokenizer whose every piece is a word of its own: enough for a random table."""

    def __init__(self, pieces):
        self.vocab = {p: i for i, p in enumerate(pieces)}

    def get_vocab(self):
        return self.vocab

    def token_to_id(self, piece):
        return self.vocab.get(piece)


def random_setup(seed: int, rows: int = 4000, hidden: int = 40):
    rng = np.random.default_rng(seed)
    table = (rng.standard_normal((rows, hidden)) + 0.4).astype(np.float32)
    pieces = [f"w{i}" if i % 7 else f"##w{i}" for i in range(rows)]
    pieces[:3] = ["[PAD]", "[CLS]", "[SEP]"]
    tokenizer = PieceTokenizer(pieces)
    return vs.build_index(table, tokenizer), tokenizer, table, pieces


FILTERS = [
    vs.Filters(),
    vs.Filters(hide_special=False, hide_continuation=True),
    vs.Filters(include=r"^w1", exclude=r"3"),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("shape", SHAPES)
def test_coordinates_equal_brute_force_on_random_tables(seed, shape):
    """Placed words and the axes' cosine, for one-word and several-word ends, to 1e-6."""
    index, tokenizer, table, _ = random_setup(seed)
    rng = np.random.default_rng(50 + seed)
    words_only = [i for i in range(3, len(table)) if i % 7]  # "##" pieces are not words
    ids = rng.choice(words_only, size=30, replace=False).tolist()
    ends = {
        "x": (f"w{ids[0]}", f"w{ids[1]}"),
        "y": (f"w{ids[2]}, w{ids[3]}", f"w{ids[4]}, w{ids[5]}, w{ids[6]}"),
    }
    space = geometry.fit(table, *shape)
    chosen = axes.in_space(
        axes.build_axes(index, tokenizer, {**ends, "z": (f"w{ids[7]}", f"w{ids[8]}")}), space
    )
    ends_ids = [
        ([[ids[0]]], [[ids[1]]]),
        ([[ids[2]], [ids[3]]], [[ids[4]], [ids[5]], [ids[6]]]),
        ([[ids[7]]], [[ids[8]]]),
    ]
    expected = []
    for start, end in ends_ids:
        low = brute.transformed(
            table, *shape, rows=np.mean([table[i].astype(np.float64).mean(0) for i in start], 0)
        )
        high = brute.transformed(
            table, *shape, rows=np.mean([table[i].astype(np.float64).mean(0) for i in end], 0)
        )
        expected.append(((high - low) / np.linalg.norm(high - low))[0])
    words, problems = axes.words_to_place(index, tokenizer, ", ".join(f"w{i}" for i in ids[9:]))
    assert not problems and [w.ids for w in words] == [(i,) for i in ids[9:]]
    got = axes.coordinates(np.array([w.vector for w in words]), chosen, space)
    w = brute.transformed(table, *shape, rows=table[ids[9:]])
    np.testing.assert_allclose(got, w @ np.array(expected).T, atol=1e-6)
    np.testing.assert_allclose(axes.between(chosen), np.array(expected) @ np.array(expected).T, atol=1e-12)


@pytest.mark.parametrize("filters", FILTERS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", [0, 1])
def test_extremes_equal_brute_force_on_random_tables(filters, shape, seed):
    """The 20 rows furthest towards each end: the same ids in the same order, coordinates to 1e-5."""
    index, tokenizer, table, pieces = random_setup(seed)
    space = geometry.fit(table, *shape)
    raw = axes.build_axis(index, tokenizer, "x", "w10, w11", "w12")
    (axis,) = axes.in_space([raw], space)
    direction = brute_direction(table, [[10], [11]], [[12]])
    direction = brute_direction_in(table, direction, raw.length, *shape)
    np.testing.assert_allclose(axis.direction, direction, atol=1e-12)
    towards_end, towards_start = axes.extremes(index, axis, space, filters)
    (high, high_scores), (low, low_scores) = brute_extremes(table, pieces, direction, shape, filters)
    np.testing.assert_array_equal(towards_end.ids, high)
    np.testing.assert_array_equal(towards_start.ids, low)
    np.testing.assert_allclose(towards_end.scores, high_scores, atol=1e-5)
    np.testing.assert_allclose(towards_start.scores, low_scores, atol=1e-5)
    assert towards_end.pieces == tuple(pieces[i] for i in high)


def test_extremes_break_ties_by_the_lower_id():
    """Identical rows have identical coordinates and are listed in id order at both ends."""
    index, tokenizer, table, pieces = random_setup(0)
    axis = axes.build_axis(index, tokenizer, "x", "w10", "w12")
    best = int(np.argmax(table @ axis.direction.astype(np.float32)))
    copies = sorted([best, 3000, 3001, 3002])
    table[copies] = table[best]
    index = vs.build_index(table, PieceTokenizer(pieces))
    towards_end, _ = axes.extremes(
        index, axis, filters=vs.Filters(hide_special=False, hide_continuation=False)
    )
    assert towards_end.ids[:4].tolist() == copies


@pytest.fixture(scope="module")
def bert_index(bundled):
    return vs.build_index(bundled.tables.word_embeddings, bundled.tokenizer)


@pytest.mark.slow("brute force over the whole vocabulary, and the Axes page")
@pytest.mark.parametrize("shape", SHAPES)
def test_bundled_model_default_axes_equal_brute_force(bundled, bert_index, shape):
    """The page's own axes and words on the bundled model's 30,522 rows, against brute force."""
    tok = bundled.tokenizer
    table = bundled.tables.word_embeddings
    space = geometry.fit(table, *shape)
    raw_axes = axes.build_axes(bert_index, tok, axes.DEFAULT_ENDS)
    chosen = axes.in_space(raw_axes, space)
    assert [a.name for a in chosen] == ["x", "y"]
    for raw, axis in zip(raw_axes, chosen, strict=True):
        start = [tok.encode(w, add_special_tokens=False).ids for w in (x.text for x in axis.start)]
        end = [tok.encode(w, add_special_tokens=False).ids for w in (x.text for x in axis.end)]
        direction = brute_direction(table, start, end)
        np.testing.assert_allclose(raw.direction, direction, atol=1e-12)
        direction = brute_direction_in(table, direction, raw.length, *shape)
        np.testing.assert_allclose(axis.direction, direction, atol=1e-9)
        filters = vs.Filters(hide_continuation=True, exclude=r"^k", exclude_ids=axis.ids)
        (high, _), (low, _) = brute_extremes(table, bert_index.pieces, direction, shape, filters)
        towards_end, towards_start = axes.extremes(bert_index, axis, space, filters)
        np.testing.assert_array_equal(towards_end.ids, high)
        np.testing.assert_array_equal(towards_start.ids, low)
    words, problems = axes.words_to_place(bert_index, tok, "king, queen, embeddings, nurse")
    assert not problems and len(words[2].ids) > 1  # "embeddings" is several pieces: their mean
    rows = np.array(
        [table[tok.encode(w.text, add_special_tokens=False).ids].astype(np.float64).mean(0) for w in words]
    )
    directions = np.array([a.direction for a in chosen])
    np.testing.assert_allclose(
        axes.coordinates(np.array([w.vector for w in words]), chosen, space),
        brute.transformed(table, *shape, rows=rows) @ directions.T,
        atol=1e-6,
    )


@pytest.mark.parametrize(
    ("ends", "error", "says"),
    [
        ({"x": ("he", "🦜")}, UnknownWordError, "Axis x, 'to' end"),
        ({"x": ("he", "")}, EmptyQueryError, "no words at its 'to' end"),
        ({"x": ("", "")}, EmptyQueryError, "Axis x has no words"),
        ({"x": ("he, man", "she, He")}, QuerySyntaxError, "at both ends"),
        ({"x": ("he, she", "she, he")}, QuerySyntaxError, "at both ends"),
        (
            {"x": ("HE", "she, he")},
            QuerySyntaxError,
            "Axis x has 'he' (as 'HE', the same pieces) at both ends",
        ),
        # one word twice at an end would count twice in its mean: the same check, within the end
        (
            {"x": ("he, He", "she")},
            QuerySyntaxError,
            "'He' (as 'he', the same pieces) twice at its 'from' end",
        ),
        (
            {"x": ("he", ["she", "SHE"])},
            QuerySyntaxError,
            "'SHE' (as 'she', the same pieces) twice at its 'to'",
        ),
        ({"x": ("he", "🦜, she, ☃")}, UnknownWordError, "'🦜' is outside the vocabulary"),
        ({"x": ("he", "🦜, she, ☃")}, UnknownWordError, "; '☃' is outside the vocabulary"),
        ({"x": ("he, woman", "man, she")}, None, None),  # a real direction: no error
        ({"x": ("he", "she"), "z": ("small", "big")}, EmptyQueryError, "needs axis y"),
        ({"x": ("he", ", ".join(["she"] * 3 + [f"w{i}" for i in range(11)]))}, InputTooLongError, "10"),
        ({"x": ("he", "x" * 2001)}, InputTooLongError, "2,000"),
        ({"x": ("two words", "she")}, QuerySyntaxError, "has spaces"),
    ],
)
def test_bad_axes_get_a_message(bundled, bert_index, ends, error, says):
    if error is None:
        assert axes.build_axes(bert_index, bundled.tokenizer, ends)
        return
    with pytest.raises(error, match=re.escape(says)):
        axes.build_axes(bert_index, bundled.tokenizer, ends)


def test_an_axis_of_no_length_is_refused(bundled, bert_index):
    """Ends with equal means (different words, same vectors) have no direction."""
    index, tokenizer, table, pieces = random_setup(0)
    table[30] = table[31] + table[32] - table[33]  # mean(w30, w33) == mean(w31, w32), to rounding
    index = vs.build_index(table, PieceTokenizer(pieces))
    with pytest.raises(ZeroVectorError, match="no direction"):
        axes.build_axis(index, tokenizer, "x", "w30, w33", "w31, w32")


def test_words_that_cannot_be_placed_are_named_and_the_rest_placed(bundled, bert_index):
    words, problems = axes.words_to_place(bert_index, bundled.tokenizer, "king, 🦜, two words, queen, king")
    assert [w.text for w in words] == ["king", "queen"]  # a repeat is placed once
    assert len(problems) == 2 and "outside the vocabulary" in problems[0] and "spaces" in problems[1]
    with pytest.raises(InputTooLongError) as raised:
        axes.words_to_place(bert_index, bundled.tokenizer, ",".join(f"w{i}" for i in range(61)))
    assert str(raised.value) == "The list of words to place has 61 words; the explorer accepts at most 60."


def test_placeable_words_are_all_placed_or_each_unplaced_one_named(bundled, bert_index):
    """The notebook's rule: a row for every word asked for, or an error naming every word that
    has none (never fewer rows than asked, unsaid)."""
    words = axes.placeable(bert_index, bundled.tokenizer, "doctor, xqzzyv, nurse")  # xqzzyv: its pieces
    assert [w.text for w in words] == ["doctor", "xqzzyv", "nurse"]
    with pytest.raises(UnknownWordError) as raised:
        axes.placeable(bert_index, bundled.tokenizer, "doctor, ☃, nurse, 🦜, two words")
    said = str(raised.value)
    assert said.startswith("The list of words to place has 3 words that cannot be placed")
    assert all(w in said for w in ("'☃' is outside", "'🦜' is outside", "'two words' has spaces"))
    with pytest.raises(EmptyQueryError):
        axes.placeable(bert_index, bundled.tokenizer, " , ")


@pytest.mark.parametrize(
    "given", [["he", "him", "man"], ("he", "him", "man"), ["he ", "", "him", "man", "he"]]
)
def test_a_list_of_words_is_read_as_the_same_words_typed(given):
    """A list or tuple goes through the same checks as text (blanks and repeats dropped)."""
    assert axes.split_words(given, "End", limits.AXIS_END_WORDS) == ("he", "him", "man")


@pytest.mark.parametrize(
    ("given", "error", "said"),
    [
        (["he", "him, man"], QuerySyntaxError, "End: 'him, man' holds a comma"),
        (["he", 3], NotTextError, "End: each word must be text, not int 3."),
        ({"he": 1}, NotTextError, "End must be text or a list of words, not dict"),
        (
            [f"w{i}" for i in range(11)],
            InputTooLongError,
            "End has 11 words; the explorer accepts at most 10.",
        ),
        (["x" * 1999, "y"], InputTooLongError, "End has 2,002 characters"),
    ],
)
def test_a_list_gets_the_checks_text_gets(given, error, said):
    with pytest.raises(error) as raised:
        axes.split_words(given, "End", limits.AXIS_END_WORDS)
    assert said in str(raised.value)


def test_parallel_axes_are_reported(bundled, bert_index):
    """x he -> she and y he, him -> she, her share most of their direction (cosine 0.93 on the
    bundled model); the page's default gender and size axes do not."""
    chosen = axes.build_axes(
        bert_index, bundled.tokenizer, {"x": ("he", "she"), "y": ("he, him", "she, her")}
    )
    cos = float(axes.between(chosen)[0, 1])
    assert cos >= axes.PARALLEL and axes.nearly_parallel(chosen) == [("x", "y", cos)]
    apart = axes.build_axes(bert_index, bundled.tokenizer, axes.DEFAULT_ENDS)
    assert axes.nearly_parallel(apart) == []


# --- the page ---------------------------------------------------------------------------------


def open_axes(params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update(params or {})
    at.run()
    return at.switch_page("pages/axes.py").run()


def chart_traces(at: AppTest) -> dict[str, object]:
    figure = next(f for f in figures(at) if "words on your axes" in f.layout.title.text)
    return {t.name: t for t in figure.data}


def test_the_page_places_the_default_words_on_two_axes():
    at = open_axes()
    assert not at.exception and not at.error
    traces = chart_traces(at)
    assert set(traces) == {"words placed", "words at the axes' ends"}
    placed = traces["words placed"]
    assert placed.type == "scatter" and "queen" in placed.text and placed.marker.symbol == "circle"
    assert traces["words at the axes' ends"].marker.symbol == "diamond"
    # the whole-vocabulary lists, in their tab: two ends of two axes, twenty rows each
    at.session_state[settings.AX_TAB] = settings.AX_TABS[3]
    lists = [d.value for d in at.run().dataframe if "coordinate" in d.value.columns]
    assert len(lists) == 4 and all(len(t) == axes.EXTREMES for t in lists)
    assert "female" in lists[0]["piece"].tolist()  # towards she, her, woman


def test_a_third_axis_makes_a_3d_chart_and_the_sentence_adds_its_pieces():
    at = open_axes()
    at.text_input(key=settings.AX_ENDS["z"][0]).set_value("cold").run()
    at.text_input(key=settings.AX_ENDS["z"][1]).set_value("hot").run()
    at.selectbox(key=settings.AX_STAGE).set_value("LayerNorm output").run()
    assert not at.exception and not at.error
    traces = chart_traces(at)
    assert {t.type for t in traces.values()} == {"scatter3d"}
    assert any("bank" in label for label in traces["your sentence's pieces"].text)
    assert traces["your sentence's pieces"].marker.symbol == "square"


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        (settings.AX_ENDS["x"][1], "he", "at both ends"),
        (settings.AX_ENDS["x"][1], "", "no words at its 'to' end"),
        (settings.AX_ENDS["y"][0], "🦜", "outside the vocabulary"),
        (settings.AX_WORDS, ",".join(["cat"] * 2 + [f"w{i}" for i in range(70)]), "at most 60"),
    ],
)
def test_bad_input_gets_a_message_and_the_page_recovers(key, value, says):
    at = open_axes()
    box = next(w for w in [*at.text_input, *at.text_area] if w.key == key)
    normal = box.value
    box.set_value(value).run()
    assert not at.exception and says in messages(at)
    next(w for w in [*at.text_input, *at.text_area] if w.key == key).set_value(normal).run()
    assert not at.error and chart_traces(at)


def test_a_word_outside_the_vocabulary_is_left_off_with_a_notice():
    at = open_axes()
    at.text_area(key=settings.AX_WORDS).set_value("king, 🦜, queen").run()
    assert "Left off the chart" in messages(at) and not at.error
    assert list(chart_traces(at)["words placed"].text) == ["king", "queen"]


def test_nearly_parallel_axes_get_a_notice():
    at = open_axes({"x_from": "he", "x_to": "she", "y_from": "he, him", "y_to": "she, her"})
    assert "nearly parallel" in messages(at)


@pytest.mark.slow("brute force over the whole vocabulary, and the Axes page")
def test_the_link_carries_the_axes_and_gives_them_back():
    """Settings changed on the page go into the address bar, and that link restores them."""
    at = open_axes()
    at.text_input(key=settings.AX_ENDS["x"][0]).set_value("cold").run()
    at.text_input(key=settings.AX_ENDS["x"][1]).set_value("hot").run()
    at.segmented_control(key=settings.GEOMETRY).set_value("standardised").run()
    at.text_input(key=settings.AX_INCLUDE).set_value("^s").run()
    at.session_state[settings.AX_TAB] = settings.AX_TABS[3]  # the furthest pieces' tab
    params = {k: v[0] if isinstance(v, list) else v for k, v in at.run().query_params.items()}
    assert params["x_from"] == "cold" and params["geometry"] == "standardised" and params["ax_only"] == "^s"
    assert params["ax_tab"] == "furthest"
    again = open_axes(params)
    assert again.text_input(key=settings.AX_ENDS["x"][1]).value == "hot"
    assert again.segmented_control(key=settings.GEOMETRY).value == "standardised"
    lists = [d.value for d in again.dataframe if "coordinate" in d.value.columns]
    assert lists and all(p.startswith("s") for t in lists for p in t["piece"])


def test_downloads_hold_the_exact_coordinates(bundled, bert_index, downloads):
    """The coordinates' .npy is the core's float64 result, bit for bit; the figure shows them."""
    at = open_axes()
    chosen = axes.build_axes(bert_index, bundled.tokenizer, axes.DEFAULT_ENDS)
    words, _ = axes.words_to_place(bert_index, bundled.tokenizer, axes.DEFAULT_WORDS)
    expected = axes.coordinates(np.array([w.vector for w in words]), chosen)
    name = next(n for n in downloads if n and n.endswith("coordinates-on-your-axes-raw.npy"))
    saved = np.load(io.BytesIO(downloads[name]()), allow_pickle=False)
    assert saved.dtype == np.float64 and np.array_equal(saved[: len(words)], expected)
    placed = chart_traces(at)["words placed"]
    np.testing.assert_array_equal(array(placed.x), expected[:, 0].astype(np.float32))
    np.testing.assert_array_equal(array(placed.y), expected[:, 1].astype(np.float32))
