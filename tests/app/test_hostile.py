"""Every input of every page, and every link parameter, against what a hostile stranger types.

For each text box, number box and link parameter: catastrophic patterns, 200 KB strings,
Markdown, HTML and LaTeX payloads, paths, over-long ids, huge and tiny floats and control
characters. Each must leave the page without an exception, with a message where the value
cannot be used, with the value shown only as plain text (no live link, no HTML, no LaTeX),
with no figure over a few MB, and the next normal action must work.
"""

from __future__ import annotations

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings import limits
from bert_embeddings.analysis import cosine
from bert_embeddings.figures import settings
from testkit.apptest import ROOT, messages, unfolded

CATASTROPHIC = ("((.*)*)*!", "(.*){1,20}!", r"(\w|\w)*!")
MARKUP = (
    "[Sign in again](https://evil.example)",
    '<a href="https://evil.example/">click</a>',
    r"$\frac{a}{b}$ :red[alarm] **bold**",
)
CONTROL = "tab\there\x00nul\x1b\u202eevil\u200b"
HUGE_TEXT = "x" * 200_000
PATHS = ("tests", "README.md", "/etc", "../../etc", "~/x", "/" + "a" * 290, "b" * 400)
NUMBERS = (1e308, -1e308, 1e-320, 1.5, 1e3)
# Bytes one figure may take on its way to the browser.
FIGURE_BUDGET = 4_000_000

pytestmark = pytest.mark.usefixtures("offline")  # the default model resolves offline at once


def assert_plain_and_small(at: AppTest) -> None:
    """No exception; echoed values never live Markdown or HTML; every figure within budget."""
    assert not at.exception, [e.value for e in at.exception]
    for element in [*at.error, *at.warning, *at.info, *at.caption, *at.markdown, *at.success]:
        text = element.value
        # Escaped text puts a backslash before '<' and '$', and a word joiner inside URLs.
        assert "https://evil" not in text and not re.search(r"(?<!\\)(<a |\$\\frac)", text), text
    for chart in at.get("plotly_chart"):
        spec = chart.proto.spec
        assert len(spec) <= FIGURE_BUDGET, len(spec)
        assert "<a href" not in spec and "$\\\\frac" not in spec
        json.loads(spec)  # well-formed


def text_cases(pattern: bool = False, model: bool = False) -> list[str]:
    cases = [*MARKUP, CONTROL, HUGE_TEXT]
    if pattern:
        cases += list(CATASTROPHIC)
    if model:
        cases += list(PATHS)
    return cases


def widget(at: AppTest, key: str):
    return next(w for w in [*at.main, *at.sidebar] if getattr(w, "key", None) == key)


# (page, widget key, hostile values, a normal value, what the normal value must show)
TEXT_INPUTS = [
    ("pages/tokens.py", settings.SENTENCE_A_KEY, text_cases(), "Hello world", None),
    ("pages/embedding_layer.py", settings.SENTENCE_B_KEY, text_cases(), "A second one.", None),
    ("pages/neighbours.py", settings.NB_WORD, text_cases(pattern=True), "king", "queen"),
    ("pages/neighbours.py", settings.NB_INCLUDE, text_cases(pattern=True), "^q", "queen"),
    ("pages/neighbours.py", settings.NB_EXCLUDE, text_cases(pattern=True), "x", "queen"),
    ("pages/maps.py", settings.PCA_HIGHLIGHT, text_cases(pattern=True), "^king$", None),
    ("pages/concepts.py", "toy_items", text_cases(), "item, a, b, c\ncat, 1, 2, 3", None),
    ("pages/compare.py", "cmp_word", text_cases(pattern=True), "bank", None),
    ("pages/context.py", "ctx_first", text_cases(), "He sat on the bank.", None),
    ("pages/context.py", "ctx_word", text_cases(), "bank", None),
    ("pages/axes.py", settings.AX_ENDS["x"][1], text_cases(pattern=True), "she, her, woman", "woman"),
    ("pages/axes.py", settings.AX_ENDS["z"][0], text_cases(), "", None),
    ("pages/axes.py", settings.AX_WORDS, text_cases(pattern=True), "king, queen", "queen"),
    ("pages/axes.py", settings.AX_EXCLUDE, text_cases(pattern=True), "x", None),
]


