"""The documents hold together: README.md stays a newcomer's page, every link in it and in
docs/ leads somewhere real, and every file in docs/ is one click from README.md.

Links are read as GitHub renders them: an anchor is a heading's slug (lower case, punctuation
dropped, spaces to hyphens, "-1", "-2" after repeats). Code (fenced blocks and `inline`) is
left out, since a bracket there is not a link.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from testkit.apptest import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
README_MOST_CHARACTERS = 10_000

FENCE = re.compile(r"^```.*?^```[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:, ...


def documents() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def prose(text: str) -> str:
    """The text without its code, where brackets and hashes mean something else."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"[*`]|!?\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor the headings of ``path`` give, repeats numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[str]:
    """The relative links of ``path``, as written."""
    return [t for t in LINK.findall(prose(path.read_text(encoding="utf-8"))) if not EXTERNAL.match(t)]


def broken(path: Path, target: str) -> str | None:
    """Why ``target``, linked from ``path``, leads nowhere; None if it leads somewhere."""
    file_part, _, anchor = target.partition("#")
    linked = (path.parent / file_part).resolve() if file_part else path.resolve()
    if not linked.exists():
        return f"{os.path.relpath(path, ROOT)} links to {target}: no such file"
    if anchor and linked.suffix == ".md" and anchor not in anchors(linked):
        return f"{os.path.relpath(path, ROOT)} links to {target}: no heading gives #{anchor} in {linked.name}"
    return None


def test_readme_is_a_newcomers_page():
    """README.md is at most 10,000 characters: the rest lives in docs/."""
    size = len(README.read_text(encoding="utf-8"))
    assert size <= README_MOST_CHARACTERS, f"README.md is {size:,} characters; move some into docs/"


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(path):
    """Each relative link in README.md and docs/*.md names a file that exists and, if it has an
    anchor, a heading in that file."""
    assert [why for target in links(path) if (why := broken(path, target))] == []


def test_every_document_is_one_click_from_the_readme():
    """Every file in docs/ is linked from README.md."""
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in links(README)}
    unlinked = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert unlinked == []


def test_the_docs_name_only_variables_the_app_reads():
    """Every BERT_EXPLORER_ variable README.md or docs/ names is one bert_embeddings.config
    reads, so a renamed or removed variable cannot linger in the docs."""
    from bert_embeddings import config

    named = {
        (path.name, name)
        for path in documents()
        for name in re.findall(r"BERT_EXPLORER_[A-Z0-9_]*[A-Z0-9]", path.read_text(encoding="utf-8"))
    }
    assert sorted((file, name) for file, name in named if name not in config.BY_NAME) == []


def test_the_link_checker_finds_what_is_broken(tmp_path):
    """The checks above can fail: a missing file, a missing heading and a repeated heading's
    second anchor are told apart from links that work."""
    (tmp_path / "other.md").write_text("# Title\n\n## Same\n\n## Same\n\n```\n# not a heading\n```\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[a](other.md) [b](other.md#same-1) [c](other.md#same-2) [d](missing.md) "
        "[e](other.md#not-a-heading) [f](https://example.com/x.md) `[g](nowhere.md)` [h](#top)\n"
        "# Top\n"
    )
    assert links(page) == [
        "other.md",
        "other.md#same-1",
        "other.md#same-2",
        "missing.md",
        "other.md#not-a-heading",
        "#top",
    ]
    assert [t for t in links(page) if broken(page, t)] == [
        "other.md#same-2",
        "missing.md",
        "other.md#not-a-heading",
    ]
    assert slug("Use it in Python / Jupyter") == "use-it-in-python--jupyter"
    assert slug("`bench.follow`") == "benchfollow"
    assert slug("bench.vocab_search") == "benchvocab_search"
