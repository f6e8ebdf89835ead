"""What the pages not yet composed once show of a view, for a lesson's handout (the pages about
one input, the layer pages, Maps, Your own axes and Geometry are: bert_embeddings.figures.input_pages,
layer_pages and vocabulary_pages compose their parts, for the page and the handout alike). Its
figures are built by the very functions the page draws them with (bert_embeddings.figures.page_figures
and views), from the same core results, for the view's values (bert_embeddings.views.check.values: a
view stands alone, every setting it does not name at its default, as a link opens it); its tables;
and notes in words where the page says something a figure does not, or computes in the background.

``Sources`` computes what the app's caches hold (components/caches/model_caches.py), in the same
way, once each per model; ``shown(page, model, values, sources)`` gives a page's parts in the
page's order, from the page's composer where it has one. A page's own message (a word the model
lacks, a position beyond its table) becomes a note, as the page shows it instead of a figure.
"""

from __future__ import annotations

from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import input_pages, layer_pages, vocabulary_pages
from bert_embeddings.figures.handout_parts import (
    ERROR,
    Note,
    Part,
)
from bert_embeddings.models.model import LoadedModel
from bert_embeddings.spaces import stages as space_stages
from bert_embeddings.views import link_text, settings
from bert_embeddings.views.sources import Sources


def shown(page: str, model: LoadedModel, values: dict, sources: Sources) -> list[Part]:
    """Everything a handout holds of ``page`` for a view's ``values``, in the page's order."""
    composed, draw = COMPOSERS.get(page), PAGES.get(page)
    if composed is None and draw is None:
        return [Note(f"This page cannot be drawn in a handout: open the {page} page to see it.")]
    try:
        return list(composed(values, sources).values()) if composed else draw(model, values, sources)
    except ExplorerError as problem:  # what the page shows in place of its figures
        return [Note(str(problem), ERROR)]


# The pages composed once: their composers give the page's parts, for the page and the handout.
COMPOSERS = {**input_pages.COMPOSERS, **layer_pages.COMPOSERS, **vocabulary_pages.COMPOSERS}


def _moved(model, values, sources) -> list[Part]:
    """What moved's figures come from each space's exact neighbour lists, which the explorer's
    server computes in the background and keeps: the handout says so, in words."""
    last = space_stages.stage_names(model)[-1]
    stages = []
    for key in (settings.MV_STAGE_A, settings.MV_STAGE_B):
        stage = last if values[key] == link_text.LAST_LAYER else str(values[key])
        label = space_stages.stage_label(stage)
        stages.append(f"the {label}" if stage in (space_stages.TOKEN, space_stages.OUTPUT) else label)
    k = int(values[settings.MV_K])
    return [
        Note(
            f"This step's figures are not in the handout. What moved compares every piece's {k} nearest "
            f"neighbours in {stages[0]} and in {stages[1]}, over the whole vocabulary, exactly: the "
            "explorer's server computes each space's neighbour lists once, in the background, and keeps "
            "them for everyone. Open the step's page in the explorer to see its figures."
        )
    ]


PAGES = {
    "moved": _moved,
}