@pytest.mark.slow("every hostile text in each box, on its page")
@pytest.mark.parametrize(("page", "key", "values", "normal", "expect"), TEXT_INPUTS)
def test_hostile_text_in_every_box(page, key, values, normal, expect):
    """Each hostile text gets a message or is shown as plain text; then a normal value works."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(page).run()
    for value in values:
        widget(at, key).set_value(value).run()
        assert_plain_and_small(at)
        if value == HUGE_TEXT:  # over every text limit: refused, with a message
            assert at.error or at.warning, (key, value[:40])
        widget(at, key).set_value(normal).run()
        assert_plain_and_small(at)
        assert not at.error, (key, value[:40], [e.value for e in at.error])
        if expect:
            assert expect in " ".join(c.proto.spec for c in at.get("plotly_chart"))


def test_a_huge_sentence_names_the_limit():
    """A 200 KB paste into sentence A is refused with the limit named, not dropped silently."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/tokens.py").run()
    at.text_area(key=settings.SENTENCE_A_KEY).set_value(HUGE_TEXT).run()
    assert f"has 200,000 characters; the explorer accepts at most {limits.SENTENCE.most:,}" in messages(at)


def test_no_text_box_drops_a_long_paste_silently():
    """No box has a cap of its own (Streamlit's box drops a longer paste without a word): every
    over-long text reaches the server, which names the limit."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    for page in (
        "pages/concepts.py",
        "pages/neighbours.py",
        "pages/compare.py",
        "pages/maps.py",
        "pages/axes.py",
    ):
        at.switch_page(page).run()
        boxes = [*at.text_area, *at.text_input]
        assert boxes and all(not box.max_chars for box in boxes), page


@pytest.mark.parametrize("value", [*text_cases(model=True), "someone/" + "m" * 250])
def test_hostile_model_names_in_the_free_field(value):
    """Paths, over-long ids and markup in the model field: a message, and the app goes on."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/tokens.py").run()
    at.selectbox(key=settings.MODEL_KEY).set_value(settings.OTHER).run()
    at.text_input(key=settings.CUSTOM_MODEL_KEY).set_value(value).run()
    assert_plain_and_small(at)
    assert "File name too long" not in messages(at)
    at.selectbox(key=settings.MODEL_KEY).set_value("bundled").run()
    assert_plain_and_small(at)
    assert not at.error and len(unfolded(at).dataframe) == 1


@pytest.mark.parametrize(
    ("page", "key"),
    [
        ("pages/neighbours.py", settings.NB_K),
        ("pages/maps.py", settings.PCA_X),
        ("pages/positions.py", "pos_first"),
        ("pages/compare.py", "cmp_k"),
    ],
)
def test_hostile_numbers_in_every_number_box(page, key):
    """Huge, tiny and fractional numbers get a message naming the range; nothing is cut silently."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(page).run()
    normal = widget(at, key).value
    for value in NUMBERS:
        widget(at, key).set_value(value).run()
        assert_plain_and_small(at)
        if not (value == 1e3 and key == "pos_first"):  # position 1000 is outside 0-511 too
            assert at.error, (key, value)
        widget(at, key).set_value(normal).run()
        assert not at.error and not at.exception


def test_a_token_id_typed_as_1e3_is_1000_and_1_5_is_refused():
    """1e3 means id 1000; 1.5 is not a whole number and says so (neither becomes 1)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/neighbours.py").run()
    widget(at, settings.NB_MODE).set_value("token id").run()
    widget(at, settings.NB_ID).set_value(1e3).run()
    assert "id 1000" in at.get("plotly_chart")[0].proto.spec
    widget(at, settings.NB_ID).set_value(1.5).run()
    assert "must be a whole number" in messages(at)


