"""The figures a lesson names in its text: how they are written, how a bad one is named, and, for
every figure the built-in lessons name, that what a learner reads equals the value computed here
by a reference (numpy brute force, scikit-learn, the tokenizer, the notebook API) for each of two
models: the bundled one (384 wide) and a random checkpoint 96 wide. A lesson holds for the model
on screen, so no figure of a lesson is typed into its prose."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import numpy as np
import pytest
from sklearn.decomposition import PCA

from bert_embeddings import api
from bert_embeddings.analysis import concepts, vocab_search
from bert_embeddings.errors import LessonError
from bert_embeddings.lessons import builtin, expressions, figure_kit, figures, lesson
from bert_embeddings.lessons.expressions import Expression, ExpressionError
from testkit.random_models import family_configs, write_random_bert, write_random_model

pytestmark = pytest.mark.usefixtures("offline")


def said(result: figures.Result) -> str:
    return figures.as_text(result)


# --- the syntax ----------------------------------------------------------------------------------


def test_a_figure_is_a_name_and_named_values_in_double_braces():
    """Bare values, quoted values with spaces, and the text around them kept as typed."""
    parts = expressions.split('The {{pieces text="I am Sinan"}} of {{width}}, {{neighbours word=dog k=3}}.')
    assert parts[0] == "The " and parts[2] == " of " and parts[4] == ", " and parts[6] == "."
    assert parts[1] == Expression("pieces", (("text", "I am Sinan"),), '{{pieces text="I am Sinan"}}')
    assert parts[3].name == "width" and parts[3].args == ()
    assert parts[5].args == (("word", "dog"), ("k", "3"))
    assert expressions.split("no figure at all") == ["no figure at all"]


@pytest.mark.parametrize(
    "written, named",
    [
        ("{{width", "never closes it"),
        ("{{Width}}", "lower-case letters"),
        ("{{}}", "does not start with a figure's name"),
        ('{{"width"}}', "a quoted value follows name="),
        ("{{neighbours dog}}", "'dog' is not an argument"),
        ("{{neighbours word=dog word=cat}}", "gives word twice"),
        ('{{pieces text="I am}}', 'ends with "'),
        ('{{pieces text="a"b}}', "space after a quoted value"),
        ("{{width {x}}}", "no other braces"),
        ("{{width}} " * (expressions.MOST_PER_TEXT + 1), f"more than {expressions.MOST_PER_TEXT} figures"),
        (
            "{{pieces text=" + "a" * expressions.MOST_LENGTH + "}}",
            f"a figure has at most {expressions.MOST_LENGTH}",
        ),
    ],
)
def test_a_figure_that_cannot_be_read_is_named_with_why(written, named):
    with pytest.raises(ExpressionError, match=re.escape(named)):
        expressions.split(written)


@pytest.mark.parametrize(
    "written, named",
    [
        ("{{nope}}", "no figure is called 'nope'"),
        ("{{width x=1}}", "width takes no arguments, not x"),
        ("{{neighbours k=3}}", "neighbours needs word="),
        ("{{neighbours word=dog k=0}}", "k='0' is not a whole number from 1 to 100"),
        ("{{mean_cosine table=layer}}", "table='layer' is not one of token, output"),
        ("{{kept piece=dog end=seven}}", "end='seven' is not token, output, last or a layer's number"),
    ],
)
def test_an_unknown_figure_or_argument_is_named(written, named):
    assert any(named in problem for problem in figures.problems(f"Text {written}.")), figures.problems(
        written
    )


def test_reading_figures_is_linear_in_the_text_whatever_it_holds():
    """Hostile texts of 200,000 characters are read (or refused) in well under a second each."""
    for hostile in ("{{" * 100_000, "{{a " + '"' * 200_000, "}}{{ " * 40_000, "{" * 200_000):
        started = time.perf_counter()
        try:
            expressions.split(hostile)
        except ExpressionError:
            pass
        assert time.perf_counter() - started < 1.0


def test_lesson_check_names_each_bad_figure_with_its_step_and_field(tmp_path):
    """Opening a lesson refuses one whose figures are unknown, and `lesson FILE --check` says which."""
    text = (
        'title = "T"\n\n[[step]]\ntitle = "One"\ntext = "It has {{width}} numbers."\n'
        '[step.view]\npage = "tokens"\n\n[[step]]\ntitle = "Two"\ntext = "{{nope}} and {{width x=1}}"\n'
        'question = "Q?"\nanswer = "{{neighbours}}"\n[step.view]\npage = "tokens"\n'
    )
    with pytest.raises(LessonError) as refused:
        lesson.read(text)
    problems = refused.value.problems if hasattr(refused.value, "problems") else str(refused.value)
    for expected in (
        "step 2, text: '{{nope}}'",
        "step 2, text: '{{width x=1}}'",
        "step 2, answer: '{{neighbours}}'",
    ):
        assert expected in str(problems)
    assert "step 1" not in str(problems)
    path = tmp_path / "bad.toml"
    path.write_text(text)
    run = subprocess.run(
        [sys.executable, "-m", "bert_embeddings", "lesson", str(path), "--check"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "step 2, text: '{{nope}}': no figure is called 'nope'" in run.stdout + run.stderr


def test_figures_stand_inside_bold_and_code_stays_code():
    """A figure in bold is bold; a piece a figure gives is code, whatever characters it holds."""
    model = api.load("bundled")
    facts = figures.Facts.of(model)
    rendered = figures.render('**{{width}} numbers** and {{pieces text="a * b `c"}}', facts)
    (paragraph,) = rendered.paragraphs
    assert paragraph[0].kind == "bold" and "".join(s.text for s in paragraph[:2]) == "384 numbers"
    codes = [s.text for s in paragraph if s.kind == "code"]
    assert codes == list(model.encode("a * b `c").pieces)


# --- every figure of the built-in lessons, on two models -------------------------------------------


def unit_rows(rows: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 in float64; a zero row (a random checkpoint's [PAD]) stays 0, so
    its cosine with any row is 0, as the pages count it."""
    rows = rows.astype(np.float64)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)


