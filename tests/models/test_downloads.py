"""Fetching a Hub model's embedding layer through huggingface_hub, from a stand-in Hub on
127.0.0.1 (no network): only the embedding tensors' bytes, once, checked and kept; a token given
as HF_TOKEN or as a saved `hf auth login`; every failure a named error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from safetensors import safe_open

from bert_embeddings import config
from bert_embeddings.errors import (
    DownloadTooLargeError,
    HubDownloadError,
    ModelNotFoundError,
    NotACheckpointError,
    NotBertLikeError,
)
from bert_embeddings.models import checkpoints
from testkit.apptest import ROOT
from testkit.random_models import write_random_bert
from testkit.stand_in_hub import save_login, stand_in_hub, use_hf_home, use_hub, without_retry_waits

REPO = "someone/deep-bert"
TOKEN = "hf_stand_in_token_0123456789"


@pytest.fixture
def isolated_hub(tmp_path, monkeypatch):
    """An empty HF_HOME (its hub cache, no saved login, no HF_TOKEN), and no size limit set."""
    use_hf_home(monkeypatch, tmp_path / "hf-home")
    monkeypatch.delenv(config.MAX_DOWNLOAD_MB, raising=False)
    monkeypatch.delenv(config.CACHE, raising=False)
    return tmp_path


@pytest.fixture(scope="module")
def deep_bert(tmp_path_factory):
    """A BERT whose encoder outweighs its embedding layer, as in bert-base (4 layers, hidden 64)."""
    return write_random_bert(tmp_path_factory.mktemp("deep"), hidden=64, positions=64, layers=4, heads=4)


def tensor_names(path) -> set[str]:
    with safe_open(str(path), framework="numpy") as handle:
        return set(handle.keys())


def assert_same_tables(model, folder):
    local = checkpoints.load_model(str(folder))
    for name in ("word_embeddings", "position_embeddings", "token_type_embeddings", "layer_norm_weight"):
        np.testing.assert_array_equal(getattr(model.tables, name), getattr(local.tables, name))


def assert_only_the_embedding_layer_kept(model):
    names = tensor_names(model.folder / "model.safetensors")
    assert len(names) == 5 and all(".embeddings." in n or n.startswith("embeddings.") for n in names)


def first_encoder_byte(weights) -> int:
    """Where the first tensor that is not part of the embedding layer begins in the file."""
    with safe_open(str(weights), framework="numpy") as handle:
        keys = list(handle.keys())
    with open(weights, "rb") as handle:  # (the test reads the format itself, to check the code)
        length = int.from_bytes(handle.read(8), "little")
        header = json.loads(handle.read(length))
    return 8 + length + min(header[k]["data_offsets"][0] for k in keys if "embeddings" not in k)


def weight_requests(requests, name="model.safetensors"):
    return [
        s for s in requests.seen if s.line.startswith("GET ") and s.line.split("?")[0].endswith(f"/{name}")
    ]


def test_ranged_download_fetches_only_the_embedding_layer(isolated_hub, monkeypatch, deep_bert):
    """Only byte ranges before the encoder's first byte are asked for; the kept file holds the five
    embedding tensors, equal to the checkpoint's; the progress reaches its end."""
    progress = []
    with stand_in_hub({REPO: deep_bert}) as (url, requests):
        use_hub(monkeypatch, url)
        model = checkpoints.load_model(REPO, progress=lambda done, total: progress.append((done, total)))
    encoder_starts = first_encoder_byte(deep_bert / "model.safetensors")
    asked = weight_requests(requests)
    assert asked and all(s.range for s in asked)  # never the whole file
    for seen in asked:
        first, last = seen.range.removeprefix("bytes=").split("-")
        assert int(last) < encoder_starts or (first, last) == ("0", "100000"), (
            seen
        )  # (huggingface_hub's header read)
    small_files = sum(
        (deep_bert / f).stat().st_size for f in ("config.json", "tokenizer.json", "tokenizer_config.json")
    )
    # Nothing else crossed the wire: the small files, the header read, the listings' JSON.
    assert requests.bytes_sent <= encoder_starts + small_files + 100_001 + 20_000
    assert model.source == "hub"
    assert_same_tables(model, deep_bert)
    assert_only_the_embedding_layer_kept(model)
    assert progress and progress[-1][0] == progress[-1][1]


