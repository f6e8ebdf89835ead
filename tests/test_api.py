"""The notebook API (bert_embeddings.api): its docstrings' examples run, and its answers are
the references' (the model's own module, brute force, scikit-learn, the map job's)."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from bert_embeddings import api
from bert_embeddings.errors import OutOfRangeError
from bert_embeddings.maps import map_jobs
from testkit import brute


@pytest.mark.slow("the examples, a t-SNE map among them")
def test_every_example_in_the_docstrings_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))  # what the examples keep
    found = doctest.testmod(api, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert found.attempted >= 15 and found.failed == 0, found
    assert all(getattr(api, name).__doc__ for name in api.__all__)


def test_the_breakdown_is_the_modules_own_output(bundled):
    import torch

    from bert_embeddings.analysis import decompose

    parts = api.breakdown(bundled, "The bank of the river.", "It flooded.")
    encoding = api.tokenize(bundled, "The bank of the river.", "It flooded.")
    with torch.inference_mode():
        expected = decompose.build_reference_module(bundled)(
            input_ids=torch.tensor(encoding.ids)[None],
            token_type_ids=torch.tensor(encoding.segment_ids)[None],
            position_ids=torch.tensor(encoding.positions)[None],
        )[0].numpy()
    assert np.max(np.abs(parts["output"] - expected)) <= 1e-5
    assert api.verify(bundled, "The bank of the river.", "It flooded.").passed


@pytest.mark.parametrize("name", ["raw", "standardised"])
def test_neighbours_of_arithmetic_are_brute_forces(bundled, name):
    """king - man + woman: the signed sum of the transformed rows, ranked over every other row."""
    table, tok = bundled.tables.word_embeddings, bundled.tokenizer
    signs, ids = (1, -1, 1), [tok.token_to_id(w) for w in ("king", "man", "woman")]
    rows = brute.transformed(table, name)
    parts = [s * brute.transformed(table, name, rows=table[i])[0] for s, i in zip(signs, ids, strict=True)]
    query = sum(parts)
    scores = rows @ query / np.linalg.norm(rows, axis=1) / np.linalg.norm(query)
    scores[ids] = -np.inf
    special = [i for piece, i in tok.get_vocab().items() if piece.startswith("[") and piece.endswith("]")]
    assert len(special) == 999  # [PAD], [UNK], [CLS], [SEP], [MASK] and 994 [unusedN]: hidden by default
    scores[special] = -np.inf
    expected = np.lexsort((np.arange(len(scores)), -scores))[:5]
    found = api.neighbours(bundled, "king - man + woman", k=5, geometry_name=name)
    assert [n.id for n in found] == expected.tolist()
    np.testing.assert_allclose([n.cosine for n in found], scores[expected], atol=1e-5)


@pytest.mark.parametrize("query", ["well-known", "-known", "king -man +woman", 3899, True, 2.5])
def test_a_hyphen_inside_a_word_is_not_arithmetic(bundled, query):
    """Arithmetic where a sign stands alone or begins a word; a hyphenated word is one word, as
    the Neighbours page's word mode reads it; a bool or a float is not a query at all."""
    from bert_embeddings.analysis import vocab_search
    from bert_embeddings.errors import QuerySyntaxError

    index = vocab_search.build_index(bundled.tables.word_embeddings, bundled.tokenizer)
    if isinstance(query, bool | float):
        with pytest.raises(QuerySyntaxError, match="a word, an id or arithmetic"):
            api.search(bundled, query)
        return
    if isinstance(query, int):
        expected = vocab_search.id_query(index, query)
    elif query == "well-known":
        expected = vocab_search.word_query(index, bundled.tokenizer, query)
    else:
        expected = vocab_search.arithmetic_query(index, bundled.tokenizer, query)
    found, _ = api.search(bundled, query)
    assert found.ids == expected.ids and found.description == expected.description
    np.testing.assert_array_equal(found.vector, expected.vector)


def test_pca_is_scikit_learns(bundled):
    from sklearn.decomposition import PCA

    table = bundled.tables.word_embeddings
    coords, shares = api.pca(bundled, components=3)
    reference = PCA(3).fit(table.astype(np.float64))
    np.testing.assert_allclose(shares, reference.explained_variance_ratio_, atol=1e-6)
    np.testing.assert_allclose(coords, reference.transform(table.astype(np.float64)), atol=1e-3)


