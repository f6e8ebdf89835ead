"""Every statement the built-in lessons make about what a page shows, checked against the core for
the bundled model: the figure is read out of the lesson's own text (a pattern on the step's
words) and compared with the figure computed here, rounded as the text rounds it. Editing either
side breaks the test: a lesson cannot drift from what the pages show.

Each claim is a ``Claim``: a lesson, a step (by its title) and a pattern. A quick test checks
that every pattern still finds its words, and that every number a step writes lies inside a
claim, so a figure added to a lesson without a test fails at once. The claims that need the
whole vocabulary at every stage of the model (tens of seconds to minutes) are ``slow``
(tests/conftest.py names them); they compute each space once per module.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from bert_embeddings import api
from bert_embeddings.analysis import (
    axis_card,
    concepts,
    contextual,
    cosine,
    decompose,
    geometry,
    geometry_lab,
    positions,
    vocab_search,
    word_tests,
)
from bert_embeddings.figures import maps, views
from bert_embeddings.lessons import builtin, lesson
from bert_embeddings.models.architectures import CURATED
from bert_embeddings.spaces import compare, stages
from bert_embeddings.views import settings

pytestmark = pytest.mark.usefixtures("offline")

# --- reading a lesson's claims ------------------------------------------------------------------

NUMBER_WORDS = dict(
    zip("one two three four five six seven eight nine ten".split(), range(1, 11), strict=True)
)


def words_of(step: lesson.Step) -> str:
    """Everything a step says (its text, question, answer and notes), its white space folded to
    single spaces, so that a pattern reads it as one line."""
    return " ".join(" ".join((step.text, step.question, step.answer, step.notes)).split())


@dataclass(frozen=True)
class Claim:
    """A statement of one step: ``pattern`` finds it in the step's words, its groups the figures."""

    lesson: str
    step: str  # the step's title
    pattern: str

    @property
    def found(self) -> lesson.Step:
        steps = {step.title: step for step in builtin.load(self.lesson).steps}
        assert self.step in steps, f"lesson {self.lesson!r} has no step titled {self.step!r}"
        return steps[self.step]

    def match(self) -> re.Match:
        said = re.search(self.pattern, words_of(self.found))
        assert said, f"lesson {self.lesson!r}, step {self.step!r} no longer says /{self.pattern}/"
        return said

    def __getitem__(self, group: int) -> str:
        return self.match()[group]

    def number(self, group: int = 1) -> float:
        """A figure as the text writes it: digits (with thousands' commas), 1e-5, or a word."""
        written = self[group]
        if written.lower() in NUMBER_WORDS:
            return NUMBER_WORDS[written.lower()]
        return float(written.replace(",", "").rstrip("%")) / (100 if written.endswith("%") else 1)

    def listed(self, group: int = 1) -> list[str]:
        """A list the text writes as `a`, `b` and `c` (or plain a, b and c), in its order."""
        return [item.strip("`* ") for item in re.split(r", and |, | and ", self[group])]

    @property
    def view(self) -> dict[str, str]:
        return self.found.params


CLAIMS: list[Claim] = []


def claim(lesson_name: str, step: str, pattern: str) -> Claim:
    CLAIMS.append(found := Claim(lesson_name, step, pattern))
    return found


def rounds_to(claimed: Claim, group: int, value: float) -> None:
    """The figure the text gives is ``value`` as the text rounds it: as many decimals as it shows,
    as a percentage where it ends in %, with thousands' commas where it has them."""
    stated = claimed[group]
    decimals = len(stated.rstrip("%").partition(".")[2])
    if stated.endswith("%"):
        shown = f"{value:.{decimals}%}"
    else:
        shown = f"{value:{',' if ',' in stated else ''}.{decimals}f}"
    assert shown == stated, (
        f"{claimed.lesson}, {claimed.step!r} says {stated}; computed {value!r}, "
        f"which it would give as {shown}"
    )


def read_view(claimed: Claim, name: str) -> object:
    """A setting of the step's view as its page reads it (through the link's own reader)."""
    setting = next(s for s in settings.LINKED if s.url == name)
    return setting.read(claimed.view[name])


# --- what is computed, once per module ------------------------------------------------------------


@pytest.fixture(scope="module")
def model():
    return api.load("bundled")


@pytest.fixture(scope="module")
def index(model):
    return vocab_search.build_index(model.tables.word_embeddings, model.tokenizer)


@pytest.fixture(scope="module")
def output_table(model) -> np.ndarray:
    """The Geometry page's layer output: every piece alone as the first after [CLS], segment A."""
    return geometry_lab.output_table(
        lambda start, stop: decompose.vocabulary_outputs(model, start, stop), model.vocab_size
    )


@pytest.fixture(scope="module")
def abtt(index):
    """The token table's all-but-the-top geometry with the lessons' D, as Your own axes fits it."""
    return geometry.fit(index.table, "all-but-the-top", int(ABTT_CARD.number(1)))


@pytest.fixture(scope="module")
def lab(model, index) -> geometry_lab.Lab:
    """The Geometry page's measurements, by the page's own function, with the lesson's D."""
    outputs = lambda start, stop: decompose.vocabulary_outputs(model, start, stop)  # noqa: E731
    return geometry_lab.measure(index.table, outputs, index.pieces, int(ABTT_MEANS.number(1)))


@dataclass(frozen=True)
class Spaces:
    cache: Path  # the cache folder that holds every stage's table and lists
    token: object
    output: object
    last: object  # the last encoder layer
    to_output: api.Compared
    to_last: api.Compared


@pytest.fixture(scope="module")
def spaces(model, tmp_path_factory) -> Spaces:
    """The token rows, the embedding output and the last layer of the bundled model, and the two
    comparisons What moved shows, made in a cache folder of this module's own."""
    cache = tmp_path_factory.mktemp("lesson-spaces")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BERT_EXPLORER_CACHE", str(cache))
        last = stages.layer_count(model)
        token, output, layer = api.space(model, "token"), api.space(model, "output"), api.space(model, last)
        for stage in stages.stage_names(model)[2:]:  # every layer's table is made by that one pass
            assert api.space(model, stage).vectors.shape == layer.vectors.shape
        found = Spaces(cache, token, output, layer, api.compare(token, output), api.compare(token, layer))
    return found


