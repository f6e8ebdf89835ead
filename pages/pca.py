"""PCA maps: the whole vocabulary, the sentence stage by stage, and the position embeddings."""

import numpy as np
import streamlit as st

from bert_embeddings import decompose, projection
from components import echo, exports, maps, routing, settings, state, widgets

routing.through_app()
st.title("PCA maps")
st.markdown(
    "Principal component analysis finds the directions along which vectors vary most; plotting the "
    "first two or three shows as much of a high-dimensional space as a flat picture can. These maps "
    "are exact: every row is used, nothing is sampled or approximated."
)

model = state.require_model()
index = state.vocab_index()
encoding = state.require_encoding(stop=False)  # the maps that do not need the sentence still draw
wanted = widgets.map_axes()


def export_map(what: str, coords: np.ndarray, axes: tuple[int, ...], rows=None, corner: str = "") -> None:
    """Download buttons for a map: the coordinates on the components shown."""
    names = [f"PC{a}" for a in axes]
    columns = coords[:, [a - 1 for a in axes]]
    exports.matrix(f"{model.name} {what} on {'-'.join(names)}", columns, rows, names, corner)


vocabulary_tab, journey_tab, positions_tab = st.tabs(["Vocabulary", "Sentence journey", "Positions"])

with vocabulary_tab:
    basis, coords = state.vocabulary_pca()
    widgets.chart(
        maps.explained_variance(basis.explained_variance_ratio, "Variance explained by each component"),
        key="pca_variance",
    )
    exports.matrix(
        f"{model.name} vocabulary PCA explained variance",
        basis.explained_variance_ratio,
        [f"PC{c}" for c in range(1, len(basis.explained_variance_ratio) + 1)],
        ["explained variance ratio"],
        "component",
    )
    kinds = widgets.piece_kinds()
    pattern = widgets.pattern_box("Highlight pieces matching (pattern)", settings.PCA_HIGHLIGHT)
    widgets.pattern_syntax()
    highlights = []
    with state.friendly_errors(stop=False):
        if pattern:
            matches = np.flatnonzero(state.pattern_rows(index, pattern))
            if matches.size:
                highlights.append((f"matching {pattern}", matches, *maps.PATTERN_MARK))
            else:
                st.warning(
                    echo.plain(f"No piece of the vocabulary matches '{pattern}'."),
                    icon=":material/search_off:",
                )
    if encoding is not None:
        highlights.append(("your sentence", np.unique(encoding.ids), widgets.ink(), maps.SENTENCE_SYMBOL))
    if (last := state.last_neighbours()) is not None:
        highlights.append((f"neighbours of {last[0]}", np.array(last[1]), *maps.NEIGHBOURS_MARK))
    with state.friendly_errors(stop=False):
        axes = projection.check_components(basis, *wanted)
        figure = maps.vocabulary_map(
            coords, index.pieces, index.kinds, axes, basis.explained_variance_ratio, kinds, highlights
        )
        widgets.chart(figure, key="pca_vocabulary")
        export_map("vocabulary", coords, axes, index.pieces, "piece")
        st.caption(
            "Fitted once on every row of the token table. Hover a point for its piece. Marked on top, "
            "each in its own shape: your sentence's pieces (squares, in the text colour), pieces matching "
            "the highlight pattern (diamonds) and the latest search on the Neighbours page (crosses); "
            "the legend names each."
        )

with positions_tab:
    basis, coords = state.position_pca()
    with state.friendly_errors(stop=False):
        axes = projection.check_components(basis, *wanted)
        widgets.chart(maps.position_path(coords, axes, basis.explained_variance_ratio), key="pca_positions")
        export_map("positions", coords, axes, corner="position")
        st.caption(
            "Each dot is the learned row of one position, coloured from first (dark) to last (yellow); the "
            "grey line joins consecutive positions. Whatever shape the path takes was learned from data: "
            "BERT's positions are a table of rows, not a formula."
        )

with journey_tab:
    if encoding is None:
        st.info("Type a sentence in the sidebar to see its journey.", icon=":material/edit:")
    else:
        choice = st.radio(
            "Project onto", settings.JOURNEY_BASES, horizontal=True, key=settings.PCA_JOURNEY_BASIS
        )
        stages = decompose.stage_vectors(state.breakdown(model, encoding))
        if choice == settings.JOURNEY_BASES[0]:
            basis, _ = state.vocabulary_pca()
            st.caption(
                "The vocabulary's components show where your sentence sits among all pieces. Adding the "
                "position and segment rows, and above all LayerNorm's rescaling, carries the vectors far "
                "from the token rows they started as."
            )
        else:
            basis = projection.fit(np.concatenate(list(stages.values())))
            st.caption(
                "Components fitted on this sentence's own stage vectors spread them out as much as "
                "possible: the picture shows how the stages differ from each other, not where they sit "
                "in the vocabulary, so it looks quite different."
            )
        with state.friendly_errors(stop=False):
            axes = projection.check_components(basis, *wanted)
            stage_coords = [(name, projection.project(basis, vectors)) for name, vectors in stages.items()]
            widgets.chart(
                maps.sentence_journey(stage_coords, encoding.labels, axes, basis.explained_variance_ratio),
                key="pca_journey",
            )
            export_map(
                "sentence journey",
                np.concatenate([c for _, c in stage_coords]),
                axes,
                [f"{stage} | {label}" for stage, _ in stage_coords for label in encoding.labels],
                "stage | token",
            )
