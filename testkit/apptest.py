"""What the AppTest tests share: the app opened headless (Streamlit's AppTest), a page with its
sidebar inputs, a link, a room's leader and follower; and how to read what a page shows (its
messages as a person reads them, its Plotly figures, a trace's numbers, a downloaded CSV).

Kept here rather than in one test file, so that no test file imports another."""

from __future__ import annotations

import base64
import csv
import io
import re

import numpy as np
from streamlit.testing.v1 import AppTest

from bert_embeddings.views import pages as registry
from testkit.browser import ROOT

APP = ROOT / "app.py"
# Every page's file, in the navigation's order, and those that read the sidebar's sentences (the
# others have inputs of their own): from the one table of pages.
PAGES = [page.file for page in registry.PAGES]
SENTENCE_PAGES = [page.file for page in registry.PAGES if page.sentences]


def shown(markdown: str) -> str:
    """A message as a person reads it: the app writes echoed input as escaped Markdown (a
    backslash before punctuation, an invisible word joiner after ':', '.' and '@')."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")


def messages(at: AppTest) -> str:
    return " ".join(shown(m.value) for m in [*at.error, *at.warning, *at.info])


def run_page(page: str, **inputs) -> AppTest:
    """Open app.py, set sidebar inputs (by widget key), then switch to ``page``."""
    from bert_embeddings.figures import settings

    at = AppTest.from_file(str(APP), default_timeout=120).run()
    if "model" in inputs:
        at.selectbox(key=settings.MODEL_KEY).set_value(settings.OTHER).run()
        at.text_input(key=settings.CUSTOM_MODEL_KEY).set_value(inputs["model"]).run()
    for key, name in ((settings.SENTENCE_A_KEY, "a"), (settings.SENTENCE_B_KEY, "b")):
        if name in inputs:
            at.text_area(key=key).set_value(inputs[name]).run()
    if "special" in inputs:
        at.toggle(key=settings.SPECIAL_TOKENS_KEY).set_value(inputs["special"]).run()
    return at.switch_page(page).run()


def open_link(params: dict, page: str) -> AppTest:
    """A new session opening a link: the query parameters, then the page (AppTest's first run
    always lands on the default page, whose run reads the link)."""
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params.update(params)
    at.run()
    return at.switch_page(page).run()


def user_key(element_id: str) -> str | None:
    """The key a page gave an element, from the element's id (Streamlit ends it with the key)."""
    found = re.fullmatch(r"\$\$ID-[0-9a-f]+-(.*)", element_id, re.DOTALL)
    return found.group(1) if found else None


def unfolded(at: AppTest) -> AppTest:
    """The page again with each of its folded parts that draws its content only once unfolded (an
    expander with a key) unfolded, as a handout prints them."""
    keys = [key for e in at.expander if (key := user_key(e.proto.id))]
    for key in keys:
        at.session_state[key] = True
    return at.run() if keys else at


def session(params: dict | None = None) -> AppTest:
    """A new session on the app's first page, with a link's parameters."""
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params.update(params or {})
    return at.run()


def _entry(at: AppTest, name: str) -> dict:
    return at.session_state[name] if name in at.session_state else {}


def room_fields(at: AppTest) -> dict:
    """A session's room fields (components/rooms/follow.py names them); empty before any."""
    from components.view_state import session_entries

    return _entry(at, session_entries.ROOM)


def lesson_fields(at: AppTest) -> dict:
    """A session's lesson fields (components/lessons/player.py names them); empty before any."""
    from components.view_state import session_entries

    return _entry(at, session_entries.LESSON)


def lead() -> tuple[AppTest, str]:
    """A session that leads a new workshop room, and the room's code."""
    from components.rooms import follow

    leader = session()
    leader.button(key="room_open").click().run()
    code, _token = room_fields(leader)[follow.LEAD]
    return leader, code


def page_title(at: AppTest) -> str:
    return at.title[0].value if at.title else ""


def figures(at: AppTest) -> list:
    """The page's charts as Plotly figures, each title and each panel's title as one line
    (figures wrap a long one for a phone's width: a test reads its words)."""
    import plotly.io

    found = [plotly.io.from_json(chart.proto.spec) for chart in at.get("plotly_chart")]
    for figure in found:
        for title in (figure.layout.title, *figure.layout.annotations):
            if title.text:
                title.text = title.text.replace("<br>", " ")
    return found