def test_server_without_ranges_gets_the_whole_file_once(isolated_hub, monkeypatch, deep_bert):
    """A server that ignores Range headers still works: the whole file crosses once, and only the
    embedding tensors are kept."""
    with stand_in_hub({REPO: deep_bert}, ranges=False) as (url, requests):
        use_hub(monkeypatch, url)
        model = checkpoints.load_model(REPO)
    size = (deep_bert / "model.safetensors").stat().st_size
    assert size <= requests.bytes_sent < 2 * size
    assert_same_tables(model, deep_bert)
    assert_only_the_embedding_layer_kept(model)


def test_a_transfer_cut_off_once_is_retried(isolated_hub, monkeypatch, deep_bert):
    """huggingface_hub's retries carry a download over one dropped connection."""
    without_retry_waits(monkeypatch)
    with stand_in_hub({REPO: deep_bert}, drop_after=200_000, drops=1) as (url, requests):
        use_hub(monkeypatch, url)
        model = checkpoints.load_model(REPO)
    assert requests.cut == 1
    assert_same_tables(model, deep_bert)


def test_cut_off_download_is_reported_and_not_kept(isolated_hub, monkeypatch, deep_bert):
    """A connection dropped every time gives a clear error after the retries, and nothing is kept;
    a later try downloads afresh."""
    waits = without_retry_waits(monkeypatch)
    with stand_in_hub({REPO: deep_bert}, drop_after=200_000) as (url, _):
        use_hub(monkeypatch, url)
        with pytest.raises(HubDownloadError, match="cut off"):
            checkpoints.load_model(REPO)
    assert waits  # it retried before giving up
    folder = config.explorer_cache_dir() / "someone--deep-bert" / "main"
    assert not (folder / "model.safetensors").exists()
    assert not list(folder.glob("*.part"))
    with stand_in_hub({REPO: deep_bert}) as (url, _):
        use_hub(monkeypatch, url)
        assert_same_tables(checkpoints.load_model(REPO), deep_bert)


def test_too_large_a_model_is_refused_before_fetching(isolated_hub, monkeypatch, deep_bert):
    """Above the size limit the model is refused with its size, and no file is fetched."""
    monkeypatch.setenv(config.MAX_DOWNLOAD_MB, "0.01")
    with stand_in_hub({REPO: deep_bert}) as (url, requests):
        use_hub(monkeypatch, url)
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
        use_hub(monkeypatch, url)
        with pytest.raises(NotBertLikeError, match="'gpt2' model"):
            checkpoints.load_model("someone/gpt2")
    assert not weight_requests(requests)


def test_tables_stored_as_bfloat16_are_refused_before_their_bytes(isolated_hub, monkeypatch, tmp_path):
    """A checkpoint whose tables the explorer cannot read says so before it fetches them."""
    import torch
    from safetensors.torch import load_file, save_file

    folder = write_random_bert(tmp_path / "bf16")
    weights = load_file(str(folder / "model.safetensors"))
    save_file({k: v.to(torch.bfloat16) for k, v in weights.items()}, str(folder / "model.safetensors"))
    with stand_in_hub({REPO: folder}) as (url, requests):
        use_hub(monkeypatch, url)
        with pytest.raises(NotACheckpointError, match="as BF16"):
            checkpoints.load_model(REPO)
    assert all(s.range in ("bytes=0-0", "bytes=0-100000") for s in weight_requests(requests))


def test_a_pickled_checkpoint_comes_whole_with_progress(isolated_hub, monkeypatch, tmp_path):
    """pytorch_model.bin cannot be cut: it is fetched whole (hf_hub_download), with progress."""
    folder = write_random_bert(tmp_path / "pickled", pickled=True)
    progress = []
    with stand_in_hub({REPO: folder}) as (url, _):
        use_hub(monkeypatch, url)
        model = checkpoints.load_model(REPO, progress=lambda done, total: progress.append((done, total)))
    assert (model.folder / "pytorch_model.bin").stat().st_size == (
        folder / "pytorch_model.bin"
    ).stat().st_size
    assert progress and progress[-1] == (progress[-1][1], (folder / "pytorch_model.bin").stat().st_size)
    assert_same_tables(model, folder)


