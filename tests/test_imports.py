"""How the app's modules import each other: one way, each through the other's public names.

A circle of imports (even one only a type checker follows) means two modules are one idea cut in
two; a module that reaches for another's ``_name`` depends on what that one is free to change.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter

import pytest

from testkit.apptest import ROOT

FOLDERS = ("bert_embeddings", "components", "pages")


def _modules() -> dict[str, ast.Module]:
    paths = [path for folder in FOLDERS for path in (ROOT / folder).rglob("*.py")] + [ROOT / "app.py"]
    found = {}
    for path in paths:
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = ast.parse(path.read_text(encoding="utf-8"))
    return found


def imports(modules: dict[str, ast.Module]) -> tuple[dict[str, set[str]], list[str]]:
    """Each module's imports of the app's modules (wherever they stand: at the top, in a function,
    under TYPE_CHECKING), and every use of another module's private name, as ``user: module._name``."""
    graph, private = {name: set() for name in modules}, []
    for user, tree in modules.items():
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        graph[user].add(alias.name)
                        aliases[alias.asname or alias.name] = alias.name
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    if (whole := f"{node.module}.{alias.name}") in modules:
                        graph[user].add(whole)
                        aliases[alias.asname or alias.name] = whole
                    elif node.module in modules:
                        graph[user].add(node.module)
                        if alias.name.startswith("_"):
                            private.append(f"{user}: {whole}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                private.append(f"{user}: {aliases[node.value.id]}.{node.attr}")
    for user in graph:
        graph[user].discard(user)
    return graph, sorted(set(private))


def test_no_module_imports_in_a_circle():
    graph, _ = imports(_modules())
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as circle:
        pytest.fail(f"these modules import each other in a circle: {' -> '.join(circle.args[1])}")


def test_no_module_uses_another_modules_private_names():
    _, private = imports(_modules())
    assert private == []


def test_the_check_finds_a_circle_and_a_private_name():
    """The checks above fail where they should: on two modules that import each other, one of them
    for the other's private name."""
    made = {
        "a": ast.parse("from b import _hidden\n"),
        "b": ast.parse("import a\nx = a._also\n"),
    }
    graph, private = imports(made)
    assert graph == {"a": {"b"}, "b": {"a"}}
    assert private == ["a: b._hidden", "b: a._also"]
    with pytest.raises(CycleError):
        TopologicalSorter(graph).prepare()


def test_the_figures_wait_for_pandas_to_be_whole():
    """A figure built while another thread imports pandas (Plotly reads sys.modules without the
    import lock) met a half-initialized module on a fresh server: the figures' package imports it
    first, which waits under the lock, so every figure finds it whole."""
    code = "import sys, bert_embeddings.figures; print(hasattr(sys.modules.get('pandas'), 'Series'))"
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "True"
