"""The pages' own prose states a model's figures (its width, its tables' rows) for the model on
screen, as a lesson's figures do, never bert-base's as if they were that model's."""

from __future__ import annotations

import pytest

from bert_embeddings.figures import settings
from bert_embeddings.models import checkpoints
from testkit.apptest import run_page, session, shown

pytestmark = [
    pytest.mark.usefixtures("offline"),  # the default model resolves offline at once
    pytest.mark.slow("whole pages in AppTest, seconds each"),
]


def _prose(at) -> str:
    return " ".join(shown(m.value) for m in at.markdown)


def test_concepts_states_the_width_the_lesson_bar_states(bundled):
    """Step 1 of the built-in lesson on Concepts: the bar says "384 in all-MiniLM-L6-v2 (bundled)",
    and the page right under it says the same width, not bert-base's 768."""
    at = session({"lesson": "embeddings", "step": "1"})
    assert not at.exception
    said = f"{bundled.hidden_size:,} in {checkpoints.BUNDLED_NAME}"
    prose = _prose(at)
    assert prose.count(said) >= 2, prose  # the bar's text and the page's own
    assert "768" not in prose


def test_concepts_and_overview_state_another_models_figures(tiny_bert_dir, bundled):
    """With a small random checkpoint (24 wide, 40 positions), the pages say its figures."""
    at = run_page("pages/concepts.py", model=str(tiny_bert_dir))
    assert not at.exception and not at.error
    prose = _prose(at)
    assert "many more dimensions (24 in " in prose and "768" not in prose
    said = at.text_area(key=settings.SENTENCE_A_KEY).help  # 512 is bert-base's, and says so
    assert "first 512" not in said and "(bert-base: 512; the model in use: under the picker)" in said
    assert "40 positions" in " ".join(shown(c.value) for c in at.sidebar.caption)  # (the line it points to)
    at.switch_page("pages/overview.py").run()
    assert not at.exception and not at.error
    prose = _prose(at)
    assert "(40 rows in " in prose and "rows in bert-base" not in prose and "511" not in prose
    vocabulary = bundled.vocab_size  # the random model reads the bundled vocabulary
    assert f"({vocabulary:,} rows in " in prose


def test_concepts_waits_for_no_download_and_then_names_bert_base(monkeypatch):
    """The toy needs no model: where the model in use is still to be fetched from the Hub, the
    first page does not fetch it to state its width; it states bert-base's, and says so."""
    from bert_embeddings.models import checkpoints as models
    from components.caches import store

    def to_download(spec: str, revision: str) -> models.Resolution:
        return models.Resolution(spec, spec, hub_files=(("model.safetensors", 90_000_000),))

    monkeypatch.setattr(store, "resolution", to_download)
    monkeypatch.setattr(store, "open_model", lambda *_: pytest.fail("the first page fetched the model"))
    at = run_page("pages/concepts.py")
    assert not at.exception and not at.error
    assert "many more dimensions (768 in bert-base), which have no names" in _prose(at)
