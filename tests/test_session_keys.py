"""Every use of st.session_state in the app, and what it names: a setting (a widget's value, a row
of bert_embeddings/figures/settings.py), another widget's own key, or one of the session's own
entries (components/view_state/session_entries.py), of which there are at most eight.

A key that is not written where it is used (a function's argument) is named below with the reason
it is always one of the above.
"""

from __future__ import annotations

import ast
import importlib

from testkit.apptest import ROOT

# (file, the key as written) -> why it is always a setting or a widget's own key
DYNAMIC = {
    ("components/parts/widgets.py", "key"): "seeded, forget and tabs take a setting's key; fold a fold's",
    ("components/parts/widgets.py", "own"): "the tabs' own widget key, beside the setting",
    ("components/parts/widgets.py", "setting.key"): "a row of the settings table",
    (
        "components/view_state/session_entries.py",
        "name",
    ): "entry's argument: an entry declared there",
    ("components/view_state/links.py", "key"): "keep_within and last_layer take a setting's key",
    ("components/view_state/links.py", "setting.key"): "a row of the settings table",
    ("components/view_state/links.py", "param.key"): "a row of the settings table",
    ("components/sections/map_view.py", "key"): "a chart's own key: its selection",
}
# A widget's own key that the core gives it (a part's key, which its drawing passes on) -> the widget
GIVEN_KEYS = {"mv_movers": "What moved's movers table (moved_pieces.MOVERS), drawn by parts/exports"}
SESSION_STATE = "st.session_state"


def _files():
    return sorted([*(ROOT / "components").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "app.py"])


def _constants(tree: ast.Module) -> dict[str, ast.expr]:
    """A module's names bound at its top, with what they are bound to (``A = "a"``,
    ``A, B = "a", "b"``, ``A = other.B``)."""
    found = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for name, value in zip(names, values, strict=False):
                if isinstance(name, ast.Name):
                    found[name.id] = value
    return found


class Keys:
    """Reads what a key expression names, in the module it is written in."""

    def __init__(self) -> None:
        self.trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in _files()}
        self.by_module = {
            ".".join(path.relative_to(ROOT).with_suffix("").parts): _constants(tree)
            for path, tree in self.trees.items()
        }

    def modules(self, tree: ast.Module) -> dict[str, str]:
        named = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    named[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    named[alias.asname or alias.name] = alias.name
        return named

    def value(self, node: ast.expr, tree: ast.Module, path) -> object:
        """The text (or, for a table of keys, the texts) ``node`` names; None: not written here."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            here = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            if node.id in self.by_module[here]:
                return self.value(self.by_module[here][node.id], tree, path)
            return self._attribute(self.modules(tree).get(node.id, ""))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = self.modules(tree).get(node.value.id)
            return None if module is None else self._attribute(f"{module}.{node.attr}")
        if isinstance(node, ast.Subscript):  # a table of keys, such as settings.AX_WEAT[group]
            table = self.value(node.value, tree, path)
            return tuple(table.values()) if isinstance(table, dict) else None
        return None

    def _attribute(self, dotted: str) -> object:
        module, _, name = dotted.rpartition(".")
        if module in self.by_module:
            bound = self.by_module[module].get(name)
            return bound.value if isinstance(bound, ast.Constant) else None
        if module.startswith("bert_embeddings"):  # the pure core: read as Python reads it
            return getattr(importlib.import_module(module), name, None)
        return None


def _uses(tree: ast.Module):
    """Each key used on session state: ``[k]``, ``.get(k)``, ``.setdefault(k)``, ``.pop(k)``,
    ``k in`` and ``.k``, on st.session_state or a name the module or a function gives it; and each
    entry asked of session_entries.entry."""
    module = _aliases(tree.body)
    found = {}
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))]:
        own = module | (_aliases(ast.walk(scope)) if isinstance(scope, ast.FunctionDef) else set())
        for node in _uses_in(scope, own):
            found[(node.lineno, node.col_offset)] = node
    return [found[at] for at in sorted(found)]


def _aliases(nodes) -> set[str]:
    """st.session_state, and every name these statements give it."""
    aliases = {SESSION_STATE}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                for name, value in zip(names, values, strict=False):
                    if isinstance(name, ast.Name) and ast.unparse(value) == SESSION_STATE:
                        aliases.add(name.id)
    return aliases


METHODS = ("get", "setdefault", "pop")


def _uses_in(scope: ast.AST, aliases: set[str]):
    for node in ast.walk(scope):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) in aliases:
            yield node.slice
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("session_entries.entry", "entry"):
            yield node.args[0]
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in METHODS
        ):
            if ast.unparse(node.func.value) in aliases:
                yield node.args[0]
        elif (
            isinstance(node, ast.Attribute)
            and ast.unparse(node.value) in aliases
            and node.attr not in METHODS
        ):
            yield ast.copy_location(ast.Constant(node.attr), node)  # st.session_state.name
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
            if any(ast.unparse(c) in aliases for c in node.comparators):
                yield node.left


def _widget_keys(keys: Keys) -> set[str]:
    """Every key given to a widget as ``key=`` where it is written as text or a constant."""
    found = set()
    for path, tree in keys.trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                for keyword in node.keywords:
                    if keyword.arg == "key" and isinstance(
                        value := keys.value(keyword.value, tree, path), str
                    ):
                        found.add(value)
    return found


def test_every_use_of_session_state_names_a_setting_a_widget_or_one_of_eight_entries():
    from bert_embeddings.figures import settings
    from components.view_state import session_entries

    keys = Keys()
    entries = {v for n, v in vars(session_entries).items() if n.isupper() and isinstance(v, str)}
    widgets = set(settings.BY_KEY) | _widget_keys(keys) | set(GIVEN_KEYS)
    own, unnamed, dynamic = set(), [], set()
    for path, tree in keys.trees.items():
        where = path.relative_to(ROOT).as_posix()
        for node in _uses(tree):
            value = keys.value(node, tree, path)
            named = value if isinstance(value, tuple) else (value,)
            if value is None:
                dynamic.add((where, ast.unparse(node)))
            elif all(isinstance(v, str) and v in widgets for v in named):
                continue
            elif value in entries:
                own.add(value)
            else:
                unnamed.append(f"{where}:{node.lineno} {ast.unparse(node)} = {value!r}")
    assert unnamed == [], "keys of session state that are neither a widget's nor an entry's"
    assert dynamic == set(DYNAMIC), "a key that is not written where it is used: say why in DYNAMIC"
    assert len(entries) <= 8 and own <= entries


def test_the_count_reads_a_key_however_it_is_written():
    """The reader above finds keys written as text, as a module's constant, through another module
    and through a local name for session state, and tells a key it cannot read."""
    tree = ast.parse(
        "import streamlit as st\nfrom components.view_state import session_entries\nA = 'a'\n"
        "def f(key):\n    state = st.session_state\n    state[A] = 1\n    st.session_state.get('b')\n"
        "    state.pop(session_entries.ROOM, None)\n    return key in state\n"
    )
    keys, path = Keys(), ROOT / "app.py"
    keys.by_module["app"] = _constants(tree)
    assert [keys.value(node, tree, path) for node in _uses(tree)] == ["a", "b", "_room", None]
    tree = ast.parse(
        "import streamlit as st\nfrom components.view_state import session_entries\n"
        "STATE = st.session_state\ndef g():\n    STATE['c'] = 1\n    st.session_state.d = 2\n"
        "    session_entries.entry('_e')\n"
    )
    keys.by_module["app"] = _constants(tree)
    assert [keys.value(node, tree, path) for node in _uses(tree)] == ["c", "d", "_e"]
