"""A wheel built from the repository installs in a clean venv and is one ``mnemowire`` package."""

from __future__ import annotations

import json
import os
import re
import runpy
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from mnemowire import spec

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
    )
    [built] = out.glob("mnemowire-*.whl")
    return built


def test_wheel_installs_only_the_mnemowire_package(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        top_level = archive.read(next(n for n in names if n.endswith("top_level.txt")))
    roots = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert roots == {"mnemowire"}
    assert top_level.decode().split() == ["mnemowire"]
    assert "mnemowire/schemas/v0/remember.request.json" in names
    assert "mnemowire/schemas/v0/examples/recall.request/invalid/k-zero.json" in names
    assert "mnemowire/py.typed" in names
    ui = "mnemowire/apps/server/ui"  # the reviewer UI's pages and its vendored htmx
    assert {f"{ui}/templates/_card.html", f"{ui}/static/htmx.min.js", f"{ui}/static/ui.js"} <= set(
        names
    )


def test_every_source_module_is_in_the_wheel(wheel: Path) -> None:
    """Packages are discovered (setup.py), not listed: every module of every folder ships, and
    a folder of modules that is no package (no ``__init__.py``) fails here instead of silently
    dropping out of the wheel."""
    roots: dict[str, str] = runpy.run_path(str(ROOT / "setup.py"), run_name="roots")["ROOTS"]
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    missing = [
        str(module.relative_to(ROOT))
        for package, folder in roots.items()
        for module in (ROOT / folder).rglob("*.py")
        if "/".join((*package.split("."), *module.relative_to(ROOT / folder).parts)) not in names
    ]
    assert missing == []


def test_wheel_works_in_a_clean_venv(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "-q", str(wheel)], check=True)
    probe = (
        "import json, mnemowire, mnemowire.spec as s;"
        "f = s.read_spec();"
        "print(json.dumps({'file': s.__file__, 'messages': len(f.messages),"
        " 'ok': s.validate('recall.request', {'agent_id': 'a', 'query': 'q'}) is None,"
        " 'bad': s.validate('recall.request', {'agent_id': 'a', 'query': 'q', 'k': 0})"
        "['details'][0]['path']}))"
    )
    result = subprocess.run(
        [python, "-c", probe], check=True, capture_output=True, text=True, cwd=tmp_path
    )
    report = json.loads(result.stdout)
    assert str(env_dir) in report["file"]
    messages = len(spec.read_spec().messages)
    assert report == {**report, "messages": messages, "ok": True, "bad": "/k"}
    cli = subprocess.run(
        [env_dir / "bin" / "mnemowire", "spec", "lint"], capture_output=True, text=True, check=False
    )
    assert cli.returncode == 0, cli.stdout + cli.stderr
    # the README's quickstart without the extra that holds the model: the error names it
    quickstart = re.search(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    assert quickstart is not None
    bare = subprocess.run(
        [python, "-c", quickstart[1]],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"], "XDG_DATA_HOME": str(tmp_path / "data")},
        check=False,
    )
    assert bare.returncode == 1
    assert "mnemowire.errors.ConfigError" in bare.stderr
    assert bare.stderr.rstrip().endswith("pip install 'mnemowire[local]'")
    for generic in ("runtime", "adapters", "codegen", "conformance", "generated", "spec"):
        found = subprocess.run(
            [python, "-c", f"import {generic}"], capture_output=True, cwd=tmp_path, check=False
        )
        assert found.returncode != 0, f"a top-level module {generic!r} is installed"
