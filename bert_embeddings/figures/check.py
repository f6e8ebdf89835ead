"""A view given as link parameters, read as a link is read: which page, and for each setting
whether the page has it and whether its reader takes the value. A lesson's step is checked so
when the lesson is loaded (every problem named, nothing half-loaded); the app applies a view the
same way a link is applied.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bert_embeddings.figures import settings
from bert_embeddings.models import checkpoints
from bert_embeddings.views import pages

PAGE, MODEL = "page", "model"  # a view's page (its address) and model: not rows of the table


@dataclass(frozen=True)
class Problem:
    name: str  # the parameter (``page`` for the page itself)
    reason: str


def check_view(view: Mapping[str, object]) -> list[Problem]:
    """Every part of ``view`` (``page`` and link parameters, as text) the app could not use: an
    unknown page, a parameter its page does not have, or a value its reader refuses; [] when all
    of it holds. An old page address (``pca``) is read as today's (``maps``)."""
    problems = []
    page = view.get(PAGE)
    if not isinstance(page, str) or pages.current(page) not in pages.BY_URL:
        known = ", ".join(p.url for p in pages.PAGES)
        return [Problem(PAGE, f"{str(page)[:40]!r} is not a page of the explorer (its pages: {known})")]
    page = pages.current(page)
    by_url = {s.url: s for s in settings.LINKED}
    for name, value in view.items():
        if name == PAGE:
            continue
        if not isinstance(value, str):
            problems.append(Problem(name, f"a view's values are text, not {type(value).__name__}"))
            continue
        if name == MODEL:
            if not (checkpoints.is_hub_id(value) or value in checkpoints.listed_specs()):
                problems.append(Problem(name, "a listed model or a Hugging Face Hub id, never a folder"))
            continue
        setting = by_url.get(name)
        if setting is None:
            problems.append(
                Problem(name, f"not a setting of the explorer's links ({page} has none of that name)")
            )
            continue
        if not setting.on(page):
            problems.append(Problem(name, f"the {page} page has no such setting"))
            continue
        try:
            setting.read(value)
        except ValueError as reason:
            problems.append(Problem(name, f"{value[:60]!r} cannot be used: {str(reason).rstrip('.')}"))
    return problems


def values(view: Mapping[str, object]) -> dict[str, object]:
    """The value of every setting of the view's page (its own and the sidebar's sentences), by
    setting key, as a new session opening the view as a link has them: what the view names, read
    by its reader, and the table's default for the rest (None where the page works it out from
    the model or the sentence). A view stands alone here: nothing is kept from another. A value
    its reader refuses takes the default, as a link's does (check_view names it)."""
    page = pages.current(str(view.get(PAGE, "")))
    found = {}
    for setting in settings.LINKED:
        if not setting.on(page):
            continue
        value, text = settings.default(setting.key), view.get(setting.url)
        if isinstance(text, str):
            try:
                value = setting.read(text)
            except ValueError:
                pass
        found[setting.key] = value
    return found