# --- the claims' own words -------------------------------------------------------------------------


def test_every_claim_is_still_said_and_every_figure_is_claimed():
    """Each pattern finds its words in its step; each number a step writes (text, question, answer,
    notes) lies inside the words of one of that step's claims, so none goes unchecked."""
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for claimed in CLAIMS:
        spans.setdefault((claimed.lesson, claimed.step), []).append(claimed.match().span())
    for name in builtin.NAMES:
        for step in builtin.load(name).steps:
            said = words_of(step)
            covered = spans.get((name, step.title), [])
            for number in re.finditer(r"\d", said):
                where = number.start()
                assert any(start <= where < end for start, end in covered), (
                    f"{name}, {step.title!r}: the figure in '…{said[max(0, where - 40) : where + 20]}…' "
                    "is claimed by no test"
                )


# ================================ The many embeddings of BERT ====================================

TOY = "An embedding is a row of numbers"
TOY_DIMENSIONS = claim(
    "embeddings",
    TOY,
    r"described by (\w+) numbers: how much it has \*\*(\w+)\*\*, an \*\*(\w+)\*\*, and how high it flies "
    r"\(\*\*(\w+)\*\*\)\. Those three numbers are its \*embedding\*: a point in a (\d+)-dimensional space",
)
NEAR_ONE = claim("embeddings", TOY, r"so their \*\*cosine\*\* is near (\d+): the bee")
TOY_ALIKE = claim(
    "embeddings",
    TOY,
    r"the bee, the eagle and the goose have cosines from ([\d.]+) to ([\d.]+) with one another, while the "
    r"helicopter has only ([\d.]+) to ([\d.]+) with each of them",
)
WIDTHS = claim(
    "embeddings",
    TOY,
    r"hundreds of numbers per piece \((\d+) in the bundled model, (\d+) in (bert-base-uncased)\)",
)
DRONE = claim(
    "embeddings",
    TOY,
    r"The helicopter and the rocket, equally: both have cosine ([\d.]+) with it\. The jet comes next "
    r"\(([\d.]+)\)",
)


def toy_cosines() -> tuple[tuple[str, ...], np.ndarray]:
    space = concepts.parse(TOY_DIMENSIONS.view["items"])
    return space.names, cosine.matrix(space.vectors)


def test_the_toy_tables_dimensions_and_cosines():
    space = concepts.parse(TOY_DIMENSIONS.view["items"])
    assert space.dimensions == (TOY_DIMENSIONS[2], TOY_DIMENSIONS[3], TOY_DIMENSIONS[4])
    assert len(space.dimensions) == TOY_DIMENSIONS.number(1) == TOY_DIMENSIONS.number(5)
    names, similarity = toy_cosines()
    at = {name: i for i, name in enumerate(names)}
    birds = [at["bee"], at["eagle"], at["goose"]]
    among = [similarity[i, j] for i in birds for j in birds if i < j]
    rounds_to(TOY_ALIKE, 1, min(among))
    rounds_to(TOY_ALIKE, 2, max(among))
    assert min(among) > 0.85 and np.allclose(np.diag(similarity), NEAR_ONE.number(1))  # 1: the same way
    helicopter = [similarity[at["helicopter"], i] for i in birds]
    rounds_to(TOY_ALIKE, 3, min(helicopter))
    rounds_to(TOY_ALIKE, 4, max(helicopter))
    assert max(helicopter) < min(among)


def test_the_drones_nearest_are_the_helicopter_and_the_rocket_tied_then_the_jet():
    names, similarity = toy_cosines()
    drone = names.index("drone")
    others = sorted((i for i in range(len(names)) if i != drone), key=lambda i: -similarity[drone, i])
    first, second, third = others[:3]
    assert {names[first], names[second]} == {"helicopter", "rocket"}
    assert similarity[drone, first] == pytest.approx(similarity[drone, second], abs=1e-12)  # a true tie
    rounds_to(DRONE, 1, similarity[drone, first])
    assert names[third] == "jet" and similarity[drone, third] < similarity[drone, second] - 1e-3
    rounds_to(DRONE, 2, similarity[drone, third])


def test_hundreds_of_numbers_per_piece(model):
    assert model.tables.word_embeddings.shape[1] == WIDTHS.number(1)
    listed = next(m for m in CURATED if m.spec == WIDTHS[3])
    assert re.search(r"x ([\d,]+)$", listed.size)[1] == WIDTHS[2]  # the app's list of models
    assert min(WIDTHS.number(1), WIDTHS.number(2)) >= 100


PIECES = "A sentence becomes pieces"
VOCABULARY = claim(
    "embeddings", PIECES, r"from a fixed vocabulary \(([\d,]+) pieces with the bundled model\)"
)
SINAN = claim(
    "embeddings",
    PIECES,
    r"With the bundled model, `([^`]+)` becomes (\w+) pieces: ((?:`[^`]+`, )+`[^`]+`), with ids "
    r"((?:\d+, )+\d+ and \d+)\.",
)
CUT_IN_TWO = claim(
    "embeddings", PIECES, r"The name is not in the vocabulary, so it is cut in (\w+); `##` marks"
)
OPENS_CLOSES = claim("embeddings", PIECES, r"`\[CLS\]` opens every input and `\[SEP\]` closes each sentence")
UNCASED = claim("embeddings", PIECES, r"lower-cases the text \(and strips accents: `(\w+)` becomes `(\w+)`\)")


def test_i_am_sinan_becomes_six_pieces_with_their_ids(model):
    assert model.vocab_size == VOCABULARY.number(1) == len(model.tables.word_embeddings)
    assert SINAN[1] == SINAN.view["a"]
    found = api.tokenize(model, SINAN.view["a"])
    assert len(found.pieces) == SINAN.number(2)
    assert list(found.pieces) == SINAN.listed(3)
    assert found.ids.tolist() == [int(n) for n in SINAN.listed(4)]