@pytest.mark.slow("t-SNE maps")
def test_the_t_sne_map_is_read_from_the_apps_cache_or_computed_on_request(tmp_path, monkeypatch):
    from bert_embeddings.maps import neighbour_map
    from bert_embeddings.models import checkpoints
    from testkit.random_models import write_random_bert

    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BERT_EXPLORER_MAP_ITERATIONS", "30")
    model = checkpoints.load_model(str(write_random_bert(tmp_path / "model", hidden=16, seed=6)))
    with pytest.raises(FileNotFoundError, match="python -m bert_embeddings map .+ --geometry raw$"):
        api.tsne_map(model)
    with pytest.raises(FileNotFoundError, match="--geometry all-but-the-top --d 2$"):
        api.tsne_map(model, "all-but-the-top", d=2)
    coords = api.tsne_map(model, compute=True)
    expected = neighbour_map.compute(model.tables.word_embeddings, map_jobs.default_settings(), threads=1)
    np.testing.assert_array_equal(coords, expected.coords)
    np.testing.assert_array_equal(api.tsne_map(model), coords)  # read back, not computed again


def test_hidden_states_are_the_whole_models(bundled):
    """Every layer's output, against transformers' own model called on the tokenizer's ids."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    folder = str(bundled.folder)
    model, tokenizer = AutoModel.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)
    with torch.inference_mode():
        out = model(
            **tokenizer("The bank of the river.", "It flooded.", return_tensors="pt"),
            output_hidden_states=True,
        )
    states = api.hidden_states(bundled, "The bank of the river.", "It flooded.")
    assert states.shape == (len(out.hidden_states), out.last_hidden_state.shape[1], 384)
    for mine, theirs in zip(states, out.hidden_states, strict=True):
        assert np.max(np.abs(mine - theirs[0].numpy())) <= 1e-4


def test_readmes_example_prints_what_readme_says(capsys):
    """README's "Use it in Python / Jupyter" example, run as written, prints its block below."""
    import re

    from testkit.apptest import ROOT

    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Use it in Python / Jupyter")[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"\nprints\n\n((?:    .*\n)+)", section).group(1)
    assert len(code.strip().splitlines()) <= 10
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.splitlines() == [line[4:] for line in shown.splitlines()]


# --- every argument checked, with the messages the links and the command line give ------------

BAD_ARGUMENTS = [
    # (call, the error's words): each once answered for another value or with a TypeError
    (lambda m: api.neighbours(m, "dog", geometry_name="all-but-the-top", d=2.5), "D, the directions"),
    (lambda m: api.neighbours(m, "dog", geometry_name="all-but-the-top", d=True), "True is not"),
    (lambda m: api.pca(m, d=2.5), "2.5 is not"),
    (lambda m: api.geometry_shape(m, "all-but-the-top", 2.5), "2.5 is not"),
    (lambda m: api.axis_coordinates(m, "cold", "hot", "ice", d=1.5), "1.5 is not"),
    (lambda m: api.pca(m, components=1.5), "The number of components must be a whole number"),
    (lambda m: api.pca(m, components=True), "True is not"),
    (lambda m: api.neighbours(m, "dog", k=True), "k must be a whole number from 1 to 100; True is not"),
    (lambda m: api.neighbours(m, "dog", k=None), "k must be a whole number from 1 to 100; None is not"),
    (lambda m: api.tokenize(m, 5), "Sentence A must be text, not int 5"),
    (lambda m: api.tokenize(m, "fine", ["not", "text"]), "Sentence B must be text"),
    (lambda m: api.axis_coordinates(m, "cold", "hot", ""), "Give at least one word to place"),
    (lambda m: api.axis_coordinates(m, "cold", "hot", None), "Give at least one word to place"),
    (lambda m: api.tsne_map(m, "bogus"), "'bogus' is not a geometry here"),
    (lambda m: api.tsne_map(m, "all-but-the-top", d=50), "must be from 1 to 20; 50 is outside"),
    (lambda m: api.neighbours(m, "dog", geometry_name="raw", d=50), "must be from 1 to 20; 50 is outside"),
    # a whole number is said in its digits, never as 1e+23
    (
        lambda m: api.neighbours(m, "dog", k=10**23),
        "from 1 to 100; 100,000,000,000,000,000,000,000 is outside",
    ),
    (lambda m: api.neighbours(m, "dog", k=np.int64(-3)), "from 1 to 100; -3 is outside"),
    (lambda m: api.axis_coordinates(m, "cold", "hot", [f"w{i}" for i in range(61)]), "The list of words to"),
    (lambda m: api.axis_coordinates(m, "cold", "hot", [f"w{i}" for i in range(61)]), "place has 61 words"),
]


@pytest.mark.parametrize(("call", "said"), BAD_ARGUMENTS)
def test_a_bad_argument_gets_the_message_the_app_gives(bundled, call, said):
    from bert_embeddings.errors import ExplorerError

    with pytest.raises(ExplorerError) as raised:
        call(bundled)
    assert said in str(raised.value)


