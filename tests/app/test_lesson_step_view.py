"""A lesson step always opens with its own view, even when the browser's request, carrying the last
page's widget values, is folded into the step's page switch or arrives after the step is drawn;
the browser's back button opens the step its address names."""

from __future__ import annotations

from dataclasses import replace

import pytest
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner_utils import script_requests

from bert_embeddings.figures import settings
from components.lessons import player
from testkit.apptest import button, lesson_fields, open_link

pytestmark = [pytest.mark.usefixtures("offline"), pytest.mark.slow("a lesson's two steps in AppTests")]


def _page_hash(url: str) -> str | None:
    """The page's hash, asked from the script's thread (None elsewhere)."""
    if (ctx := get_script_run_ctx(suppress_warning=True)) is None:
        return None
    return next(h for h, page in ctx.pages_manager.get_pages().items() if page["url_pathname"] == url)


def test_a_request_from_the_last_step_s_page_folded_into_the_switch_does_not_keep_its_view(monkeypatch):
    """Next from step 4 of "Why every BERT vector looks alike" (Geometry, all-but-the-top) to step
    5 (Your own axes, raw), while the browser sends a request from the Geometry page with its
    widgets' values (a job panel's poll, a second tap): Streamlit folds it into the page switch,
    and the run it makes is on Geometry with the geometry widget at abtt. The step's view is
    applied again there and the page switched again: step 5 shows Your own axes, raw."""
    at = open_link({"lesson": "alike", "step": "4"}, "pages/geometry.py")
    assert at.session_state[settings.GEOMETRY] == "all-but-the-top"
    assert lesson_fields(at)[player.PLAYING].step == 3
    stale = at._tree.get_widget_states()  # (the browser's values on step 4's page)
    request = script_requests.ScriptRequests.request_rerun
    folded = []

    def with_the_browser_s(self, data):
        asked = request(self, data)
        if not folded and data.widget_states is None and data.page_script_hash == _page_hash("axes"):
            folded.append(data)  # the switch to step 5's page, then the browser's own request
            request(self, replace(data, widget_states=stale, page_script_hash=_page_hash("geometry")))
        return asked

    monkeypatch.setattr(script_requests.ScriptRequests, "request_rerun", with_the_browser_s)
    button(at, "Next").click().run()
    assert folded, "the step's page switch was never asked for"
    _shows(at, 5, "Your own axes", "raw")


def _second_tap(monkeypatch, step: int, from_history: bool = False):
    """Next from ``step`` of "Why every BERT vector looks alike" (on Geometry); then a request sent
    from that step's view before the browser knew of the next arrives once the next is drawn: a
    second tap on Next (its click, the Geometry page and its widget values, its address at
    ``step``), or the browser's back button to that address (``from_history``)."""
    from components.frame import runs

    at = open_link({"lesson": "alike", "step": str(step)}, "pages/geometry.py")
    earlier = dict(at.query_params)
    assert earlier["step"] == str(step)
    before = at._tree.get_widget_states()
    button(at, "Next").click()
    stale = before if from_history else at._tree.get_widget_states()  # (a tap: with Next's click)
    at.run()
    assert lesson_fields(at)[player.PLAYING].step == step  # (numbered from 0: the next step)
    at.query_params = earlier
    at.switch_page("pages/geometry.py")
    monkeypatch.setattr(at._tree, "get_widget_states", lambda: stale)
    monkeypatch.setattr(runs, "from_the_history", lambda: from_history)
    return at.run()


def _titles(at) -> str:
    return " ".join(t.value for t in at.title)


def _shows(at, step: int, title: str, geometry: str) -> None:
    """``at`` shows ``step`` (from 1) on its page with its view, and no way back to it."""
    assert not at.exception
    assert lesson_fields(at)[player.PLAYING].step == step - 1
    assert title in _titles(at), _titles(at)
    assert at.session_state[settings.GEOMETRY] == geometry
    assert dict(at.query_params).get("step") == str(step)
    assert not any(b.label == "Back to this step's view" for b in at.button)


def test_a_second_tap_that_arrives_after_the_step_is_drawn_stays_on_the_step(monkeypatch):
    """Step 4 (Geometry, all-but-the-top) to step 5 (Your own axes, raw): the second tap's request
    names Geometry, and Streamlit runs it there, without its click (that page's buttons are
    gone). It is answered on step 5's own page with step 5's view."""
    _shows(_second_tap(monkeypatch, 4), 5, "Your own axes", "raw")


def test_a_second_tap_on_the_same_page_moves_one_step_not_two(monkeypatch):
    """Step 2 (Geometry, raw) to step 3 (Geometry, centred): the second tap's click reaches Next,
    drawn for step 3 by then; it moves nothing, and step 3 keeps its view over the raw geometry
    the request carries."""
    _shows(_second_tap(monkeypatch, 2), 3, "Geometry", "centred")


def test_the_browser_s_back_button_opens_the_step_of_its_address(monkeypatch):
    """The request from step 4's address by the browser's history (its back button) opens step 4,
    on Geometry in all-but-the-top."""
    _shows(_second_tap(monkeypatch, 4, from_history=True), 4, "Geometry", "all-but-the-top")


def test_streamlit_still_says_whether_the_history_asked_for_a_run():
    """components/frame/runs.from_the_history reads this field of Streamlit's run context."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    assert "is_history_navigation" in ScriptRunContext.__dataclass_fields__
