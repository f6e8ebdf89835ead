"""One list of dependencies: pyproject.toml declares the core package's, and an extra for each
part (app, rooms, dev); requirements.txt (what Community Cloud and the Dockerfile install) pins the
same set as `.[app,rooms,queue]`, and requirements-dev.txt adds `dev`'s. The core declares no Streamlit,
and the wheel pip builds holds the whole core."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile

from packaging.requirements import Requirement

from testkit.apptest import ROOT

FIX = "pyproject.toml holds the one list: copy its pins into requirements.txt / requirements-dev.txt"


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def normalised(lines) -> dict[str, str]:
    """Package name (as pip compares them) -> its pin, e.g. {"huggingface-hub": "==2.4.0"}."""
    found = {}
    for line in lines:
        requirement = Requirement(line)
        name = requirement.name.lower().replace("_", "-").replace(".", "-")
        assert name not in found, f"{name} is listed twice"
        found[name] = str(requirement.specifier)
    return found


def requirement_lines(name: str) -> list[str]:
    """The requirements a requirements file names itself (not its options, nor -r includes)."""
    lines = (ROOT / name).read_text(encoding="utf-8").splitlines()
    kept = (line.split("#")[0].strip() for line in lines)
    return [line for line in kept if line and not line.startswith("-")]


def test_requirements_txt_pins_what_the_app_rooms_and_queue_extras_install():
    """requirements.txt = the core's dependencies + `app` + `rooms` + `queue`: the same packages,
    the same pins (a package two extras share, such as redis, once)."""
    declared = project()
    extras = declared["optional-dependencies"]
    expected = normalised(
        dict.fromkeys(declared["dependencies"] + extras["app"] + extras["rooms"] + extras["queue"])
    )
    assert normalised(requirement_lines("requirements.txt")) == expected, FIX


def test_requirements_dev_txt_adds_the_dev_extra():
    text = (ROOT / "requirements-dev.txt").read_text(encoding="utf-8")
    assert "-r requirements.txt" in text.splitlines()
    expected = normalised(project()["optional-dependencies"]["dev"])
    assert normalised(requirement_lines("requirements-dev.txt")) == expected, FIX


def test_requirements_txt_keeps_the_cpu_index_for_torch():
    """Community Cloud has no GPU: the CPU wheel's index, and a pin only that index serves."""
    text = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in text.splitlines()
    assert normalised(requirement_lines("requirements.txt"))["torch"].endswith("+cpu")


def test_the_core_declares_no_streamlit_no_redis_and_no_rq():
    """The core never imports Streamlit (tests/test_architecture.py), so it does not install it;
    redis-py and RQ are only for rooms and jobs on Redis."""
    core = normalised(project()["dependencies"])
    assert not {"streamlit", "redis", "rq"} & set(core)
    assert "streamlit" in normalised(project()["optional-dependencies"]["app"])


def test_pip_builds_a_wheel_of_the_whole_core_with_those_dependencies(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copytree(
        ROOT / "bert_embeddings", source / "bert_embeddings", ignore=shutil.ignore_patterns("__pycache__")
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "out"),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "out").glob("bert_embedding_explorer-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith("METADATA"))).decode()
    modules = {str(p.relative_to(ROOT)) for p in (ROOT / "bert_embeddings").rglob("*.py")}
    assert "bert_embeddings/figures/map_charts.py" in modules
    assert modules <= names
    declared = [
        line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")
    ]
    core = [d for d in declared if "extra ==" not in d]
    assert normalised(core) == normalised(project()["dependencies"])
    for extra in ("app", "rooms", "dev"):
        assert f"Provides-Extra: {extra}" in metadata
    assert "License-Expression: MIT" in metadata
