"""Fetching a Hub model's embedding layer from a stand-in Hub on 127.0.0.1 (no network)."""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from bert_embeddings import config
from bert_embeddings.errors import DownloadTooLargeError, HubDownloadError, NotBertLikeError
from bert_embeddings.models import checkpoints
from testkit.random_models import write_random_bert
from testkit.stand_in_hub import go_online, stand_in_hub

REPO = "someone/deep-bert"


@pytest.fixture
def isolated_hub(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub-cache"))
    go_online(monkeypatch)
    monkeypatch.delenv(config.MAX_DOWNLOAD_MB, raising=False)
    return tmp_path


@pytest.fixture(scope="module")
def deep_bert(tmp_path_factory):
    """A BERT whose encoder outweighs its embedding layer, as in bert-base (4 layers, hidden 64)."""
    return write_random_bert(tmp_path_factory.mktemp("deep"), hidden=64, positions=64, layers=4, heads=4)


def tensor_names(path):
    with open(path, "rb") as handle:
        length = struct.unpack("<Q", handle.read(8))[0]
        return set(json.loads(handle.read(length))) - {"__metadata__"}


def assert_same_tables(model, folder):
    local = checkpoints.load_model(str(folder))
    for name in ("word_embeddings", "position_embeddings", "token_type_embeddings", "layer_norm_weight"):
        np.testing.assert_array_equal(getattr(model.tables, name), getattr(local.tables, name))


def test_ranged_download_fetches_only_the_embedding_layer(isolated_hub, monkeypatch, deep_bert):
    """With byte ranges, only the header and the embedding tensors cross the wire."""
    progress = []
    with stand_in_hub({REPO: deep_bert}) as (url, requests):
        monkeypatch.setenv("HF_ENDPOINT", url)
        model = checkpoints.load_model(REPO, progress=lambda done, total: progress.append((done, total)))
    weights = deep_bert / "model.safetensors"
    with open(weights, "rb") as handle:
        header = json.loads(handle.read(struct.unpack("<Q", handle.read(8))[0]))
    encoder_bytes = sum(
        end - start
        for key, entry in header.items()
        if key != "__metadata__" and "embeddings" not in key
        for start, end in [entry["data_offsets"]]
    )
    small_files = sum(
        (deep_bert / f).stat().st_size for f in ("config.json", "tokenizer.json", "tokenizer_config.json")
    )
    # Not one byte of the encoder crosses the wire (plus the API's small JSON answer).
    assert requests.bytes_sent <= weights.stat().st_size - encoder_bytes + small_files + 10_000
    assert model.source == "hub"
    assert_same_tables(model, deep_bert)
    saved = model.folder / "model.safetensors"
    assert len(tensor_names(saved)) == 5 and all(
        ".embeddings." in n or n.startswith("embeddings.") for n in tensor_names(saved)
    )
    assert progress and progress[-1][0] == progress[-1][1]  # the progress reached its end


def test_server_without_ranges_gets_the_whole_file(isolated_hub, monkeypatch, deep_bert):
    """A server that ignores Range headers still works: the whole file is fetched."""
    with stand_in_hub({REPO: deep_bert}, ranges=False) as (url, requests):
        monkeypatch.setenv("HF_ENDPOINT", url)
        model = checkpoints.load_model(REPO)
    assert requests.bytes_sent >= (deep_bert / "model.safetensors").stat().st_size
    assert_same_tables(model, deep_bert)


def test_cut_off_download_is_reported_and_not_kept(isolated_hub, monkeypatch, deep_bert):
    """A connection dropped mid-file gives a clear error; a later try downloads afresh."""
    with stand_in_hub({REPO: deep_bert}, drop_after=200_000) as (url, _):
        monkeypatch.setenv("HF_ENDPOINT", url)
        with pytest.raises(HubDownloadError, match="cut off"):
            checkpoints.load_model(REPO)
    folder = config.explorer_cache_dir() / "someone--deep-bert" / "main"
    assert not (folder / "model.safetensors").exists()
    with stand_in_hub({REPO: deep_bert}) as (url, _):
        monkeypatch.setenv("HF_ENDPOINT", url)
        assert_same_tables(checkpoints.load_model(REPO), deep_bert)


def test_too_large_a_model_is_refused_before_fetching(isolated_hub, monkeypatch, deep_bert):
    """Above the size limit the model is refused with its size, and no file is fetched."""
    monkeypatch.setenv(config.MAX_DOWNLOAD_MB, "0.01")
    with stand_in_hub({REPO: deep_bert}) as (url, requests):
        monkeypatch.setenv("HF_ENDPOINT", url)
        with pytest.raises(DownloadTooLargeError, match="more than this server downloads"):
            checkpoints.load_model(REPO)
    assert not any("/resolve/" in r for r in requests)


def test_unsupported_family_is_refused_before_the_weights(isolated_hub, monkeypatch, tmp_path, deep_bert):
    """A GPT-2 on the Hub is named as such; its weights are never fetched."""
    from transformers import GPT2Config

    gpt2 = tmp_path / "gpt2"
    GPT2Config(n_layer=1, n_embd=8, n_head=2).save_pretrained(gpt2)
    (gpt2 / "model.safetensors").write_bytes((deep_bert / "model.safetensors").read_bytes())
    (gpt2 / "tokenizer.json").write_bytes((deep_bert / "tokenizer.json").read_bytes())
    with stand_in_hub({"someone/gpt2": gpt2}) as (url, requests):
        monkeypatch.setenv("HF_ENDPOINT", url)
        with pytest.raises(NotBertLikeError, match="'gpt2' model"):
            checkpoints.load_model("someone/gpt2")
    assert not any(r.endswith("model.safetensors") for r in requests)