def brute_nearest(table: np.ndarray, special: np.ndarray, query_ids: tuple[int, ...], k: int) -> list[int]:
    """The k rows nearest by cosine to the mean of ``query_ids``' rows (float64, every row), the
    query's own rows and the special rows left out, ties by the lower id."""
    unit = unit_rows(table)
    query = table[list(query_ids)].astype(np.float64).mean(axis=0)
    scores = unit @ (query / np.linalg.norm(query))
    scores[list(query_ids)] = -np.inf
    scores[special] = -np.inf
    return list(np.lexsort((np.arange(len(scores)), -scores))[:k])


def mean_cosine_and_parts(rows: np.ndarray) -> tuple[float, np.ndarray]:
    """The mean cosine over every pair of distinct rows, and each dimension's part, in float64:
    with S the sum of the unit rows, the pairs' sum is |S|^2 - n, dimension by dimension."""
    unit = unit_rows(rows)
    n = len(unit)
    parts = (unit.sum(axis=0) ** 2 - (unit**2).sum(axis=0)) / (n * (n - 1))
    return float(parts.sum()), parts


def in_geometry(rows: np.ndarray, name: str, d: int) -> np.ndarray:
    """raw, centred, or all-but-the-top (Mu and Viswanath: centre, then remove the top D principal
    directions), with numpy's SVD."""
    if name == "raw":
        return rows
    centred = rows.astype(np.float64) - rows.astype(np.float64).mean(axis=0)
    if name == "centred":
        return centred
    top = np.linalg.svd(centred, full_matrices=False)[2][:d]
    return centred - (centred @ top.T) @ top


