"""The results a page's view is drawn from (bert_embeddings.views.sources), read from the app's
caches (components/caches/store.py): what the pages draw and a lesson's handout writes come from one
place, and a handout adds nothing to the server's memory. model_caches.sources gives them for the
model in use. Nothing here draws on the page: a lesson's figures and a handout (written in a
download's own thread) read these too, and say in their own words what could not be had."""

from __future__ import annotations

from bert_embeddings.models import checkpoints
from bert_embeddings.views.sources import Sources
from components.caches import axis_tests, map_state, spaces, store


def _card(key: str, revision: str, texts: tuple[str, str, str], geometry_key: tuple[str, int]):
    index, tokenizer = store.vocab_index(key, revision), store.model(key, revision).tokenizer
    return axis_tests.card(
        (key, revision), texts, geometry_key, index, tokenizer, store.space(key, revision, *geometry_key)
    )


def _weat(key: str, revision: str, texts: tuple[str, ...]):
    index, tokenizer = store.vocab_index(key, revision), store.model(key, revision).tokenizer
    return axis_tests.weat((key, revision), texts, index, tokenizer)


# Each result Sources keeps, by the name it keeps it under: the cache that holds it here.
_HELD = {
    "encoding": store.encoding,
    "module": store.reference_module,
    "verification": store.verification,
    "index": store.vocab_index,
    "pattern": store.pattern_rows,
    "space": store.space,
    "pca": store.vocabulary_pca,
    "position pca": store.position_pca,
    "lab": store.lab,
    "full": store.full_model,
    "hidden": store.hidden_states,
    "card": _card,
    "weat": _weat,
}
# What moved's caches: the pieces two vocabularies share, a stage's space (None while a layer's
# table is not on disk) and a pair's comparison, each once for every session.
_SPACES = {
    "shared": spaces.shared,
    "stage space": lambda folder, stage, model: spaces.space(model, stage),
    "comparison": spaces.comparison,
    "fitted": spaces.fitted,
    "through the stages": spaces.through_the_stages,
}


class Cached(Sources):
    """The results a view is drawn from, read from the app's caches. Sources names each result
    it keeps as the cache that holds it is called, with its arguments."""

    def __init__(self, key: str, revision: str, model: checkpoints.LoadedModel | None = None) -> None:
        super().__init__(model or store.model(key, revision))
        self._key = (key, revision)

    def _once(self, key: tuple, make):
        cached = _HELD.get(key[0])
        return super()._once(key, make) if cached is None else cached(*self._key, *key[1:])

    def nearest(self, query, k, geometry_key, filters, weight=1.0, each=False):
        return store.nearest(query, k, geometry_key, filters, each, weight, self._key)

    def kept(self, name: str, key: tuple, make):
        # What moved's caches hold a model's key and its stages' neighbour lists, the maps' caches
        # the t-SNE maps and their labels: each read once, for every session.
        if name == "model key":
            return spaces.model_key(*key, self.model)
        if name == "lists":
            try:
                return spaces.lists(*key)
            except spaces.NotOnDiskError:
                return None
        if name in ("t-SNE map", "map labels"):
            return map_state.kept(name, self._key, *key)
        if name == "aligned maps":
            try:
                return spaces.aligned_maps(*key)
            except spaces.NotOnDiskError:
                return None
        return super().kept(name, key, make)

    def held(self, name: str, key: tuple, make, *unhashed):
        if name in _SPACES:
            return _SPACES[name](*key, *unhashed)
        return super().held(name, key, make, *unhashed)
