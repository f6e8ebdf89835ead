"""A page's settings declared once, as the fields of its frozen dataclass: the app's table of
settings gets a row for each, and a view, a session or a handout reads them all with one call."""

from __future__ import annotations

import dataclasses

import pytest

from bert_embeddings.figures import check, neighbours_page, settings
from bert_embeddings.views import fields

TYPED = tuple(page.Settings for page in settings.PAGE_MODULES.values() if page.Settings.rows())


@pytest.mark.parametrize("kind", TYPED, ids=lambda kind: kind.PAGE)
def test_each_field_is_one_row_of_the_table_under_its_pages_key(kind):
    own = kind.rows()
    assert own and all(row.key == kind.PREFIX + row.key.removeprefix(kind.PREFIX) for row in own)
    for row in own:
        assert settings.BY_KEY[row.key] == row
        assert row.page == kind.PAGE and row.url and row.label and row.read is not None
        assert settings.default(row.key) == getattr(kind(), row.key.removeprefix(kind.PREFIX))
    # the shared fields point to the shared rows, which the table holds once
    shared = [f.name for f in dataclasses.fields(kind) if kind.key(f.name) not in {r.key for r in own}]
    assert {kind.key(name) for name in shared} <= {
        row.key for row in (*fields.SHARED, *fields.GEOMETRY_SHARED)
    }
    assert len(settings.TABLE) == len(settings.BY_KEY)  # no key declared twice


def test_every_page_of_the_navigation_is_whole_in_its_module_with_its_settings():
    from bert_embeddings.views import pages

    assert list(settings.PAGE_MODULES) == [page.url for page in pages.PAGES]
    for page, module in settings.PAGE_MODULES.items():
        assert module.Settings.PAGE == page and callable(module.compose)


def test_every_setting_a_link_carries_for_one_page_is_a_field_of_that_page():
    """No page's setting is declared as a row of the table by hand: each is its page's field."""
    for row in settings.LINKED:
        if isinstance(row.page, str):
            own = {field.key for field in settings.PAGE_MODULES[row.page].Settings.rows()}
            assert row.key in own, row.url


def test_a_view_is_read_into_the_settings_as_a_link_is_read():
    view = {"page": "neighbours", "q": "river", "k": "7", "geometry": "centred", "only": "^r", "a": "A b."}
    read = neighbours_page.Settings.of(check.values(view))
    assert (read.word, read.k, read.geometry, read.include, read.sentence_a) == (
        "river",
        7.0,
        "centred",
        "^r",
        "A b.",
    )
    untouched = neighbours_page.Settings()
    assert (read.mode, read.hide_special, read.grid_stage) == (
        untouched.mode,
        untouched.hide_special,
        untouched.grid_stage,
    )
    # a value its reader refuses keeps the default, as a link's does
    assert neighbours_page.Settings.of(check.values({"page": "neighbours", "k": "1.5"})).k == untouched.k


def test_the_settings_are_read_by_session_key_and_given_back_so():
    state = {
        settings.NB_K: 25.0,
        settings.NB_MODE: "arithmetic",
        settings.GEOMETRY: "standardised",
        "other": 1,
    }
    read = neighbours_page.Settings.of(state)
    assert (read.k, read.mode, read.geometry) == (25.0, "arithmetic", "standardised")
    assert {key: read.values()[key] for key in state if key != "other"} == {
        key: value for key, value in state.items() if key != "other"
    }
    assert set(read.values()) == {neighbours_page.Settings.key(f.name) for f in dataclasses.fields(read)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        read.k = 3.0


def test_filters_follow_the_settings():
    chosen = neighbours_page.Settings(hide_continuation=True, leave_out=False, include="^a", exclude="b$")
    got = chosen.filters((1, 2))
    assert (got.hide_continuation, got.hide_special, got.include, got.exclude, got.exclude_ids) == (
        True,
        True,
        "^a",
        "b$",
        (),
    )
    assert neighbours_page.Settings().filters((1, 2)).exclude_ids == (1, 2)