# Every link parameter (and the model) against hostile values: opened as a first visit. Each kind of
# markup, and each catastrophic pattern, in one value (every box gets them one by one above).
LINK_VALUES = [" ".join(MARKUP), "".join(CATASTROPHIC), CONTROL, "1e3", "1.5", "9" * 5000, "x" * 20_000]
# Values that pass a parameter's check but lie beyond what the model or the word has.
BEYOND = {
    "dims": ("0-99999", "99999-99999"),
    "layer": ("999",),
    "piece": ("100",),
    "p1": ("9" * 18,),
    "d": ("0", "21", "-3", "2.5"),
}


@pytest.mark.slow("every hostile value of every link name, on its page")
@pytest.mark.parametrize(
    "name",
    [
        *("model", "a", "b", "q", "sum", "id", "k", "only", "not"),
        *("highlight", "x", "tab", "method", "x_from", "words", "ax_not"),
        *("basis", "grid", "items", "s1", "word", "cmp_word", "cmp_k"),
        *("piece", "kinds", "dims", "p1", "p2", "layer", "cmp", "cmp_id"),
        *("geometry", "d", "sim", "origin"),
    ],
)
def test_hostile_link_values(name):
    """A hostile link value is refused with a plain-text notice or shown as plain text."""
    pages = {
        **dict.fromkeys(("highlight", "x", "tab", "method", "basis", "kinds"), "pages/maps.py"),
        **dict.fromkeys(("x_from", "words", "ax_not", "origin"), "pages/axes.py"),
        **dict.fromkeys(("geometry", "d"), "pages/geometry.py"),
        **dict.fromkeys(("s1", "word", "layer"), "pages/context.py"),
        **dict.fromkeys(("cmp_word", "cmp_k", "cmp", "cmp_id"), "pages/compare.py"),
        **dict.fromkeys(("p1", "p2"), "pages/positions.py"),
        "items": "pages/concepts.py",
        "dims": "pages/embedding_layer.py",
    }
    page = pages.get(name, "pages/neighbours.py")
    models = name in ("model", "cmp", "cmp_id")
    for value in [*LINK_VALUES, *(PATHS if models else ()), *BEYOND.get(name, ())]:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        at.query_params.update(
            {name: value, "mode": "id" if name == "id" else "sum" if name == "sum" else "word"}
        )
        at.run()
        assert_plain_and_small(at)
        at.switch_page(page).run()
        assert_plain_and_small(at)
        if models:  # a link never opens a folder, and a path gets the same answer as any name
            assert "config.json" not in messages(at) and "no folder" not in messages(at)
        at.text_area(key=settings.SENTENCE_A_KEY).set_value("A normal sentence.").run()
        assert not at.exception


