"""Stage spaces computed in the background worker, kept on disk and checked by hash: the worker's
tables are the stages' own, its lists each row's exact nearest others (float64 brute force),
a damaged file is computed again, and a second request joins the running job."""

from __future__ import annotations

import time

import numpy as np
import pytest

from bert_embeddings.analysis import geometry
from bert_embeddings.jobs import files, local, records
from bert_embeddings.maps import map_jobs, neighbour_map
from bert_embeddings.models import checkpoints
from bert_embeddings.spaces import aligned, aligned_jobs, compare, space_jobs, stages
from testkit.random_models import keep_first_pieces, write_random_bert

pytestmark = pytest.mark.xdist_group("space_jobs")


@pytest.fixture(scope="module")
def two_layers(tmp_path_factory):
    """A random 2-layer BERT with the first 4,000 pieces of the vocabulary: whatever a stage space
    does with every row, it does with these at a fraction of 30,522 rows' cost."""
    folder = write_random_bert(tmp_path_factory.mktemp("two-layers"), layers=2, seed=3)
    return checkpoints.load_model(str(keep_first_pieces(folder, 4000)))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BERT_EXPLORER_CACHE", str(tmp_path / "cache"))
    local._jobs.clear()
    yield tmp_path / "cache"
    local._jobs.clear()


def finished(key, spec, rows=None, timeout=600.0) -> np.ndarray:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = space_jobs.start(key, spec, rows)
        if isinstance(result, np.ndarray):
            return result
        assert result.failure() is None, (result.folder / files.LOG).read_text()
        time.sleep(0.2)
    raise AssertionError("the space's job did not finish")


