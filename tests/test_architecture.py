"""The layout's promises, checked on the source: spec types are only ever generated, and
imports flow one way (spec -> generated -> runtime <- adapters; codegen is build-time only)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemowire import codegen, spec

ROOT = Path(__file__).parents[1]
HAND_WRITTEN = ("runtime", "adapters", "conformance")
SPEC_TYPE_NAMES = {t.name for t in codegen.load(spec.read_spec()).types}
#: the `mnemowire codegen` command is the one runtime module that reaches the build-time codegen
ALLOWED = {"runtime/cli/_codegen.py"}


def _sources(*folders: str) -> Iterator[tuple[Path, ast.Module]]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path, ast.parse(path.read_text(), filename=str(path))


def _imports(tree: ast.Module) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def test_no_hand_written_copy_of_a_spec_type() -> None:
    offenders = []
    for path, tree in _sources(*HAND_WRITTEN):
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {ast.unparse(base) for base in node.bases}
            if node.name in SPEC_TYPE_NAMES or bases & {"BaseModel", "pydantic.BaseModel"}:
                offenders.append(f"{path.relative_to(ROOT)}: class {node.name}")
            if "TypedDict" in bases and node.name.removesuffix("Dict") in SPEC_TYPE_NAMES:
                offenders.append(f"{path.relative_to(ROOT)}: class {node.name}")
    assert offenders == [], "spec types must come from mnemowire.models (generated/)"


@pytest.mark.parametrize(
    ("folders", "forbidden"),
    [
        (("runtime", "adapters", "conformance"), "mnemowire.codegen"),
        (("runtime", "adapters", "conformance", "codegen"), "tests"),
        (("runtime",), "mnemowire.adapters."),
        (("adapters",), "mnemowire.cli"),
        (("conformance",), "mnemowire.adapters."),
    ],
)
def test_imports_flow_one_way(folders: tuple[str, ...], forbidden: str) -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path, tree in _sources(*folders)
        for name in _imports(tree)
        if (name == forbidden.rstrip(".") or name.startswith(forbidden))
        and path.relative_to(ROOT).as_posix() not in ALLOWED
    ]
    assert offenders == []