def test_the_name_is_cut_in_two_and_the_special_pieces_open_and_close(model):
    vocabulary = model.tokenizer.get_vocab()
    name = SINAN[1].split()[-1].lower()
    assert name not in vocabulary
    assert len(api.tokenize(model, name).pieces) - 2 == NUMBER_WORDS[CUT_IN_TWO[1]]
    assert OPENS_CLOSES.match()
    view = WHICH_SEGMENT.view  # the pair of the segments step
    pair = api.tokenize(model, view["a"], view["b"])
    assert pair.pieces[0] == "[CLS]" and pair.pieces.count("[CLS]") == 1
    ends = [i for i, piece in enumerate(pair.pieces) if piece == "[SEP]"]
    assert ends == [len(api.tokenize(model, view["a"]).pieces) - 1, len(pair.pieces) - 1]  # after each
    assert api.tokenize(model, UNCASED[1]).pieces[1:-1] == (UNCASED[2],)


TOKEN_ROWS = "Token rows: one table, looked up"
ONE_ROW_EACH = claim("embeddings", TOKEN_ROWS, r"`word_embeddings`, has one row per piece of the vocabulary")
SAME_ROWS = claim(
    "embeddings",
    TOKEN_ROWS,
    r"`\[CLS\]` and `\[SEP\]` \(ids (\d+) and (\d+) with the bundled model\) get the very same token rows "
    r"in `([^`]+)` as in `([^`]+)`",
)
ROWS_SHOWN = claim(
    "embeddings", TOKEN_ROWS, r"The heatmap has one row per piece of this sentence: (\w+) here"
)
ID_ALONE = claim("embeddings", TOKEN_ROWS, r"Yes: the token row depends on the id alone")


def test_cls_and_sep_have_the_same_token_rows_in_every_sentence(model):
    assert ONE_ROW_EACH.match() and model.tables.word_embeddings.shape[0] == model.vocab_size
    assert SAME_ROWS[3] == SAME_ROWS.view["a"]
    first, second = (api.tokenize(model, SAME_ROWS[n]) for n in (3, 4))
    for found in (first, second):
        assert (found.ids[0], found.ids[-1]) == (SAME_ROWS.number(1), SAME_ROWS.number(2))
    rows = [api.breakdown(model, SAME_ROWS[n])["token"] for n in (3, 4)]
    np.testing.assert_array_equal(rows[0][0], rows[1][0])
    np.testing.assert_array_equal(rows[0][-1], rows[1][-1])
    assert rows[0].shape[0] == len(first.pieces) == ROWS_SHOWN.number(1)


def test_a_pieces_token_row_is_the_same_wherever_it_stands(model):
    assert ID_ALONE.match()
    one, two = "the cat sat", "look at the cat"
    rows = [api.breakdown(model, s)["token"] for s in (one, two)]
    where = [api.tokenize(model, s).pieces.index("the") for s in (one, two)]
    assert where[0] != where[1]
    np.testing.assert_array_equal(rows[0][where[0]], rows[1][where[1]])


POSITIONS = "Position rows: learned, not a formula"
POSITION_TABLE = claim(
    "embeddings", POSITIONS, r"from a table of (\d+) rows with the bundled model \(`position_embeddings`\)"
)
CUT = claim("embeddings", POSITIONS, r"A longer input is cut after (\d+) pieces")
LENGTHS = claim(
    "embeddings",
    POSITIONS,
    r"The formula gives every row the same length; the learned rows' lengths run from ([\d.]+) to ([\d.]+) "
    r"with the bundled model",
)
SIX_ROWS = claim(
    "embeddings",
    POSITIONS,
    r"a sentence of (\d+) pieces use\? (\w+): rows (\d+) to (\d+), one for each place\. Every (\d+)-piece "
    r"input uses the same (\w+) rows",
)


def test_512_learned_position_rows_and_longer_inputs_cut(model):
    learned = model.tables.position_embeddings
    assert learned.shape[0] == POSITION_TABLE.number(1)
    long = api.tokenize(model, "a " * 600)
    assert len(long.pieces) == CUT.number(1) and long.dropped > 0
    formula = positions.row_norms(positions.sinusoid(*learned.shape))
    assert np.ptp(formula) < 1e-9 * formula.max()  # the formula: every row the same length
    lengths = positions.row_norms(learned)
    rounds_to(LENGTHS, 1, float(lengths.min()))
    rounds_to(LENGTHS, 2, float(lengths.max()))


def test_a_six_piece_sentence_uses_rows_0_to_5(model):
    pieces = SIX_ROWS.number(1)
    assert pieces == SIX_ROWS.number(2) == SIX_ROWS.number(5) == SIX_ROWS.number(6)
    for sentence in ("I am Sinan", "the cat sat ."):
        found = api.tokenize(model, sentence)
        assert len(found.pieces) == pieces
        assert found.positions.tolist() == list(range(int(SIX_ROWS.number(3)), int(SIX_ROWS.number(4)) + 1))


SEGMENTS = "Segment rows: sentence A or B"
SEGMENT_ROWS = claim("embeddings", SEGMENTS, r"`token_type_embeddings`, has just \*\*(\d+) rows\*\*")
WHICH_SEGMENT = claim(
    "embeddings",
    SEGMENTS,
    r"the first is added to every piece of sentence A \(with its `\[CLS\]` and first `\[SEP\]`\), the second "
    r"to every piece of sentence B \(with the last `\[SEP\]`\)",
)
SEGMENTS_LEARNED = claim(
    "embeddings", SEGMENTS, r"two different rows of numbers, not a fixed (\d+) and (\d+)"
)


def test_two_segment_rows_one_for_each_sentence_of_a_pair(model):
    rows = model.tables.token_type_embeddings
    assert rows.shape[0] == SEGMENT_ROWS.number(1)
    assert WHICH_SEGMENT.match()
    view = WHICH_SEGMENT.view
    pair = api.tokenize(model, view["a"], view["b"])
    first = len(api.tokenize(model, view["a"]).pieces)  # [CLS] A [SEP]
    assert pair.segment_ids.tolist() == [0] * first + [1] * (len(pair.pieces) - first)
    parts = api.breakdown(model, view["a"], view["b"])
    np.testing.assert_array_equal(parts["segment"][0], rows[0])
    np.testing.assert_array_equal(parts["segment"][-1], rows[1])
    for value in (SEGMENTS_LEARNED.number(1), SEGMENTS_LEARNED.number(2)):
        assert not np.allclose(rows, value)
    assert not np.allclose(rows[0], rows[1])