def test_link_notice_shows_a_markdown_link_as_text():
    """/neighbours?k=[Sign in again](https://evil.example): the notice holds no live link."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"k": MARKUP[0]})
    at.run()
    notice = next(w.value for w in at.warning if "could not be used" in w.value)
    assert "https\\:\u2060\\/\\/evil" in notice and "\\[Sign in again\\]" in notice


# --- the core behind the pages ----------------------------------------------------------------


@pytest.mark.parametrize("pattern", [r"^un", r"\d", r"ing$", r"^##", r"(?i)^K", r"[aeiou]{3}", r"é|ü", "."])
def test_re2_finds_what_python_re_finds_on_ordinary_patterns(bundled, pattern):
    """On patterns both engines accept, the linear-time engine matches exactly the same pieces."""
    from bert_embeddings.analysis import patterns

    pieces = list(bundled.tokenizer.get_vocab())
    reference = re.compile(pattern)
    assert patterns.matches(pattern, pieces) == [reference.search(p) is not None for p in pieces]


@pytest.mark.parametrize("pattern", [r"(a)\1", r"(?=a)b", r"(?<=a)b", "(", "a{1001}", "x" * 201])
def test_patterns_re2_refuses_get_a_message(pattern):
    from bert_embeddings.analysis import patterns
    from bert_embeddings.errors import ExplorerError

    with pytest.raises(ExplorerError, match="cannot be used|at most 200"):
        patterns.compile_pattern(pattern)


def test_concepts_cosine_is_right_for_huge_and_tiny_values():
    """1e308 and 1e-320 rows point the same way as (1, 1, 1): cosine 1, not 0 or NaN; and the
    toy space refuses numbers its picture cannot show, with a message naming the line."""
    import numpy as np

    from bert_embeddings.analysis import concepts
    from bert_embeddings.errors import ToySpaceError

    rows = np.array([[1e308, 1e308, 1e308], [1, 1, 1], [1e-320, 1e-320, 1e-320]])
    assert np.allclose(cosine.matrix(rows), 1.0, atol=1e-6)
    opposite = np.array([[1e308, 0, 0], [-1e308, 0, 0]])
    assert np.allclose(cosine.matrix(opposite), [[1, -1], [-1, 1]], atol=1e-6)
    for value in ("1e308", "1e-320", "-2e6"):
        with pytest.raises(ToySpaceError, match=r"Line 2 \(big\)"):
            concepts.parse(f"item, a, b, c\nbig, {value}, 1, 1\ncat, 1, 1, 1")


def test_concepts_refuses_too_many_items_before_any_work():
    from bert_embeddings.analysis import concepts
    from bert_embeddings.errors import InputTooLongError

    many = "item, a, b, c\n" + "\n".join(f"i{n}, 1, 2, 3" for n in range(limits.TOY_ITEMS.most + 1))
    with pytest.raises(InputTooLongError, match=f"at most {limits.TOY_ITEMS.most}"):
        concepts.parse(many)


def test_context_says_when_the_word_was_cut_off():
    """A word placed after the model's last position: the message says it was cut off."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/context.py").run()
    at.text_input(key="ctx_first").set_value("word " * 1_000 + "bank").run()
    assert "cut off" in messages(at) and "pieces were dropped" in messages(at)
    assert not at.exception


def test_docs_list_every_limit():
    """docs/configuration.md's Limits section shows each limit of bert_embeddings.limits, with
    its number."""
    docs = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    section = docs.split("\n## Limits\n", 1)[1].split("\n## ", 1)[0]
    for limit in limits.ALL:
        assert f"| {limit.what} | {limit.most:,} {limit.unit} |" in section, limit.what


def test_many_model_names_cannot_push_the_workshops_model_out(monkeypatch, tiny_bert_dir):
    """A stranger who tries name after name never makes the server load a model, so never
    evicts the one everyone else is using (the cache holds two): a name the app does not list
    that cannot be fetched gets a message, and the page goes on with the default model."""
    from components.caches import store

    monkeypatch.setenv("BERT_EXPLORER_MODEL", str(tiny_bert_dir))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/tokens.py").run()
    workshop = store.model(str(tiny_bert_dir), "main").tables.word_embeddings
    for name in ("tests", "README.md", "someone/x", "someone/y", "someone/z"):
        stranger = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
        stranger.query_params.update({"model": name})
        stranger.run()
        stranger.switch_page("pages/tokens.py").run()
        assert not stranger.exception and "cannot be asked for it" in messages(stranger)
        assert "the app's default model" in messages(stranger)
    assert store.model(str(tiny_bert_dir), "main").tables.word_embeddings is workshop


def test_a_pattern_is_scanned_once_per_model_not_on_every_run(monkeypatch):
    """The Neighbours search and its grid, and every rerun after, share one scan of the
    vocabulary per pattern (an RE2 scan takes about 40 ms); the results are the direct scan's."""
    from bert_embeddings.analysis import vocab_search

    scans = []
    direct = vocab_search.matching_rows

    def counted(index, pattern, label="The pattern"):
        scans.append(pattern)
        return direct(index, pattern, label)

    monkeypatch.setattr(vocab_search, "matching_rows", counted)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/neighbours.py").run()
    pattern = "^qu[a-z]*n"  # used by no other test, so the cache starts without it
    widget(at, settings.NB_INCLUDE).set_value(pattern).run()
    at.run()
    at.run()
    assert scans.count(pattern) == 1, scans
    table = next(d for d in at.dataframe if "rank" in d.value.columns).value
    assert table["piece"].str.match(pattern).all()
    assert not at.exception and not at.error
