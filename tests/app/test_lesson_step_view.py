"""A lesson step always opens with its own view, even when the browser's request, carrying the last
page's widget values, is folded into the step's page switch."""

from __future__ import annotations

from dataclasses import replace

import pytest
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner_utils import script_requests

from bert_embeddings.views import settings
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
    assert not at.exception
    assert lesson_fields(at)[player.PLAYING].step == 4
    assert at.session_state[settings.GEOMETRY] == "raw"
    assert at.title and "Your own axes" in " ".join(t.value for t in at.title), [t.value for t in at.title]
    assert not any(b.label == "Back to this step's view" for b in at.button)