SUM = "The sum, then LayerNorm"
ADDED = claim("embeddings", SUM, r"the three rows are \*\*added\*\*: token \+ position \+ segment")
LAYER_NORM = claim(
    "embeddings",
    SUM,
    r"\*\*LayerNorm\*\* centres each piece's vector, scales it to unit spread, and applies two learned "
    r"vectors \(`(\w+)` and `(\w+)`\)",
)
PROOF = claim(
    "embeddings",
    SUM,
    r"\(`(\w+)` for the bundled model\) and compares: the largest difference is below (\d+e-\d+)",
)
ON_ITS_OWN = claim(
    "embeddings",
    SUM,
    r"it normalises each piece's own vector, across its dimensions, on its own\. So `\[CLS\]`, always first "
    r"and in sentence A, leaves the layer with the same output in every sentence",
)


def test_the_sum_layer_norm_and_the_proof_against_the_module(model):
    sentence = PROOF.view["a"]
    parts = api.breakdown(model, sentence)
    assert ADDED.match()
    np.testing.assert_array_equal(parts["sum"], (parts["token"] + parts["segment"]) + parts["position"])
    assert (LAYER_NORM[1], LAYER_NORM[2]) == ("gamma", "beta")
    t = model.tables
    normalised = (parts["output"] - t.layer_norm_bias) / t.layer_norm_weight  # gamma and beta undone
    np.testing.assert_allclose(normalised.mean(axis=1), 0, atol=1e-4)
    np.testing.assert_allclose(normalised.std(axis=1), 1, atol=1e-3)
    proof = api.verify(model, sentence)
    assert proof.module_name == PROOF[1]
    assert proof.max_abs_error < PROOF.number(2) and proof.passed


def test_layer_norm_reads_each_piece_alone(model):
    assert ON_ITS_OWN.match()
    outputs = [api.breakdown(model, s)["output"] for s in (ON_ITS_OWN.view["a"], "She is Zoe", "A bank.")]
    for other in outputs[1:]:
        np.testing.assert_array_equal(outputs[0][0], other[0])


NEAREST = "Nearest pieces"
DOG = claim(
    "embeddings", NEAREST, r"With the bundled model the nearest piece is `(\w+)`, then `(\w+)` and `(\w+)`"
)
KINDS_OF_NEIGHBOUR = claim(
    "embeddings", NEAREST, r"forms of the same word \(`(\w+)`\), related meanings \(`(\w+)`\)"
)
LOOK_ALIKE = claim(
    "embeddings", NEAREST, r"\(`(\w+)` is among the (\d+) nearest to `(\w+)` with the bundled model\)"
)


def test_the_nearest_pieces_of_dog(model):
    view = DOG.view
    assert read_view(DOG, "mode") == "word" and read_view(DOG, "geometry") == "raw"
    k = int(read_view(DOG, "k"))
    found = [n.piece for n in api.neighbours(model, view["q"], k=k)]
    assert found[:3] == [DOG[1], DOG[2], DOG[3]]
    assert {KINDS_OF_NEIGHBOUR[1], KINDS_OF_NEIGHBOUR[2]} <= set(found)
    assert LOOK_ALIKE[3] == view["q"] and LOOK_ALIKE.number(2) == k
    assert LOOK_ALIKE[1] in found


MAP = "The whole vocabulary on one map"
MAP_POINTS = claim(
    "embeddings",
    MAP,
    r"all ([\d,]+) of them with the bundled model, placed by their first (\w+) \*\*principal components\*\* "
    r"\(PCA\), coloured by kind of piece\. Your sentence's pieces are (\w+)s\.",
)
VARIANCE = claim(
    "embeddings",
    MAP,
    r"Two directions out of hundreds keep little: with the bundled model the first two components explain "
    r"under (\d+)% of the variance, as the bar chart under the map shows, component by component",
)


def test_the_whole_vocabulary_on_its_first_two_principal_components(model, index):
    assert read_view(MAP_POINTS, "method") == "PCA" and read_view(MAP_POINTS, "geometry") == "raw"
    shown = (int(read_view(MAP_POINTS, "x")) - 1, int(read_view(MAP_POINTS, "y")) - 1)
    assert shown == (0, 1) and len(shown) == MAP_POINTS.number(2)
    coords, ratios = api.pca(model)  # the page's: every row, raw, its ten components
    ids = api.tokenize(model, settings.default(settings.SENTENCE_A_KEY)).ids
    request = views.vocabulary(
        index,
        ("raw", 0),
        coords,
        shown,
        ratios,
        shown_kinds=read_view(MAP_POINTS, "kinds"),
        highlights=[views.sentence_mark(ids, "#000000")],
    )
    figure = maps.vocabulary_map(request)
    clouds = [trace for trace in figure.data if trace.name in vocab_search.KINDS]
    assert len(clouds) == len(vocab_search.KINDS)  # one colour for each kind of piece
    assert sum(len(trace.x) for trace in clouds) == MAP_POINTS.number(1) == model.vocab_size
    sentence = next(trace for trace in figure.data if trace.name == "your sentence")
    assert sentence.marker.symbol == MAP_POINTS[3]
    assert ratios[0] + ratios[1] < VARIANCE.number(1) / 100
    assert model.tables.word_embeddings.shape[1] >= 200  # hundreds of directions


CONTEXT = "After the encoder: one word, two meanings"
BANK = claim(
    "embeddings",
    CONTEXT,
    r"Here `(\w+)` appears in a river sentence and in a money sentence\. Its token rows are identical; with "
    r"the bundled model its two vectors still have cosine ([\d.]+) at the embedding output \(only their "
    r"positions differ\), and ([\d.]+) after the last layer",
)
WHY_NOT_ONE = claim(
    "embeddings",
    CONTEXT,
    r"Why is the cosine at the embedding output not exactly (\d+)\? The token rows are the same, but `(\w+)` "
    r"stands at different positions in the two sentences, so different position rows are added",
)


