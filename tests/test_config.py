"""Every host setting is read and checked in one place (bert_embeddings/config.py): a value that
cannot be used is named, with what it takes and what the app does instead, on every page and by
the command line (exit 2); the app never ends in a traceback and never guesses."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from bert_embeddings import config
from testkit.apptest import ROOT, room_fields, shown
from testkit.stand_in_hub import go_offline, use_hf_home, use_hub_cache

# (variable, a value it cannot use, words its message must hold)
BAD = [
    (config.MAP_ITERATIONS, "abc", "a whole number from 10 to 10,000"),
    (config.MAP_ITERATIONS, "1e3", "a whole number from 10 to 10,000"),
    (config.MAP_ITERATIONS, "5", "a whole number from 10 to 10,000"),
    (config.THREADS, "0", "a whole number from 1 to 256"),
    (config.THREADS, "two", "a whole number from 1 to 256"),
    (config.MAX_DOWNLOAD_MB, "lots", "a number of megabytes above 0"),
    (config.MAX_DOWNLOAD_MB, "-5", "a number of megabytes above 0"),
    (config.ALLOW_CUSTOM, "maybe", "1, on, yes or true"),
    (config.PRECOMPUTE_MAPS, "please", "1, on, yes or true"),
    (config.CACHE, "relative/folder", "an absolute path to a folder"),
    (config.ROOMS, "bogus://x", "a redis://, rediss:// or unix:// URL, or an absolute path"),
    (config.ROOMS, "rooms.sqlite3", "a redis://, rediss:// or unix:// URL, or an absolute path"),
    (config.MODEL, "not a model!", "a Hub id such as bert-base-uncased"),
    (config.TRUSTED_PROXIES, "10.0.0.0/33", "IP addresses or networks"),
    (config.TRUSTED_PROXIES, "proxy.example", "IP addresses or networks"),
]


@pytest.mark.parametrize(("name", "text", "takes"), BAD)
def test_a_value_that_cannot_be_used_is_named_and_its_default_stands_in(monkeypatch, name, text, takes):
    monkeypatch.setenv(name, text)
    found = [p for p in config.problems() if p.startswith(name)]
    assert len(found) == 1, config.problems()
    assert repr(text) in found[0] and takes in found[0]
    assert config.setting(name) == config.BY_NAME[name].default  # never the value refused


def test_good_values_are_read_and_cause_no_problem(monkeypatch, tmp_path):
    good = {
        config.MAP_ITERATIONS: "250",
        config.THREADS: "2",
        config.MAX_DOWNLOAD_MB: "0.5",
        config.ALLOW_CUSTOM: "Off",
        config.CACHE: str(tmp_path),
        config.ROOMS: str(tmp_path / "rooms.sqlite3"),
        config.TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8, ::1",
    }
    for name, text in good.items():
        monkeypatch.setenv(name, text)
    assert config.problems() == []
    assert config.map_iterations() == 250 and config.threads() == 2
    assert config.max_download_bytes() == 500_000 and not config.custom_models_allowed()
    assert config.explorer_cache_dir() == tmp_path
    assert [str(n) for n in config.trusted_proxies()] == ["127.0.0.1/32", "10.0.0.0/8", "::1/128"]


def test_the_configuration_holds_only_the_explorers_own_variables():
    """Hub address, token, offline mode and cache folder are huggingface_hub's own settings
    (HF_ENDPOINT, HF_TOKEN or a saved login, HF_HUB_OFFLINE, HF_HOME): never read here again."""
    assert all(v.name.startswith("BERT_EXPLORER_") for v in config.VARIABLES)
    source = (ROOT / "bert_embeddings" / "config.py").read_text(encoding="utf-8")
    assert '"HF_' not in source


def test_the_explorer_cache_is_beside_huggingface_hubs_cache(monkeypatch, tmp_path):
    """By default the embedding-only downloads and the maps live beside the hub cache that
    huggingface_hub uses (HF_HUB_CACHE, else HF_HOME/hub); BERT_EXPLORER_CACHE moves them."""
    monkeypatch.delenv(config.CACHE, raising=False)
    use_hf_home(monkeypatch, tmp_path / "home")
    assert config.explorer_cache_dir() == tmp_path / "home" / "bert-explorer"
    use_hub_cache(monkeypatch, tmp_path / "elsewhere" / "hub")
    assert config.explorer_cache_dir() == tmp_path / "elsewhere" / "bert-explorer"
    monkeypatch.setenv(config.CACHE, str(tmp_path / "mine"))
    assert config.explorer_cache_dir() == tmp_path / "mine"


def test_a_rooms_file_that_is_not_a_database_is_a_problem(monkeypatch, tmp_path):
    """Found at start, before any room is asked for: rooms stay off rather than living in memory."""
    junk = tmp_path / "rooms.sqlite3"
    junk.write_bytes(b"\x00" * 4096)
    monkeypatch.setenv(config.ROOMS, str(junk))
    assert [p for p in config.problems() if "not a SQLite database" in p and "rooms stay off" in p]
    monkeypatch.setenv(config.ROOMS, str(tmp_path))
    assert [p for p in config.problems() if "this path is a folder" in p]


def test_a_secret_is_checked_like_its_variable(monkeypatch):
    monkeypatch.delenv(config.ALLOW_CUSTOM, raising=False)
    found = config.problems({config.ALLOW_CUSTOM: "perhaps"})
    assert found and found[0].startswith(f"{config.ALLOW_CUSTOM} (secret) is 'perhaps'")
    assert config.custom_models_allowed({config.ALLOW_CUSTOM: "perhaps"})  # the default: allowed
    assert not config.custom_models_allowed({config.ALLOW_CUSTOM: False})


def command(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bert_embeddings", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("text", ["abc", "1e3"])
def test_the_command_stops_on_a_bad_setting_with_exit_2_even_for_help(tmp_path, text):
    done = command("map", "--help", BERT_EXPLORER_MAP_ITERATIONS=text, BERT_EXPLORER_CACHE=str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"BERT_EXPLORER_MAP_ITERATIONS is {text!r}, but it takes a whole number" in done.stderr


def test_the_command_ignores_what_only_the_app_reads(tmp_path):
    """A bad rooms setting is the app's business: the map command still answers."""
    done = command("map", "--help", BERT_EXPLORER_ROOMS="bogus://x", BERT_EXPLORER_CACHE=str(tmp_path))
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("page", ["pages/concepts.py", "pages/maps.py", "pages/tokens.py"])
def test_every_page_names_a_bad_setting_and_works(monkeypatch, page):
    go_offline(monkeypatch)
    monkeypatch.setenv(config.MAP_ITERATIONS, "abc")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page(page).run()
    assert not at.exception
    said = " ".join(shown(w.value) for w in at.warning)
    assert "BERT_EXPLORER_MAP_ITERATIONS is 'abc', but it takes a whole number" in said
    assert "its default stands in" in said


