"""The layering the design asks for, checked in a fresh interpreter."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import os
import re
import subprocess
import sys

import pytest

from testkit.apptest import ROOT


def modules_after_import(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_core_imports_neither_streamlit_nor_plotly():
    """The core package is pure computation: importing it pulls in no UI library."""
    loaded = modules_after_import(
        "import bert_embeddings, bert_embeddings.models.checkpoints, bert_embeddings.models.tokenize, "
        "bert_embeddings.analysis.decompose"
    )
    assert "bert_embeddings.analysis.decompose" in loaded
    assert not {"streamlit", "plotly"} & loaded


def imported_roots(path) -> set[str]:
    """The top-level names a module imports, and every bert_embeddings module it names, in
    either form (``from bert_embeddings import figures`` names bert_embeddings.figures). The
    project imports absolutely only: a relative import is reported as "relative"."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                names.add("relative")
                continue
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {name.split(".")[0] for name in names} | {
        name for name in names if name.startswith("bert_embeddings.")
    }


def test_the_import_reader_sees_every_form(tmp_path):
    """The layering test below reads imports in all the ways Python writes them."""
    module = tmp_path / "m.py"
    module.write_text("import plotly.io\nfrom bert_embeddings import figures\nfrom . import x\n")
    found = imported_roots(module)
    assert {"plotly", "bert_embeddings.figures", "relative"} <= found


# The core's parts and what each may import besides itself: the foundation (config, errors,
# limits) under everything, the background jobs' machinery on it (maps, spaces and the Hub's
# downloads use it; it knows none of them), models under the
# analyses, the analyses under the maps, the maps
# under the spaces (compared by their exact neighbour lists); rooms on
# the foundation alone; the notebook API on the computations; the figures on them (their
# notebook functions take the API's answers), with each page's settings and composition and the
# table of settings built from them; the lessons on the figures (a step's view is checked against
# that table, and a handout's figures are the pages' own); the host's command on top.
# Nothing imports upward.
FOUNDATION = {"config", "config_values", "errors", "limits"}
ENTRY = {"api": "api", "__main__": "command"}
COMPUTATION = {"foundation", "jobs", "models", "analysis", "maps", "spaces", "views"}
CORE_LAYERS = {
    "foundation": set(),
    "jobs": {"foundation"},
    "models": {"foundation", "jobs"},
    "analysis": {"foundation", "models"},  # no job machinery: what it measures runs where it is called
    "maps": {"foundation", "jobs", "models", "analysis"},
    "spaces": {"foundation", "jobs", "models", "analysis", "maps"},
    "views": {"foundation", "jobs", "models", "analysis"},
    "rooms": {"foundation"},
    "api": COMPUTATION,
    "figures": COMPUTATION | {"api"},
    "lessons": COMPUTATION | {"api", "figures"},
    "command": COMPUTATION | {"api", "figures", "lessons"},
}


def core_part(name: str) -> str | None:
    """The part of the core a module (``bert_embeddings.models.hub``, ``bert_embeddings.limits``)
    belongs to; None for the package itself."""
    parts = name.split(".")
    if parts[0] != "bert_embeddings" or len(parts) == 1 or parts[1] == "__init__":
        return None
    if parts[1] in FOUNDATION:
        return "foundation"
    if parts[1] in ENTRY:
        return ENTRY[parts[1]]
    return parts[1] if parts[1] in CORE_LAYERS else f"unknown: {parts[1]}"


def core_modules() -> dict[str, str]:
    """Every module of the core, by its dotted name, with its part."""
    found = {}
    for path in sorted((ROOT / "bert_embeddings").rglob("*.py")):
        dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[dotted] = core_part(dotted.removesuffix(".__init__")) or "package"
    return found


