"""A job's result on disk, written one way for every kind of job: its arrays, then one record
that vouches for them.

A result named ``name`` in a folder is its arrays (``.npy`` files, each written whole under a
temporary name and renamed into place) and, written after the last of them, ``<name>.json``:

    {"format": 1, "name": name,
     "arrays": {"<file>.npy": {"dtype": "float32", "shape": [n, 2], "sha256": "..."}, ...},
     "meta": {...what the kind of job keeps beside its arrays...}}

A result is done only if its record is there, names itself and exactly the arrays asked for
with their dtypes, and every array's bytes match their sha256 and its shape the record's. A
result without a record is not done (its worker may be writing it now: nothing is removed); one
whose record or arrays do not match is removed, record and arrays, so that it is made again.
A record of an older format is such a mismatch, so a folder written before is computed again.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from bert_embeddings.jobs import files

FORMAT = 1
T = TypeVar("T")
DAMAGED = (OSError, ValueError, KeyError, TypeError, IndexError)  # a record or array not to be trusted


@dataclass(frozen=True)
class Record:
    arrays: dict[str, np.ndarray]  # by file name, read-only
    meta: dict


def path(folder: Path, name: str) -> Path:
    """Where the record of the result ``name`` is."""
    return folder / f"{name}.json"


def write(
    folder: Path, name: str, arrays: Mapping[str, tuple[np.ndarray, object]], meta: dict | None = None
) -> None:
    """The result ``name``: each array of ``arrays`` (file name: (array, dtype)) written as that
    dtype, then the record vouching for them (so a crash before it leaves no result, never a
    wrong one)."""
    listed = {}
    for file, (array, dtype) in arrays.items():
        data = files.npy_bytes(array, dtype)
        files.write_atomically(folder / file, data)
        digest = hashlib.sha256(data).hexdigest()
        listed[file] = {"dtype": np.dtype(dtype).name, "shape": list(np.shape(array)), "sha256": digest}
    record = {"format": FORMAT, "name": name, "arrays": listed, "meta": meta or {}}
    files.write_atomically(path(folder, name), json.dumps(record, indent=1).encode())


def read(
    folder: Path,
    name: str,
    dtypes: Mapping[str, object],
    check: Callable[[Record], T] | None = None,
) -> Record | T | None:
    """The result ``name`` if it is done: its arrays (``dtypes``: file name: dtype, exactly the
    record's) each matching its checksum, read-only; ``check(record)``'s answer if given (a
    ValueError, KeyError, TypeError or IndexError from it: the result is not to be trusted).
    None if there is no record; a result that does not match is removed and None."""
    record_file = path(folder, name)
    if not record_file.exists():
        return None
    try:
        record = json.loads(record_file.read_text())
        if record["format"] != FORMAT or record["name"] != name or set(record["arrays"]) != set(dtypes):
            raise ValueError("not this result's record")
        arrays = {
            file: _checked(folder / file, record["arrays"][file], dtype) for file, dtype in dtypes.items()
        }
        found = Record(arrays, dict(record["meta"]))
        if check is not None:
            return check(found)
    except DAMAGED:
        remove(folder, name, dtypes)
        return None
    return found


def _checked(file: Path, listed: dict, dtype) -> np.ndarray:
    """The array in ``file`` if it is what the record lists: its bytes' sha256, dtype and shape."""
    if listed["dtype"] != np.dtype(dtype).name:
        raise ValueError("dtype")
    data = file.read_bytes()
    if hashlib.sha256(data).hexdigest() != listed["sha256"]:
        raise ValueError("checksum")
    array = np.load(io.BytesIO(data), allow_pickle=False)
    if array.dtype != np.dtype(dtype) or list(array.shape) != listed["shape"]:
        raise ValueError("dtype or shape")
    array.flags.writeable = False
    return array


def remove(folder: Path, name: str, arrays: Iterable[str]) -> None:
    """The result ``name``'s record and its arrays (file names), if they are there."""
    path(folder, name).unlink(missing_ok=True)
    for file in arrays:
        (folder / file).unlink(missing_ok=True)


def save_array(folder: Path, name: str, array: np.ndarray, dtype) -> None:
    """A result of one array: ``<name>.npy`` and its record ``<name>.json``."""
    write(folder, name, {f"{name}.npy": (array, dtype)})


def load_array(folder: Path, name: str, dtype) -> np.ndarray | None:
    """The one array of the result ``name`` if it is done, read-only; else None (``read``)."""
    found = read(folder, name, {f"{name}.npy": dtype})
    return None if found is None else found.arrays[f"{name}.npy"]