def brute_force_lists(table: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """Rows' k nearest others by float64 cosine, ties by the lower row: explicit numpy."""
    unit = table.astype(np.float64) / np.linalg.norm(table.astype(np.float64), axis=1, keepdims=True)
    out = []
    for row in rows:
        cosines = unit @ unit[row]
        cosines[row] = -np.inf
        out.append(np.lexsort((np.arange(len(unit)), -cosines))[:k])
    return np.array(out)


@pytest.mark.server("stage spaces and aligned maps computed by worker processes")
def test_a_layer_stage_is_computed_in_the_background_with_every_layer_kept(cache, two_layers):
    fingerprint = space_jobs.model_key(two_layers)
    spec = space_jobs.Spec(str(two_layers.folder), "2", ("raw", 0))
    job = space_jobs.start(fingerprint, spec)
    assert isinstance(job, local.Job) and space_jobs.start(fingerprint, spec) is job  # joined
    lists = finished(fingerprint, spec)
    folder = space_jobs.folder_for(fingerprint)
    expected = stages.layer_tables(two_layers)
    for layer in (1, 2):
        np.testing.assert_allclose(space_jobs.table_in(folder, str(layer)), expected[layer - 1], atol=1e-5)
    assert lists.shape == (two_layers.vocab_size, compare.MAX_K) and lists.dtype == np.int32
    table = space_jobs.table_in(folder, "2")
    np.testing.assert_array_equal(lists, compare.neighbour_lists(table))  # as this process finds them
    # and, against float64 brute force, each listed cosine is the true k best (up to float32 rows'
    # rounding: this random model's layer 2 has many near ties)
    sample = np.random.default_rng(0).choice(len(lists), 40, replace=False)
    unit = table.astype(np.float64) / np.linalg.norm(table.astype(np.float64), axis=1, keepdims=True)
    for row in sample:
        cosines = unit @ unit[row]
        cosines[row] = -np.inf
        np.testing.assert_allclose(cosines[lists[row]], np.sort(cosines)[::-1][: compare.MAX_K], atol=1e-6)
    assert not (job.folder / files.TABLE).exists() and not list(folder.glob("*.part"))


@pytest.mark.server("stage spaces and aligned maps computed by worker processes")
def test_lists_over_shared_rows_in_a_geometry_and_a_damaged_file_computed_again(cache, two_layers):
    fingerprint = space_jobs.model_key(two_layers)
    rows = np.arange(1000, 1600, dtype=np.int64)
    shape = ("all-but-the-top", 2)
    spec = space_jobs.Spec(str(two_layers.folder), "token", shape, space_jobs.rows_name(rows))
    lists = finished(fingerprint, spec, rows)
    chosen = np.asarray(two_layers.tables.word_embeddings)[rows]
    in_shape = geometry.transformed_table(chosen, geometry.fit(chosen, *shape))
    np.testing.assert_array_equal(lists, brute_force_lists(in_shape, np.arange(len(rows)), compare.MAX_K))
    # a flipped byte: the lists are not used, they are made again
    folder = space_jobs.folder_for(fingerprint)
    name = space_jobs.lists_name("token", shape, spec.rows)
    data = bytearray((folder / f"{name}.npy").read_bytes())
    data[-1] ^= 1
    (folder / f"{name}.npy").write_bytes(bytes(data))
    assert space_jobs.lists_for(folder, spec) is None and not records.path(folder, name).exists()
    np.testing.assert_array_equal(finished(fingerprint, spec, rows), lists)


def test_a_spec_travels_as_json_and_names_are_distinct():
    spec = space_jobs.Spec("/models/x", "output", ("all-but-the-top", 3), "abc")
    assert space_jobs.Spec.from_json(spec.as_json()) == spec
    names = {
        space_jobs.lists_name(stage, shape, rows)
        for stage in ("token", "output", "1")
        for shape in (("raw", 0), ("centred", 0), ("all-but-the-top", 1), ("all-but-the-top", 3))
        for rows in (space_jobs.ALL, "abc")
    }
    assert len(names) == 3 * 4 * 2
    assert space_jobs.rows_name(np.array([1, 2])) != space_jobs.rows_name(np.array([1, 3]))


def test_a_model_whose_encoder_changed_but_not_its_token_rows_has_spaces_of_its_own(tmp_path):
    """The output and layer stages depend on every weight: a fine-tune that kept its embeddings is
    another model's folder of spaces."""
    from safetensors.numpy import load_file, save_file

    first = write_random_bert(tmp_path / "first", layers=1, seed=5)
    second = write_random_bert(tmp_path / "second", layers=1, seed=5)
    weights = load_file(second / "model.safetensors")
    name = next(k for k in weights if "encoder" in k and k.endswith("weight"))
    weights[name] = weights[name] + 1
    save_file(weights, second / "model.safetensors", metadata={"format": "pt"})
    a, b = checkpoints.load_model(str(first)), checkpoints.load_model(str(second))
    np.testing.assert_array_equal(a.tables.word_embeddings, b.tables.word_embeddings)
    assert space_jobs.model_key(a) != space_jobs.model_key(b)
    assert space_jobs.model_key(a) == space_jobs.model_key(checkpoints.load_model(str(first)))


def finished_maps(spec, rows, timeout=600.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = aligned_jobs.start(spec, rows)
        if isinstance(result, aligned.AlignedMaps):
            return result
        assert result.failure() is None, (result.folder / files.LOG).read_text()
        time.sleep(0.2)
    raise AssertionError("the aligned maps' job did not finish")


@pytest.mark.server("stage spaces and aligned maps computed by worker processes")
def test_aligned_maps_are_made_in_the_background_as_in_this_process_and_kept(cache, two_layers):
    key = space_jobs.model_key(two_layers)
    rows = np.arange(2000, 3200, dtype=np.int64)
    name = space_jobs.rows_name(rows)
    shape = ("centred", 0)
    sides = [space_jobs.Spec(str(two_layers.folder), stage, shape, name) for stage in ("token", "output")]
    for side in sides:
        finished(key, side, rows)
    # settings other than the defaults: the worker lays the maps out with the spec's own
    spec = aligned_jobs.PairSpec(key, sides[0], key, sides[1], neighbour_map.Settings(iterations=200, seed=7))
    assert aligned_jobs.PairSpec.from_json(spec.as_json()) == spec
    made = finished_maps(spec, (rows, rows))
    inputs = [aligned_jobs.side_input(key, side, rows) for side in sides]
    tables, lists = tuple(i[0] for i in inputs), tuple(i[1] for i in inputs)
    here = aligned.aligned_maps(tables, lists, spec.settings, threads=1)
    for there, mine in ((made.a, here.a), (made.b, here.b), (made.b_alone, here.b_alone)):
        np.testing.assert_array_equal(there, mine)
    assert (made.recall_a, made.recall_b, made.recall_b_alone) == (
        here.recall_a,
        here.recall_b,
        here.recall_b_alone,
    )
    folder = aligned_jobs.folder_for(spec)
    assert not (folder / "jobs" / "maps" / files.TABLE).exists()
    # a damaged map is not shown: the pair is computed again
    data = bytearray((folder / aligned_jobs.MAPS).read_bytes())
    data[-1] ^= 1
    (folder / aligned_jobs.MAPS).write_bytes(bytes(data))
    assert aligned_jobs.finished(folder) is None and not records.path(folder, aligned_jobs.RECORD).exists()
    # another geometry is another pair, not these maps
    other = aligned_jobs.PairSpec(
        key, sides[0], key, space_jobs.Spec(str(two_layers.folder), "output", ("raw", 0), name)
    )
    assert aligned_jobs.folder_for(other) != folder


def test_aligned_maps_take_the_maps_settings_that_a_host_may_set(monkeypatch):
    """The pair's t-SNE settings are the Maps page's (map_jobs.default_settings, whose iterations
    BERT_EXPLORER_MAP_ITERATIONS sets): they name the pair and travel with its spec to the worker."""
    sides = [space_jobs.Spec("/models/x", stage, ("centred", 0)) for stage in ("token", "output")]
    monkeypatch.delenv("BERT_EXPLORER_MAP_ITERATIONS", raising=False)
    default = aligned_jobs.PairSpec("k", sides[0], "k", sides[1])
    assert default.settings == map_jobs.default_settings()
    monkeypatch.setenv("BERT_EXPLORER_MAP_ITERATIONS", "250")
    hosts = aligned_jobs.PairSpec("k", sides[0], "k", sides[1])
    assert hosts.settings == map_jobs.default_settings() and hosts.settings.iterations == 250
    assert hosts.name() != default.name()
    assert aligned_jobs.PairSpec.from_json(hosts.as_json()).settings.iterations == 250
