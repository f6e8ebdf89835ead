"""The layering the design asks for, checked in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT


def modules_after_import(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_core_imports_neither_streamlit_nor_plotly():
    """The core package is pure computation: importing it pulls in no UI library."""
    loaded = modules_after_import(
        "import bert_embeddings, bert_embeddings.checkpoints, bert_embeddings.tokenize, "
        "bert_embeddings.decompose"
    )
    assert "bert_embeddings.decompose" in loaded
    assert not {"streamlit", "plotly"} & loaded


def test_heatmap_path_does_not_import_torch_or_transformers():
    """Loading, tokenizing and decomposing need neither torch nor transformers (cold start)."""
    loaded = modules_after_import(
        "from bert_embeddings import checkpoints, tokenize, decompose; "
        "m = checkpoints.load_model('bundled'); "
        "e = m.encode('a test'); "
        "decompose.decompose(m, e)"
    )
    assert not {"torch", "transformers"} & loaded


def test_torch_and_blas_use_one_thread_per_call_on_the_shared_server():
    """The first torch use sets its thread count, and the server's setup holds numpy's BLAS to
    the same (1 unless BERT_EXPLORER_THREADS says)."""
    code = (
        "from bert_embeddings import checkpoints, decompose, threads; import torch; "
        "from threadpoolctl import threadpool_info; threads.for_shared_server(); "
        "decompose.build_reference_module(checkpoints.load_bundled()); "
        "blas = {p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'}; "
        "print(blas, torch.get_num_threads())"
    )
    for env, expected in (({}, "{1} 1"), ({"BERT_EXPLORER_THREADS": "2"}, "{2} 2")):
        out = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **env},
        )
        assert out.stdout.strip().splitlines()[-1] == expected


def test_readme_configuration_table_is_the_configuration_module():
    """README's table lists exactly the variables bert_embeddings.config reads, as it says them."""
    from bert_embeddings import config

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert config.markdown_table() in readme


def test_the_environment_is_read_only_by_the_configuration_module():
    """No module but bert_embeddings/config.py reads an environment variable."""
    readers = [
        path.relative_to(ROOT)
        for folder in ("bert_embeddings", "components", "pages")
        for path in (ROOT / folder).glob("*.py")
        if "os.environ.get" in path.read_text(encoding="utf-8")
        or "os.getenv" in path.read_text(encoding="utf-8")
    ]
    assert [str(p) for p in readers] == ["bert_embeddings/config.py"]


def test_the_cache_layer_does_not_read_widgets_and_pages_do_not_index_session_state():
    """components/state.py gets the sidebar's inputs as one value (components.inputs), never
    from the widget layer; pages keep no state of their own in st.session_state."""
    import ast

    tree = ast.parse((ROOT / "components" / "state.py").read_text(encoding="utf-8"))
    imported = {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names
    } | {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert "widgets" not in imported and "components.widgets" not in imported
    for page in (ROOT / "pages").glob("*.py"):
        assert "session_state" not in page.read_text(encoding="utf-8"), page.name


INPUT_WIDGETS = (
    "text_input",
    "text_area",
    "number_input",
    "selectbox",
    "radio",
    "toggle",
    "slider",
    "segmented_control",
    "pills",
)


def test_every_input_on_every_page_is_a_setting_of_the_table(monkeypatch):
    """Each input widget on each page has its key in components.settings, and, where the table
    gives a default, the widget starts at exactly that default: no key or default is made up
    anywhere else."""
    from streamlit.testing.v1 import AppTest

    from components import settings

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    checked = 0
    for page in sorted((ROOT / "pages").glob("*.py")):
        at.switch_page(f"pages/{page.name}").run()
        for kind in INPUT_WIDGETS:
            for widget in at.get(kind):
                assert widget.key in settings.BY_KEY, (page.name, kind, widget.key)
                default = settings.default(widget.key)
                if default is not None and widget.key in settings.DEFAULTS:
                    assert widget.value == default, (page.name, widget.key, widget.value)
                checked += 1
    assert checked >= 30


MODULE_LINES, FUNCTION_LINES = 400, 60  # the house's limits
SIZED = ("app.py", "pages", "components", "bert_embeddings", "bench", "testkit")


def _functions(tree, prefix: str = ""):
    """(qualified name, lines from its def to its last line) of every function, nested too."""
    import ast

    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = f"{prefix}{node.name}"
            if not isinstance(node, ast.ClassDef):
                yield name, node.end_lineno - node.lineno + 1
            yield from _functions(node, f"{name}.")
        else:
            yield from _functions(node, prefix)


def test_no_module_over_400_lines_and_no_function_over_60():
    """Every .py module of the app, the core, the benchmarks and the testkit stays within the
    house's sizes; each one over is named, with its length."""
    import ast

    paths = [ROOT / "app.py"] + [p for folder in SIZED[1:] for p in sorted((ROOT / folder).glob("*.py"))]
    assert len(paths) > 40
    too_long = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        if (lines := len(text.splitlines())) > MODULE_LINES:
            too_long.append(f"{where}: {lines} lines (module)")
        too_long += [
            f"{where}: {name} {length} lines"
            for name, length in _functions(ast.parse(text))
            if length > FUNCTION_LINES
        ]
    assert not too_long, too_long