def test_a_number_in_digits_is_read_as_a_link_reads_it(bundled):
    """components="3" once raised a TypeError; it reads as 3, as a link's x=3 does."""
    coords, shares = api.pca(bundled, components="3")
    assert coords.shape == (bundled.tables.word_embeddings.shape[0], 3) and len(shares) == 3


def test_the_api_the_links_and_the_command_line_say_the_same_of_d():
    """One check for D: the API's, a link's d= and the command's --d give one message."""
    from bert_embeddings import __main__ as command
    from bert_embeddings.analysis import geometry
    from bert_embeddings.errors import OutOfRangeError
    from bert_embeddings.figures import settings

    for text in ("0", "21", "-4"):
        with pytest.raises(OutOfRangeError) as by_api:
            geometry.check_d(int(text))
        with pytest.raises(ValueError) as by_link:
            settings.BY_KEY[settings.GEOMETRY_REMOVED].read(text)
        with pytest.raises(Exception) as by_command:
            command._removed(text)
        assert str(by_api.value) == str(by_link.value) == str(by_command.value)


def test_compare_matches_brute_force_over_the_pieces_two_vocabularies_share(tmp_path, monkeypatch):
    """Two made-up spaces whose vocabularies overlap in part, in another order and at other widths:
    each shared piece's neighbours are searched among the shared pieces only, by float64 brute
    force, and the figures are the sets' own."""
    from sklearn.neighbors import NearestNeighbors

    from bert_embeddings.spaces import pair

    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(260)]
    pieces_a, pieces_b = words[:240], words[20:][::-1]  # 220 shared, in another order in B
    a = pair.Space(
        "A", "token", tuple(pieces_a), rng.standard_normal((240, 12)).astype(np.float32), "fa", "/a"
    )
    b = pair.Space("B", "3", tuple(pieces_b), rng.standard_normal((240, 20)).astype(np.float32), "fb", "/b")
    moved = api.compare(a, b, k=7)
    shared = [p for p in pieces_a if p in set(pieces_b)]
    assert moved.pieces == tuple(shared) and moved.procrustes is None
    lists = []
    for space in (a, b):
        rows = [space.pieces.index(p) for p in shared]
        table = space.vectors[rows].astype(np.float64)
        found = NearestNeighbors(n_neighbors=8, metric="cosine", algorithm="brute").fit(table)
        ids = found.kneighbors(table)[1]
        lists.append([[j for j in row if j != i][:7] for i, row in enumerate(ids)])
    np.testing.assert_array_equal(moved.lists_a, lists[0])
    np.testing.assert_array_equal(moved.lists_b, lists[1])
    expected = [len(set(x) & set(y)) / 7 for x, y in zip(lists[0], lists[1], strict=True)]
    np.testing.assert_allclose(moved.overlap, expected)
    with pytest.raises(TypeError, match="two spaces"):
        api.compare(a, "output")
    with pytest.raises(OutOfRangeError, match="k"):
        api.compare(a, b, k=101)


# --- the notebook's rules: words as lists, unplaced words named, models, switches, the cache ----


def test_a_list_of_words_is_the_same_as_the_words_typed(bundled):
    """Groups are lists in WEFE, whatlies and gensim: a list or tuple gives what the text gives."""
    typed = api.weat(bundled, "rose, tulip", "ant, moth", "love, peace", "crash, filth", permutations=100)
    listed = api.weat(bundled, ["rose", "tulip"], ("ant", "moth"), ["love", "peace"], ["crash", "filth"], 100)
    assert listed.statistic == typed.statistic and listed.p_value == typed.p_value
    assert listed.interval == typed.interval
    card = api.axis_card(bundled, ["he", "him"], ("she", "her"), ["doctor", "nurse"])
    assert card.words == ("doctor", "nurse")
    assert (
        card.card.verdict() == api.axis_card(bundled, "he, him", "she, her", "doctor, nurse").card.verdict()
    )
    assert api.axis_coordinates(bundled, ["cold"], ["hot"], ("ice", "fire")) == api.axis_coordinates(
        bundled, "cold", "hot", "ice, fire"
    )


UNPLACEABLE = "doctor, xqzzyv, \u2603, nurse, \U0001f99c"  # xqzzyv is placed by its pieces


@pytest.mark.parametrize(
    "call",
    [
        lambda m: api.axis_card(m, "he", "she", UNPLACEABLE),
        lambda m: api.axis_coordinates(m, "he", "she", UNPLACEABLE),
        lambda m: api.weat(m, UNPLACEABLE, "ant, moth", "love, peace", "crash, filth"),
    ],
)
def test_every_word_that_cannot_be_placed_is_named_never_dropped(bundled, call):
    """axis_card once returned 3 rows for these 5 words, unsaid; the rule for every function:
    every word placed, or an UnknownWordError naming each that cannot be."""
    from bert_embeddings.errors import UnknownWordError

    with pytest.raises(UnknownWordError) as raised:
        call(bundled)
    said = str(raised.value)
    assert "2 words that cannot be placed" in said and "'\u2603'" in said and "'\U0001f99c'" in said
    assert "doctor" not in said and "xqzzyv" not in said


