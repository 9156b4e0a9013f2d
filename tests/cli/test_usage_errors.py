"""What a first-time user gets wrong on the command line is a usage error (exit 2) that says
what to change: a store URL, an option in it, an embedder name, a check selection. Never a
traceback, never a silent default."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mnemowire.apps.cli import Exit, cli


def invoke(*args: str, **kwargs: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), **kwargs)  # type: ignore[arg-type]
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("url", "said"),
    [
        (
            "sqlite-vec://{tmp}/a.db?embeder=hash:64",
            "unknown option 'embeder'; did you mean 'embedder'?",
        ),
        (
            "sqlite-vec://{tmp}/a.db?embedder=hash:64&accelerate_above=abc",
            "accelerate_above='abc' must be a whole number",
        ),
        (
            "sqlite-vec://{tmp}/a.db?embedder=hash:64&index_budget_mb=inf",
            "index_budget_mb='inf' must be a finite number",
        ),
        ("sqlite-vec://{tmp}/a.db?embedder=hash:64&name=a&name=b", "option 'name' is given twice"),
        ("sqlite-vec://{tmp}/a.db?embedder=minilmm", "unknown embedder 'minilmm'"),
        ("pgvector://u@localhost/db?embedder=hash:64&sslmod=require", "did you mean 'sslmode'?"),
        (
            "pgvector://u@localhost/db?embedder=hash:64&probes=0",
            "probes='0' must be at least 1",
        ),
        ("toys://x", "no store is registered for toys://"),
        ("memory.db", "is not a store URL"),
    ],
)
def test_a_store_url_that_cannot_be_opened_is_a_usage_error(
    tmp_path: Path, url: str, said: str
) -> None:
    code, _, err = invoke("recall", "--store", url.format(tmp=tmp_path), "--agent", "a", "tea")
    assert code == Exit.USAGE
    assert said in err
    assert "--store" in err


def test_an_unknown_embedder_is_a_usage_error_naming_the_flag(tmp_path: Path) -> None:
    url = f"sqlite-vec://{tmp_path / 'a.db'}"
    code, _, err = invoke("recall", "--store", url, "--embedder", "minilm-onx", "--agent", "a", "q")
    assert code == Exit.USAGE
    assert "--embedder" in err
    assert "unknown embedder 'minilm-onx'" in err
    assert "did you mean 'minilm-onnx'?" in err


def test_mnemowire_store_is_one_url_even_with_a_space(tmp_path: Path) -> None:
    folder = tmp_path / "my memories"
    folder.mkdir()
    url = f"sqlite-vec://{folder / 'memory file.db'}?embedder=hash:32"
    env = {"MNEMOWIRE_STORE": url}
    code, out, _ = invoke("remember", "--agent", "a", "--type", "semantic", "tea", env=env)
    assert code == Exit.OK
    assert sorted(p.name for p in folder.iterdir() if not p.name.endswith(("-wal", "-shm"))) == [
        "memory file.db"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my memories"]  # no stray file
    code, out, _ = invoke("recall", "--agent", "a", "tea", env=env)
    assert code == Exit.OK
    assert len(json.loads(out)["results"]) == 1


def test_certify_a_store_that_cannot_be_opened_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = invoke("certify", "toys://x", "--out", str(tmp_path / "report"))
    assert code == Exit.USAGE
    assert "no store is registered for toys://" in err
    assert not (tmp_path / "report").exists()


def test_certify_selecting_no_check_is_a_usage_error_and_writes_no_badge(tmp_path: Path) -> None:
    out = tmp_path / "report"
    code, _, err = invoke(
        "certify", "sqlite-vec://:memory:?embedder=hash:32", "--only", "nosuch.", "--out", str(out)
    )
    assert code == Exit.USAGE
    assert "no check id is or starts with 'nosuch.'" in err
    assert "remember." in err
    assert not out.exists()


def test_spec_help_lists_the_commands_by_their_names() -> None:
    code, out, _ = invoke("spec", "--help")
    assert code == Exit.OK
    assert "lint, fmt, list, validate" in out
    for name in ("fmt", "lint", "list", "validate"):
        assert f"  {name} " in out


@pytest.mark.parametrize(
    ("text", "path", "rule"),
    [
        (b'{"agent_id": "a", "query": "\\ud800"}', "/query", "text"),
        (b'{"agent_id": "a\\u0000", "query": "q"}', "/agent_id", "text"),
        (
            b'{"agent_id": "a", "query": "q", "filter": {"n": 9223372036854775808}}',
            "/filter/n",
            "maximum",
        ),
        (b'{"agent_id": "a", "query": "q", "k": 1e309}', "/k", "json"),
        (b'{"agent_id": "a", "query": "\xff"}', "", "json"),
        (b"[" * 50_000 + b"]" * 50_000, "", "json"),
    ],
)
def test_spec_validate_refuses_what_the_stores_refuse(text: bytes, path: str, rule: str) -> None:
    code, out, _ = invoke("spec", "validate", "recall.request", "-", input=text)
    assert code == Exit.REJECTED
    details = json.loads(out)["details"]
    assert (path, rule) in {(d["path"], d["rule"]) for d in details}, details
