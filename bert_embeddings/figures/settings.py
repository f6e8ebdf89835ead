"""The table of every setting a person or a link can change.

Each row gives a setting's session key, its default, the page it belongs to and, for the
settings a shareable link carries (all but those in NOT_IN_VIEW), its name in the URL with the
parser that checks a link's text (raising ValueError with the reason) and the writer that
turns a value back into text. Each page declares its own rows as the fields of its ``Settings``
(bert_embeddings/views/fields.py), where the settings pages share are declared too; the sidebar's
own and the actions that are no view (NOT_IN_VIEW) are declared here.
Widgets take their keys and defaults from the table (``widgets.seeded``), and links, rooms,
lessons and handouts read and write through it (components/view_state/links.py).
"""

from __future__ import annotations

from bert_embeddings.analysis import axes, geometry, word_tests
from bert_embeddings.figures import (
    axes_page,
    compare_page,
    concepts_page,
    context_page,
    embedding_layer_page,
    geometry_page,
    maps_page,
    moved_page,
    neighbours_page,
    overview_page,
    positions_page,
    segments_page,
    tokens_page,
)
from bert_embeddings.views import fields
from bert_embeddings.views.fields import Setting

# Each page's module (figures/<page>_page.py: its Settings and compose), by page, in the
# navigation's order: the table takes each page's rows from it, and a handout its composer.
PAGE_MODULES = {
    page.Settings.PAGE: page
    for page in (
        concepts_page,
        overview_page,
        tokens_page,
        embedding_layer_page,
        positions_page,
        segments_page,
        neighbours_page,
        maps_page,
        axes_page,
        geometry_page,
        compare_page,
        moved_page,
        context_page,
    )
}

# --- keys --------------------------------------------------------------------------------