def test_a_card_without_its_figures_has_none_and_no_verdict(bundled):
    """he -> she: p was nan and the verdict "no better than chance"; now None, the reason, no verdict."""
    from bert_embeddings.analysis import axis_card

    card = api.axis_card(bundled, "he", "she", "king, queen").card
    assert card.p_value is None and card.beats is None and card.separation is None
    assert card.direction_interval is None and card.word_intervals is None
    assert card.why_not(axis_card.STABILITY) == "one word at each end: nothing to resample"
    assert card.verdict().startswith("no verdict") and "chance" not in card.verdict()
    assert np.all(np.isfinite(card.coordinates)) and len(card.coordinates) == 2


MODEL_CALLS = {
    "tokenize": lambda m: api.tokenize(m, "dog"),
    "breakdown": lambda m: api.breakdown(m, "dog"),
    "verify": lambda m: api.verify(m, "dog"),
    "hidden_states": lambda m: api.hidden_states(m, "dog"),
    "neighbours": lambda m: api.neighbours(m, "dog"),
    "search": lambda m: api.search(m, "dog"),
    "pca": lambda m: api.pca(m),
    "tsne_map": lambda m: api.tsne_map(m),
    "axis_coordinates": lambda m: api.axis_coordinates(m, "cold", "hot", "ice"),
    "space": lambda m: api.space(m, "token"),
    "axis_card": lambda m: api.axis_card(m, "he", "she", "king"),
    "weat": lambda m: api.weat(m, "a, b", "c, d", "e, f", "g, h"),
}


def test_every_function_that_takes_a_model_is_listed_here():
    import inspect

    takes = {n for n in api.__all__ if "model" in inspect.signature(getattr(api, n)).parameters}
    assert takes == set(MODEL_CALLS)


@pytest.mark.parametrize("name", sorted(MODEL_CALLS))
def test_a_models_name_instead_of_a_model_is_a_clear_type_error(name):
    """api.space("bundled", "token") once raised AttributeError: 'str' object has no attribute."""
    with pytest.raises(TypeError) as raised:
        MODEL_CALLS[name]("bundled")
    assert str(raised.value).startswith(f"{name} takes a loaded model, not str 'bundled'")
    assert "api.load('bundled')" in str(raised.value)


@pytest.mark.parametrize("compute", ["no", 0, None, "False"])
def test_compute_is_true_or_false_not_a_truthy_string(bundled, compute):
    """compute="no" once computed a whole map, the string being truthy."""
    with pytest.raises(TypeError, match="compute is True or False"):
        api.tsne_map(bundled, compute=compute)


@pytest.fixture
def small_model(tmp_path, monkeypatch):
    """A random BERT of one layer (its stages quick to compute), with its own cache folder."""
    from bert_embeddings.models import checkpoints
    from testkit.random_models import write_random_bert

    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    return checkpoints.load_model(str(write_random_bert(tmp_path / "model", hidden=16, seed=3)))


def test_a_stage_may_be_a_numpy_integer(small_model):
    layer = api.space(small_model, np.int64(1))
    assert layer.stage == "1"
    np.testing.assert_array_equal(layer.vectors, api.space(small_model, 1).vectors)


def test_a_cache_folder_that_is_a_file_is_said_before_any_work(small_model, tmp_path, monkeypatch):
    """space and compare raised a raw NotADirectoryError, compare after 6.5 s of work; now the
    storage error tsne_map gives, before anything is computed."""
    from bert_embeddings.errors import MapStorageError
    from bert_embeddings.spaces import space_jobs

    token = api.space(small_model, "token")  # (the token rows need no cache)
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "a-file"))

    def no_work(*args, **kwargs):
        raise AssertionError("work began before the cache folder was checked")

    monkeypatch.setattr(space_jobs, "lists_of", no_work)
    monkeypatch.setattr(space_jobs, "make_stage", no_work)
    for call in (lambda: api.space(small_model, "output"), lambda: api.compare(token, token)):
        with pytest.raises(MapStorageError) as raised:
            call()
        assert "part of that path is a file, not a folder" in str(raised.value)
        assert "Point BERT_EXPLORER_CACHE at a folder" in str(raised.value)
    with pytest.raises(MapStorageError, match="part of that path is a file"):
        api.tsne_map(small_model, compute=True)  # the way the map already said it
