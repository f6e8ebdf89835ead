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


# --- paths named in prose ---------------------------------------------------------------------------

# Where the code's prose names files: every docstring of the app, its tests and its tools.
DOCSTRING_FOLDERS = ("bert_embeddings", "components", "pages", "testkit", "tests", "bench", "scripts")
# A path names a folder of the tree first: from the root, or within the core or the components
# (a docstring of bert_embeddings/ says ``jobs/local.py``). Anything else with a slash (a Hub
# model's name, an address) is not a path of ours.
ROOTS = (ROOT, ROOT / "bert_embeddings", ROOT / "components")
NAMED_PATH = re.compile(r"(?<![\w./:~<>-])((?:[\w.-]+/)+[\w.*<>-]*)")


def first_folders() -> set[str]:
    return {p.name for base in ROOTS for p in base.iterdir() if p.is_dir() and not p.name.startswith("__")}


def named_paths(text: str) -> set[str]:
    """What ``text`` names as a path of the tree: its first folder is one of the tree's."""
    folders = first_folders() | {".ci"}
    found = set()
    for match in NAMED_PATH.finditer(text):
        path = match.group(1).rstrip(".")
        if path.split("/", 1)[0] in folders and "<" not in path and not path.startswith("tests/tmp"):
            found.add(path)
    return found


# Files a host writes, which the tree leaves out on purpose.
HOST_FILES = {".streamlit/secrets.toml"}


def resolves(path: str) -> bool:
    """Whether ``path`` names a file or folder from one of the roots: a glob (``*``) matches one;
    a module may be named without ``.py`` and with one of its names after it (``jobs/worker.run``)."""
    if path in HOST_FILES:
        return True
    folder, _, last = path.rpartition("/")
    module = f"{folder}/{last.split('.', 1)[0]}.py" if last else path
    candidates = (path,) if "*" in path else (path, module)
    return any(any(base.glob(c)) if "*" in c else (base / c).exists() for base in ROOTS for c in candidates)


def docstrings() -> dict[str, str]:
    """Each Python file's docstrings, joined, by its path."""
    import ast

    found = {}
    files = [ROOT / "app.py", *(p for f in DOCSTRING_FOLDERS for p in sorted((ROOT / f).rglob("*.py")))]
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef))]
        texts = [ast.get_docstring(n, clean=False) for n in nodes]
        found[str(path.relative_to(ROOT))] = "\n".join(t for t in texts if t)
    return found


def test_every_path_the_docs_and_docstrings_name_exists():
    """A file or folder named in README.md, docs/ or a docstring is in the tree (globs match one),
    so that a moved module cannot leave its old place in the prose."""
    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in documents()} | docstrings()
    missing = {
        where: sorted(p for p in named_paths(text) if not resolves(p)) for where, text in texts.items()
    }
    assert {where: paths for where, paths in missing.items() if paths} == {}


def test_the_path_reader_finds_paths_and_only_paths():
    text = (
        "See components/frame/registry.py and jobs/local.py, `pages/*.py`, tests/ and docs/maps.md. "
        "Not https://example.org/docs/x.py, sentence-transformers/all-MiniLM-L6-v2 or spaces/<key>/."
    )
    assert named_paths(text) == {
        "components/frame/registry.py", "jobs/local.py", "pages/*.py", "tests/", "docs/maps.md"
    }  # fmt: skip
    assert not resolves("components/frame/registry.py") and not resolves("tests/test_follow.py")
    assert resolves("jobs/local.py") and resolves("pages/*.py") and resolves("docs/maps.md")
    assert resolves("jobs/worker.run") and resolves("bench/load")


def test_the_architecture_diagram_shows_every_package():
    """docs/architecture.md's drawing of the layers names each folder of the core and of the
    components (as ``name/`` on a line of its own)."""
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    drawing = text.split("## The layers", 1)[1].split("```", 2)[1]
    drawn = {
        line.split()[0] for line in drawing.splitlines() if line.split() and line.split()[0].endswith("/")
    }
    for base in ("bert_embeddings", "components"):
        folders = {f"{p.name}/" for p in (ROOT / base).iterdir() if (p / "__init__.py").is_file()}
        assert folders <= drawn, f"{base}: {sorted(folders - drawn)} not in the drawing"


ISSUE_NUMBER = re.compile(r"\bissues? #?\d+", re.IGNORECASE)


def test_no_comment_or_docstring_names_an_issue():
    """Why the code is as it is belongs in its comments; which issue asked for it, in the commit
    message."""
    files = [ROOT / "app.py", *(p for f in DOCSTRING_FOLDERS for p in sorted((ROOT / f).rglob("*.py")))]
    named = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE_NUMBER.search(line)
    ]
    assert named == []
