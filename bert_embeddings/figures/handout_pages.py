"""What the pages not yet composed once show of a view, for a lesson's handout (the pages about
one input are: bert_embeddings.figures.input_pages composes their parts, for the page and the
handout alike). Its figures are built by the very functions the page draws them with
(bert_embeddings.figures.page_figures and views), from the same core results, for the view's
values (bert_embeddings.views.check.values: a view stands alone, every setting it does not name at
its default, as a link opens it); its tables; and notes in words where the page says something a
figure does not, or computes in the background.

``Sources`` computes what the app's caches hold (components/caches/model_caches.py), in the same
way, once each per model; ``shown(page, model, values, sources)`` gives a page's parts in the
page's order, from the page's composer where it has one. A page's own message (a word the model
lacks, a position beyond its table) becomes a note, as the page shows it instead of a figure.
"""

from __future__ import annotations

import numpy as np

from bert_embeddings.analysis import (
    axes,
    decompose,
    projection,
    vocab_search,
)
from bert_embeddings.errors import ExplorerError
from bert_embeddings.figures import input_pages, layer_pages, map_charts, views
from bert_embeddings.figures.handout_parts import (
    ERROR,
    INK,
    Chart,
    Note,
    Part,
    geometry_of,
    notices,
    within,
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


# --- the pages over the whole vocabulary ---------------------------------------------------------


def _components(values: dict) -> tuple[float, ...]:
    """The components asked for on x and y (and z for a 3-D map), numbered from 1."""
    keys = (
        (settings.PCA_X, settings.PCA_Y, settings.PCA_Z)
        if values[settings.PCA_DIMS] == settings.MAP_DIMS[1]
        else (settings.PCA_X, settings.PCA_Y)
    )
    return tuple(values[key] for key in keys)


def _maps(model, values, sources) -> list[Part]:
    """The map of the tab the view opens: the vocabulary's, the sentence's journey or the positions'."""
    tab = values[settings.MAP_TAB] or settings.MAP_TABS[0]
    try:
        encoding = sources.encoding(values)
    except ExplorerError:  # the maps that do not need the sentence still draw
        encoding = None
    found: list[Part] = [] if encoding is None else notices(encoding)
    if tab == settings.MAP_TABS[2]:
        basis, coords = sources.position_pca()
        chosen = projection.check_components(basis, *_components(values))
        return [*found, Chart("pca_positions", views.position_path((basis, coords), chosen))]
    if tab == settings.MAP_TABS[1]:
        return [*found, *_journey(values, sources, encoding)]
    return [*found, *_vocabulary(values, sources, encoding)]


def _vocabulary(values, sources, encoding) -> list[Part]:
    index = sources.index()
    shape = geometry_of(values, index.table.shape[1])
    if (values[settings.MAP_METHOD] or settings.MAP_METHODS[0]) == settings.MAP_METHODS[1]:
        return [
            Note(
                f"The page shows the t-SNE map of all {index.size:,} pieces in the {views.described(shape)} "
                "geometry, computed once in the background and kept: open the page to see it."
            )
        ]
    found: list[Part] = []
    highlights = []
    if pattern := values[settings.PCA_HIGHLIGHT]:
        matches = np.flatnonzero(vocab_search.matching_rows(index, pattern))
        if matches.size:
            highlights.append(views.pattern_mark(pattern, matches))
        else:
            found.append(Note(f"No piece of the vocabulary matches '{pattern}'."))
    if encoding is not None:
        highlights.append(views.sentence_mark(encoding.ids, INK))
    pca = sources.vocabulary_pca(shape)
    kinds = list(values[settings.PCA_KINDS] or [])
    request = views.pca_vocabulary(
        index, shape, pca, _components(values), shown_kinds=kinds, highlights=highlights
    )
    return [
        *found,
        Chart("pca_vocabulary", map_charts.vocabulary_map(request)),
        Chart("pca_variance", views.explained_variance(pca[0])),
    ]


def _journey(values, sources, encoding) -> list[Part]:
    if encoding is None:
        return [Note("The journey needs a sentence: sentence A is empty.")]
    stages = decompose.stage_vectors(sources.breakdown(encoding))
    if values[settings.PCA_JOURNEY_BASIS] == settings.JOURNEY_BASES[1]:
        basis = projection.fit(np.concatenate(list(stages.values())))
    else:
        basis, _ = sources.vocabulary_pca()
    chosen = projection.check_components(basis, *_components(values))
    stage_coords = views.journey_coordinates(basis, stages)
    return [Chart("pca_journey", views.journey(stage_coords, encoding.labels, chosen, basis))]


def _geometry(model, values, sources) -> list[Part]:
    index = sources.index()
    shape = geometry_of(values, index.table.shape[1])
    lab = sources.lab(shape[1])
    contributions = views.dimension_parts(lab, shape[0])
    if contributions is None:
        found: list[Part] = [Note(f"The {views.described(shape)} geometry could not be fitted here.")]
    else:
        found = [Chart("geo_shares", views.dimension_shares(contributions, shape))]
    return [*found, Chart("geo_lengths", views.row_lengths(lab))]


def _axes(model, values, sources) -> list[Part]:
    index = sources.index()
    shape = geometry_of(values, index.table.shape[1])
    space = sources.space(*shape)
    ends = {name: tuple(values[key] for key in settings.AX_ENDS[name]) for name in axes.NAMES}
    chosen = axes.in_space(axes.build_axes(index, model.tokenizer, ends), space)
    placed, problems = axes.words_to_place(index, model.tokenizer, values[settings.AX_WORDS])
    found: list[Part] = [Note(f"Left off the chart: {'; '.join(problems)}")] if problems else []
    groups = views.axis_groups(chosen, placed, space, _sentence(model, values, sources))
    found.append(Chart("ax_chart", views.words_on_axes(chosen, groups, model.name)))
    if placed:
        similarity = views.placed_cosine(placed, space)
        found.append(Chart("ax_words_cosine", views.placed_cosine_chart(similarity, placed, shape)))
    placeable = ", ".join(w.text for w in placed)
    for axis in chosen:
        try:
            card = sources.card((*ends[axis.name], placeable), shape)
        except ExplorerError as problem:
            found.append(Note(f"Axis {axis.name}'s report card: {problem}"))
            continue
        figures = "; ".join(f"{label}: {value}" for label, value in views.card_figures(card.card).items())
        found.append(Note(f"Axis {axis.name}: {card.card.verdict()}. {figures}."))
        if (figure := views.card_intervals(axis.name, card)) is not None:
            found.append(Chart(f"ax_card_{axis.name}", figure))
    return found


def _sentence(model, values, sources):
    """The sentence's pieces at the stage asked for, or None (none asked, or none to be had)."""
    stages = [settings.NO_SENTENCE, *decompose.STAGES]
    if model.tables.token_type_embeddings is None:
        stages.remove(decompose.STAGES[2])
    stage = within(values[settings.AX_STAGE], stages, settings.NO_SENTENCE)
    if stage == settings.NO_SENTENCE:
        return None
    try:
        encoding = sources.encoding(values)
    except ExplorerError:
        return None
    return encoding.labels, decompose.stage_vectors(sources.breakdown(encoding))[stage]


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


COMPOSERS = input_pages.COMPOSERS | layer_pages.COMPOSERS  # the pages composed once

PAGES = {
    "maps": _maps,
    "axes": _axes,
    "geometry": _geometry,
    "moved": _moved,
}