def test_the_core_is_in_folders_by_concern_and_imports_one_way():
    """Each module of the core is in its concern's folder (or in the foundation or the entry
    points at the top), and imports only its own part and the parts below it."""
    modules = core_modules()
    assert not [m for m, part in modules.items() if part.startswith("unknown")], modules
    at_top = {m.split(".")[1] for m, part in modules.items() if m.count(".") == 1} - {"__init__"}
    assert at_top == FOUNDATION | set(ENTRY)  # everything else sits in a folder that names its concern
    wrong = []
    for dotted, part in modules.items():
        path = ROOT / (dotted.replace(".", "/") + ".py")
        for name in imported_roots(path):
            other = core_part(name)
            if other is not None and other != part and other not in CORE_LAYERS.get(part, set()):
                wrong.append(f"{dotted} ({part}) imports {name} ({other})")
    assert wrong == []


def test_the_layers_import_one_way():
    """Pure core (no Plotly, no Streamlit, not the figures; only the lessons and the host's
    command may import the figures), then the figures and the lessons (Plotly, no Streamlit, no
    glue), then the Streamlit glue (components; the room's glue on the rest, never the other way),
    then the pages."""
    everything = sorted((ROOT / "bert_embeddings").rglob("*.py"))
    figures = sorted((ROOT / "bert_embeddings" / "figures").glob("*.py"))
    figures += sorted((ROOT / "bert_embeddings" / "lessons").glob("*.py"))
    core = [p for p in everything if p not in figures]
    glue = sorted((ROOT / "components").rglob("*.py"))
    assert len(core) > 30 and len(figures) >= 5
    for path in [*everything, *glue]:
        assert "relative" not in imported_roots(path), path
    command = ROOT / "bert_embeddings" / "__main__.py"
    for path in core:
        found = imported_roots(path)
        assert not {"plotly", "streamlit", "components", "pages"} & found, path.name
        if path != command:
            assert not any(name.startswith("bert_embeddings.figures") for name in found), path.name
    for path in figures:
        assert not {"streamlit", "components", "pages"} & imported_roots(path), path.name
    for path in glue:
        found = imported_roots(path) | _imported_components(path)
        assert "pages" not in found, path.name
        if "rooms" not in path.relative_to(ROOT / "components").parts:
            assert not any(n.startswith("components.rooms") for n in found), path.name
    loaded = modules_after_import(
        "from bert_embeddings.figures import charts, lab_charts, map_charts, map_marks, notebook, views"
    )
    assert "plotly" in loaded and not {"streamlit", "components"} & loaded


# components/ by concern: what a person sets and where it lives (view_state/), every st.cache_*
# (caches/), what one page draws around its figures (sections/), the small parts every page uses
# (parts/), the frame's plumbing and the one place that touches Streamlit's private names
# (frame/), and the workshop rooms (rooms/).
COMPONENT_FOLDERS = {"view_state", "caches", "sections", "parts", "frame", "rooms", "lessons"}


def test_components_are_in_folders_by_concern():
    """components/ holds its folders and at most 10 modules of its own; every cache is in caches/
    (or the rooms' own store); every use of Streamlit's private names is in frame/ (or the rooms'
    push route and wake-up, which live beside the room they serve)."""
    top = ROOT / "components"
    assert {p.name for p in top.iterdir() if p.is_dir() and p.name != "__pycache__"} == COMPONENT_FOLDERS
    assert len(list(top.glob("*.py"))) <= 10
    for path in top.rglob("*.py"):
        text, where = path.read_text(encoding="utf-8"), path.relative_to(top).parts[0]
        if re.search(r"@st\.cache_(data|resource)\b", text):
            assert where in ("caches", "rooms"), f"{path}: a cache outside components/caches"
        private = {n for n in imported_roots(path) | _streamlit_imports(path) if n.startswith("streamlit.")}
        if private:
            assert where in ("frame", "rooms"), f"{path} imports {private}"
    for path in [*(ROOT / "pages").glob("*.py"), ROOT / "app.py"]:
        assert not {n for n in _streamlit_imports(path) if n.startswith("streamlit.")}, path.name


