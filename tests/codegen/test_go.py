"""The Go bindings (generated/go): current, deterministic, gofmt- and vet-clean, their own tests
pass, the vectors runner reports every spec example exactly as annotated, and the Go validators
agree with the Python reference on thousands of variations of the examples.

These tests need Go (1.19 or newer): without it they fail, they never skip.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mnemowire import codegen, spec
from mnemowire.apps.cli import Exit, cli
from mnemowire.codegen.emit import go as go_emitter

from .conftest import MODULE, go

ROOT = Path(__file__).parents[2]
SPEC = spec.read_spec()
EXAMPLES = ROOT / "spec" / SPEC.version / "examples"
GO_TESTS = Path(__file__).parent / "go"
#: what Go tooling takes for a generated file (https://go.dev/s/generatedcode)
GENERATED = re.compile(r"^// Code generated .* DO NOT EDIT\.$", re.MULTILINE)

Pair = tuple[str, str]


def emitted() -> dict[str, str]:
    return {f.path: f.content for f in codegen.generate(["go"])}


# --- the generated files --------------------------------------------------------------------


def test_committed_module_is_current() -> None:
    result = CliRunner().invoke(
        cli, ["codegen", "--check", "--lang", "go", "--out", str(ROOT / "generated")]
    )
    assert result.exit_code == Exit.OK, result.output


def test_module_holds_only_generated_files() -> None:
    on_disk = {f"go/{p.relative_to(MODULE).as_posix()}" for p in MODULE.rglob("*") if p.is_file()}
    assert on_disk == set(emitted())


def test_every_go_file_says_it_is_generated() -> None:
    header = [f"// {line}" for line in codegen.header_lines(codegen.load(SPEC))]
    for path, content in emitted().items():
        if path.endswith(".go"):
            assert content.splitlines()[:2] == header, path
            assert GENERATED.search(content.split("\npackage ", 1)[0]), path


def test_emit_is_deterministic() -> None:
    first = go_emitter.emit(codegen.load(SPEC))
    assert go_emitter.emit(codegen.load(SPEC)) == first
    digests = {f.path: hashlib.sha256(f.content.encode()).hexdigest() for f in first}
    script = (
        "import hashlib, json\n"
        "from mnemowire.codegen import load\n"
        "from mnemowire.codegen.emit import go\n"
        "from mnemowire.spec import read_spec\n"
        "files = go.emit(load(read_spec()))\n"
        "print(json.dumps({f.path: hashlib.sha256(f.content.encode()).hexdigest()"
        " for f in files}))\n"
    )
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        assert json.loads(out.stdout) == digests


def test_go_names_follow_go_conventions() -> None:
    assert go_emitter.go_name("agent_id") == "AgentID"
    assert go_emitter.go_name("approval_url") == "ApprovalURL"
    assert go_emitter.go_name("id") == "ID"
    assert go_emitter.go_name("forgotten_ids") == "ForgottenIDs"
    assert go_emitter.go_name("MemoryId") == "MemoryID"
    assert go_emitter.go_name("$nin") == "Nin"
    assert go_emitter.go_name("keep_highest_confidence") == "KeepHighestConfidence"


# --- the Go toolchain on the committed module -----------------------------------------------


def test_gofmt_reports_nothing(go_env: dict[str, str]) -> None:
    gofmt = Path(go(go_env, "env", "GOROOT").strip()) / "bin" / "gofmt"
    result = subprocess.run(
        [str(gofmt), "-l", "."], cwd=MODULE, capture_output=True, text=True, check=True
    )
    assert result.stdout == ""


def test_go_vet_is_clean(go_env: dict[str, str]) -> None:
    go(go_env, "vet", "./...")


def test_go_tests_pass(go_env: dict[str, str]) -> None:
    out = go(go_env, "test", "-count=1", "./...")
    assert re.search(r"^ok\s+mnemowire\.dev/memorywire\s", out, re.MULTILINE), out


def test_vectors_runner_reports_every_example_as_annotated(go_env: dict[str, str]) -> None:
    out = go(go_env, "run", "./cmd/vectors", str(EXAMPLES))
    lines = out.splitlines()
    for line in lines:  # the exact text json.dumps writes, which the cross-language matrix reads
        assert line == json.dumps(json.loads(line))
    expected = [
        {
            "message": e.message,
            "name": e.name,
            "valid": e.valid,
            "errors": [list(pair) for pair in sorted(set(e.errors))],
        }
        for e in sorted(SPEC.examples(), key=lambda e: (e.message, e.name))
    ]
    assert [json.loads(line) for line in lines] == expected


# --- behaviour, and agreement with the Python reference -------------------------------------


@pytest.fixture(scope="module")
def scratch_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the module with the Go tests kept under tests/codegen/go added to it, laid out
    as in the repository so that its own tests find the spec examples."""
    root = tmp_path_factory.mktemp("repo")
    (root / "spec").symlink_to(ROOT / "spec", target_is_directory=True)
    copy = root / "generated" / "go"
    shutil.copytree(MODULE, copy)
    for source in GO_TESTS.glob("*_test.go"):
        shutil.copy(source, copy / source.name)
    return copy


