"""limits.nesting, the count of how deep a TOML or JSON text nests that runs before tomllib or
json reads a stranger's file: against what the parsers themselves make of random documents full
of brackets, quotes, escapes, dots and comment marks, and on texts thousands of levels deep."""

from __future__ import annotations

import json
import random
import tomllib
from importlib import resources

import pytest
import tomli_w

from bert_embeddings import limits
from bert_embeddings.lessons import builtin
from testkit.brute import nesting_depth

# Every character the count must not be fooled by, inside keys and strings.
TRICKY = "[]{}\"'\\#.=,\n\t $x"


def random_text(chance: random.Random) -> str:
    return "".join(chance.choice(TRICKY) for _ in range(chance.randint(0, 8)))


def random_document(chance: random.Random, depth: int, tables_in_arrays: bool) -> dict:
    """A table of random keys whose values are texts, numbers, arrays and tables, up to ``depth``
    levels. ``tables_in_arrays``: arrays may hold tables (tomli_w writes [[arrays of tables]])."""

    def value(level: int, in_array: bool = False) -> object:
        kinds = ["text", "number", "array", "table", "array", "table"]  # mostly deeper, till ``depth``
        if in_array and not tables_in_arrays:
            kinds = kinds[:3]
        kind = chance.choice(kinds if level < depth else kinds[:2])
        if kind == "text":
            return random_text(chance)
        if kind == "number":
            return chance.choice([1.5, -3, 1e-7, 0])
        if kind == "table":
            return table(level + 1)
        if tables_in_arrays and chance.random() < 0.5:  # (tomli_w writes them as [[key]])
            return [table(level + 2) for _ in range(chance.randint(1, 3))]
        return [value(level + 1, in_array=True) for _ in range(chance.randint(0, 3))]

    def table(level: int) -> dict:
        return {f"k{n}{random_text(chance)}": value(level) for n in range(chance.randint(1, 3))}

    return table(1)


@pytest.mark.parametrize("seed", range(200))
def test_the_count_is_what_the_parsers_make_of_random_documents(seed):
    """JSON: exactly the depth json reads. TOML: exactly tomllib's when no [[array of tables]] is
    written; with them, never less (the count does not read names, so an array of tables off the
    path may count), and never more than twice (each level at most one array and its table)."""
    chance = random.Random(seed)
    document = random_document(chance, depth=chance.randint(1, 8), tables_in_arrays=False)
    written = json.dumps(document, ensure_ascii=chance.random() < 0.5)
    assert limits.nesting(written, "json") == nesting_depth(json.loads(written))
    for multiline in (False, True):
        written = tomli_w.dumps(document, multiline_strings=multiline)
        assert limits.nesting(written, "toml") == nesting_depth(tomllib.loads(written)) - 1, written
    with_arrays = random_document(chance, depth=chance.randint(1, 8), tables_in_arrays=True)
    written = tomli_w.dumps(with_arrays, multiline_strings=chance.random() < 0.5)
    reference = nesting_depth(tomllib.loads(written)) - 1
    assert reference <= limits.nesting(written, "toml") <= 2 * reference, written


def test_the_built_in_lessons_are_counted_as_tomllib_reads_them():
    """[[step]], [step.view] and [step.key]: the steps' array, a step, its view or its key, and a
    key's list of choices."""
    for name in builtin.NAMES:
        source = resources.files(builtin.__package__).joinpath("builtin", f"{name}.toml").read_text()
        choices = any(step.key and step.key.choices for step in builtin.load(name).steps)
        assert limits.nesting(source, "toml") == nesting_depth(tomllib.loads(source)) - 1 == 3 + choices


@pytest.mark.parametrize(
    "text",
    [
        "[" * 5_000 + "]" * 5_000,
        '{"a": ' * 5_000 + "1" + "}" * 5_000,
        "[" * 5_000,  # never closed: the parser stops on its stack first
    ],
)
def test_json_nested_thousands_deep_is_counted_where_json_overflows_its_stack(text):
    with pytest.raises(RecursionError):
        json.loads(text)
    assert limits.nesting(text, "json") == 5_000


def test_brackets_in_json_strings_are_not_counted():
    text = json.dumps({"a": "[" * 5_000, "b": ['\\"[{', "]]"]})
    assert limits.nesting(text, "json") == nesting_depth(json.loads(text)) == 2


def test_brackets_after_a_string_tomllib_stops_at_are_counted():
    """A one-line string ends at its line's end, as tomllib reads it: what follows counts."""
    text = 'x = "never closed\ny = ' + "[" * 5_000 + "]" * 5_000
    assert limits.nesting(text, "toml") == 5_000
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)


def test_only_toml_and_json_are_counted():
    with pytest.raises(ValueError, match="no nesting count for 'yaml'"):
        limits.nesting("a: [1]", "yaml")
