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
    from components import settings

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