def test_bank_in_two_sentences_through_the_encoder(model, index):
    view = BANK.view
    assert BANK[1] == view["word"] == WHY_NOT_ONE[2]
    assert "river" in view["s1"] and "cash" in view["s2"]
    encodings = [model.encode(view[s]) for s in ("s1", "s2")]
    ids = vocab_search.word_ids(index, model.tokenizer, view["word"])
    where = [contextual.find_word(e, ids, "a sentence") for e in encodings]
    rows = [
        model.tables.word_embeddings[list(e.ids[w])].mean(axis=0)
        for e, w in zip(encodings, where, strict=True)
    ]
    np.testing.assert_array_equal(rows[0], rows[1])
    states = [api.hidden_states(model, view[s]) for s in ("s1", "s2")]
    by_layer = contextual.word_similarity_by_layer(states[0], where[0], states[1], where[1])
    rounds_to(BANK, 2, float(by_layer[0]))
    assert by_layer[0] < WHY_NOT_ONE.number(1) - 1e-3  # not exactly 1
    rounds_to(BANK, 3, float(by_layer[-1]))
    assert where[0] != where[1]  # only their positions differ: both in sentence A
    assert encodings[0].segment_ids[where[0][0]] == encodings[1].segment_ids[where[1][0]] == 0


# ================================ Why every BERT vector looks alike ==============================

STRANGERS = "Two random pieces are not strangers"
PAIRS = claim("alike", STRANGERS, r"The page averages it over every pair, all ([\d,]+) of them, exactly")
MEANS = claim(
    "alike",
    STRANGERS,
    r"For the \*\*token rows\*\* the mean is ([\d.]+): on average, nearly unrelated directions\. For the "
    r"\*\*layer output\*\* \(each piece alone, as the first piece after `\[CLS\]`\) it is ([\d.]+)",
)
ONE_PASS = claim(
    "alike",
    STRANGERS,
    r"Scale every vector to length 1 and add them up: the squared length of that sum, less the number of "
    r"vectors, is the sum of every pairwise cosine \(each pair twice\)",
)


def test_the_mean_cosine_of_the_token_rows_and_of_the_layer_output(model, index, output_table):
    n = model.vocab_size
    rounds_to(PAIRS, 1, n * (n - 1) / 2)
    rounds_to(MEANS, 1, geometry.anisotropy(index.table).mean_cosine)
    rounds_to(MEANS, 2, geometry.anisotropy(output_table).mean_cosine)


def test_the_layer_output_is_each_piece_alone_after_cls_with_shared_rows_added(model, output_table):
    """Alike, step 1 and step 3, and What the layers do, step 1: the layer output's row of a piece
    is that piece's output in `[CLS] piece [SEP]`, where every piece gets the same position and
    segment rows (and the same LayerNorm)."""
    for claimed in (SHARED_OFFSET, SAME_SHIFT):
        assert claimed.match()
    shared = []
    for piece in ("dog", "the", "1990", "bank"):
        parts = api.breakdown(model, piece)
        assert api.tokenize(model, piece).pieces == ("[CLS]", piece, "[SEP]")
        row = int(api.tokenize(model, piece).ids[1])
        np.testing.assert_allclose(output_table[row], parts["output"][1], atol=1e-5)
        shared.append((parts["position"][1], parts["segment"][1]))
    for position, segment in shared[1:]:
        np.testing.assert_array_equal(position, shared[0][0])
        np.testing.assert_array_equal(segment, shared[0][1])


def test_the_mean_over_every_pair_is_exact_in_one_pass(index):
    assert ONE_PASS.match()
    rows = index.table[np.random.default_rng(0).choice(len(index.table), 300, replace=False)]
    unit = cosine.unit_rows(np.asarray(rows, dtype=np.float64))
    n = len(unit)
    one_pass = (np.sum(unit.sum(axis=0) ** 2) - n) / (n * (n - 1))  # each pair counted twice
    every_pair = cosine.matrix(rows)[np.triu_indices(n, 1)].mean()
    assert one_pass == pytest.approx(every_pair, abs=1e-6)
    assert geometry.anisotropy(rows).mean_cosine == pytest.approx(every_pair, abs=1e-6)


ROGUE = "Rogue dimensions"
ROGUE_SHARES = claim(
    "alike",
    ROGUE,
    r"dimensions (\d+), (\d+) and (\d+) give (\d+%) of the layer output's mean cosine, and dimension (\d+) "
    r"alone gives (\d+%): about (\d+) times what an even share of its (\d+) dimensions would be",
)
PARTS = claim(
    "alike", ROGUE, r"the mean cosine splits into one part per dimension, and the parts add up to it"
)
TOKEN_SHARES = claim(
    "alike", ROGUE, r"The token rows have no such leader: their top three dimensions give (\d+%)"
)
ROGUE_SOURCE = claim(
    "alike",
    ROGUE,
    r"(Timkey and van Schijndel), listed under \*Where this comes from\*, found transformer models in which "
    r"(one to three) dimensions give most of the cosine",
)


def test_three_dimensions_give_a_share_of_the_mean_cosine(index, output_table):
    output = geometry.anisotropy(output_table)
    assert PARTS.match() and output.contributions.sum() == pytest.approx(output.mean_cosine, abs=1e-12)
    top, share = geometry_lab.shares(output)
    assert top.tolist() == [int(ROGUE_SHARES.number(n)) for n in (1, 2, 3)]
    rounds_to(ROGUE_SHARES, 4, share)
    leader = int(ROGUE_SHARES.number(5))
    assert leader == top[0]
    alone = output.contributions[leader] / output.mean_cosine
    rounds_to(ROGUE_SHARES, 6, alone)
    width = len(output.contributions)
    assert width == ROGUE_SHARES.number(8)
    rounds_to(ROGUE_SHARES, 7, alone * width)
    _, token_share = geometry_lab.shares(geometry.anisotropy(index.table))
    rounds_to(TOKEN_SHARES, 1, token_share)


def sources() -> str:
    from components.sections import geometry_view

    return geometry_view.SOURCES


def test_the_papers_the_lesson_cites_are_the_pages_sources():
    listed = sources()
    assert f"**{ROGUE_SOURCE[1]}" in listed
    assert f"{ROGUE_SOURCE[2]} rogue dimensions dominate cosine similarity in transformer models" in listed
    assert f"**{MU[1]}" in listed and MU[2] in listed
    assert f"about the width / {int(D_RULE.number(1))}" in listed


