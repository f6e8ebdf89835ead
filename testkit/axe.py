"""axe-core, the accessibility checker, run inside a page of the app in Chromium.

scripts/fetch-axe.sh puts the script from the npm registry into .venv/axe/ (make test runs
it); ``audit`` injects it into an open page and returns what WCAG 2.1 AA and axe's best
practices find there, on the whole page.

axe judges colour contrast only for what is on the screen: text below the viewport comes back
as "incomplete" (its background cannot be seen), not as a violation. Streamlit scrolls inside
its own container, so ``audit`` first makes the viewport as tall as the content, then puts it
back as it was.
"""

from __future__ import annotations

from pathlib import Path

from testkit.browser import content_height, fit_viewport_to_content

ROOT = Path(__file__).resolve().parent.parent
AXE_VERSION = "4.14.1"
AXE_SCRIPT = ROOT / ".venv" / "axe" / f"axe-core-{AXE_VERSION}.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
# The tallest page audited whole; a taller one is an error rather than a partial audit.
MAX_HEIGHT = 16_000


def audit(page) -> list[dict]:
    """Every violation on the whole page as axe reports it: id, impact, help and the nodes."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_SCRIPT))
    if (height := content_height(page)) > MAX_HEIGHT:
        raise ValueError(f"the page is {height} px tall; audit sees at most {MAX_HEIGHT} px of it")
    before = fit_viewport_to_content(page, MAX_HEIGHT)
    try:
        result = page.evaluate(
            "async (tags) => await axe.run(document,"
            " {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
            TAGS,
        )
    finally:
        page.set_viewport_size(before)
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [
                {"target": n["target"], "summary": n.get("failureSummary", "")[:300]} for n in v["nodes"]
            ],
        }
        for v in result["violations"]
    ]


def serious(violations: list[dict]) -> list[dict]:
    """The violations a page must not have: serious or critical impact, or headings out of order."""
    return [v for v in violations if v["impact"] in ("serious", "critical") or v["id"] == "heading-order"]