class Reference:
    """What each figure should say for ``model``, computed without lessons.figures."""

    def __init__(self, model):
        self.model = model
        self.tokenizer = model.tokenizer
        self.table = model.tables.word_embeddings
        self.index = vocab_search.build_index(self.table, self.tokenizer)
        self._output = None
        self._compared = {}

    def ids_of(self, word: str) -> list[int]:
        exact = self.tokenizer.token_to_id(word)
        return [exact] if exact is not None else self.tokenizer.encode(word, add_special_tokens=False).ids

    def output_table(self) -> np.ndarray:
        if self._output is None:
            self._output = api.space(self.model, "output").vectors
        return self._output

    def rows(self, table: str) -> np.ndarray:
        return self.table if table == "token" else self.output_table()

    def last(self, stage: str) -> str:
        return str(self.model.config["num_hidden_layers"]) if stage == "last" else stage

    def compared(self, a: str, b: str):
        key = (self.last(a), self.last(b))
        if key not in self._compared:
            self._compared[key] = api.compare(
                api.space(self.model, key[0]), api.space(self.model, key[1]), k=10
            )
        return self._compared[key]

    def d(self, given: str | None) -> int:
        return int(given) if given else max(1, min(20, self.table.shape[1] // 100))

    def card(self, start: str, end: str, geometry_name: str):
        return api.axis_card(self.model, start, end, [], geometry_name).card

    def said(self, e: Expression) -> str:
        a, m, n = dict(e.args), self.model, figure_kit.number
        encoding = lambda: self.tokenizer.encode(a["text"], a.get("b") or None)  # noqa: E731
        pieces = lambda found: " and ".join([", ".join(found[:-1]), found[-1]] if len(found) > 1 else found)  # noqa: E731
        match e.name:
            case "model":
                return m.name
            case "width":
                return f"{m.config.get('embedding_size', m.config['hidden_size']):,}"
            case "vocab":
                return f"{m.config['vocab_size']:,}"
            case "positions":
                return f"{m.config['max_position_embeddings']:,}"
            case "segments":
                return f"{m.config['type_vocab_size']:,}"
            case "layers":
                return f"{m.config['num_hidden_layers']:,}"
            case "module":
                return api.verify(m, "a").module_name
            case "opening" | "closing":
                return encoding_of(self, "a")[0 if e.name == "opening" else -1]
            case "pieces":
                return pieces(encoding().tokens)
            case "ids":
                return pieces([str(i) for i in encoding().ids])
            case "count":
                return str(len(encoding().ids))
            case "word_pieces":
                return pieces(self.tokenizer.encode(a["word"], add_special_tokens=False).tokens)
            case "proof":
                return n(api.verify(m, a["text"]).max_abs_error)
            case "position_lengths":
                lengths = np.linalg.norm(m.tables.position_embeddings.astype(np.float64), axis=1)
                return f"{lengths.min():.2f} to {lengths.max():.2f}"
            case "pca_share":
                share = PCA(n_components=10, svd_solver="full").fit(self.table).explained_variance_ratio_
                return figure_kit.percent(share[: int(a.get("n", 2))].sum(), 1)
            case "neighbours":
                found = brute_nearest(
                    self.table, self.index.special, tuple(self.ids_of(a["word"])), int(a["k"])
                )
                return pieces([self.index.pieces[i] for i in found])
            case "context":
                states = [api.hidden_states(m, a[s]) for s in ("s1", "s2")]
                layer = -1 if a.get("layer", "last") == "last" else int(a["layer"])
                ids = self.ids_of(a["word"])
                where = [
                    [i for i, t in enumerate(api.tokenize(m, a[s]).ids.tolist()) if t in ids]
                    for s in ("s1", "s2")
                ]
                x, y = (states[j][layer][where[j]].mean(axis=0).astype(np.float64) for j in (0, 1))
                return n(x @ y / np.linalg.norm(x) / np.linalg.norm(y))
            case "mean_cosine":
                rows = in_geometry(self.rows(a["table"]), a.get("geometry", "raw"), self.d(a.get("d")))
                return n(mean_cosine_and_parts(rows)[0])
            case "top_dimensions" | "top_share" | "top_multiple":
                mean, parts = mean_cosine_and_parts(self.rows(a["table"]))
                if abs(mean) < 0.01:  # shares of next to nothing are said not to be shares, as on the page
                    return f"(the mean cosine is {n(mean)}, too near 0 to share out)"
                top = np.lexsort((np.arange(len(parts)), -parts))[
                    : int(a.get("n", 3 if e.name != "top_multiple" else 1))
                ]
                if e.name == "top_dimensions":
                    return pieces([str(t) for t in top])
                share = parts[top].sum() / mean
                return (
                    figure_kit.percent(share) if e.name == "top_share" else f"{round(share * len(parts)):,}"
                )
            case "pairs":
                count = self.table.shape[0]
                return f"{count * (count - 1) // 2:,}"
            case "default_d":
                return str(self.d(None))
            case "axis_held":
                card = self.card(a["start"], a["end"], a.get("geometry", "raw"))
                return f"{card.held_out} of {card.held_total}"
            case "axis_beats":
                return figure_kit.percent(self.card(a["start"], a["end"], a.get("geometry", "raw")).beats, 1)
            case "axis_verdict":
                return self.card(a["start"], a["end"], a.get("geometry", "raw")).verdict()
            case "axis_further":
                words = [w.strip() for w in a["words"].split(",")]
                placed = api.axis_coordinates(m, a["start"], a["end"], words)
                return words[0] if placed[words[0]] >= placed[words[1]] else words[1]
            case "overlap":
                return n(self.compared(a.get("start", "token"), a.get("end", "output")).mean_overlap_10)
            case "cka":
                return n(self.compared(a.get("start", "token"), a.get("end", "output")).cka)
            case "kept":
                found = self.compared(a.get("start", "token"), a.get("end", "output"))
                row = found.pieces.index(a["piece"])
                kept = len(set(found.lists_a[row].tolist()) & set(found.lists_b[row].tolist()))
                return f"{kept} of 10"
            case "movers":
                found = self.compared(a.get("start", "token"), a.get("end", "output"))
                rows = np.flatnonzero(~self.index.special)
                order = np.lexsort((rows, found.second_order[rows], found.overlap[rows]))
                return pieces([found.pieces[r] for r in rows[order][: int(a.get("n", 6))]])
            case "stage_cosine":
                return n(mean_cosine_and_parts(api.space(m, self.last(a["stage"])).vectors)[0])
        raise AssertionError(f"no reference for {e.name}")


def encoding_of(reference: Reference, text: str) -> list[str]:
    return reference.tokenizer.encode(text).tokens


def builtin_expressions() -> list[tuple[str, int, Expression]]:
    found = []
    for name in builtin.names():
        for number, step in enumerate(builtin.load(name).steps, 1):
            for text in (step.text, step.question, step.answer, step.notes):
                found.extend((name, number, e) for e in expressions.expressions(text))
    return found


def test_every_figure_has_a_reference_and_the_lessons_name_only_known_ones():
    """The reference above covers each figure there is; the lessons use figures of the list only."""
    named = {e.name for _, _, e in builtin_expressions()}
    assert named <= set(figures.FIGURES)
    source = open(__file__, encoding="utf-8").read()
    for name in figures.FIGURES:
        if name not in ("rank", "cosine", "id"):  # not in the lessons: tests of their own below
            assert f'"{name}"' in source, f"the reference has no case for {name}"


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    """A random checkpoint of another width (each whole-vocabulary figure costs width x 30,522
    squared), bert-base's 512 positions, and one encoder layer (its last)."""
    folder = tmp_path_factory.mktemp("random-96")
    return write_random_bert(folder, seed=3, hidden=96, positions=512, layers=1, heads=12)


@pytest.mark.slow(
    "every figure of the built-in lessons on two models: whole tables, stage spaces and their lists"
)
@pytest.mark.parametrize("which", ["bundled", "random-96"])
def test_every_figure_the_builtin_lessons_show_is_that_models(which, wide):
    """Each lesson's every figure, as the bar shows it for this model, equals the reference. (The
    stage tables and lists come from the run's cache folder when another test made them: the
    reference computes its own.)"""
    model = api.load("bundled" if which == "bundled" else str(wide))
    assert model.tables.word_embeddings.shape[1] == (384 if which == "bundled" else 96)
    facts, reference = figures.Facts.of(model), Reference(model)
    shown_any = 0
    for lesson_name, number, expression in builtin_expressions():
        result = figures.value(expression, facts)
        where = f"{lesson_name} step {number}: {expression.source}"
        assert not (isinstance(result, figures.Missing) and result.pending), where
        assert said(result) == reference.said(expression), where
        shown_any += 1
    assert shown_any > 60
    for lesson_name in builtin.names():  # what the bar shows holds each figure, and no NaN
        for step in builtin.load(lesson_name).steps:
            shown = " ".join(
                "".join(span.text for span in p) for p in figures.render(step.text, facts).paragraphs
            )
            assert "nan" not in shown.lower().split() and "{{" not in shown


def test_pieces_cosine_rank_and_id_against_brute_force():
    """The figures no built-in lesson names yet, on the bundled model."""
    model = api.load("bundled")
    facts, reference = figures.Facts.of(model), Reference(model)
    dog, puppy = reference.ids_of("dog")[0], reference.ids_of("puppy")[0]
    rows = model.tables.word_embeddings[[dog, puppy]].astype(np.float64)
    expected = rows[0] @ rows[1] / np.linalg.norm(rows[0]) / np.linalg.norm(rows[1])
    value = lambda text: said(figures.value(expressions.expressions(text)[0], facts))  # noqa: E731
    assert value("{{cosine a=dog b=puppy}}") == figure_kit.number(expected)
    assert value("{{id word=dog}}") == str(dog)
    nearest = brute_nearest(model.tables.word_embeddings, reference.index.special, (dog,), 100)
    assert value("{{rank piece=puppy of=dog}}") == str(nearest.index(puppy) + 1)
    assert value("{{id word=Sinan}}").startswith("(") and "is 2 pieces" in value("{{id word=Sinan}}")


def test_a_model_without_a_segment_table_says_so_in_words(tmp_path):
    """DistilBERT has no segment table: the step says so, and every other figure of the first
    lesson is still that model's."""
    folder = write_random_model(tmp_path / "distil", family_configs()["distilbert"])
    model = api.load(str(folder))
    facts = figures.Facts.of(model)
    assert said(figures.value(expressions.expressions("{{segments}}")[0], facts)) == (
        f"({model.name} has no segment table)"
    )
    for step in builtin.load("embeddings").steps:
        shown = figures.render(step.text, facts)
        text = " ".join("".join(s.text for s in p) for p in shown.paragraphs)
        assert "{{" not in text and "nan" not in text.lower().split()


# --- the lessons' own words ------------------------------------------------------------------------

# Numbers a lesson may write in its prose: they hold for every model (the toy table's cosines are
# the toy's; the verdict's 95% and the card's 1,000 random axes are the card's own rules).
MODEL_FREE = {"1", "0", "3", "95%", "1,000", "10", "100", "2", "5", "6", "8", "9", "1e-5"}


def test_no_lesson_types_a_models_figure_or_pins_a_model():
    """Outside the toy step, every number in a lesson's prose is one that holds for any model; no
    step's view names a model (What moved compares the sidebar's model with itself)."""
    for name in builtin.names():
        for number, step in enumerate(builtin.load(name).steps, 1):
            assert "model" not in dict(step.view), f"{name} step {number} pins a model"
            if dict(step.view).get("vs"):
                assert dict(step.view)["vs"] == "same"
            if name == "embeddings" and number == 1:
                continue
            for text in (step.text, step.question, step.answer, step.notes):
                prose = re.sub(r"\{\{.*?\}\}|`[^`]*`", " ", text)
                for found in re.findall(r"(?<![\w.])\d[\d,.]*(?:e-\d+|%)?(?!\w)", prose):
                    assert found.rstrip(".,") in MODEL_FREE, f"{name} step {number} types {found!r}"


def toy_cosines() -> tuple[list[str], np.ndarray]:
    items = dict(builtin.load("embeddings").steps[0].view)["items"]
    space = concepts.parse(items)
    unit = np.asarray(space.vectors, dtype=np.float64)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    return list(space.names), unit @ unit.T


def test_the_toy_steps_cosines_are_the_toy_tables():
    """The first step's figures are the toy table's, not a model's: the birds' cosines, the
    helicopter's, and the drone's tie."""
    names, similarity = toy_cosines()
    text = " ".join(" ".join((s.text, s.answer)) for s in builtin.load("embeddings").steps[:1])
    at = {name: i for i, name in enumerate(names)}
    birds = [at["bee"], at["eagle"], at["goose"]]
    among = [similarity[i, j] for i in birds for j in birds if i < j]
    helicopter = [similarity[at["helicopter"], i] for i in birds]
    assert f"cosines from {min(among):.2f} to {max(among):.2f}" in text
    assert f"only {min(helicopter):.2f} to {max(helicopter):.2f}" in text
    drone = at["drone"]
    ranked = sorted((i for i in range(len(names)) if i != drone), key=lambda i: -similarity[drone, i])
    assert {names[ranked[0]], names[ranked[1]]} == {"helicopter", "rocket"}
    assert similarity[drone, ranked[0]] == pytest.approx(similarity[drone, ranked[1]], abs=1e-12)
    assert f"cosine {similarity[drone, ranked[0]]:.3f}" in text and names[ranked[2]] == "jet"
    assert f"({similarity[drone, ranked[2]]:.3f})" in text


def test_the_docs_list_every_figure_with_what_it_gives():
    """docs/lessons.md's table names each figure, its arguments and what it gives, as the code does."""
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "lessons.md").read_text(encoding="utf-8")
    docs = docs[docs.index("## Figures in a lesson's text") :]
    for found in figures.FIGURES.values():
        row = next((line for line in docs.splitlines() if line.startswith(f"| `{found.name}` |")), "")
        assert row.endswith(f"| {found.about} |"), found.name
        for argument in found.args:
            assert argument in row.split("|")[2], (found.name, argument)