def _streamlit_imports(path) -> set[str]:
    """The modules of Streamlit's a module imports beyond ``streamlit`` itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("streamlit"):
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.startswith("streamlit")}
    return names


def _imported_components(path) -> set[str]:
    """The components modules a module imports, by dotted name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("components"):
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return names


def test_heatmap_path_does_not_import_torch_or_transformers():
    """Loading, tokenizing and decomposing need neither torch nor transformers (cold start)."""
    loaded = modules_after_import(
        "from bert_embeddings.models import checkpoints, tokenize; "
        "from bert_embeddings.analysis import decompose; "
        "m = checkpoints.load_model('bundled'); "
        "e = m.encode('a test'); "
        "decompose.decompose(m, e)"
    )
    assert not {"torch", "transformers"} & loaded


@pytest.mark.slow("two interpreters load torch")
def test_torch_and_blas_use_one_thread_per_call_on_the_shared_server():
    """The first torch use sets its thread count, and the server's setup holds numpy's BLAS to
    the same (1 unless BERT_EXPLORER_THREADS says)."""
    code = (
        "from bert_embeddings.models import checkpoints, threads; "
        "from bert_embeddings.analysis import decompose; import torch; "
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


def test_docs_configuration_table_is_the_configuration_module():
    """docs/configuration.md's table lists exactly the variables bert_embeddings.config reads,
    as it says them."""
    from bert_embeddings import config

    docs = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    header = config.markdown_table().splitlines()[0]
    assert header in docs, f"docs/configuration.md has no table starting {header}"
    # The whole table, to its last row: a variable the module no longer reads must not linger.
    shown = header + docs.split(header, 1)[1].split("\n\n", 1)[0].rstrip("\n")
    assert shown == config.markdown_table()


def test_the_environment_is_read_only_by_the_configuration_module():
    """No module but bert_embeddings/config.py reads an environment variable."""
    readers = [
        path.relative_to(ROOT)
        for folder in ("bert_embeddings", "components", "pages")
        for path in (ROOT / folder).rglob("*.py")
        if "os.environ.get" in path.read_text(encoding="utf-8")
        or "os.getenv" in path.read_text(encoding="utf-8")
    ]
    assert [str(p) for p in readers] == ["bert_embeddings/config.py"]


def test_the_cache_layer_does_not_read_widgets_and_pages_do_not_index_session_state():
    """The caches (components/caches/) get the sidebar's inputs as one value
    (components.view_state.inputs), never from the widget layer; pages keep no state of their own
    in st.session_state."""
    import ast

    for path in (ROOT / "components" / "caches").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names
        } | {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        assert "widgets" not in imported and "components.parts.widgets" not in imported, path.name
    for page in (ROOT / "pages").glob("*.py"):
        assert "session_state" not in page.read_text(encoding="utf-8"), page.name


def _app_files():
    return [*(ROOT / "pages").glob("*.py"), *(ROOT / "components").rglob("*.py"), ROOT / "app.py"]


def test_every_table_is_drawn_with_its_download():
    """A table on a page comes with its CSV button (the user guide promises one under every table): the
    pages draw tables only through components/parts/exports.py, which draws both."""
    drawing = [
        path.name
        for path in _app_files()
        if path.name != "exports.py" and "st.dataframe(" in path.read_text(encoding="utf-8")
    ]
    assert drawing == []


def test_a_setting_is_cleared_only_through_the_one_that_holds_them():
    """Settings keep their values until changed (their widgets persist them for the session);
    code that clears one on purpose says so through widgets.forget."""
    import re

    clearing = re.compile(r"(session_state|state)\.pop\(settings\.|del (st\.session_state|state)\[")
    found = [
        f"{path.name}: {line.strip()}"
        for path in _app_files()
        if path.name != "widgets.py"
        for line in path.read_text(encoding="utf-8").splitlines()
        if clearing.search(line)
    ]
    assert found == []


def _setting_widgets(tree) -> list[tuple[str, bool]]:
    """(where, whether it persists) for each widget call keyed by a setting (``key=settings.X``
    or ``**seeded(...)``) in ``tree``; actions (cleared by their own callback) left out."""
    from bert_embeddings.figures import settings

    actions = {"NB_NEXT", "MV_NEXT", "AX_WEAT_CLASSIC"}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        keyed = seeded = False
        for keyword in node.keywords:
            value = keyword.value
            if (
                keyword.arg == "key"
                and isinstance(value, ast.Attribute)
                and ast.unparse(value.value) == "settings"
            ):
                keyed = value.attr not in actions and value.attr.isupper() and hasattr(settings, value.attr)
            if (
                keyword.arg is None
                and isinstance(value, ast.Call)
                and ast.unparse(value.func).endswith("seeded")
            ):
                seeded = True
        if keyed or seeded:
            persists = seeded or any(
                k.arg == "persist_state" and isinstance(k.value, ast.Constant) and k.value.value == "session"
                for k in node.keywords
            )
            found.append((f"line {node.lineno}: {ast.unparse(node.func)}", persists))
    return found


def test_every_widget_of_a_setting_keeps_its_value_for_the_session(monkeypatch):
    """A setting keeps its value across pages, tabs and runs that do not draw its widget: every
    widget keyed by a setting is drawn with persist_state="session" (seeded adds it), and
    seeded's own keyword arguments say so."""
    from components.parts import widgets

    checked = 0
    for path in _app_files():
        for where, persists in _setting_widgets(ast.parse(path.read_text(encoding="utf-8"))):
            assert persists, f"{path.relative_to(ROOT)} {where}"
            checked += 1
    assert checked >= 40
    from bert_embeddings.figures import settings

    monkeypatch.setattr(widgets.st, "session_state", {})
    assert widgets.seeded(settings.NB_K)["persist_state"] == "session"
    assert widgets.seeded(settings.MAP_METHOD, "default")["persist_state"] == "session"
    bare = ast.parse("st.selectbox('k', [1], key=settings.NB_K)\nst.toggle('t', **seeded(settings.NB_K))")
    assert [p for _, p in _setting_widgets(bare)] == [False, True]


def test_the_session_s_own_entries_are_declared_once_and_named_in_the_docs():
    """Every private session-state entry of the app (a string starting with "_" used as a key) is
    declared in components/view_state/session_entries.py, there are at most eight, and
    docs/architecture.md names each."""
    from components.view_state import session_entries

    declared = {
        value for name, value in vars(session_entries).items() if name.isupper() and isinstance(value, str)
    }
    private = re.compile(r"^_[a-z][a-z_]*$")
    used = set()
    for path in _app_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inner = {
            id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values[1:]
        }
        for node in ast.walk(tree):
            # a text, or the start of an f-string (its later parts are not a key's start)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in inner:
                if private.match(node.value.split("{")[0]) or private.match(node.value):
                    used.add((path.relative_to(ROOT).as_posix(), node.value))
    stray = {(where, value) for where, value in used if value not in declared}
    assert stray == set()
    assert {value for _, value in used} == declared and len(declared) <= 8
    docs = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert [value for value in sorted(declared) if f"| `{value}` |" not in docs] == []


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
    """Each input widget on each page has its key in bert_embeddings.figures.settings, and, where the table
    gives a default, the widget starts at exactly that default: no key or default is made up
    anywhere else."""
    from streamlit.testing.v1 import AppTest

    from bert_embeddings.figures import settings
    from testkit.stand_in_hub import go_offline

    go_offline(monkeypatch)
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

    paths = [ROOT / "app.py"] + [p for folder in SIZED[1:] for p in sorted((ROOT / folder).rglob("*.py"))]
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


# --- every input is a setting that links carry (or one that is not part of the view) ----------

# Streamlit's input widgets, by method name; called on st, st.sidebar, a column or a parameter.
STREAMLIT_INPUTS = (
    *("text_input", "text_area", "number_input", "selectbox", "multiselect", "slider"),
    *("select_slider", "radio", "checkbox", "toggle", "segmented_control", "pills"),
)


def _dotted(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return f"{_dotted(node.value)}.{node.attr}" if isinstance(node, ast.Attribute) else ""


def _keys_in(value) -> set[str]:
    """The setting keys a value of bert_embeddings.figures.settings holds: a key, or keys in a dict or
    tuple (flattened)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, tuple | list):
        return set().union(*(_keys_in(v) for v in value))
    return set()


class _Scan:
    """The input widgets of a set of modules (path -> source), each with the setting keys its
    key may hold, followed through the project's wrappers (a function that passes a parameter
    as the key, or its **kwargs, to an input: each call of it is an input)."""

    def __init__(self, sources: dict[str, str]):
        self.trees = {path: ast.parse(text) for path, text in sources.items()}
        self.parents = {}
        for tree in self.trees.values():
            for node in ast.walk(tree):
                for child in ast.iter_child_nodes(node):
                    self.parents[child] = node
        self.problems: list[str] = []
        self.found: list[tuple[str, set[str]]] = []  # ("path:line: input", its possible keys)

    def run(self) -> _Scan:
        for path, tree in self.trees.items():
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    if node.func.attr in STREAMLIT_INPUTS:
                        self._check(path, node, node.func.attr, set())
        return self

    def _scope(self, node):
        """The function around a node, or else its module."""
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, ast.FunctionDef):
                return node
        return node

    def _check(self, path: str, call, what: str, seen: set) -> None:
        """Record the keys an input call (or a wrapper's call) may have, or the problem."""
        where = f"{path}:{call.lineno}: {what}"
        key = next((k.value for k in call.keywords if k.arg == "key"), None)
        spread = [k.value for k in call.keywords if k.arg is None]
        for value in spread:
            if isinstance(value, ast.Call) and _dotted(value.func).split(".")[-1] == "seeded":
                key = value.args[0]
        scope = self._scope(call)
        function = isinstance(scope, ast.FunctionDef)
        params = [a.arg for a in (*scope.args.args, *scope.args.kwonlyargs)] if function else []
        kwargs = scope.args.kwarg.arg if function and scope.args.kwarg else None
        if key is None and any(isinstance(v, ast.Name) and v.id == kwargs for v in spread):
            return self._wrapper_calls(scope, None, seen)  # the key comes in **kwargs
        if key is None:
            return self.problems.append(f"{where} has no key")
        if isinstance(key, ast.Name) and key.id in params:
            return self._wrapper_calls(scope, key.id, seen)  # the key is a parameter
        keys = self._resolve(key, scope)
        if not keys:
            return self.problems.append(f"{where}: key {ast.unparse(key)} is no setting of the table")
        self.found.append((where, keys))
        return None

    def _resolve(self, expr, scope) -> set[str]:
        """The keys an expression may hold: literal text, anything of bert_embeddings.figures.settings, a
        page's field by name, or a name bound in the same function to an expression of those."""
        from bert_embeddings.figures import settings

        if isinstance(expr, ast.Constant):
            return _keys_in(expr.value)
        called = _dotted(expr.func).split(".") if isinstance(expr, ast.Call) else []
        if called[1:] == ["Settings", "key"] and expr.args and isinstance(expr.args[0], ast.Constant):
            # a page's field, by its name: the page's own composer module keys it
            module = importlib.import_module(f"bert_embeddings.figures.{called[0]}")
            return {module.Settings.key(expr.args[0].value)}
        if called == ["key"] and expr.args and isinstance(expr.args[0], ast.Constant):
            # a page's key function passed in (a page's Settings.key): the field of that
            # name on each page that has one
            name = expr.args[0].value
            typed = [page.Settings for page in settings.PAGE_MODULES.values()]
            return {kind.key(name) for kind in typed if name in {f.name for f in dataclasses.fields(kind)}}
        if isinstance(expr, ast.Subscript):
            return self._resolve(expr.value, scope)
        if isinstance(expr, ast.Attribute) and _dotted(expr.value) == "settings":
            return _keys_in(getattr(settings, expr.attr, None))
        if isinstance(expr, ast.Name):
            keys = set()
            for node in ast.walk(scope):
                targets, value = [], None
                if isinstance(node, ast.Assign):
                    targets, value = node.targets, node.value
                elif isinstance(node, ast.For | ast.comprehension):
                    targets, value = [node.target], node.iter
                if any(expr.id in {n.id for n in ast.walk(t) if isinstance(n, ast.Name)} for t in targets):
                    for part in ast.walk(value):
                        if isinstance(part, ast.Attribute) and _dotted(part.value) == "settings":
                            keys |= _keys_in(getattr(settings, part.attr, None))
            return keys
        return set()

    def _wrapper_calls(self, wrapper, param: str | None, seen: set) -> None:
        """Each call of a wrapper is an input: its key is the argument given for ``param``
        (its default if none), or, for **kwargs, the key it passes."""
        if wrapper.name in seen:
            return
        args, kwonly = [a.arg for a in wrapper.args.args], [a.arg for a in wrapper.args.kwonlyargs]
        index = args.index(param) if param in args else len(args) + 1
        defaults = dict(
            zip(args[len(args) - len(wrapper.args.defaults) :], wrapper.args.defaults, strict=True)
        )
        defaults |= {a: d for a, d in zip(kwonly, wrapper.args.kw_defaults, strict=True) if d is not None}
        for path, tree in self.trees.items():
            for call in ast.walk(tree):
                if not isinstance(call, ast.Call) or _dotted(call.func).split(".")[-1] != wrapper.name:
                    continue
                if param is None:
                    self._check(path, call, wrapper.name, seen | {wrapper.name})
                    continue
                given = next((k.value for k in call.keywords if k.arg == param), None)
                if given is None and index < len(call.args):
                    given = call.args[index]
                given = given if given is not None else defaults.get(param)
                keyed = ast.Call(
                    func=call.func, args=[], keywords=[ast.keyword("key", given)] if given else []
                )
                ast.copy_location(keyed, call)
                self.parents[keyed] = self.parents.get(call)
                self._check(path, keyed, wrapper.name, seen | {wrapper.name})


def unlinked_inputs(sources: dict[str, str], allowed: set[str]) -> list[str]:
    """Each input (file:line) whose key is missing, not in the table, or not in ``allowed``."""
    from bert_embeddings.figures import settings

    problems = (scan := _Scan(sources).run()).problems
    for where, keys in scan.found:
        if unknown := keys - set(settings.BY_KEY):
            problems.append(f"{where}: key {sorted(unknown)} is not in the settings table")
        elif unlinked := keys - allowed:
            problems.append(f"{where}: key {sorted(unlinked)} has no name in links, nor is in NOT_IN_VIEW")
    return problems


def _app_sources() -> dict[str, str]:
    paths = [*sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "components").rglob("*.py"))]
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in paths}


