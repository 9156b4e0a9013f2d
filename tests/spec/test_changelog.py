"""``mnemowire spec changelog``: the changelog is generated from the diff and checked for
drift like generated code, and every pair of versions in the tree is held to the policy."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner

from mnemowire.apps.cli import Exit, cli
from tests.spec._copies import copies_of, copies_of_v0

ROOT = Path(__file__).parents[2]


def _tree(tmp_path: Path, *versions: str) -> Path:
    """A spec/ folder holding the real v0 under each of ``versions``."""
    copies_of_v0(tmp_path / "spec", *versions)
    return tmp_path / "spec"


def _edit(root: Path, version: str, change: Mapping[str, object]) -> None:
    path = root / version / "recall.request.json"
    schema = json.loads(path.read_text())
    schema["properties"].update(change)
    path.write_text(json.dumps(schema))


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["spec", "changelog", *args])
    return result.exit_code, result.stdout, result.stderr


def test_the_committed_changelog_is_current() -> None:
    changelog = ROOT / "docs" / "spec" / "CHANGELOG.md"
    code, _, err = _run("--spec", str(ROOT / "spec"), "--out", str(changelog), "--check")
    assert code == Exit.OK, err


def test_a_new_version_gets_a_section_newest_first_and_drift_is_caught(tmp_path: Path) -> None:
    root = _tree(tmp_path, "v0", "v0.1")
    _edit(root, "v0.1", {"cursor": {"type": "string"}})
    out = tmp_path / "CHANGELOG.md"
    code, _, err = _run("--spec", str(root), "--out", str(out))
    assert code == Exit.OK, err
    text = out.read_text()
    assert text.index("## v0.1") < text.index("## v0\n")
    assert "| WARN | `request.property.added.optional` | `recall.request` | `/cursor` |" in text
    assert "require a minor bump, the version number declares minor" in text
    assert _run("--spec", str(root), "--out", str(out), "--check")[0] == Exit.OK
    _edit(root, "v0.1", {"colour": {"type": "string"}})
    code, diff, err = _run("--spec", str(root), "--out", str(out), "--check")
    assert code == Exit.REJECTED
    assert "+| WARN | `request.property.added.optional` | `recall.request` | `/colour` |" in diff
    assert "is stale" in err


def test_every_pair_of_versions_is_held_to_the_policy(tmp_path: Path) -> None:
    """Past v0.5 a break needs a major bump: v0.6 tightens k and declares only a minor bump;
    v0.7 keeps the tightening and adds a field, fine against v0.6, but not against v0.5: every
    pair is checked, not only neighbours."""
    root = _tree(tmp_path, "v0.5", "v0.6", "v0.7")
    tighter = {"k": {"type": "integer", "minimum": 1, "maximum": 500, "default": 5}}
    _edit(root, "v0.6", tighter)
    _edit(root, "v0.7", {**tighter, "mode": {"enum": ["x"]}})
    code, _, err = _run("--spec", str(root), "--out", str(tmp_path / "C.md"))
    assert code == Exit.REJECTED
    breaches = [line for line in err.splitlines() if line.startswith("version policy:")]
    assert [b.split(":")[1].strip() for b in breaches] == ["v0.5 -> v0.6", "v0.5 -> v0.7"]
    assert "request.bound.tightened recall.request /k" in breaches[0]


def test_a_break_before_v0_5_may_take_a_minor_bump(tmp_path: Path) -> None:
    """The same tightening in v0.1 (from v0): pre-1.0, a minor bump through v0.5 may break,
    and the changelog says that is why it passes."""
    root = _tree(tmp_path, "v0", "v0.1")
    _edit(root, "v0.1", {"k": {"type": "integer", "minimum": 1, "maximum": 500, "default": 5}})
    code, _, err = _run("--spec", str(root), "--out", str(tmp_path / "C.md"))
    assert code == Exit.OK, err
    assert "(before 1.0 a minor bump may break, through v0.5)" in (tmp_path / "C.md").read_text()


def test_a_folder_without_versions_is_a_usage_error(tmp_path: Path) -> None:
    code, _, _ = _run("--spec", str(tmp_path))
    assert code == Exit.USAGE


def test_a_draft_folder_beside_the_versions_is_not_a_version(tmp_path: Path) -> None:
    """A folder not named like a version (a draft, a copy) is skipped, not a traceback."""
    root = _tree(tmp_path, "v0", "v0.1")
    copies_of("v0", root, "draft")
    code, _, err = _run("--spec", str(root), "--out", str(tmp_path / "CHANGELOG.md"))
    assert code == Exit.OK, err
    assert "## v0.1" in (tmp_path / "CHANGELOG.md").read_text()
    assert "draft" not in (tmp_path / "CHANGELOG.md").read_text()