CENTRED = "Centred: take away what every piece shares"
CENTRED_MEANS = claim(
    "alike",
    CENTRED,
    r"the layer output's mean cosine falls from ([\d.]+) to ([\d.]+), and the token rows' from ([\d.]+) to "
    r"([\d.]+)\.",
)
SHARED_OFFSET = claim(
    "alike",
    CENTRED,
    r"in the layer output every piece had the same position row and the same segment row added before "
    r"LayerNorm, and the same `beta` after it",
)

ABTT = "All-but-the-top"
D_RULE = claim(
    "alike",
    ABTT,
    r"About the width / (\d+) is their rule: D = (\d+) for the bundled model's (\d+) numbers, "
    r"where the slider starts",
)
ABTT_MEANS = claim(
    "alike",
    ABTT,
    r"With D = (\d+), the layer output's mean cosine is ([\d.]+) and the token rows' ([\d.]+)\.",
)
NEAR_ZERO = claim(
    "alike",
    ABTT,
    r"The sentence under the chart now says that the mean is (near 0), so that "
    r"(no dimension can dominate it)",
)
MU = claim("alike", ABTT, r"(Mu and Viswanath) found word vectors (better at word-similarity tasks) once")


def test_d_is_about_the_width_over_100(model):
    width = model.tables.word_embeddings.shape[1]
    assert width == D_RULE.number(3)
    assert geometry.default_removed(width) == D_RULE.number(2) == width // D_RULE.number(1)
    assert read_view(D_RULE, "d") == D_RULE.number(2) == ABTT_MEANS.number(1)
    assert read_view(D_RULE, "geometry") == "all-but-the-top"


@pytest.mark.parametrize("table", geometry_lab.TABLES)
def test_the_geometry_pages_figures_in_each_geometry(lab, table):
    """Centred and all-but-the-top, as the Geometry page measures them (its own function, the
    whole of both tables), and the sentence the page writes under the chart."""
    from components.sections import geometry_view

    stats = lab.stats[table]
    assert read_view(CENTRED_MEANS, "geometry") == "centred"
    # Each claim's groups for this table: its raw figure, centred, all-but-the-top.
    groups = {"layer output": ((MEANS, 2), (CENTRED_MEANS, 1), (CENTRED_MEANS, 2), (ABTT_MEANS, 2))}
    groups["token rows"] = ((MEANS, 1), (CENTRED_MEANS, 3), (CENTRED_MEANS, 4), (ABTT_MEANS, 3))
    raw, raw_again, centred, abtt = groups[table]
    rounds_to(*raw, stats["raw"].mean_cosine)
    rounds_to(*raw_again, stats["raw"].mean_cosine)
    rounds_to(*centred, stats["centred"].mean_cosine)
    rounds_to(*abtt, stats["all-but-the-top"].mean_cosine)
    said = geometry_view.rogue_sentence(lab, "all-but-the-top")  # the page's, under the chart
    assert said.count(f"{NEAR_ZERO[1]}, so {NEAR_ZERO[2]}") == len(geometry_lab.TABLES)


AXIS = "An axis and its report card"
PLACED = claim(
    "alike",
    AXIS,
    r"\*(\w+)\* lands further towards \*she\* than \*(\w+)\*, and \*(\w+)\* further towards \*he\* than "
    r"\*(\w+)\*",
)
RAW_CARD = claim(
    "alike",
    AXIS,
    r"the he-she axis keeps all (\d+) of (\d+) pole words on their own side when each is held out, yet "
    r"separates its poles better than only ([\d.]+%) of ([\d,]+) random axes between whole words: the "
    r"verdict asks for (\d+%), so it is no better than chance\. The size axis beats ([\d.]+%)",
)
RAW_DECIDES = claim(
    "alike", AXIS, r"every held-out word lands on its own side, but ([\d.]+%) is under the (\d+%)"
)

ABTT_AXIS = "The same card, all-but-the-top"
ABTT_CARD = claim("alike", ABTT_AXIS, r"Now the same axes in the all-but-the-top geometry, with D = (\d+):")
ABTT_VERDICTS = claim(
    "alike",
    ABTT_AXIS,
    r"the he-she axis now beats ([\d.]+%) of random axes, and its verdict turns: it separates its "
    r"poles\. The size axis beats ([\d.]+%) and stays no better than chance\. A verdict this close to "
    r"the line \(([\d.]+%) raw, ([\d.]+%) here\)",
)
FOLDED = claim("alike", ABTT_AXIS, r"Each card's folded part gives the same card in the raw geometry")
STILL_HELD = claim(
    "alike", ABTT_AXIS, r"all (\d+) pole words of the he-she axis still land on their own side"
)


def cards(model, index, claimed: Claim, space) -> list[word_tests.CardResult]:
    """Each axis' card with the step's ends and words, as Your own axes computes it."""
    view = claimed.view
    return [
        word_tests.card_for(index, model.tokenizer, view[f"{n}_from"], view[f"{n}_to"], view["words"], space)
        for n in ("x", "y")
    ]


def test_where_the_words_land_on_the_he_she_axis(model):
    view = PLACED.view
    assert read_view(PLACED, "geometry") == "raw"
    words = [PLACED[n] for n in (1, 2, 3, 4)]
    assert set(words) <= {w.strip() for w in view["words"].split(",")}
    placed = api.axis_coordinates(model, view["x_from"], view["x_to"], words)  # larger: towards 'to'
    assert view["x_to"].startswith("she") and view["x_from"].startswith("he")
    assert placed[PLACED[1]] > placed[PLACED[2]] and placed[PLACED[3]] < placed[PLACED[4]]


def test_the_report_cards_in_the_raw_geometry(model, index):
    assert read_view(RAW_CARD, "geometry") == "raw" and RAW_CARD.view["z_from"] == RAW_CARD.view["z_to"] == ""
    he_she, size = cards(model, index, RAW_CARD, geometry.fit(index.table, "raw"))
    c = he_she.card
    assert (c.held_out, c.held_total) == (RAW_CARD.number(1), RAW_CARD.number(2))
    rounds_to(RAW_CARD, 3, c.beats)
    rounds_to(RAW_DECIDES, 1, c.beats)
    assert len(c.random_separations) == RAW_CARD.number(4)
    assert axis_card.BEATS == RAW_CARD.number(5) == RAW_DECIDES.number(2)
    assert c.verdict().endswith("no better than chance")
    rounds_to(RAW_CARD, 6, size.card.beats)
    assert size.card.verdict().endswith("no better than chance")


