"""mnemowire codegen: deterministic, drift-checked, readable diffs, generated headers."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mnemowire import codegen, spec
from mnemowire.apps.cli import Exit, cli

ROOT = Path(__file__).parents[2]
GENERATED = ROOT / "generated"


def test_generated_python_is_current() -> None:
    assert codegen.diff(codegen.generate(["python"]), GENERATED) == ""


def test_check_passes_on_the_committed_tree() -> None:
    result = CliRunner().invoke(
        cli, ["codegen", "--check", "--lang", "python", "--out", str(GENERATED)]
    )
    assert result.exit_code == Exit.OK, result.output


def test_check_reads_the_spec_of_the_checkout_it_checks(tmp_path: Path) -> None:
    """A fork whose spec changed is stale, though the installed spec did not change; --spec
    names another spec folder, and one without a version folder is a usage error."""
    fork = tmp_path / "fork"
    shutil.copytree(ROOT / "spec", fork / "spec")
    shutil.copytree(GENERATED / "python", fork / "generated" / "python")
    schema = fork / "spec" / spec.LATEST / "recall.request.json"
    document = json.loads(schema.read_text())
    document["properties"]["k"]["maximum"] = 500
    schema.write_text(json.dumps(document, indent=2) + "\n")
    check = ["codegen", "--check", "--lang", "python", "--out", str(fork / "generated")]
    stale = CliRunner().invoke(cli, check)
    assert stale.exit_code == Exit.REJECTED, stale.output
    assert "le=500" in stale.output
    assert f"spec {spec.LATEST} from {fork / 'spec' / spec.LATEST}" in stale.output
    installed = CliRunner().invoke(cli, [*check, "--spec", str(ROOT / "spec")])
    assert installed.exit_code == Exit.OK, installed.output
    empty = CliRunner().invoke(cli, [*check, "--spec", str(tmp_path)])
    assert empty.exit_code == Exit.USAGE
    assert "--spec" in empty.output


def test_a_dotted_spec_version_generates_an_importable_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec v0.1 becomes mnemowire.models.v0_1 (a file v0.1.py could not be imported), the
    older version keeps its module, and mnemowire.models is the newest."""
    shutil.copytree(ROOT / "spec" / "v0", tmp_path / "v0")
    shutil.copytree(ROOT / "spec" / "v0", tmp_path / "v0.1")
    files = {f.path: f for f in codegen.generate(["python"], codegen.spec_versions(tmp_path))}
    assert set(files) == {
        "python/__init__.py",
        "python/operations.py",
        "python/v0.py",
        "python/v0_1.py",
    }
    assert "from mnemowire.models.v0_1 import (" in files["python/__init__.py"].content
    assert files["python/v0.py"].content == (GENERATED / "python" / "v0.py").read_text()
    codegen.write(list(files.values()), tmp_path / "generated")
    location = tmp_path / "generated" / "python" / "v0_1.py"
    found = importlib.util.spec_from_file_location("mnemowire.models.v0_1", location)
    assert found is not None
    assert found.loader is not None
    module = importlib.util.module_from_spec(found)
    monkeypatch.setitem(sys.modules, "mnemowire.models.v0_1", module)  # as an import does
    found.loader.exec_module(module)
    assert module.RecallRequest.model_validate({"agent_id": "a", "query": "q"}).query == "q"


def test_the_vocabulary_is_the_specs() -> None:
    """Enumerations, property sets and defaults are generated from the spec, so nothing
    hand-written needs to restate them."""
    from mnemowire import models

    common = spec.read_spec().documents["common"]["$defs"]
    assert [m.value for m in models.MemoryType] == common["MemoryType"]["enum"]
    assert [m.value for m in models.MergeStrategy] == common["MergeStrategy"]["enum"]
    recall = spec.read_spec().documents["recall.request"]
    assert tuple(recall["properties"]) == models.RECALL_REQUEST_FIELDS
    assert set(models.RECALL_REQUEST_REQUIRED) == set(recall["required"])
    assert models.RECALL_REQUEST_DEFAULTS["k"] == recall["properties"]["k"]["default"]
    assert models.EXPIRE_REQUEST_DEFAULTS == {
        "action": "forget",
        "demote_factor": 0.5,
        "dry_run": False,
    }
    assert models.TYPE_SPECIFIC_FIELDS["episodic"] == ("event_time", "location", "participants")
    assert models.MemoryType("episodic") == "episodic"
    with pytest.raises(TypeError):
        models.RECALL_REQUEST_DEFAULTS["k"] = 50  # type: ignore[index]


def test_generation_is_byte_identical_across_hash_seeds() -> None:
    probe = (
        "import hashlib, mnemowire.codegen as c;"
        "print(hashlib.sha256(b''.join(f.content.encode() for f in c.generate(['python'])))"
        ".hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", probe],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1", "4242")
    }
    assert len(digests) == 1


def test_every_generated_file_names_the_spec_and_its_hash() -> None:
    named = set()
    for file in codegen.generate(["python"]):
        header = file.content.splitlines()[0]
        found = re.match(
            r"# generated by mnemowire-codegen from spec/(v[0-9.]+) \((sha256:\w+)\)", header
        )
        assert found, header
        assert found[2] == spec.read_spec(found[1]).digest
        assert "do not edit" in header
        named.add(found[1])
    assert named == set(spec.available_versions())  # one module per version, the newest too


def test_a_changed_description_makes_check_fail_with_a_readable_diff(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    codegen.write(codegen.generate(["python"]), out)
    model = out / "python" / "v0.py"
    model.write_text(model.read_text().replace("One broken rule.", "One rule, broken."))
    result = CliRunner().invoke(cli, ["codegen", "--check", "--lang", "python", "--out", str(out)])
    assert result.exit_code == Exit.REJECTED
    assert "-    One rule, broken." in result.output
    assert "+    One broken rule." in result.output
    rerun = CliRunner().invoke(cli, ["codegen", "--lang", "python", "--out", str(out)])
    assert rerun.exit_code == Exit.OK
    assert "wrote generated/python/v0.py" in rerun.output
    again = CliRunner().invoke(cli, ["codegen", "--lang", "python", "--out", str(out)])
    assert again.stdout == ""  # a second regeneration changes no byte


def test_unknown_language_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["codegen", "--lang", "rust"])
    assert result.exit_code == Exit.USAGE


@pytest.mark.parametrize("name", ["RememberRequest", "RecallHit", "StoreResult", "ErrorEnvelope"])
def test_ir_names_every_spec_type_once(name: str) -> None:
    ir = codegen.load(spec.read_spec())
    assert [t.name for t in ir.types].count(name) == 1