MODEL_KEY, CUSTOM_MODEL_KEY = "model_choice", "model_custom"
PRESENTER_KEY = "presenter"
ROOM_CODE, ROOM_PRESENTER_KEY = "room_code", "room_key"  # the sidebar's workshop room boxes
# The settings pages share are declared in bert_embeddings/views/fields.py; read here as everywhere.
SENTENCE_A_KEY, SENTENCE_B_KEY = fields.SENTENCE_A_KEY, fields.SENTENCE_B_KEY
SPECIAL_TOKENS_KEY = fields.SPECIAL_TOKENS_KEY
GEOMETRY, GEOMETRY_REMOVED, GEOMETRY_PAGES = fields.GEOMETRY, fields.GEOMETRY_REMOVED, fields.GEOMETRY_PAGES
GEOMETRIES = geometry.GEOMETRIES
# The Neighbours page's settings are declared with the page (bert_embeddings/figures/neighbours_page.py).
_NB = neighbours_page.Settings.key
NB_MODE, NB_WORD, NB_PIECE, NB_ID = _NB("mode"), _NB("word"), _NB("piece"), _NB("id")
NB_TOKEN, NB_STAGE, NB_EXPRESSION, NB_K = _NB("token"), _NB("stage"), _NB("expression"), _NB("k")
NB_GRID_STAGE = _NB("grid_stage")
NB_HIDE_CONTINUATION, NB_HIDE_SPECIAL, NB_LEAVE_OUT = (
    _NB("hide_continuation"),
    _NB("hide_special"),
    _NB("leave_out"),
)
NB_INCLUDE, NB_EXCLUDE = _NB("include"), _NB("exclude")
NB_NEXT = "nb_next"  # the neighbour pills: an action, not a view
_MAP = maps_page.Settings.key  # Maps declares its settings with its composer
PCA_DIMS, PCA_X, PCA_Y, PCA_Z = _MAP("dims"), _MAP("x"), _MAP("y"), _MAP("z")
PCA_KINDS, PCA_HIGHLIGHT, PCA_JOURNEY_BASIS = _MAP("kinds"), _MAP("highlight"), _MAP("basis")
MAP_METHOD, MAP_TAB = _MAP("method"), _MAP("tab")
MAP_COLOUR, MAP_LABELS = _MAP("colour"), _MAP("labels")
# The Embedding layer page declares its settings with its composer.
DIMENSIONS, LAYER_STAGE = (
    embedding_layer_page.Settings.key("dims"),
    embedding_layer_page.Settings.key("layer_stage"),
)
TOY_ITEMS = concepts_page.Settings.key("items")  # declared with its composer, as the next
LESSON_CHOICE = "lesson_choice"  # the first page's lesson offer
LESSON_ANSWER = "lesson_answer"  # the lesson bar's answer to a step's question
# Making a lesson (the sidebar): the lesson's title and summary, the step edited, its title and text.
LESSON_EDIT_NAME, LESSON_EDIT_SUMMARY = "lesson_edit_name", "lesson_edit_summary"
LESSON_EDIT_STEP, LESSON_EDIT_TITLE, LESSON_EDIT_TEXT = (
    "lesson_edit_step",
    "lesson_edit_title",
    "lesson_edit_text",
)
LESSON_MAKING = (LESSON_EDIT_NAME, LESSON_EDIT_SUMMARY, LESSON_EDIT_STEP, LESSON_EDIT_TITLE, LESSON_EDIT_TEXT)
_POS = positions_page.Settings.key
POS_FIRST, POS_SECOND, POS_SPAN = _POS("first"), _POS("second"), _POS("span")
_CTX = context_page.Settings.key  # the Context page declares its settings with its composer
CTX_FIRST, CTX_SECOND, CTX_WORD, CTX_LAYER = _CTX("first"), _CTX("second"), _CTX("word"), _CTX("layer")
_CMP = compare_page.Settings.key  # Compare models declares its settings with its composer
CMP_MODEL, CMP_CUSTOM, CMP_WORD, CMP_K = _CMP("model"), _CMP("custom"), _CMP("word"), _CMP("k")
_MV = moved_page.Settings.key  # What moved declares its settings with its composer
MV_MODEL, MV_CUSTOM, MV_STAGE_A, MV_STAGE_B = _MV("model"), _MV("custom"), _MV("stage_a"), _MV("stage_b")
MV_K, MV_PIECE, MV_STEP = _MV("k"), _MV("piece"), _MV("step")
MV_HIDE_CONTINUATION, MV_HIDE_SPECIAL = _MV("hide_continuation"), _MV("hide_special")
MV_LEAVE_OUT, MV_INCLUDE, MV_EXCLUDE = _MV("leave_out"), _MV("include"), _MV("exclude")
MV_NEXT = "mv_next"  # the neighbour pills: an action, not a view
MV_STEPS = moved_page.STEPS
# The second model named by a Hub id (offered only where the host allows any model): per page.
OTHER_MODEL_FIELDS = {"compare": (CMP_MODEL, CMP_CUSTOM), "moved": (MV_MODEL, MV_CUSTOM)}
_AX = axes_page.Settings.key  # Your own axes declares its settings with its composer
AX_ENDS = {name: (_AX(f"{name}_from"), _AX(f"{name}_to")) for name in axes.NAMES}
AX_WORDS, AX_STAGE, AX_TAB = _AX("words"), _AX("stage"), _AX("tab")
AX_WEAT = {group: _AX(f"weat_{group.lower()}") for group in word_tests.WEAT_GROUPS}  # WEAT's four groups
AX_WEAT_CLASSIC = "ax_weat_classic"  # an action: fills the four groups with a classic test
AX_HIDE_CONTINUATION, AX_HIDE_SPECIAL = _AX("hide_continuation"), _AX("hide_special")
AX_LEAVE_OUT, AX_INCLUDE, AX_EXCLUDE = _AX("leave_out"), _AX("include"), _AX("exclude")

# --- choices -----------------------------------------------------------------------------

