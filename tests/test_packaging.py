"""`pip install .`: pyproject.toml declares the core package with requirements.txt's dependencies
(what Community Cloud installs), and the wheel pip builds holds the whole core."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile

from packaging.requirements import Requirement

from testkit.apptest import ROOT


def normalised(lines) -> set[str]:
    return {str(Requirement(line)) for line in lines}


def requirements_txt() -> set[str]:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return normalised(
        line.split("#")[0].strip()
        for line in lines
        if line.split("#")[0].strip() and not line.startswith("-")
    )


def test_pyproject_and_requirements_txt_name_the_same_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert normalised(project["dependencies"]) == requirements_txt()


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
    assert "bert_embeddings/figures/maps.py" in modules
    assert modules <= names
    declared = [
        line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")
    ]
    assert normalised(declared) == requirements_txt()