def test_rooms_named_wrongly_stay_off_and_create_no_file(monkeypatch, tmp_path):
    """bogus://x once became a SQLite file named 'bogus:/x' in the working folder."""
    from components.rooms import follow, roomstore

    go_offline(monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(config.ROOMS, "bogus://x")
    monkeypatch.setattr(roomstore, "_store", None)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.button(key="room_open").click().run()
    assert not at.exception and follow.LEAD not in room_fields(at)
    said = " ".join(shown(e.value) for e in at.error)
    assert "Workshop rooms are off on this server" in said and "bogus://x" in said
    assert list(tmp_path.iterdir()) == []


def test_the_apps_read_of_the_hosts_secrets_is_kept_for_a_while_and_taken_anew_when_replaced(monkeypatch):
    """components/frame/host_secrets.py: without a secrets file, Streamlit looks for its files on
    every read; the app reads them once in KEEP_SECONDS, and a new secrets object at once."""
    import streamlit as st

    from components.frame import host_secrets

    class Secrets:
        def __init__(self, held: dict | None) -> None:
            self.held, self.reads = held, 0

        def to_dict(self) -> dict:
            self.reads += 1
            if self.held is None:
                raise FileNotFoundError("no secrets.toml")
            return dict(self.held)

    now = [1000.0]
    monkeypatch.setattr(host_secrets.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(host_secrets, "_kept", None)
    none = Secrets(None)
    monkeypatch.setattr(st, "secrets", none)
    assert [host_secrets.secrets() for _ in range(5)] == [{}] * 5 and none.reads == 1
    now[0] += host_secrets.KEEP_SECONDS
    assert host_secrets.secrets() == {} and none.reads == 2  # a file added meanwhile would show now
    given = Secrets({config.PRESENTER: "workshop-42"})
    monkeypatch.setattr(st, "secrets", given)  # (as an AppTest run with secrets does)
    assert config.presenter_key(host_secrets.secrets()) == "workshop-42" and given.reads == 1