OTHER = "__other__"  # the model picker's "any Hub id or folder" option
SAME = moved_page.SAME
QUERY_MODES = neighbours_page.QUERY_MODES
JOURNEY_BASES = maps_page.BASES
MAP_DIMS, MAP_METHODS, MAP_TABS = maps_page.DIMS, maps_page.METHODS, maps_page.TABS
AX_TABS = axes_page.TABS
MAP_COLOURS = maps_page.COLOURS  # what colours the t-SNE map's points
LAYER_STAGES = embedding_layer_page.STAGES
# How many positions the Positions page's cosine maps show, from position 0 (None: every one).
POS_SPANS = positions_page.SPANS
NO_SENTENCE = axes_page.NO_SENTENCE

TABLE = (
    Setting(MODEL_KEY, None, None),  # the first listed model; a link's "model" is read apart
    Setting(CUSTOM_MODEL_KEY, "", None),
    # An empty sentence A is a view like any other (the pages say what is missing), so a link
    # may hold it: the address bar shows ?a= after A is cleared, and reopening it must work.
    *fields.SHARED,
    Setting(PRESENTER_KEY, False, None),  # see NOT_IN_VIEW for why these three are never in a link
    Setting(ROOM_CODE, "", None),
    Setting(ROOM_PRESENTER_KEY, "", None),
    # Each page's own settings, declared with its composer.
    *(row for page in PAGE_MODULES.values() for row in page.Settings.rows()),
    Setting(NB_NEXT, None, "neighbours"),  # an action, not a view: see NOT_IN_VIEW
    *fields.GEOMETRY_SHARED,
    Setting(LESSON_CHOICE, None, "concepts"),  # an action: see NOT_IN_VIEW
    Setting(LESSON_ANSWER, None, None),  # the lesson bar's: see NOT_IN_VIEW
    *(Setting(key, None, None) for key in LESSON_MAKING),  # the sidebar's: see NOT_IN_VIEW
    Setting(MV_NEXT, None, "moved"),  # an action, not a view: see NOT_IN_VIEW
    Setting(AX_WEAT_CLASSIC, None, "axes"),  # an action, not a view: see NOT_IN_VIEW
)
# The settings that are not part of what a page shows, so that no link or room carries them
# (each with its reason). Every other setting has a name in links (an architecture test checks).
NOT_IN_VIEW = (
    MODEL_KEY,  # carried apart, as "model": the picker and the free field make one choice
    CUSTOM_MODEL_KEY,  # carried apart, as "model" (a Hub id; never a folder on the server)
    PRESENTER_KEY,  # presenter mode: attendees who open a presenter's link should not inherit big text
    ROOM_CODE,  # the room is joined, not shown: a link joins one with ?follow=CODE instead
    ROOM_PRESENTER_KEY,  # a secret: never in a link or a room
    NB_NEXT,  # an action: a click on a neighbour makes it the word query (which links carry), then clears
    MV_NEXT,  # an action: a click on a neighbour shows it side by side (which links carry), then clears
    AX_WEAT_CLASSIC,  # an action: a classic test fills WEAT's four groups (which links carry), then clears
    LESSON_CHOICE,  # an action: the lesson to start (a link names one with ?lesson=NAME instead)
    LESSON_ANSWER,  # a learner's own answer to a question, never carried to anyone else
    *LESSON_MAKING,  # a lesson being made: its file is how it travels (a room carries a lesson played)
)
BY_KEY = {s.key: s for s in TABLE}
# Each linked setting as people read it on its page, for sentences such as "k (...)".
LABELS = {s.key: s.label for s in TABLE if s.label}
LINKED = tuple(s for s in TABLE if s.url is not None)
DEFAULTS = {s.key: s.default for s in TABLE if s.default is not None}


def default(key: str) -> object:
    """A setting's default (a fresh copy of a list, which its widget's state may become)."""
    value = BY_KEY[key].default
    return list(value) if isinstance(value, list) else value
