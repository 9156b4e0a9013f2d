"""``mnemowire export|import|migrate|scopes`` through click's runner: an archive goes out and
comes back whole, a rerun continues without duplicates, a damaged or foreign archive is refused
naming its line before anything is written (docs/portability.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mnemowire.apps.cli import Exit, cli


def url(tmp_path: Path, name: str) -> str:
    return f"sqlite-vec://{tmp_path / name}?embedder=hash:32"


def run(*args: str, stdin: str | None = None) -> tuple[int, list[dict[str, Any]]]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return result.exit_code, lines


@pytest.fixture
def source(tmp_path: Path) -> str:
    store = url(tmp_path, "source.db")
    writes: list[dict[str, Any]] = [
        {
            "agent_id": agent,
            "type": "semantic",
            "content": f"{agent} note {n}",
            "user_id": f"u{n % 2}",
        }
        for agent in ("a", "b")
        for n in range(4)
    ]
    writes.append(
        {"agent_id": "a", "type": "semantic", "content": "wait", "approval_required": True}
    )
    code, _ = run("remember", "--store", store, "--json", "-",
                  stdin="\n".join(json.dumps(w) for w in writes))  # fmt: skip
    assert code == Exit.OK
    return store


def test_export_then_import_is_faithful_and_a_rerun_skips(source: str, tmp_path: Path) -> None:
    archive = tmp_path / "a.jsonl"
    code, [summary] = run("export", "--store", source, "--out", str(archive))
    assert code == Exit.OK
    assert (summary["agents"], summary["records"]) == (2, 9)
    lines = archive.read_text().splitlines()
    assert json.loads(lines[0])["kind"] == "manifest"
    assert json.loads(lines[-1])["kind"] == "end"
    target = url(tmp_path, "target.db")
    code, [report] = run("import", "--store", target, str(archive))
    assert code == Exit.OK, report
    assert report["outcomes"] == {"imported": 9}
    assert report["verified"]["states"] == {"active": {"exact": 8}, "pending": {"exact": 1}}
    assert set(report["verified"]["fields"]["created_at"]) == {"exact"}
    code, [again] = run("import", "--store", target, str(archive))
    assert (code, again["outcomes"]) == (Exit.OK, {"skipped": 9})
    code, [scopes] = run("scopes", "--store", target)
    assert [(s["agent_id"], s["records"]) for s in scopes["agents"]] == [("a", 5), ("b", 4)]
    bare = tmp_path / "bare.jsonl"
    code, [_out] = run("export", "--store", target, "--no-history", "--out", str(bare))
    code, [_out] = run("export", "--store", target, "--out", str(tmp_path / "b.jsonl"))
    # the same records after the manifest (whose time and store differ), each with its
    # versions and the target's own import after them
    sent = [json.loads(line) for line in lines[1:-1]]
    back = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text().splitlines()[1:-1]]
    assert [line.get("history") is not None for line in sent] == [True] * 9
    for was, now in zip(sent, back, strict=True):
        carried = [{**{k: v for k, v in e.items() if k != "audit_seq"}, "imported": True}
                   for e in was.pop("history")]  # fmt: skip
        assert now.pop("history")[:-1] == carried
        assert now == was
    assert [json.loads(line) for line in bare.read_text().splitlines()[1:-1]] == back


@pytest.mark.parametrize(
    ("damage", "rule"),
    [
        (lambda lines: lines[:-1], "end"),
        (lambda lines: [lines[0], lines[2], lines[1], *lines[3:]], "digest"),
        (lambda lines: [*lines[:2], lines[2].replace("note", "nope"), *lines[3:]], "digest"),
        (lambda lines: [lines[0], *lines[2:]], "counts"),
        (lambda lines: ['{"type":"entity","name":"A","entityType":"P","observations":[]}'],
         "format"),
        (lambda lines: [lines[0], lines[1].replace('"state":"active"', '"state":"gone"'),
                        *lines[2:]], "enum"),
    ],
)  # fmt: skip
def test_a_damaged_or_foreign_archive_is_refused_whole(
    source: str, tmp_path: Path, damage: Any, rule: str
) -> None:
    archive = tmp_path / "a.jsonl"
    run("export", "--store", source, "--out", str(archive))
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(damage(archive.read_text().splitlines())) + "\n")
    target = url(tmp_path, "target.db")
    code, [envelope] = run("import", "--store", target, str(broken))
    assert code == Exit.REJECTED
    assert envelope["details"][0]["rule"] == rule, envelope
    assert envelope["details"][0]["path"].startswith("/line/")
    assert not (tmp_path / "target.db").exists()  # refused before the store was opened


def test_migrate_streams_one_store_into_another(source: str, tmp_path: Path) -> None:
    target = url(tmp_path, "target.db")
    code, [report] = run("migrate", source, target, "--agent", "b")
    assert code == Exit.OK
    assert report["outcomes"] == {"imported": 4}
    code, [scopes] = run("scopes", "--store", target)
    assert [s["agent_id"] for s in scopes["agents"]] == ["b"]
    code, [again] = run("migrate", source, target)
    assert again["outcomes"] == {"imported": 5, "skipped": 4}


def test_usage_errors_exit_2(source: str, tmp_path: Path) -> None:
    assert run("migrate", source, source)[0] == Exit.USAGE
    assert run("import", "--store", source, str(tmp_path / "missing.jsonl"))[0] == Exit.USAGE
    assert run("export", "--store", source, "--state", "expired")[0] == Exit.USAGE


def test_the_manifest_names_the_stores_kind_whatever_its_name(source: str, tmp_path: Path) -> None:
    archive = tmp_path / "a.jsonl"
    code, _ = run("export", "--store", f"{source}&name=kitchen", "--out", str(archive))
    assert code == Exit.OK
    manifest = json.loads(archive.read_text().splitlines()[0])
    assert manifest["source"] == {"store": "kitchen", "kind": "sqlite-vec"}