def array(value) -> np.ndarray:
    """A trace's data as numpy: Plotly sends numpy arrays as base64 typed arrays."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = [int(n) for n in shape.split(",")]
        return flat.reshape(shape) if shape else flat
    return np.asarray(value)


def read_csv(data: bytes) -> tuple[list[str], list[str], list[list[str]]]:
    """A downloaded CSV: its header, its row labels, and its cells."""
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    header, body = rows[0], rows[1:]
    return header, [r[0] for r in body], [r[1:] for r in body]


def page_with(page: str, **widgets_by_key) -> AppTest:
    """``page`` with some of its own widgets set (by key), one run after each."""
    at = run_page(page)
    for key, value in widgets_by_key.items():
        widget = next(w for w in at.main if getattr(w, "key", None) == key)
        widget.set_value(value).run()
    return at


def neighbours_page(**widgets_by_key) -> AppTest:
    return page_with("pages/neighbours.py", **widgets_by_key)


def select_row(at: AppTest, key: str, row: int, column: str | None = None) -> AppTest:
    """A click on row ``row`` of the table with ``key`` (an st.dataframe with on_select): on the
    row's box, or with ``column`` on that cell of it; then the run it causes. AppTest cannot
    click a table, so this sends what the browser sends: the table's selection as its widget
    state, beside every other widget's."""
    import json

    from streamlit.proto.WidgetStates_pb2 import WidgetState

    table = next((t for t in at.dataframe if t.key == key), None)
    assert table is not None, f"no table with key {key!r} that reports a selection"
    states = at._tree.get_widget_states()
    rows, cells = ([row], []) if column is None else ([], [[row, column]])
    selection = {"selection": {"rows": rows, "columns": [], "cells": cells}}
    states.widgets.append(WidgetState(id=table.proto.id, string_value=json.dumps(selection)))
    return at._run(states)


def every_file_builds(at: AppTest, downloads: dict) -> dict[str, bytes]:
    """Each figure on the page has its numbers as files (a matrix as .csv and .npy, a table as
    .csv), and each file reads back: the .npy and the CSV hold the same numbers."""
    from bert_embeddings.figures import export

    files = {name: make() for name, make in downloads.items() if name}
    assert files, "the page offers no download"
    stems = {name.rsplit(".", 1)[0] for name in files}
    # (every table comes with its file by construction: tests/test_architecture.py)
    assert len(stems) >= len(at.get("plotly_chart")), "a figure without its numbers"
    for stem in stems:
        csv_data = files.get(f"{stem}.csv")
        assert csv_data, f"{stem} has no CSV"
        header, labels, cells = read_csv(csv_data)
        assert labels and all(len(row) == len(header) - 1 for row in cells)
        if f"{stem}.npy" in files:  # a matrix, not a table: both files hold the same numbers
            values = np.load(io.BytesIO(files[f"{stem}.npy"]), allow_pickle=False)
            as_text = np.array(cells, dtype=np.float64).astype(values.dtype)
            assert np.array_equal(as_text, export.as_matrix(values)), stem
    return files


# A lesson, taken in a session (tests/app/test_lessons.py, test_answering.py).
TITLES = {  # each page's heading, by its address
    "concepts": "What is an embedding?",
    "tokens": "Tokens",
    "embedding_layer": "The embedding layer, stage by stage",
    "positions": "Positions: learned, not a formula",
    "segments": "Segments: sentence A or sentence B",
    "neighbours": "Nearest neighbours in the vocabulary",
    "maps": "Maps",
    "context": "Context: after the embedding layer",
}


def button(at: AppTest, label: str):
    """The button labelled ``label``."""
    return next(b for b in at.button if b.label == label)


def click(at: AppTest, label: str) -> AppTest:
    """Click the button, then go on from the page the run ended on, as a browser does (AppTest
    would rerun the page it last opened itself)."""
    button(at, label).click().run()
    shown = next((url for url, title in TITLES.items() if title == page_title(at)), None)
    if shown is not None:
        at.switch_page(registry.BY_URL[shown].file).run()
    return at


def bar_text(at: AppTest) -> str:
    """The Markdown the page shows, as one text."""
    return " ".join(m.value for m in at.markdown)


def started(name: str = "embeddings") -> AppTest:
    """A new session that starts the built-in lesson ``name`` from the first page."""
    from bert_embeddings.figures import settings

    at = session()
    at.switch_page("pages/concepts.py").run()
    at.selectbox(key=settings.LESSON_CHOICE).set_value(name).run()
    click(at, "Start the lesson")
    assert not at.exception, [e.message for e in at.exception]
    return at
