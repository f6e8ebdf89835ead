"""examples/seeds_replayed.ipynb runs from top to bottom on the bundled model, offline, in a real
Jupyter kernel: every cell's asserts (the seeds' ids, shapes and the LayerNorm proof, beside the
explorer's answers) hold, so the notebook cannot rot. A failing cell fails this test."""

from __future__ import annotations

import json
import os
import sys

import nbformat
import pytest
from nbclient import NotebookClient

from testkit.apptest import ROOT

# One test process runs this file: its tests share what it starts (make test runs two).
pytestmark = pytest.mark.xdist_group("notebook")


NOTEBOOK = ROOT / "examples" / "seeds_replayed.ipynb"


KERNEL = "bert-explorer-tests"  # a kernel of this interpreter, under a name no other install uses


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The notebook run afresh (outputs cleared first), as a reader would run it from examples/,
    in a kernel of the interpreter running the tests (not whatever "python3" names elsewhere)."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    kernels = tmp_path_factory.mktemp("jupyter")
    (kernels / "kernels" / KERNEL).mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec = {"argv": argv, "display_name": "the tests' Python", "language": "python"}
    (kernels / "kernels" / KERNEL / "kernel.json").write_text(json.dumps(spec))
    client = NotebookClient(
        notebook, timeout=600, kernel_name=KERNEL, resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(kernels))  # searched before the user's and the system's kernels
        # The kernel is a child process: it finds the package in the clone, as after `pip install .`.
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        patch.setenv("HF_HUB_OFFLINE", "1")
        client.execute()  # raises CellExecutionError, naming the cell, on the first failing one
    return notebook


def outputs(notebook) -> str:
    return "\n".join(
        out.get("text", "") + str(out.get("data", {}).get("text/plain", ""))
        for cell in notebook.cells
        if cell.cell_type == "code"
        for out in cell.outputs
    )


@pytest.mark.server("a Jupyter kernel runs the notebook")
def test_every_cell_runs_and_no_cell_errs(executed):
    codes = [cell for cell in executed.cells if cell.cell_type == "code"]
    assert [c.execution_count for c in codes] == list(range(1, len(codes) + 1))
    assert not [out for c in codes for out in c.outputs if out.output_type == "error"]


@pytest.mark.server("a Jupyter kernel runs the notebook")
def test_the_seeds_figures_are_printed_as_asserted(executed):
    printed = outputs(executed)
    for expected in (
        "[101, 1045, 2572, 8254, 2319, 102]",
        "[[101, 2023, 2003, 1037, 3231, 6251, 102]]",
        "[[101, 7592, 1010, 2088, 999, 102]]",
        "[[101, 3899, 102]]",
        "Tokens: ['i', 'love', 'mathematics', '!']",
        "Token IDs: [1045, 2293, 5597, 999]",
        "by hand: (1, 6, 384)  module: (1, 6, 384)",
        "(1, 6, 768)",
        "[CLS] rows equal True, [SEP] rows equal True",
    ):
        assert expected in printed, expected


def test_each_seed_has_its_section_with_asserts():
    """Every seed's cells are replayed with its own transformers calls, checked by asserts."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    for call in (
        "model.embeddings.word_embeddings(",
        "model.embeddings.position_embeddings(torch.LongTensor(range(6)))",
        "model.embeddings.token_type_embeddings(torch.LongTensor([0] * 6))",
        "model.embeddings.LayerNorm(token_rows + position_rows + segment_rows)",
        "base.embeddings.LayerNorm(input_embed)",
        "tokenizer.convert_tokens_to_ids(tokens)",
        "api.verify(",
        "layer.word_embeddings.weight[2088]",
        "output_hidden_states=True",
    ):
        assert call in code, call
    assert code.count("assert ") >= 30
    markdown = " ".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    assert "They are learned" in markdown  # the seeds' "not learnable" corrected


def test_the_stored_notebook_was_run_and_names_no_local_path():
    """What GitHub shows is a complete run, and no path of the machine that ran it."""
    text = NOTEBOOK.read_text()
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert all(cell.execution_count for cell in notebook.cells if cell.cell_type == "code")
    assert str(ROOT) not in text and "/overview/" not in text and "Traceback" not in text