def test_a_renamed_repo_is_fetched_by_its_old_id_with_ranges(isolated_hub, monkeypatch, deep_bert):
    """The Hub redirects an old id (bert-base-uncased -> google-bert/bert-base-uncased), and
    HfFileSystem only names "namespace/name" repos: the id the Hub answers with is used."""
    with stand_in_hub(
        {"google-bert/deep-bert": deep_bert}, renamed={"deep-bert": "google-bert/deep-bert"}
    ) as (
        url,
        requests,
    ):
        use_hub(monkeypatch, url)
        model = checkpoints.load_model("deep-bert")
    assert model.name == "deep-bert" and model.source == "hub"
    assert all(s.range for s in weight_requests(requests))
    assert_same_tables(model, deep_bert)
    assert_only_the_embedding_layer_kept(model)


def test_an_id_without_a_namespace_is_fetched_whole_and_cut(isolated_hub, monkeypatch, deep_bert):
    """A repo the Hub still serves under a bare name (no namespace) cannot be read through
    HfFileSystem: it is fetched whole, and only its embedding layer kept."""
    with stand_in_hub({"deep-bert": deep_bert}) as (url, _):
        use_hub(monkeypatch, url)
        model = checkpoints.load_model("deep-bert")
    assert_same_tables(model, deep_bert)
    assert_only_the_embedding_layer_kept(model)
    assert [p.name for p in model.folder.iterdir() if p.name.startswith(".whole")] == []


# --- private and gated models: the token, given each way -----------------------------------


def test_a_private_model_needs_a_token_and_takes_it_from_HF_TOKEN(isolated_hub, monkeypatch, deep_bert):  # noqa: N802
    """Without a token the Hub hides a private model (the message says how to give one); with
    HF_TOKEN every request carries it and the model loads."""
    with stand_in_hub({REPO: deep_bert}, token=TOKEN) as (url, requests):
        use_hub(monkeypatch, url)
        with pytest.raises(ModelNotFoundError, match="hf auth login"):
            checkpoints.load_model(REPO)
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        model = checkpoints.load_model(REPO)
    assert model.source == "hub"
    fetched = [s for s in requests.seen if s.line.startswith("GET /someone/deep-bert/resolve/")]
    assert fetched and all(s.authorization == f"Bearer {TOKEN}" for s in fetched)
    assert_same_tables(model, deep_bert)


def test_a_gated_model_without_a_token_says_how_to_give_one(isolated_hub, monkeypatch, deep_bert):
    """A gated model is listed, but its files are refused without a token: a named error that says
    how to give one, not a traceback; a saved login then fetches it."""
    with stand_in_hub({REPO: deep_bert}, token=TOKEN, gated=True) as (url, _):
        use_hub(monkeypatch, url)
        with pytest.raises(HubDownloadError, match="gated model.*hf auth login"):
            checkpoints.load_model(REPO)
        save_login(isolated_hub / "hf-home", TOKEN)
        model = checkpoints.load_model(REPO)
    assert_same_tables(model, deep_bert)


def test_a_private_model_is_fetched_with_a_saved_login(tmp_path, deep_bert):
    """A server where someone ran `hf auth login` (the token saved in HF_HOME/token) and set no
    HF_TOKEN opens a private model: a fresh interpreter, reading HF_HOME as a host's server does."""
    hf_home = tmp_path / "hf-home"
    save_login(hf_home, TOKEN)
    code = (
        "from bert_embeddings.models import checkpoints; "
        "m = checkpoints.load_model('someone/deep-bert'); "
        "print(m.source, m.tables.word_embeddings.shape[1], m.folder)"
    )
    with stand_in_hub({REPO: deep_bert}, token=TOKEN) as (url, requests):
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("HF_", "HUGGING_FACE_", "BERT_EXPLORER_"))
        }
        env.update(HF_HOME=str(hf_home), HF_ENDPOINT=url, HF_HUB_DISABLE_TELEMETRY="1")
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
        )
    assert done.returncode == 0, done.stderr[-3000:]
    source, width, folder = done.stdout.split()
    assert (source, width) == ("hub", "64") and folder.startswith(str(hf_home / "bert-explorer"))
    assert any(s.authorization == f"Bearer {TOKEN}" for s in requests.seen)
