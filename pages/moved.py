"""What moved: two embedding spaces (two models, or two stages of one) compared over every piece
they share, exactly."""

import streamlit as st

from bert_embeddings import config
from bert_embeddings.figures import moved_page, moved_pieces, moved_whole, settings
from bert_embeddings.models import glyphs
from bert_embeddings.spaces import pair, stages
from components.caches import model_caches
from components.frame import routing
from components.parts import draw, echo, filters, job_panel, models, widgets
from components.sections import aligned_view, geometry_view, layers_view, space_view
from components.view_state import links

routing.through_app()
st.title("What moved")
st.markdown(
    "Two spaces, compared over the whole vocabulary: each piece's exact nearest neighbours in one and in "
    "the other, and how many it keeps. A space is a model's **token rows**, its **embedding output** (the "
    "piece alone), or an **encoder layer** (the piece as `[CLS] piece [SEP]`). Compare two stages of the "
    "sidebar's model, or the same stage of another model."
)

model_a = model_caches.require_model()
index_a = model_caches.vocab_index()
pick = st.columns(3)
with pick[0]:
    second = models.second_model("moved")
if second is None:
    st.stop()
model_b = second[0]
picked = []
for key, model, column, label in (
    (settings.MV_STAGE_A, model_a, pick[1], "First space"),
    (settings.MV_STAGE_B, model_b, pick[2], "Second space"),
):
    names = stages.stage_names(model)
    space_view.last_layer_named(key, names)
    links.keep_within(key, names, settings.default(key), label, name=lambda s: stages.stage_label(str(s)))
    picked.append(
        column.selectbox(
            f"{label}: stage of {model.name}",
            names,
            format_func=stages.stage_label,
            **widgets.seeded(key, None),
        )
    )
stage_a, stage_b = picked

shape = geometry_view.switch(index_a.table.shape[1])
k_box, _ = st.columns([1, 2])
widgets.whole_number_box(
    "Neighbours compared per piece (k)", k_box, **widgets.seeded(settings.MV_K), help="From 1 to 100."
)
chosen = widgets.chosen(moved_page.Settings)
sources = model_caches.sources()
# The second model's results come from the same caches (no second copy of it in memory).
other = sources if model_b is model_a else model_caches.sources_of(model_b.spec, config.revision())
with model_caches.friendly_errors():
    found = moved_page.compared(chosen, sources, other)
    shared = moved_page.shared_pieces(sources, other)
draw.shown(moved_page.shared_caption(shared))
if not isinstance(found, moved_pieces.Compared) and found.only_embeddings is not None:
    draw.shown(found.only_embeddings)
    st.stop()

sides = (
    space_view.Side(model_a, stage_a, pair.subset(shared, 0, model_a.vocab_size)),
    space_view.Side(model_b, stage_b, pair.subset(shared, 1, model_b.vocab_size)),
)
labels = moved_page.side_labels((model_a.name, model_b.name), (stage_a, stage_b))
layer_models = [s.model for s in sides if s.stage not in (stages.TOKEN, stages.OUTPUT)]
offer = job_panel.Offer(
    "Compute the neighbour lists",
    note="Each space's exact neighbour lists are computed once, in the background, and kept for everyone: "
    f"about half a minute for bert-base's 30,522 pieces ({len(shared.pieces):,} shared here), more for a "
    "layer the first time.",
    before=(lambda: st.info(echo.plain(space_view.layer_cost(layer_models[0])), icon=":material/memory:"))
    if layer_models
    else None,
)
with model_caches.friendly_errors():
    lists = job_panel.wait_for(
        "mv_compute",
        lambda start: [space_view.lists(side, shape, start) for side in sides],
        labels,
        offer,
        space_view.LISTS_NOTE,
    )
if lists is None:
    st.stop()
with model_caches.friendly_errors():
    if not isinstance(found, moved_pieces.Compared):  # its lists were made since it was composed
        found = moved_page.compared(chosen, sources, other)
k = found.result.k
described = geometry_view.described(shape)

st.header("The whole spaces")
whole = moved_whole.whole(found.result, len(shared.pieces))
for column, metric in zip(st.columns(len(whole.metrics)), whole.metrics, strict=True):
    with column:
        draw.shown(metric)
draw.shown(whole.k_note)
with st.expander("How each figure is computed"):
    st.markdown(
        f"For each shared piece *i*, N_A(i) and N_B(i) are its exact {k} nearest other shared pieces by "
        f"cosine in each space ({described} geometry, fitted to each space), summed in float64.\n\n"
        f"- **overlap@{k}(i)** = |N_A(i) ∩ N_B(i)| / {k}: the share of A's neighbours that B keeps.\n"
        "- **second-order similarity(i)** (Hamilton et al. 2016): with U = N_A(i) ∪ N_B(i), the cosine "
        "between (cos_A(i, u)) and (cos_B(i, u)) over u in U. It needs no alignment and works across "
        "widths.\n"
        "- **linear CKA** (Kornblith et al. 2019), X and Y the two tables with centred columns: "
        "‖XᵀY‖² / (‖XᵀX‖ ‖YᵀY‖), Frobenius norms; 1 when one is a rotation and scaling of the other.\n"
        "- **Procrustes residual** (equal widths only): X and Y centred and scaled to norm 1, "
        "min over rotations R and scales s of ‖X − sYR‖² = 1 − (sum of the singular values of XᵀY)²."
    )

st.header("The movers")
valid = filters.filter_boxes(moved_page.Settings.key, "Leave out pieces that keep every neighbour")
chosen = widgets.chosen(moved_page.Settings)
with model_caches.friendly_errors():
    order, problem = moved_pieces.ranked(found, chosen.filters(), chosen.leave_out, sources)
# (with a pattern that does not read, the boxes say what it lacks)
movers = moved_pieces.movers(found, order, problem if valid else None)
draw.shown(movers.problem, movers.caption)
draw.table(
    movers.table,
    on_select=lambda: space_view.mover_clicked(movers.table.columns["piece"][: moved_pieces.SHOWN]),
    selection_mode=["single-row", "single-cell"],  # a click on any cell of a row, or its box
)
draw.shown(moved_whole.files(found))

st.header("Side by side")
first = moved_page.first_of(order)
st.text_input(
    "Piece",
    **widgets.seeded(settings.MV_PIECE),
    placeholder=f"e.g. {glyphs.legible(shared.pieces[first])}",
)
with model_caches.friendly_errors():
    row, side = moved_page.side_of(found, widgets.chosen(moved_page.Settings).piece, sources, other, order)
draw.shown(side.problem, side.caption)
for column, each in zip(st.columns(2), side.sides, strict=False):
    with column:
        draw.shown(each)
if row is not None:
    space_view.next_piece_pills(side.sides[0].table, side.sides[1].table, k)

st.header("Aligned maps")
aligned_view.section(found, sources, other, first if row is None else row)

st.header("The whole picture")
left, right = st.columns(2)
picture = moved_whole.picture(found)
with left:
    draw.shown(picture.histogram, picture.histogram_download)
with right:
    draw.shown(picture.kinds, picture.kinds_download)
st.header("Through the layers")
layers_view.through_the_layers(found.shape, sources)

st.caption(
    "Is a difference real, or what any two trainings would show? Two models that differ only in their random "
    "seed answer that: list google/multiberts-seed_0 and google/multiberts-seed_1 (on the Hugging Face Hub) "
    "and compare their token rows here. No such baseline is shown unless it has been computed: this app "
    "never makes up a figure."
)