def _allowed() -> set[str]:
    from bert_embeddings.figures import settings

    return {s.key for s in settings.LINKED} | set(settings.NOT_IN_VIEW)


def test_every_input_travels_in_links_unless_it_is_not_part_of_the_view():
    """Every input widget of every page and component (Streamlit's, and the project's wrappers)
    has a key of the settings table that links carry, or one listed in NOT_IN_VIEW."""
    scan = _Scan(_app_sources()).run()
    assert len(scan.found) >= 40  # every input was found, the wrappers' calls too
    assert unlinked_inputs(_app_sources(), _allowed()) == []


def test_the_input_check_finds_an_unlinked_input():
    """The scan above fails on an input with no key, a key not in the table, or a key of a
    setting that links leave out (here k, as if its row had no link name), with file and line."""
    from bert_embeddings.figures import settings

    page = (
        "import streamlit as st\n"
        "from bert_embeddings.views import settings; from components.parts import widgets\n"
        'st.slider("No key", 0, 5)\n'
        'st.text_input("Made up", key="made_up")\n'
        'k = widgets.whole_number_box("k", **widgets.seeded(settings.NB_K))\n'
        'widgets.whole_number_box("Keyless")\n'
        'st.toggle("Presenter", key=settings.PRESENTER_KEY)\n'
        'col.radio("Geometry", [], **widgets.seeded(settings.GEOMETRY, None))\n'
        "def box(label, key=settings.NB_WORD):\n"
        "    return st.text_input(label, key=key)\n"
        'box("Word")\n'
        'box("Made up too", "made_up_too")\n'
    )
    sources = {**_app_sources(), "pages/fake.py": page}
    problems = [p for p in unlinked_inputs(sources, _allowed() - {settings.NB_K}) if "fake.py" in p]
    assert len(problems) == 5, problems
    assert "pages/fake.py:12: box: key ['made_up_too'] is not in the settings table" in problems
    assert any(p.startswith("pages/fake.py:3: slider has no key") for p in problems)
    assert "pages/fake.py:4: text_input: key ['made_up'] is not in the settings table" in problems
    assert (
        "pages/fake.py:5: whole_number_box: key ['nb_k'] has no name in links, nor is in NOT_IN_VIEW"
        in problems
    )
    assert any(p.startswith("pages/fake.py:6: whole_number_box has no key") for p in problems)
    # The app's own k box is found, and flagged too, once k has no link name.
    assert any(
        p.startswith("components/parts/filters.py:") and "nb_k" in p
        for p in unlinked_inputs(sources, _allowed() - {settings.NB_K})
    )