def test_the_report_cards_in_all_but_the_top(model, index, abtt):
    from components.sections import card_view

    assert read_view(ABTT_CARD, "geometry") == "all-but-the-top"
    assert read_view(ABTT_CARD, "d") == ABTT_CARD.number(1)
    assert {k: v for k, v in ABTT_CARD.view.items() if k not in ("geometry", "d")} == {
        k: v for k, v in RAW_CARD.view.items() if k != "geometry"
    }  # the same axes and words as the step before
    he_she, size = cards(model, index, ABTT_CARD, abtt)
    rounds_to(ABTT_VERDICTS, 1, he_she.card.beats)
    rounds_to(ABTT_VERDICTS, 4, he_she.card.beats)
    assert he_she.card.verdict().endswith("this axis separates its poles")
    rounds_to(ABTT_VERDICTS, 2, size.card.beats)
    assert size.card.verdict().endswith("no better than chance")
    raw = cards(model, index, RAW_CARD, geometry.fit(index.table, "raw"))[0]
    rounds_to(ABTT_VERDICTS, 3, raw.card.beats)
    assert he_she.card.held_out == he_she.card.held_total == STILL_HELD.number(1)
    assert FOLDED.match()
    shown = ("all-but-the-top", int(ABTT_CARD.number(1)))
    assert card_view._other_shape(shown, index.table.shape[1]) == ("raw", 0)  # the folded card's


# ================================ What the layers do =============================================

TWO_SPACES = "Two spaces of one model"
WHAT_A_SPACE_IS = claim(
    "layers",
    TWO_SPACES,
    r"its \*\*embedding output\*\* \(the piece alone, through the embedding layer\), or what an \*\*encoder "
    r"layer\*\* makes of it \(the piece read as `\[CLS\] piece \[SEP\]`\)",
)
TO_OUTPUT = claim(
    "layers",
    TWO_SPACES,
    r"from the token rows to the embedding output, a piece keeps on average ([\d.]+%) of its (\d+) nearest "
    r"\(the page's mean overlap@(\d+): ([\d.]+)\), and the linear CKA is ([\d.]+)",
)
SAME_SHIFT = claim(
    "layers",
    TWO_SPACES,
    r"Each piece alone gets the same position row and the same segment row added, then LayerNorm with the "
    r"same `gamma` and `beta`",
)

BY_KIND = "Who moves, by kind of piece"
KIND_FIGURES = claim(
    "layers",
    BY_KIND,
    r"numbers keep the most \(([\d.]+%) of their (\d+) nearest on average\) and `##` continuation pieces "
    r"the fewest \(([\d.]+%)\)",
)
NONE_ALL = claim(
    "layers",
    BY_KIND,
    r"How many pieces keep none of their (\d+) nearest at the embedding output, and how many keep all of "
    r"them\? With the bundled model, (\d+) keep none and ([\d,]+) keep all (\d+)\.",
)

LAST = "After the last layer"
LAST_LAYER = claim("layers", LAST, r"Now the second space is layer (\d+), the bundled model's last")
TO_LAST = claim(
    "layers",
    LAST,
    r"the mean overlap@(\d+) falls to ([\d.]+) and the linear CKA to ([\d.]+): after (\w+) layers a piece "
    r"keeps fewer than half",
)
FIRST_MOVERS = claim(
    "layers",
    LAST,
    r"The movers now begin with short function words: ((?:`\w+`, )+`\w+` and `\w+`), each keeping none of "
    r"its (\d+)",
)
PAD_FIRST = claim("layers", LAST, r"show them and `(\[PAD\])` comes first")

SIDE_BY_SIDE = "One piece, side by side"
SHOWN_K = claim("layers", SIDE_BY_SIDE, r"Under \*\*Side by side\*\*, a piece's (\d+) nearest in each space")
THE = claim(
    "layers",
    SIDE_BY_SIDE,
    r"`(\w+)` keeps (\d+) of its (\d+) from the token rows to layer (\d+), while from the token rows to the "
    r"embedding output it keeps (\d+)",
)
DOG_KEEPS = claim(
    "layers",
    SIDE_BY_SIDE,
    r"`(\w+)` keeps (\d+) of its (\d+) at layer (\d+), `(\w+)`, `(\w+)` and `(\w+)` among them",
)

THROUGH = "Through the layers"
MEAN_COSINES = claim(
    "layers",
    THROUGH,
    r"the mean cosine goes from ([\d.]+) for the token rows to ([\d.]+) for the embedding output, stays "
    r"between ([\d.]+) and ([\d.]+) in layers (\d+) to (\d+), and falls to ([\d.]+) at layer (\d+), the "
    r"lowest of the (\w+) layers",
)
ETHAYARAJH = claim(
    "layers", THROUGH, r"(Ethayarajh) found BERT's vectors growing more alike in its last layers"
)
NOT_AT_THE_END = claim(
    "layers",
    THROUGH,
    r"layers (\d+) to (\d+) are all more alike than the embedding output, but layer (\d+) falls below it",
)


def test_the_moved_views_compare_the_stages_the_text_names():
    for claimed in (TO_OUTPUT, KIND_FIGURES):
        assert (claimed.view["from"], claimed.view["to"]) == ("token", "output")
    for claimed in (TO_LAST, THE, MEAN_COSINES):
        assert (claimed.view["from"], claimed.view["to"]) == ("token", LAST_LAYER[1])
    for claimed in (TO_OUTPUT, KIND_FIGURES, TO_LAST, THE, MEAN_COSINES):
        assert read_view(claimed, "geometry") == "raw" and read_view(claimed, "mv_k") == compare.WHOLE_K
    assert TO_OUTPUT.number(2) == TO_OUTPUT.number(3) == TO_LAST.number(1) == compare.WHOLE_K
    assert KIND_FIGURES.number(2) == NONE_ALL.number(1) == NONE_ALL.number(4) == compare.WHOLE_K
    assert FIRST_MOVERS.number(2) == compare.WHOLE_K
    assert THE.view["mv_piece"] == THE[1] and THE.number(3) == DOG_KEEPS.number(3) == compare.WHOLE_K
    assert SHOWN_K.number(1) == read_view(SHOWN_K, "mv_k")
    for claimed in (KIND_FIGURES, TO_LAST):  # the movers as the page filters them by default
        assert read_view(claimed, "mv_hide_special") is True and read_view(claimed, "mv_hide_pieces") is False
        assert (
            read_view(claimed, "mv_leave_out") is False
            and not claimed.view["mv_only"] + claimed.view["mv_not"]
        )