def test_go_bindings_behave(go_env: dict[str, str], scratch_module: Path) -> None:
    go(go_env, "vet", ".", cwd=scratch_module)
    go(go_env, "test", "-count=1", ".", cwd=scratch_module)


def test_go_agrees_with_python_on_variations_of_the_examples(
    go_env: dict[str, str], scratch_module: Path, tmp_path: Path
) -> None:
    cases = sorted(set(variations()))
    assert len(cases) > 5000
    with (tmp_path / "cases.jsonl").open("w", encoding="utf-8") as f:
        for message, text in cases:
            f.write(json.dumps({"message": message, "instance": json.loads(text)}) + "\n")
    env = {
        **go_env,
        "MEMORYWIRE_CASES": str(tmp_path / "cases.jsonl"),
        "MEMORYWIRE_RESULTS": str(tmp_path / "results.jsonl"),
    }
    go(env, "test", "-count=1", "-run", "^TestDifferential$", ".", cwd=scratch_module)
    results = (tmp_path / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(results) == len(cases)
    mismatches = []
    for (message, text), line in zip(cases, results, strict=True):
        found = {(p, r) for p, r in json.loads(line)}
        expected = {
            (d["path"], d["rule"]) for d in spec.validator(message).errors(json.loads(text))
        }
        if found != expected:
            mismatches.append(f"{message} {text}\n  go: {sorted(found)}\n  py: {sorted(expected)}")
    assert not mismatches, f"{len(mismatches)} of {len(cases)} differ:\n" + "\n".join(
        mismatches[:20]
    )


#: values every location of an example is replaced with, one at a time. Left out on purpose:
#: numbers beyond float64 (1e400) and empty member names, on which the Python reference is
#: known to be off (see the Go emitter's notes in the report).
PROBES: list[Any] = [
    None,
    True,
    0,
    -1,
    1,
    1.5,
    2.0,
    2**53,
    2**64,
    "",
    "x",
    "procedural",
    "episodic",
    "*",
    "a.b",
    [],
    ["x", "x"],
    [1, 1.0],
    {},
    {"a": 1},
    {"$in": []},
]


#: member names added to every object: unknown, in need of JSON Pointer escapes, too long
ADDED_KEYS = ["zz_unknown", "a/b~c", "k" * 257]


def variations() -> Iterator[tuple[str, str]]:
    """(message, JSON text) for every example and every one-step change to it."""
    for example in SPEC.examples():
        for variant in mutations(example.instance):
            yield example.message, json.dumps(variant, sort_keys=True)


def mutations(value: Any) -> Iterator[Any]:
    """``value``, and ``value`` with one location replaced by a probe, one member removed or
    one member added; strings holding a JSON object are mutated inside too."""
    yield value
    yield from PROBES
    if isinstance(value, dict):
        for key in ADDED_KEYS:
            yield {**value, key: {"$in": []}}
        for key, member in value.items():
            yield {k: v for k, v in value.items() if k != key}
            for changed in mutations(member):
                yield {**value, key: changed}
    elif isinstance(value, list):
        for i, item in enumerate(value):
            for changed in mutations(item):
                yield [*value[:i], changed, *value[i + 1 :]]
    elif isinstance(value, str) and value.startswith("{"):
        try:
            inner = json.loads(value)
        except ValueError:
            return
        for changed in mutations(inner):
            yield json.dumps(changed)