def test_every_setting_has_a_link_name_or_a_reason_to_stay_out():
    """Each row of the table is carried by links (and has a label for what a room leaves out)
    or is listed in NOT_IN_VIEW; none is both."""
    from bert_embeddings.figures import settings

    linked = {s.key for s in settings.LINKED}
    assert linked | set(settings.NOT_IN_VIEW) == set(settings.BY_KEY)
    assert not linked & set(settings.NOT_IN_VIEW)
    assert all(s.label for s in settings.LINKED)  # as its page names it, in what a room leaves out
    assert len({s.url for s in settings.LINKED}) == len(settings.LINKED)  # each name used once


def _listed_modules() -> dict[str, set[str]]:
    """docs/architecture.md's table of every module: folder -> the modules it names."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Every module", 1)[1].split("\n## ", 1)[0]
    listed = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0].startswith("`") and cells[0].endswith("/`"):
            listed[cells[0].strip("`")] = set(re.findall(r"`([^`]+)`", cells[1]))
    return listed


def _tree_modules() -> dict[str, set[str]]:
    """Every module of the core, the glue and the pages, by folder, as the tree holds them."""
    found: dict[str, set[str]] = {}
    for top in ("bert_embeddings", "components", "pages"):
        for path in (ROOT / top).rglob("*.py"):
            folder = path.parent.relative_to(ROOT).as_posix() + "/"
            found.setdefault(folder, set()).add(path.stem)
    return found


def test_docs_architecture_names_every_module_and_only_modules_that_exist():
    """docs/architecture.md's table of modules and the tree agree, folder by folder: a module
    added, moved or removed without the table fails here (the old listing went stale twice)."""
    listed, tree = _listed_modules(), _tree_modules()
    assert len(listed) >= 15
    missing = {folder: sorted(mods - listed.get(folder, set())) for folder, mods in tree.items()}
    extra = {folder: sorted(mods - tree.get(folder, set())) for folder, mods in listed.items()}
    assert {f: m for f, m in missing.items() if m} == {}, "in the tree, not in docs/architecture.md"
    assert {f: m for f, m in extra.items() if m} == {}, "in docs/architecture.md, not in the tree"
