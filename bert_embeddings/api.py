"""The explorer's core for notebooks: a handful of functions that return plain data (numpy
arrays, tuples, floats), each computed exactly as the app computes it.

>>> from bert_embeddings import api
>>> model = api.load("bundled")          # offline; a Hub id or an absolute folder works too
>>> api.tokenize(model, "I am Sinan").ids.tolist()
[101, 1045, 2572, 8254, 2319, 102]

Every example here runs as a doctest (tests/test_api.py) on the bundled model. The rules of all:
``model`` is what ``load`` returned (a name is a TypeError); words are text with commas, or a
list or tuple; a word that cannot be placed is an ``UnknownWordError`` naming each (a row for
every word asked, or none); numpy integers are whole numbers; a switch is True or False; the
cache folder is checked before work that keeps something there."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bert_embeddings import limits
from bert_embeddings.analysis import axes, contextual, decompose, geometry, vocab_search, word_tests
from bert_embeddings.errors import QuerySyntaxError
from bert_embeddings.jobs import files
from bert_embeddings.maps import map_jobs, prepare
from bert_embeddings.models import checkpoints
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.models.tokenize import Encoding
from bert_embeddings.spaces import compare as spaces_compare
from bert_embeddings.spaces import pair, space_jobs

__all__ = ["load", "tokenize", "breakdown", "verify", "hidden_states"]  # a model, and a sentence in it
__all__ += ["neighbours", "search", "pca", "tsne_map", "space", "compare"]  # its vocabulary
__all__ += ["axis_coordinates", "axis_card", "weat"]  # Your own axes, and their tests


def load(
    spec: str = "bundled", revision: str = checkpoints.DEFAULT_REVISION, fallback: bool = False
) -> LoadedModel:
    """A model's embedding layer: a Hub id (``bert-base-uncased``), an absolute folder path, or
    ``bundled`` (all-MiniLM-L6-v2, offline). A model that cannot be had is an error that says
    why, never another model's answers: only with ``fallback=True`` does the bundled model stand
    in for a Hub model the Hub cannot give, as in the app, and then ``model.notice`` says so.

    >>> model = load("bundled")
    >>> model.tables.word_embeddings.shape
    (30522, 384)
    """
    fallback = _switch(fallback, "fallback")
    for name, value in (("spec", spec), ("revision", revision)):
        limits.MODEL_ID.check_text(f"The model's {name}", value)
    return checkpoints.load_model(spec, revision, fallback=fallback)


def _model(model: object, function: str) -> LoadedModel:
    """``model`` if ``load`` made it; else a TypeError saying how to get one (not an AttributeError)."""
    if not isinstance(model, LoadedModel):
        given = f"{type(model).__name__} {str(model)[:40]!r}"
        raise TypeError(f"{function} takes a loaded model, not {given}: first model = api.load('bundled').")
    return model


def _switch(value: object, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):  # (a truthy string such as "no" is no True)
        raise TypeError(f"{name} is True or False, not {value!r}")
    return bool(value)


def tokenize(model: LoadedModel, text_a: str, text_b: str = "") -> Encoding:
    """A sentence (or a pair) as the model reads it: ``pieces``, ``ids``, ``segment_ids`` and
    ``positions``, one entry per piece.

    >>> enc = tokenize(load(), "hello, world!")
    >>> enc.pieces
    ('[CLS]', 'hello', ',', 'world', '!', '[SEP]')
    >>> enc.ids.tolist(), enc.positions.tolist()
    ([101, 7592, 1010, 2088, 999, 102], [0, 1, 2, 3, 4, 5])
    """
    return _model(model, "tokenize").encode(text_a, text_b)


def breakdown(model: LoadedModel, text_a: str, text_b: str = "") -> dict[str, np.ndarray]:
    """The embedding layer stage by stage for a sentence (pair), each (pieces, width):
    ``token``, ``position``, ``segment`` (absent where the family has none), ``sum`` and
    ``output`` (LayerNorm of the sum: what the layer returns).

    >>> parts = breakdown(load(), "I am Sinan")
    >>> {name: rows.shape for name, rows in parts.items()}["output"]
    (6, 384)
    >>> bool(np.allclose(parts["sum"], parts["token"] + parts["position"] + parts["segment"]))
    True
    """
    parts = decompose.decompose(_model(model, "breakdown"), model.encode(text_a, text_b))
    stages = {"token": parts.token, "position": parts.position, "segment": parts.segment}
    stages = {name: rows for name, rows in stages.items() if rows is not None}
    return {**stages, "sum": parts.summed, "output": parts.output}


def verify(model: LoadedModel, text_a: str, text_b: str = "") -> decompose.Verification:
    """The largest difference between ``breakdown``'s output and the model's own embedding
    module (transformers), and whether it is within the app's tolerance.

    >>> check = verify(load(), "this is a test sentence")
    >>> check.passed, check.module_name
    (True, 'BertEmbeddings')
    """
    encoding = _model(model, "verify").encode(text_a, text_b)
    module = decompose.build_reference_module(model)
    return decompose.verify(module, encoding, decompose.decompose(model, encoding))


def hidden_states(model: LoadedModel, text_a: str, text_b: str = "") -> np.ndarray:
    """The sentence (pair) through the whole model, as the Contextual vectors page runs it:
    (layers + 1, pieces, width), the embedding layer's output first, then each encoder layer's.
    The first entry equals ``breakdown``'s output; the encoder mixes in the context after it.

    >>> states = hidden_states(load(), "I love mathematics!")
    >>> states.shape                    # 6 encoder layers after the embedding layer, 6 pieces
    (7, 6, 384)
    >>> bool(np.allclose(states[0], breakdown(load(), "I love mathematics!")["output"], atol=1e-5))
    True
    """
    full = contextual.load_full_model(_model(model, "hidden_states"))
    return contextual.hidden_states(full, model.encode(text_a, text_b))


@dataclass(frozen=True)
class Neighbour:
    piece: str
    id: int
    cosine: float


def neighbours(
    model: LoadedModel, query: str | int, k: int = 10, geometry_name: str = "raw", d: int | None = None
) -> list[Neighbour]:
    """The k vocabulary pieces nearest to ``query`` by cosine, exactly, leaving out the query's
    own pieces and, as the Neighbours page does by default, the special and ``[unused]`` rows
    (999 of bert-base-uncased's 30,522): a word or piece (``"dog"``, ``"well-known"``), an id
    (``3899``) or arithmetic, where ``+`` or ``-`` stands apart from a word
    (``"king - man + woman"``); a word that cannot be placed is an ``UnknownWordError`` naming it.
    ``geometry_name``: raw, centred, all-but-the-top (with ``d``, by default width // 100) or
    standardised, as on the Geometry page.

    >>> [n.piece for n in neighbours(load(), "king - man + woman", k=3)]
    ['queen', 'kings', 'monarch']
    >>> neighbours(load(), 3899, k=1)[0].piece    # id 3899 is "dog"
    'dogs'
    >>> [n.piece for n in neighbours(load(), "the", k=3, geometry_name="standardised")]
    ['a', 'an', ',']
    >>> [n.piece for n in neighbours(load(), "well-known", k=2)]  # one word, not well - known
    ['know', 'renowned']
    """
    _, result = search(_model(model, "neighbours"), query, k, geometry_name, d)
    found = zip(result.pieces, result.ids, result.scores, strict=True)
    return [Neighbour(p, int(i), float(c)) for p, i, c in found]


def search(
    model: LoadedModel, query: str | int, k: int = 10, geometry_name: str = "raw", d: int | None = None
) -> tuple[vocab_search.Query, vocab_search.Neighbours]:
    """``neighbours`` as the core returns it: the query (its vector, its pieces' ids and its
    description as the app words it) and the ranked ``ids``, ``pieces`` and ``scores``.

    >>> query, found = search(load(), "dog", k=2)
    >>> query.ids, found.pieces
    ((3899,), ('dogs', 'canine'))
    """
    index, space = _index(model, "search", geometry_name, d)
    if isinstance(query, bool | np.bool_) or not isinstance(query, str | int | np.integer):
        raise QuerySyntaxError(f"Ask for a word, an id or arithmetic, not {type(query).__name__} {query!r}.")
    if isinstance(query, int | np.integer):
        found = vocab_search.id_query(index, int(query))
    elif is_arithmetic(query):
        found = vocab_search.arithmetic_query(index, model.tokenizer, query)
    else:
        found = vocab_search.word_query(index, model.tokenizer, str(query))
    keep_out = vocab_search.Filters(exclude_ids=found.ids)  # the query's own pieces
    return found, vocab_search.nearest(index, found.vector, k, space, keep_out, weight=found.weight)


def is_arithmetic(query: str) -> bool:
    """Whether ``search`` reads ``query`` as arithmetic: a ``+`` or ``-`` stands alone or begins
    a word. A hyphen inside a word (``well-known``) keeps the word whole.

    >>> is_arithmetic("king - man + woman"), is_arithmetic("-man +woman"), is_arithmetic("well-known")
    (True, True, False)
    """
    text = query.strip()
    return text not in ("+", "-") and any(word[0] in "+-" for word in text.split())


def pca(model: LoadedModel, geometry_name: str = "raw", d: int | None = None, components: int = 10):
    """Every vocabulary row's coordinates on the top principal components of the token table
    in a geometry (vocab, components) float32, and each component's share of the variance.

    >>> coords, shares = pca(load(), components=3)
    >>> coords.shape, bool(shares[0] > shares[1] > shares[2])
    ((30522, 3), True)
    """
    table = _model(model, "pca").tables.word_embeddings
    components = limits.whole_number(components, "The number of components", 1, table.shape[1])
    space = geometry.fit(table, *geometry_shape(model, geometry_name, d))
    basis, coords = geometry.pca(table, space, components)
    return coords, basis.explained_variance_ratio


def tsne_map(model: LoadedModel, geometry_name: str = "raw", d: int | None = None, compute: bool = False):
    """The t-SNE map of every vocabulary row (vocab, 2) float32, read from the cache folder the
    app fills (BERT_EXPLORER_CACHE); with ``compute=True``, computed here first if it is not there
    (as ``python -m bert_embeddings map`` does); else a map not yet made is an error saying how."""
    return finished_map(_model(model, "tsne_map"), geometry_name, d, compute).coords


def finished_map(
    model: LoadedModel, geometry_name: str = "raw", d: int | None = None, compute: bool = False
) -> map_jobs.Done:
    """``tsne_map`` with all the app keeps of it: ``coords``, its dense ``regions``, each piece's
    neighbours ``kept`` and its hubs' ``occurrence``, and its ``meta`` (recall@10, settings)."""
    compute, model = _switch(compute, "compute"), _model(model, "finished_map")
    table, shape = model.tables.word_embeddings, geometry_shape(model, geometry_name, d)
    settings = map_jobs.default_settings()
    folder = map_jobs.folder_for(map_jobs.map_name(files.fingerprint(table), shape), settings)
    done = map_jobs.load(folder, len(table))
    if done is None and compute:
        prepare.prepare_map(table, shape, settings)
        done = map_jobs.load(folder, len(table))
    if done is None:
        command = f"python -m bert_embeddings map {'bundled' if model.source == 'bundled' else model.spec}"
        command += f" --geometry {shape[0]}" + (f" --d {shape[1]}" if shape[0] == "all-but-the-top" else "")
        where = f"{model.name} ({shape[0]}) in {folder.parent.parent}"
        raise FileNotFoundError(f"No t-SNE map of {where}: pass compute=True, or run {command}")
    return done


def axis_coordinates(
    model: LoadedModel,
    start: axes.Words,
    end: axes.Words,
    words: axes.Words,
    geometry_name: str = "raw",
    d: int | None = None,
) -> dict[str, float]:
    """Each of ``words`` placed on the axis from ``start`` to ``end`` (each end one or more words,
    averaged), as Your own axes places them: its row's projection on the axis's unit direction,
    in the geometry (larger: towards ``end``); every word, or an ``UnknownWordError``.

    >>> placed = axis_coordinates(load(), "cold", "hot", ["ice", "fire"])
    >>> placed["ice"] < placed["fire"]
    True
    """
    for label, given in (("The axis' start", start), ("The axis' end", end), (axes.TO_PLACE, words)):
        axes.as_text(given, label)  # every box's size, before any work
    index, space = _index(model, "axis_coordinates", geometry_name, d)
    return axes.placed_on(index, model.tokenizer, start, end, words, space)


def _index(model: LoadedModel, function: str, geometry_name: str, d: int | None):
    """The model's vocabulary index, and the geometry fitted to its table."""
    index = vocab_search.build_index(_model(model, function).tables.word_embeddings, model.tokenizer)
    return index, geometry.fit(index.table, *geometry_shape(model, geometry_name, d))


def geometry_shape(model: LoadedModel, name: str, d: int | None = None) -> tuple[str, int]:
    """A geometry's key for this model: its name and D (0 but for all-but-the-top, where D
    defaults to the width // 100, as on the Geometry page).

    >>> geometry_shape(load(), "all-but-the-top")
    ('all-but-the-top', 3)
    """
    hidden = _model(model, "geometry_shape").tables.word_embeddings.shape[1]
    name = geometry.check_name(name)
    return geometry.key(name, geometry.default_removed(hidden) if d is None else geometry.check_d(d))


def space(model: LoadedModel, stage: str | int = "token") -> pair.Space:
    """The vocabulary at one stage of the model: ``pieces`` and one row of ``vectors`` per piece.
    ``stage`` is ``"token"`` (the token rows), ``"output"`` (the embedding layer's output for the
    piece alone) or a layer number (that encoder layer's hidden state for ``[CLS] piece [SEP]``,
    a numpy integer too); a stage but the token rows is read from the cache, or made and kept there.

    >>> output = space(load(), "output")
    >>> output.pieces[2023], output.vectors.shape
    ('this', (30522, 384))
    """
    stage = int(stage) if isinstance(stage, np.integer) else stage
    if (found := pair.space_of(_model(model, "space"), stage, compute=False)) is None:
        files.ensure_writable(space_jobs.folder_for(space_jobs.model_key(model)), f"The {stage} space", False)
    return found or pair.space_of(model, stage)


@dataclass(frozen=True)
class Compared:
    """Two spaces compared over their shared pieces (in A's order): per piece, ``overlap`` (the
    share of its k nearest in A among its k nearest in B) and ``second_order`` (the cosine of its
    similarities to both neighbour sets' union, A's and B's); the spaces' ``cka`` and ``procrustes``
    residual (None for unequal widths); neighbours in A and B (``lists_a``, ``lists_b``: indices)."""

    pieces: tuple[str, ...]
    overlap: np.ndarray
    second_order: np.ndarray
    mean_overlap_10: float
    cka: float
    procrustes: float | None
    lists_a: np.ndarray
    lists_b: np.ndarray


def compare(
    a: pair.Space, b: pair.Space, k: int = 10, geometry_name: str = "raw", d: int | None = None
) -> Compared:
    """What moved from space ``a`` to space ``b``, exactly, for every piece both vocabularies
    hold (matched by their string); each piece's neighbours are searched among those shared
    pieces, in the geometry fitted to each space (D defaults to A's width // 100). The neighbour
    lists are kept in the cache folder, so a second comparison of the same spaces is quick.

    >>> model = load()
    >>> moved = compare(space(model, "token"), space(model, "output"), k=10)
    >>> len(moved.pieces), moved.lists_a.shape
    (30522, (30522, 10))
    >>> bool(0 < moved.cka < 1), bool(moved.overlap.min() < moved.overlap.mean() < moved.overlap.max())
    (True, True)
    """
    if not isinstance(a, pair.Space) or not isinstance(b, pair.Space):
        raise TypeError("compare takes two spaces, e.g. compare(space(model, 'token'), space(model, 6))")
    name = geometry.check_name(geometry_name)
    geometry_key = geometry.key(
        name, geometry.default_removed(a.vectors.shape[1]) if d is None else geometry.check_d(d)
    )
    shared = spaces_compare.shared_pieces(a.pieces, b.pieces)
    k = spaces_compare.check_k(k, len(shared.pieces))
    rows = (pair.subset(shared, 0, len(a.pieces)), pair.subset(shared, 1, len(b.pieces)))
    for side, side_rows in zip((a, b), rows, strict=True):  # where the lists will be kept: checked first
        if (
            space_jobs.lists_for(space_jobs.folder_for(side.key), pair.spec(side, geometry_key, side_rows))
            is None
        ):
            files.ensure_writable(space_jobs.folder_for(side.key), "The neighbour lists", on_server=False)
    lists = (
        pair.lists_now(a, geometry_key, rows[0], threads=2),
        pair.lists_now(b, geometry_key, rows[1], threads=2),
    )
    found = pair.compare_spaces(a, b, geometry_key, lists, k, shared)
    figures = (found.overlap, found.second_order, found.mean_overlap_10, found.cka, found.procrustes)
    return Compared(shared.pieces, *figures, lists[0][:, :k], lists[1][:, :k])


def axis_card(
    model: LoadedModel,
    negative: axes.Words,
    positive: axes.Words,
    words: axes.Words,
    geometry_name: str = "raw",
    d: int | None = None,
) -> word_tests.CardResult:
    """The report card of the axis from ``negative``'s words to ``positive``'s, with ``words``
    placed (every one, in order, or an ``UnknownWordError``): held out, a bootstrap of the pole
    words, 1,000 random axes of whole words, the pairs' coherence (fixed seeds, in the geometry).
    ``.card.verdict()`` adds them up. A figure the words cannot give (one word at an end: nothing
    to hold out or resample) is None, ``.card.missing`` says why, and there is no verdict.

    >>> found = axis_card(load(), "he, him, man", "she, her, woman", ["doctor", "nurse"])
    >>> found.card.held_out, found.card.held_total, found.words
    (6, 6, ('doctor', 'nurse'))
    >>> found.card.verdict()  # random groups of three words separate their own poles about as well
    'held out 6 of 6, beats 94.1% of random axes: no better than chance'
    """
    index, space = _index(model, "axis_card", geometry_name, d)
    return word_tests.card_for(index, model.tokenizer, negative, positive, words, space)


def weat(  # the groups are named as in the paper
    model: LoadedModel,
    X: axes.Words,  # noqa: N803
    Y: axes.Words,  # noqa: N803
    A: axes.Words,  # noqa: N803
    B: axes.Words,  # noqa: N803
    permutations: int = 10_000,
    seed: int = 0,
) -> word_tests.weat.Weat:
    """WEAT (Caliskan et al. 2017) of targets X, Y against attributes A, B on the model's token
    rows: ``statistic``, ``effect_size`` (None without a spread of s: ``missing`` says why), the
    one-sided ``p_value`` (``exact`` up to 100,000 partitions, else ``permutations`` random ones),
    a bootstrap 95 % ``interval`` of d. A word twice (by its pieces: ROSE is rose) is refused; a
    word that cannot be placed is an ``UnknownWordError`` naming each such word.

    >>> found = weat(load(), *word_tests.FLOWERS_INSECTS.values())
    >>> found.exact, found.partitions
    (True, 12870)
    >>> bool(found.effect_size > 0)
    True
    """
    texts = dict(zip(word_tests.WEAT_GROUPS, (X, Y, A, B), strict=True))
    permutations = limits.whole_number(permutations, "permutations", 100, 1_000_000)
    seed = limits.whole_number(seed, "seed", 0, None)
    index, _ = _index(model, "weat", "raw", None)
    return word_tests.weat_for(index, model.tokenizer, texts, None, permutations, seed).test