def test_the_last_layer_is_layer_six(model):
    last = stages.layer_count(model)
    assert last == LAST_LAYER.number(1) == TO_LAST.number(4) == MEAN_COSINES.number(6) + 1
    assert THE.number(4) == DOG_KEEPS.number(4) == MEAN_COSINES.number(8) == NOT_AT_THE_END.number(3) == last
    assert MEAN_COSINES.number(9) == last and MEAN_COSINES.number(5) == NOT_AT_THE_END.number(1) == 1
    assert stages.has_whole_model(model)  # its layers ship with the app


@pytest.mark.parametrize("piece", ["dog", "the"])
def test_a_space_is_what_the_text_says_it_is(model, spaces, piece):
    """The embedding output's row of a piece is its output alone after [CLS]; a layer's row is
    that layer's vector for the piece in `[CLS] piece [SEP]`."""
    assert WHAT_A_SPACE_IS.match()
    row = spaces.token.pieces.index(piece)
    parts = api.breakdown(model, piece)
    np.testing.assert_allclose(spaces.output.vectors[row], parts["output"][1], atol=1e-5)
    states = api.hidden_states(model, piece)
    np.testing.assert_allclose(spaces.last.vectors[row], states[-1][1], atol=1e-4)


def test_from_the_token_rows_to_the_embedding_output(spaces):
    moved = spaces.to_output
    rounds_to(TO_OUTPUT, 1, moved.mean_overlap_10)
    rounds_to(TO_OUTPUT, 4, moved.mean_overlap_10)
    rounds_to(TO_OUTPUT, 5, moved.cka)
    by_kind = {
        name: mean
        for name, _, mean in compare.overlap_by_kind(moved.overlap, compare.piece_kinds(moved.pieces))
    }
    most, fewest = max(by_kind, key=by_kind.get), min(by_kind, key=by_kind.get)
    assert (most, fewest) == ("number", "## continuation")
    rounds_to(KIND_FIGURES, 1, by_kind[most])
    rounds_to(KIND_FIGURES, 3, by_kind[fewest])
    assert int((moved.overlap == 0).sum()) == NONE_ALL.number(2)
    assert int((moved.overlap == 1).sum()) == NONE_ALL.number(3)


def movers(moved: api.Compared, allowed: np.ndarray | None) -> list[str]:
    """The movers as the page ranks them: least kept first, then by second-order similarity."""
    ranked = compare.Comparison(
        compare.WHOLE_K,
        moved.overlap,
        moved.second_order,
        0.0,
        moved.mean_overlap_10,
        moved.cka,
        moved.procrustes,
    ).movers(allowed)
    return [moved.pieces[i] for i in ranked]


def test_from_the_token_rows_to_the_last_layer(spaces, index):
    moved = spaces.to_last
    rounds_to(TO_LAST, 2, moved.mean_overlap_10)
    rounds_to(TO_LAST, 3, moved.cka)
    assert moved.mean_overlap_10 < 0.5  # fewer than half
    hidden = vocab_search.allowed_rows(index, vocab_search.Filters())  # special pieces hidden, as by default
    named = FIRST_MOVERS.listed(1)
    assert movers(moved, hidden)[: len(named)] == named
    assert all(moved.overlap[moved.pieces.index(word)] == 0 for word in named)
    assert movers(moved, None)[0] == PAD_FIRST[1]


def test_one_piece_side_by_side(spaces):
    the = spaces.to_last.pieces.index(THE[1])
    assert round(spaces.to_last.overlap[the] * 10) == THE.number(2)
    assert round(spaces.to_output.overlap[the] * 10) == THE.number(5)
    dog = spaces.to_last.pieces.index(DOG_KEEPS[1])
    assert round(spaces.to_last.overlap[dog] * 10) == DOG_KEEPS.number(2)
    pieces = spaces.to_last.pieces
    kept = {pieces[i] for i in spaces.to_last.lists_a[dog]} & {pieces[i] for i in spaces.to_last.lists_b[dog]}
    assert {DOG_KEEPS[5], DOG_KEEPS[6], DOG_KEEPS[7]} <= kept


def test_the_mean_cosine_through_the_layers(model, spaces):
    """As Through the layers computes it: each stage's whole table, raw, every pair of pieces."""
    with pytest.MonkeyPatch.context() as patch:  # the spaces fixture's cache folder holds every layer
        patch.setenv("BERT_EXPLORER_CACHE", str(spaces.cache))
        figures = {
            stage: compare.mean_cosine(compare.in_geometry(api.space(model, stage).vectors, "raw", 0))
            for stage in stages.stage_names(model)
        }
    rounds_to(MEAN_COSINES, 1, figures["token"])
    rounds_to(MEAN_COSINES, 2, figures["output"])
    layers = [figures[str(n)] for n in range(1, stages.layer_count(model) + 1)]
    middle = layers[int(MEAN_COSINES.number(5)) - 1 : int(MEAN_COSINES.number(6))]
    rounds_to(MEAN_COSINES, 3, min(middle))
    rounds_to(MEAN_COSINES, 4, max(middle))
    rounds_to(MEAN_COSINES, 7, layers[-1])
    assert layers[-1] == min(layers) and len(layers) == NUMBER_WORDS[MEAN_COSINES[9]]
    assert min(middle) > figures["output"] > layers[-1]  # not at the end
    assert NOT_AT_THE_END.number(2) == MEAN_COSINES.number(6)


def test_ethayarajhs_finding_is_the_one_the_page_sets_beside_the_line():
    from components.sections import layers_view

    said = inspect.getsource(layers_view)
    assert f"{ETHAYARAJH[1]} (2019)" in said and "rises in the last layers" in said
