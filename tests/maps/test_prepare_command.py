"""``python -m bert_embeddings map MODEL``: a host computes a model's maps ahead of time, into
the cache folder the app reads; every bad input gets a message, an exit code and no files."""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import numpy as np
import pytest

from bert_embeddings import __main__ as command
from bert_embeddings.jobs import files
from bert_embeddings.maps import map_jobs, neighbour_map
from bert_embeddings.models import checkpoints
from testkit.apptest import ROOT

pytestmark = pytest.mark.server("the host's command, computing maps in a process")

ITERATIONS = "30"


def run(*args: str, cache, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "BERT_EXPLORER_CACHE": str(cache), "BERT_EXPLORER_MAP_ITERATIONS": ITERATIONS}
    return subprocess.run(
        [sys.executable, "-m", "bert_embeddings", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def files_under(folder) -> list:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


# The command computes over a model's whole vocabulary; these random models keep the first 4,000
# of its 30,522 pieces, so that their maps and stage spaces take a fraction of the time.
PIECES = 4000


@pytest.fixture(scope="module")
def small_model(tmp_path_factory):
    from testkit.random_models import keep_first_pieces, write_random_bert

    return keep_first_pieces(write_random_bert(tmp_path_factory.mktemp("small"), hidden=16, seed=4), PIECES)


@pytest.fixture(scope="module")
def two_layers(tmp_path_factory):
    """A random 2-layer model for ``--stages`` (each test keeps its spaces in a cache of its own)."""
    from testkit.random_models import keep_first_pieces, write_random_bert

    folder = tmp_path_factory.mktemp("two-layers") / "two"
    return keep_first_pieces(write_random_bert(folder, layers=2, seed=8, hidden=16), PIECES)


def test_help_says_what_it_does_where_and_how_it_ends(tmp_path):
    shown = run("map", "--help", cache=tmp_path / "cache")
    assert shown.returncode == 0
    text = " ".join(shown.stdout.split())
    for said in (
        "t-SNE map",
        "BERT_EXPLORER_CACHE",
        str(tmp_path / "cache"),
        "BERT_EXPLORER_MAP_ITERATIONS, now 30",
        "MODEL",
        "--revision",
        "--geometry",
        "--d",
        "nothing half-written",
        "0 the maps are there",
        "2 the model or an option cannot be used",
        "3 the cache folder cannot take the map",
        "130 interrupted",
        "143 stopped (SIGTERM)",
        "lowest CPU priority",
    ):
        assert said in text, said
    assert run(cache=tmp_path).returncode == 2  # no command: argparse's usage and its exit code


@pytest.mark.parametrize(
    "args, said",
    [
        (["no-such-owner/no-such-model"], "cannot be asked for it"),
        (["/"], "no config.json"),
        (["not a model!"], "is not a Hugging Face Hub id"),
        (["bundled", "--geometry", "all-but-the-top", "--d", "0"], "1 to 20"),
        (["bundled", "--geometry", "all-but-the-top", "--d", "21"], "1 to 20"),
        # D is checked whatever the geometry (these once started computing a raw map)
        (["bundled", "--d", "99"], "must be from 1 to 20; 99 is outside"),
        (["bundled", "--geometry", "raw", "--d", "-4"], "must be from 1 to 20; -4 is outside"),
        (["bundled", "--d", "2.5"], "must be a whole number from 1 to 20"),
        (["bundled", "--geometry", "bogus"], "'bogus' is not a geometry here"),
        # a revision for a model that has none was silently ignored
        (["bundled", "--revision", "nosuchrev"], "--revision is for a Hub model"),
    ],
)
def test_a_model_or_option_that_cannot_be_used_exits_2_and_writes_nothing(tmp_path, args, said):
    cache = tmp_path / "cache"
    done = run("map", *args, cache=cache)
    assert done.returncode == command.WRONG_INPUT, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr
    assert files_under(cache) == []


def test_a_d_beyond_a_small_tables_rank_exits_2(tmp_path, small_model):
    done = run("map", str(small_model), "--geometry", "all-but-the-top", "--d", "20", cache=tmp_path / "c")
    assert done.returncode == command.WRONG_INPUT and "too few to remove 20 directions" in done.stderr
    assert files_under(tmp_path / "c") == []


def test_a_cache_folder_that_is_a_file_exits_3(tmp_path, small_model):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    done = run("map", str(small_model), cache=blocker)
    assert done.returncode == command.NO_STORAGE, done.stderr
    assert "not a folder" in done.stderr and "BERT_EXPLORER_CACHE" in done.stderr
    assert blocker.read_text() == "not a folder"
    # said to the host who runs the command, not to a reader of the app's page
    assert "run it again" in done.stderr and "this server" not in done.stderr and "page" not in done.stderr


def test_sigterm_removes_the_unfinished_map_and_the_command_runs_at_idle_priority(tmp_path, small_model):
    """The command computes at SCHED_IDLE, as the app's worker does (a 30-follower workshop beside
    a command at normal priority missed 23 of 300 updates). SIGTERM, like Ctrl-C, leaves no part
    of the map behind (it once left an empty map folder)."""
    import signal
    import time

    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k != "BERT_EXPLORER_JOB_PRIORITY"}  # the default
    env.update({"BERT_EXPLORER_CACHE": str(cache), "BERT_EXPLORER_MAP_ITERATIONS": "5000"})
    process = subprocess.Popen(
        [sys.executable, "-m", "bert_embeddings", "map", str(small_model)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        idle = False
        while process.poll() is None and not idle:
            try:
                idle = os.sched_getscheduler(process.pid) == os.SCHED_IDLE
            except ProcessLookupError:
                break
            time.sleep(0.05)
        if idle:  # seen; now let it run at once, so that on a busy machine it reaches SIGTERM's handler
            os.sched_setscheduler(process.pid, os.SCHED_OTHER, os.sched_param(0))
        while process.poll() is None and not list(cache.glob("maps/*/*")):  # its map's folder is made
            time.sleep(0.05)
        assert idle and process.poll() is None, "the command ended before it was seen computing"
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == command.TERMINATED, err
    assert "the unfinished map was removed" in err
    assert files_under(cache) == [] and not list(cache.glob("maps/*/*"))


def test_a_full_disk_exits_3_and_leaves_no_part_of_the_map(tmp_path, small_model, monkeypatch, capsys):
    """The disk fills after the first array is written: the message says so, and neither that
    array nor anything else of the map stays."""
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("BERT_EXPLORER_MAP_ITERATIONS", ITERATIONS)
    real, written = files.write_atomically, []

    def fills_up(path, data):
        if written:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(path)
        real(path, data)

    monkeypatch.setattr(files, "write_atomically", fills_up)
    assert command.main(["map", str(small_model)]) == command.NO_STORAGE
    assert "that disk is full" in capsys.readouterr().err
    assert written and not written[0].exists()
    assert files_under(tmp_path / "cache") == []


def test_the_maps_are_the_apps_computed_once_and_kept(tmp_path, small_model, monkeypatch):
    """raw and centred maps land where the app looks for them (map_jobs.folder_for, with the
    names the app gives), equal to the map computed here to the last bit; a second run finds
    them and computes nothing."""
    cache = tmp_path / "cache"
    done = run("map", str(small_model), "--geometry", "raw", "--geometry", "centred", cache=cache)
    assert done.returncode == command.DONE, done.stderr
    assert "exact neighbours" in done.stderr and "100%" in done.stderr  # the progress bar
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(cache))
    monkeypatch.setenv("BERT_EXPLORER_MAP_ITERATIONS", ITERATIONS)
    from bert_embeddings.analysis import geometry

    table = checkpoints.load_model(str(small_model)).tables.word_embeddings
    settings = map_jobs.default_settings()
    assert settings.iterations == int(ITERATIONS)
    for shape, rows in (
        (("raw", 0), table),
        (("centred", 0), geometry.transformed_table(table, geometry.fit(table, "centred"))),
    ):
        folder = map_jobs.folder_for(map_jobs.map_name(files.fingerprint(table), shape), settings)
        kept = map_jobs.load(folder, len(table))
        assert kept is not None, shape
        expected = neighbour_map.compute(rows, settings, threads=1)
        np.testing.assert_array_equal(kept.coords, expected.coords)
        assert f"{shape[0]}: computed" in done.stdout
    again = run("map", str(small_model), "--geometry", "centred", cache=cache)
    assert again.returncode == command.DONE and "centred: already there" in again.stdout


def test_stages_prepares_every_stage_space_the_page_reads_and_keeps_them(
    tmp_path, two_layers, monkeypatch, capsys
):
    """``--stages``: each stage's table and its exact lists, as the page's job makes them; a second
    run finds them all there; a cache folder that is a file exits 3 with the stage spaces named."""
    from bert_embeddings.spaces import compare, pair, space_jobs, stages

    folder = two_layers
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    assert command.main(["map", str(folder), "--stages", "--geometry", "centred"]) == command.DONE
    said = capsys.readouterr().out
    assert said.count(": computed, in ") == 4 and "centred, layer 2: computed" in said
    model = checkpoints.load_model(str(folder))
    spaces = space_jobs.folder_for(space_jobs.model_key(model))
    layers = stages.layer_tables(model)
    for stage in stages.stage_names(model):
        spec = space_jobs.Spec(str(model.folder), stage, ("centred", 0))
        lists = space_jobs.lists_for(spaces, spec)
        table = pair.space_of(model, stage, compute=False).vectors
        if stage not in ("token", "output"):
            np.testing.assert_allclose(table, layers[int(stage) - 1], atol=1e-5)
        np.testing.assert_array_equal(lists, compare.neighbour_lists(compare.in_geometry(table, "centred")))
    assert command.main(["map", str(folder), "--stages", "--geometry", "centred"]) == command.DONE
    assert capsys.readouterr().out.count(": already there, in ") == 4
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(blocker))
    assert command.main(["map", str(folder), "--stages"]) == command.NO_STORAGE
    assert "The stage spaces cannot be kept" in capsys.readouterr().err


def test_stages_show_the_maps_progress_bar_and_say_each_stage_when_it_is_done(tmp_path, two_layers):
    """``--stages`` printed nothing until every stage was done: each stage now has the map's
    progress bar (its table, then its exact neighbours), and is said as soon as it is there."""
    folder = two_layers
    env = {**os.environ, "BERT_EXPLORER_CACHE": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "bert_embeddings", "map", str(folder), "--stages", "--geometry", "centred"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream, in the order it was written
        text=True,
        timeout=600,
    )
    assert done.returncode == command.DONE, done.stdout
    lines = done.stdout.replace("\r", "\n").splitlines()
    stages = ("token rows", "embedding output", "layer 1", "layer 2")
    for stage in stages:
        bar = [line for line in lines if line.startswith(f"centred, {stage} ") and "[" in line]
        assert any("2/2 exact neighbours" in line and "100%" in line for line in bar), stage
    assert any(line.startswith("centred, layer 1 ") and "1/2 the stage's table" in line for line in lines)
    # each stage is said once it is there: in order, the token rows before layer 2's bar begins
    said = [
        next(i for i, line in enumerate(lines) if line.startswith(f"centred, {s}: computed, in "))
        for s in stages
    ]
    first_bar_of_layer_2 = next(i for i, line in enumerate(lines) if line.startswith("centred, layer 2 "))
    assert said == sorted(said) and said[0] < first_bar_of_layer_2


def test_stages_interrupted_say_what_was_removed_and_keep_what_was_finished(
    tmp_path, two_layers, monkeypatch, capsys
):
    """Ctrl-C during ``--stages`` said "the unfinished map was removed", though no map was made:
    the unfinished stage's half-written files are removed, the stages finished before are kept."""
    from bert_embeddings.spaces import space_jobs

    folder = two_layers
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    real, calls = space_jobs.lists_of, []

    def stopped_at_the_second(table, shape, threads=2, progress=None):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(table, shape, threads, progress)

    monkeypatch.setattr(space_jobs, "lists_of", stopped_at_the_second)
    assert command.main(["map", str(folder), "--stages", "--geometry", "centred"]) == command.INTERRUPTED
    err = capsys.readouterr().err
    assert "unfinished map" not in err and "half-written files were removed" in err
    assert "finished is kept" in err
    model = checkpoints.load_model(str(folder))
    spaces = space_jobs.folder_for(space_jobs.model_key(model))
    assert (
        space_jobs.lists_for(spaces, space_jobs.Spec(str(model.folder), "token", ("centred", 0))) is not None
    )
    assert space_jobs.lists_for(spaces, space_jobs.Spec(str(model.folder), "output", ("centred", 0))) is None
    assert not [p for p in files_under(tmp_path / "cache") if p.name.endswith(".part")]
