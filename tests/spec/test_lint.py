"""The spec lint passes on the shipped spec and catches each kind of mistake it exists for."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mnemowire import spec
from mnemowire.spec.lint import canonical_json, lint

SOURCE = Path(__file__).parents[2] / "spec" / spec.LATEST


@pytest.mark.parametrize("version", spec.available_versions())
def test_shipped_spec_is_clean(version: str) -> None:
    assert lint(spec.read_spec(version)) == []


@pytest.mark.parametrize("version", spec.available_versions())
def test_source_tree_spec_is_the_shipped_one(version: str) -> None:
    source = SOURCE.parent / version
    assert spec.read_spec_dir(source).digest == spec.read_spec(version).digest


@pytest.fixture
def spec_copy(tmp_path: Path) -> Callable[[str, Callable[[dict[str, Any]], None]], list[str]]:
    """Copy spec/v0, let a test edit one file, and return the rules the lint reports."""

    def run(file: str, edit: Callable[[dict[str, Any]], None]) -> list[str]:
        target = tmp_path / SOURCE.name
        shutil.copytree(SOURCE, target)
        path = target / file
        doc = json.loads(path.read_text())
        edit(doc)
        path.write_text(canonical_json(doc))
        return [p.rule for p in lint(spec.read_spec_dir(target))]

    return run


def test_forbidden_keyword_is_rejected(spec_copy: Any) -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["properties"]["types"]["prefixItems"] = [{"type": "string"}]

    assert spec_copy("recall.request.json", edit) == ["forbidden-keyword"]


@pytest.mark.parametrize("keyword", ["unevaluatedProperties", "dependentRequired"])
def test_each_listed_forbidden_keyword_is_rejected(spec_copy: Any, keyword: str) -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc[keyword] = False if keyword == "unevaluatedProperties" else {"ids": ["filter"]}

    assert "forbidden-keyword" in spec_copy("forget.request.json", edit)


def test_recursive_ref_is_rejected(spec_copy: Any) -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["$defs"]["StoreHealth"]["properties"]["stores"] = {
            "description": "children",
            "type": "array",
            "items": {"$ref": "#/$defs/StoreHealth"},
        }

    assert spec_copy("health.json", edit) == ["recursive-ref"]


def test_dangling_ref_is_rejected(spec_copy: Any) -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["properties"]["k"] = {"$ref": "common.json#/$defs/TopK"}

    assert spec_copy("recall.request.json", edit) == ["ref"]


def test_open_request_is_rejected(spec_copy: Any) -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["additionalProperties"] = True

    assert spec_copy("merge.request.json", edit) == ["closure"]


def test_undocumented_field_is_rejected(spec_copy: Any) -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["properties"]["hard_delete"].pop("description")

    assert spec_copy("forget.request.json", edit) == ["description"]


def test_default_that_breaks_its_schema_is_rejected(spec_copy: Any) -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["properties"]["k"]["default"] = 0

    assert spec_copy("recall.request.json", edit) == ["default"]


def test_unsupported_conditional_shape_is_rejected(spec_copy: Any) -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["allOf"][0]["if"] = {"properties": {"type": {"enum": ["procedural"]}}}

    assert spec_copy("remember.request.json", edit) == ["conditional"]


def test_wrong_annotation_on_an_example_is_reported(spec_copy: Any, tmp_path: Path) -> None:
    rules = spec_copy("recall.request.json", lambda doc: None)
    assert rules == []
    example = tmp_path / SOURCE.name / "examples" / "recall.request" / "invalid" / "k-zero.json"
    data = json.loads(example.read_text())
    data["errors"] = [{"path": "/k", "rule": "maximum"}]
    example.write_text(canonical_json(data))
    assert [p.rule for p in lint(spec.read_spec_dir(tmp_path / SOURCE.name))] == ["example"]


def test_non_canonical_formatting_is_reported(tmp_path: Path) -> None:
    target = tmp_path / SOURCE.name
    shutil.copytree(SOURCE, target)
    path = target / "health.json"
    path.write_text(json.dumps(json.loads(path.read_text())))
    assert [p.rule for p in lint(spec.read_spec_dir(target))] == ["format"]


def test_missing_coverage_is_reported(tmp_path: Path) -> None:
    target = tmp_path / SOURCE.name
    shutil.copytree(SOURCE, target)
    for example in (target / "examples" / "recall.request" / "valid").iterdir():
        data = json.loads(example.read_text())
        data.pop("hops", None)
        example.write_text(canonical_json(data))
    problems = lint(spec.read_spec_dir(target))
    assert [p.rule for p in problems] == ["coverage"]
    assert "hops" in problems[0].message
