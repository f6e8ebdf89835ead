"""The core results a page's view is drawn from, for one model: computed here as the app's caches
compute them (components/caches/store.py), each once, so that whatever is drawn or stated from them
outside a page (a lesson's handout, a lesson's figures) is the page's to the last bit. The app
hands in its own subclass, which reads its caches (components/caches/app_sources.py), and
draws its pages from it too."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bert_embeddings.analysis import (
    contextual,
    decompose,
    geometry,
    geometry_lab,
    projection,
    vocab_search,
    word_tests,
)
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.models.tokenize import Encoding
from bert_embeddings.views import fields


class Sources:
    """The core results a page asks its caches for, computed here for one model as the caches
    compute them, each once."""

    def __init__(self, model: LoadedModel) -> None:
        self.model, self._kept = model, {}

    def _once(self, key: tuple, make: Callable[[], object]):
        if key not in self._kept:
            self._kept[key] = make()
        return self._kept[key]

    def encoding(self, values: dict) -> Encoding:
        texts = _texts(values)
        return self._once(
            ("encoding", *texts), lambda: self.model.encode(*texts[:2], add_special_tokens=texts[2])
        )

    def checked(self, values: dict) -> decompose.Verification:
        """The verification of the view's sentence, kept per sentence (a torch run each)."""
        return self._once(("verification", *_texts(values)), lambda: self.verification(self.encoding(values)))

    def breakdown(self, encoding: Encoding) -> decompose.EmbeddingBreakdown:
        return decompose.decompose(self.model, encoding)

    def verification(self, encoding: Encoding) -> decompose.Verification:
        return decompose.verify(self.reference_module(), encoding, self.breakdown(encoding))

    def reference_module(self):
        return self._once(("module",), lambda: decompose.build_reference_module(self.model))

    def index(self) -> vocab_search.VocabIndex:
        table = self.model.tables.word_embeddings
        return self._once(("index",), lambda: vocab_search.build_index(table, self.model.tokenizer))

    def pattern_rows(self, pattern: str, label: str = "The pattern") -> np.ndarray:
        return self._once(
            ("pattern", pattern, label), lambda: vocab_search.matching_rows(self.index(), pattern, label)
        )

    def space(self, name: str, removed: int) -> geometry.Geometry:
        geometry_key = geometry.key(name, removed)
        return self._once(("space", *geometry_key), lambda: geometry.fit(self.index().table, *geometry_key))

    def vocabulary_pca(self, geometry_key: tuple[str, int] = ("raw", 0)):
        name, removed = geometry.pca_key(*geometry_key)
        table = self.model.tables.word_embeddings
        return self._once(("pca", name, removed), lambda: geometry.pca(table, self.space(name, removed)))

    def position_pca(self):
        table = self.model.tables.position_embeddings

        def fitted():
            basis = projection.fit(table)
            return basis, projection.project(basis, table)

        return self._once(("position pca",), fitted)

    def nearest(
        self,
        query: np.ndarray,
        k: float,
        geometry_key: tuple[str, int],
        filters,
        weight: float = 1.0,
        each: bool = False,
    ):
        """The nearest pieces to ``query``, or with ``each`` to each of its rows."""
        vectors = np.ascontiguousarray(np.atleast_2d(query), dtype=np.float32)  # as the cache keys it
        geometry_key, k = geometry.key(*geometry_key), vocab_search.check_k(k)
        fitted = self.space(*geometry_key)
        if each:
            return vocab_search.nearest_for_each(self.index(), vectors, k, fitted, filters)
        return vocab_search.nearest(self.index(), vectors[0], k, fitted, filters, weight=weight)

    def lab(self, removed: int) -> geometry_lab.Lab:
        index, model = self.index(), self.model
        outputs = lambda start, stop: decompose.vocabulary_outputs(model, start, stop)  # noqa: E731
        return self._once(
            ("lab", removed), lambda: geometry_lab.measure(index.table, outputs, index.pieces, removed)
        )

    def full_model(self):
        return self._once(("full",), lambda: contextual.load_full_model(self.model))

    def hidden_states(self, text: str) -> np.ndarray:
        """(layers + 1, tokens, hidden) of ``text`` alone, through the whole model (read-only)."""

        def made() -> np.ndarray:
            return contextual.hidden_states(self.full_model(), self.model.encode(text))

        return self._once(("hidden", text), made)

    def kept(self, name: str, key: tuple, make: Callable[[], object | None]):
        """A result the app keeps under ``name`` for ``key`` that a background job may still be
        making (its neighbour lists, read from disk by ``make``): read once, and None while it
        is not there, which is asked again the next time."""
        if (name, *key) not in self._kept and (found := make()) is not None:
            self._kept[(name, *key)] = found
        return self._kept.get((name, *key))

    def held(self, name: str, key: tuple, make: Callable[..., object | None], *unhashed):
        """A result the app keeps under ``name`` for ``key`` (the strings and numbers that name it),
        made by ``make(*unhashed)`` from what rides along unhashed (a model, a space, arrays), as
        the app's caches take them: read once, and None while what it is made from is not on disk."""
        return self.kept(name, key, lambda: make(*unhashed))

    def card(self, texts: tuple[str, str, str], geometry_key: tuple[str, int]) -> word_tests.CardResult:
        space, index = self.space(*geometry_key), self.index()
        return self._once(
            ("card", texts, geometry_key),
            lambda: word_tests.card_for(index, self.model.tokenizer, *texts, space=space),
        )

    def weat(self, texts: tuple[str, ...]) -> word_tests.WeatResult:
        groups = dict(zip(word_tests.WEAT_GROUPS, texts, strict=True))
        return self._once(
            ("weat", texts), lambda: word_tests.weat_for(self.index(), self.model.tokenizer, groups)
        )


def _texts(values: dict) -> tuple[str, str, bool]:
    """Sentence A, sentence B and whether special tokens are added, as a view names them."""
    return (
        values[fields.SENTENCE_A_KEY],
        values[fields.SENTENCE_B_KEY],
        bool(values[fields.SPECIAL_TOKENS_KEY]),
    )
