"""A job's result on disk (bert_embeddings.jobs.records): its arrays read back are the arrays
written, and a result whose record is missing, damaged or another's is not done."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from bert_embeddings.jobs import records

DTYPES = {"coords.npy": np.float32, "ids.npy": np.int32}


def arrays(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "coords.npy": (rng.standard_normal((50, 2)), np.float32),
        "ids.npy": (rng.integers(0, 50, size=(50, 10)), np.int32),
    }


def test_a_result_reads_back_as_written_with_a_record_that_says_what_it_holds(tmp_path):
    written = arrays(0)
    meta = {"recall_at_10": 0.41, "settings": {"iterations": 30}}
    records.write(tmp_path, "map", written, meta)
    found = records.read(tmp_path, "map", DTYPES)
    assert found is not None and found.meta == meta
    for file, (array, dtype) in written.items():
        expected = np.ascontiguousarray(array, dtype=dtype)
        np.testing.assert_array_equal(found.arrays[file], expected)
        assert found.arrays[file].dtype == dtype and not found.arrays[file].flags.writeable
    # the record, read as plain JSON: each array's dtype, shape and the sha256 of its file's bytes
    record = json.loads(records.path(tmp_path, "map").read_text())
    for file, (array, dtype) in written.items():
        listed = record["arrays"][file]
        assert listed["dtype"] == np.dtype(dtype).name and listed["shape"] == list(array.shape)
        assert listed["sha256"] == hashlib.sha256((tmp_path / file).read_bytes()).hexdigest()
    assert records.read(tmp_path, "map", DTYPES, lambda r: len(r.arrays["coords.npy"])) == 50
    assert not list(tmp_path.glob("*.part"))


def test_one_array_results_read_back(tmp_path):
    table = np.random.default_rng(1).standard_normal((20, 4))
    records.save_array(tmp_path, "stage-token", table, np.float32)
    np.testing.assert_array_equal(
        records.load_array(tmp_path, "stage-token", np.float32), table.astype(np.float32)
    )
    assert records.load_array(tmp_path, "stage-output", np.float32) is None


@pytest.mark.parametrize("file", list(DTYPES))
def test_a_flipped_byte_in_an_array_is_not_done_and_the_result_is_removed(tmp_path, file):
    records.write(tmp_path, "map", arrays(0))
    data = bytearray((tmp_path / file).read_bytes())
    data[-3] ^= 0x01
    (tmp_path / file).write_bytes(bytes(data))
    assert records.read(tmp_path, "map", DTYPES) is None
    assert not records.path(tmp_path, "map").exists()
    assert not any((tmp_path / name).exists() for name in DTYPES)  # made again, never used


def test_a_missing_array_is_not_done(tmp_path):
    records.write(tmp_path, "map", arrays(0))
    (tmp_path / "ids.npy").unlink()
    assert records.read(tmp_path, "map", DTYPES) is None
    assert not records.path(tmp_path, "map").exists()


def test_arrays_without_their_record_are_not_done_and_are_left_to_their_writer(tmp_path):
    records.write(tmp_path, "map", arrays(0))
    records.path(tmp_path, "map").unlink()  # as while a worker writes: arrays first, record last
    assert records.read(tmp_path, "map", DTYPES) is None
    assert all((tmp_path / name).exists() for name in DTYPES)


def test_the_record_of_another_jobs_arrays_is_not_done(tmp_path):
    # another job's result of the same names in another folder: its record does not vouch for these
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    for folder, seed in ((mine, 0), (theirs, 1)):
        folder.mkdir()
        records.write(folder, "map", arrays(seed))
    records.path(mine, "map").write_bytes(records.path(theirs, "map").read_bytes())
    assert records.read(mine, "map", DTYPES) is None
    assert records.read(theirs, "map", DTYPES) is not None
    # another result's record in the same folder, under this one's name: not this result's
    records.save_array(tmp_path, "lists-a", np.arange(12).reshape(3, 4), np.int32)
    records.save_array(tmp_path, "lists-b", np.arange(12).reshape(3, 4), np.int32)
    records.path(tmp_path, "lists-b").write_bytes(records.path(tmp_path, "lists-a").read_bytes())
    assert records.load_array(tmp_path, "lists-b", np.int32) is None
    assert records.load_array(tmp_path, "lists-a", np.int32) is not None


@pytest.mark.parametrize(
    "asked",
    [
        {"coords.npy": np.float32},  # fewer arrays than the record vouches for
        {**DTYPES, "more.npy": np.int8},  # more
        {"coords.npy": np.float64, "ids.npy": np.int32},  # another dtype
    ],
)
def test_a_record_that_does_not_list_what_is_asked_for_is_not_done(tmp_path, asked):
    records.write(tmp_path, "map", arrays(0))
    assert records.read(tmp_path, "map", asked) is None


@pytest.mark.parametrize(
    "record",
    [
        b"{not json",
        json.dumps({"sha256": {"coords.npy": "0" * 64}}).encode(),  # a record of the older format
    ],
)
def test_an_unreadable_or_older_record_is_not_done(tmp_path, record):
    records.write(tmp_path, "map", arrays(0))
    records.path(tmp_path, "map").write_bytes(record)
    assert records.read(tmp_path, "map", DTYPES) is None
    assert not (tmp_path / "coords.npy").exists()


def test_a_check_that_fails_makes_the_result_not_done(tmp_path):
    records.write(tmp_path, "map", arrays(0))

    def wrong_rows(record):
        raise ValueError("rows")

    assert records.read(tmp_path, "map", DTYPES, wrong_rows) is None
    assert not records.path(tmp_path, "map").exists()
