"""``spec diff``: a corpus of minimal OLD/NEW pairs, one per rule and direction, each with the
classification it must get; the real spec against itself; and the command's outputs."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jsonschema
import pytest
from click.testing import CliRunner

from mnemowire import spec
from mnemowire.apps.cli import Exit, cli
from mnemowire.spec import diff as spec_diff
from tests.spec._copies import copies_of, copies_of_v0

ROOT = Path(__file__).parents[2]
BASE = "https://mnemowire.dev/spec/{version}/"
DIRECTIONS = ("request", "response")

#: a request is closed, a response open: the direction comes from the schema itself
REQUEST: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["agent_id"],
    "properties": {
        "agent_id": {"type": "string", "minLength": 1, "maxLength": 256},
        "k": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 5},
        "kind": {"enum": ["a", "b"]},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
        "name": {"type": "string", "pattern": "^[a-z]+$"},
        "when": {"type": "string", "format": "date-time"},
        "note": {"type": "string", "description": "a note"},
        "ref": {"$ref": "common.json#/$defs/Word"},
    },
}
RESPONSE: dict[str, Any] = {
    "type": "object",
    "required": ["id", "score"],
    "properties": {
        "id": {"type": "string"},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "extra": {"type": "string"},
        "kind": {"enum": ["a", "b"]},
        "open_kind": {"anyOf": [{"enum": ["a", "b"]}, {"type": "string", "minLength": 1}]},
        "nested": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"x": {"type": "integer"}},
        },
        "items": {"type": "array", "items": {"type": "string", "maxLength": 10}},
    },
}
COMMON: dict[str, Any] = {
    "$defs": {
        "Word": {"type": "string", "maxLength": 20},
        "Other": {"type": "string", "maxLength": 20},
    }
}


def _edit(base: dict[str, Any], pointer: str, value: Any) -> dict[str, Any]:
    """``base`` with the value at ``pointer`` (``/properties/k/maximum``) set, or deleted
    when ``value`` is ``DELETE``."""
    edited = copy.deepcopy(base)
    *parents, last = pointer.strip("/").split("/")
    node: Any = edited
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if value is DELETE:
        if isinstance(node, list):
            node.pop(int(last))
        else:
            del node[last]
    elif isinstance(node, list) and int(last) == len(node):
        node.append(copy.deepcopy(value))
    elif isinstance(node, list):
        node[int(last)] = copy.deepcopy(value)
    else:
        node[last] = copy.deepcopy(value)
    return edited


DELETE = object()


@dataclass(frozen=True)
class Case:
    """One minimal OLD/NEW pair: edits (JSON Pointer, value) to the base message make NEW
    (and, for ``old``, OLD), and the rules the diff must report, in any order."""

    name: str
    direction: str
    edits: list[tuple[str, Any]]
    expected: list[str]
    old: list[tuple[str, Any]] = field(default_factory=list)


EITHER = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
CASES: list[Case] = [
    # -- requests ----------------------------------------------------------------------------
    Case("request: optional field added", "request",
     [("/properties/colour", {"type": "string"})], ["request.property.added.optional"]),
    Case("request: required field added", "request",
     [("/properties/colour", {"type": "string"}), ("/required", ["agent_id", "colour"])],
     ["request.property.added.required"]),
    Case("request: field removed", "request",
     [("/properties/note", DELETE)], ["request.property.removed"]),
    Case("request: optional field made required", "request",
     [("/required", ["agent_id", "k"])], ["request.required.added"]),
    Case("request: required field made optional", "request",
     [("/required", [])], ["request.required.removed"]),
    Case("request: enum value appended", "request",
     [("/properties/kind/enum", ["a", "b", "c"])], ["request.enum.appended"]),
    Case("request: enum value inserted", "request",
     [("/properties/kind/enum", ["c", "a", "b"])], ["request.enum.inserted"]),
    Case("request: enum value removed", "request",
     [("/properties/kind/enum", ["a"])], ["request.enum.removed"]),
    Case("request: enum renamed is a removal and an addition", "request",
     [("/properties/kind/enum", ["a", "c"])], ["request.enum.removed", "request.enum.appended"]),
    Case("request: enum reordered", "request",
     [("/properties/kind/enum", ["b", "a"])], ["request.enum.reordered"]),
    Case("request: const added", "request",
     [("/properties/agent_id/const", "x")], ["request.const.changed"]),
    Case("request: type widened", "request",
     [("/properties/k/type", ["integer", "string"])], ["request.type.widened"]),
    Case("request: type narrowed", "request",
     [("/properties/note/type", "string")], ["request.type.narrowed"],
     old=[("/properties/note/type", ["string", "null"])]),
    Case("request: type changed", "request",
     [("/properties/k/type", "string")], ["request.type.changed"]),
    Case("request: maximum lowered", "request",
     [("/properties/k/maximum", 500)], ["request.bound.tightened"]),
    Case("request: maximum raised", "request",
     [("/properties/k/maximum", 5000)], ["request.bound.loosened"]),
    Case("request: minimum raised", "request",
     [("/properties/k/minimum", 2)], ["request.bound.tightened"]),
    Case("request: maxLength added", "request",
     [("/properties/note/maxLength", 100)], ["request.bound.tightened"]),
    Case("request: maxItems removed", "request",
     [("/properties/tags/maxItems", DELETE)], ["request.bound.loosened"]),
    Case("request: array items bound inside", "request",
     [("/properties/tags/items/maxLength", 5)], ["request.bound.tightened"]),
    Case("request: uniqueItems added", "request",
     [("/properties/tags/uniqueItems", True)], ["request.bound.tightened"]),
    Case("request: pattern added", "request",
     [("/properties/note/pattern", "^x")], ["request.pattern.added"]),
    Case("request: pattern removed", "request",
     [("/properties/name/pattern", DELETE)], ["request.pattern.removed"]),
    Case("request: pattern changed", "request",
     [("/properties/name/pattern", "^[a-z0-9]+$")], ["request.pattern.changed"]),
    Case("request: format added", "request",
     [("/properties/note/format", "email")], ["request.format.added"]),
    Case("request: format removed", "request",
     [("/properties/when/format", DELETE)], ["request.format.removed"]),
    Case("request: format changed", "request",
     [("/properties/when/format", "date")], ["request.format.changed"]),
    Case("request: opened to extra fields", "request",
     [("/properties/tags/items", {"type": "object", "additionalProperties": True})],
     ["request.additional-properties.opened"],
     old=[("/properties/tags/items", {"type": "object", "additionalProperties": False})]),
    Case("request: a nested object closed", "request",
     [("/properties/tags/items", {"type": "object", "additionalProperties": False})],
     ["request.additional-properties.closed"],
     old=[("/properties/tags/items", {"type": "object"})]),
    Case("request: default changed", "request",
     [("/properties/k/default", 10)], ["request.default.changed"]),
    Case("request: description changed", "request",
     [("/properties/note/description", "a longer note")], ["request.annotation.changed"]),
    Case("request: deprecated", "request",
     [("/properties/note/deprecated", True)], ["request.deprecated.added"]),
    Case("request: $ref retargeted to an equal definition", "request",
     [("/properties/ref/$ref", "common.json#/$defs/Other")], ["request.ref.changed"]),
    Case("request: $ref retargeted, and the target is tighter", "request",
     [("/properties/ref/$ref", "common.json#/$defs/Other"), ("/properties/ref/maxLength", 5)],
     ["request.ref.changed", "request.bound.tightened"]),
    Case("request: a condition where there was none", "request",
     [("/properties/k/anyOf", [{"minimum": 2}, {"maximum": 3}])], ["request.condition.added"]),
    Case("request: a condition lifted", "request",
     [("/properties/k/allOf", DELETE)], ["request.condition.removed"],
     old=[("/properties/k/allOf", [{"minimum": 2}])]),
    Case("request: an anyOf alternative added", "request",
     [("/properties/either/anyOf/2", {"type": "boolean"})], ["request.alternative.added"],
     old=[("/properties/either", EITHER)]),
    Case("request: an anyOf alternative removed", "request",
     [("/properties/either/anyOf/1", DELETE)], ["request.alternative.removed"],
     old=[("/properties/either", EITHER)]),
    Case("request: an anyOf alternative edited", "request",
     [("/properties/either/anyOf/0/maxLength", 5)], ["request.bound.tightened"],
     old=[("/properties/either", EITHER)]),
    Case("request: an allOf entry added", "request",
     [("/allOf/1", {"required": ["k"]})], ["request.condition.added"],
     old=[("/allOf", [{"required": ["agent_id"]}])]),
    Case("request: a condition on a field this version adds", "request",
     [("/properties/colour", {"type": "string"}),
      ("/allOf/1", {"if": {"required": ["colour"]}, "then": {"required": ["k"]}})],
     ["request.property.added.optional", "request.condition.added.new-field"],
     old=[("/allOf", [{"required": ["agent_id"]}]), ("/additionalProperties", False)]),
    Case("request: a condition on any of the fields this version adds", "request",
     [("/properties/colour", {"type": "string"}), ("/properties/shade", {"type": "string"}),
      ("/allOf/1", {"if": {"anyOf": [{"required": ["colour"]}, {"required": ["shade"]}]},
                    "then": {"properties": {"k": {"const": 1}}}})],
     ["request.property.added.optional", "request.property.added.optional",
      "request.condition.added.new-field"],
     old=[("/allOf", [{"required": ["agent_id"]}]), ("/additionalProperties", False)]),
    Case("request: a condition on a new field or one older clients could send", "request",
     [("/properties/colour", {"type": "string"}),
      ("/allOf/1", {"if": {"anyOf": [{"required": ["colour"]}, {"required": ["note"]}]},
                    "then": {"properties": {"k": {"const": 1}}}})],
     ["request.property.added.optional", "request.condition.added"],
     old=[("/allOf", [{"required": ["agent_id"]}]), ("/additionalProperties", False)]),
    Case("request: a condition on a field older clients could send", "request",
     [("/allOf/1", {"if": {"required": ["note"]}, "then": {"required": ["k"]}})],
     ["request.condition.added"],
     old=[("/allOf", [{"required": ["agent_id"]}]), ("/additionalProperties", False)]),
    Case("request: a oneOf alternative added", "request",
     [("/properties/either/oneOf/2", {"type": "number"})], ["request.composition.changed"],
     old=[("/properties/either", {"oneOf": [{"type": "string"}, {"type": "integer"}]})]),
    Case("request: a keyword the diff cannot prove", "request",
     [("/properties/note/contentMediaType", "application/json")], ["request.keyword.changed"]),
    # -- responses ---------------------------------------------------------------------------
    Case("response: optional field added", "response",
     [("/properties/colour", {"type": "string"})], ["response.property.added.optional"]),
    Case("response: required field added", "response",
     [("/properties/colour", {"type": "string"}), ("/required", ["id", "score", "colour"])],
     ["response.property.added.required"]),
    Case("response: optional field removed", "response",
     [("/properties/extra", DELETE)], ["response.property.removed.optional"]),
    Case("response: required field removed", "response",
     [("/properties/score", DELETE), ("/required", ["id"])],
     ["response.property.removed.required"]),
    Case("response: field made required", "response",
     [("/required", ["id", "score", "extra"])], ["response.required.added"]),
    Case("response: field made optional", "response",
     [("/required", ["id"])], ["response.required.removed"]),
    Case("response: closed enum value appended", "response",
     [("/properties/kind/enum", ["a", "b", "c"])], ["response.enum.appended"]),
    Case("response: closed enum value inserted", "response",
     [("/properties/kind/enum", ["c", "a", "b"])], ["response.enum.inserted"]),
    Case("response: open enum value appended", "response",
     [("/properties/open_kind/anyOf/0/enum", ["a", "b", "c"])],
     ["response.enum.appended.open"]),
    Case("response: open enum value inserted", "response",
     [("/properties/open_kind/anyOf/0/enum", ["c", "a", "b"])],
     ["response.enum.inserted.open"]),
    Case("response: enum value removed", "response",
     [("/properties/kind/enum", ["a"])], ["response.enum.removed"]),
    Case("response: enum reordered", "response",
     [("/properties/kind/enum", ["b", "a"])], ["response.enum.reordered"]),
    Case("response: const changed", "response",
     [("/properties/id/const", "x")], ["response.const.changed"]),
    Case("response: type widened", "response",
     [("/properties/id/type", ["string", "null"])], ["response.type.widened"]),
    Case("response: type narrowed", "response",
     [("/properties/score/type", "integer")], ["response.type.narrowed"]),
    Case("response: type changed", "response",
     [("/properties/id/type", "integer")], ["response.type.changed"]),
    Case("response: maximum raised", "response",
     [("/properties/score/maximum", 2)], ["response.bound.loosened"]),
    Case("response: maximum lowered", "response",
     [("/properties/score/maximum", 0.5)], ["response.bound.tightened"]),
    Case("response: array item bound loosened", "response",
     [("/properties/items/items/maxLength", 20)], ["response.bound.loosened"]),
    Case("response: pattern added", "response",
     [("/properties/id/pattern", "^[A-Z]+$")], ["response.pattern.added"]),
    Case("response: pattern removed", "response",
     [("/properties/id/pattern", DELETE)], ["response.pattern.removed"],
     old=[("/properties/id/pattern", "^x")]),
    Case("response: pattern changed", "response",
     [("/properties/id/pattern", "^y")], ["response.pattern.changed"],
     old=[("/properties/id/pattern", "^x")]),
    Case("response: format added", "response",
     [("/properties/id/format", "uuid")], ["response.format.added"]),
    Case("response: a field added to a closed object", "response",
     [("/properties/nested/properties/y", {"type": "integer"})],
     ["response.property.added.closed"]),
    Case("response: nested object opened", "response",
     [("/properties/nested/additionalProperties", True)],
     ["response.additional-properties.opened"]),
    Case("response: nested object closed", "response",
     [("/properties/extra", {"type": "object", "additionalProperties": False})],
     ["response.type.changed", "response.additional-properties.closed"]),
    Case("response: default changed", "response",
     [("/properties/score/default", 0.5)], ["response.default.changed"],
     old=[("/properties/score/default", 0.1)]),
    Case("response: format removed", "response",
     [("/properties/id/format", DELETE)], ["response.format.removed"],
     old=[("/properties/id/format", "uuid")]),
    Case("response: format changed", "response",
     [("/properties/id/format", "uri")], ["response.format.changed"],
     old=[("/properties/id/format", "uuid")]),
    Case("response: deprecated", "response",
     [("/properties/extra/deprecated", True)], ["response.deprecated.added"]),
    Case("response: $ref retargeted", "response",
     [("/properties/extra", {"$ref": "common.json#/$defs/Other"})], ["response.ref.changed"],
     old=[("/properties/extra", {"$ref": "common.json#/$defs/Word"})]),
    Case("response: an open enumeration closed", "response",
     [("/properties/open_kind", {"enum": ["a", "b"]})],
     ["response.condition.removed", "response.bound.tightened"]),
    Case("response: a condition where there was none", "response",
     [("/properties/score/anyOf", [{"maximum": 0.5}, {"minimum": 0.9}])],
     ["response.condition.added"]),
    Case("response: an anyOf alternative added", "response",
     [("/properties/either/anyOf/2", {"type": "boolean"})], ["response.alternative.added"],
     old=[("/properties/either", EITHER)]),
    Case("response: an anyOf alternative removed", "response",
     [("/properties/either/anyOf/1", DELETE)], ["response.alternative.removed"],
     old=[("/properties/either", EITHER)]),
    Case("response: a condition on a field this version adds", "response",
     [("/properties/nested/properties/y", {"type": "integer"}),
      ("/properties/nested/allOf", [{"if": {"required": ["y"]}, "then": {"required": ["x"]}}])],
     ["response.property.added.closed", "response.condition.added.new-field"]),
    Case("response: a oneOf alternative added", "response",
     [("/properties/either/oneOf/2", {"type": "number"})], ["response.composition.changed"],
     old=[("/properties/either", {"oneOf": [{"type": "string"}, {"type": "integer"}]})]),
    Case("response: a keyword the diff cannot prove", "response",
     [("/properties/extra/contentMediaType", "application/json")], ["response.keyword.changed"]),
    Case("response: description changed", "response",
     [("/properties/id/description", "the id")], ["response.annotation.changed"]),
]  # fmt: skip


def _version(root: Path, version: str, message: str, schema: dict[str, Any]) -> Path:
    folder = root / version
    folder.mkdir(parents=True)
    common = {"$id": BASE.format(version=version) + "common.json", **COMMON}
    (folder / "common.json").write_text(json.dumps(common))
    document = {"$id": BASE.format(version=version) + f"{message}.json", **schema}
    (folder / f"{message}.json").write_text(json.dumps(document))
    return folder


def _classify(
    tmp_path: Path, direction: str, old: dict[str, Any], new: dict[str, Any]
) -> list[str]:
    message = f"thing.{direction}"
    report = spec_diff.diff(
        spec.read_spec_dir(_version(tmp_path, "v0", message, old)),
        spec.read_spec_dir(_version(tmp_path, "v0.1", message, new)),
    )
    return [c.rule.id for c in report.changes]


def test_the_corpus_covers_every_rule_in_its_direction() -> None:
    """One case per rule and direction (messages added and removed, and a field added to an
    embedded request: tests of their own below)."""
    covered = {rule for case in CASES for rule in case.expected}
    own = {f"{d}.message.{how}" for d in ("request", "response") for how in ("added", "removed")}
    own.add("response.property.added.embedded-request")
    assert len(CASES) >= 40
    assert sorted(set(spec_diff.RULES) - covered - own) == []


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_each_change_is_classified(tmp_path: Path, case: Case) -> None:
    old = REQUEST if case.direction == "request" else RESPONSE
    for pointer, value in case.old:
        old = _edit(old, pointer, value)
    new = old
    for pointer, value in case.edits:
        new = _edit(new, pointer, value)
    assert sorted(_classify(tmp_path, case.direction, old, new)) == sorted(case.expected)


def test_the_same_edit_is_safe_one_way_and_breaking_the_other(tmp_path: Path) -> None:
    """A raised maximum: new clients may send what old stores refuse (request, WARN); new
    stores may send what old clients reject (response, ERR)."""
    request = _classify(
        tmp_path / "q", "request", REQUEST, _edit(REQUEST, "/properties/k/maximum", 5000)
    )
    response = _classify(
        tmp_path / "s", "response", RESPONSE, _edit(RESPONSE, "/properties/score/maximum", 2)
    )
    assert [spec_diff.RULES[r].level for r in request] == ["WARN"]
    assert [spec_diff.RULES[r].level for r in response] == ["ERR"]


def test_messages_added_and_removed(tmp_path: Path) -> None:
    old = _version(tmp_path, "v0", "gone.request", REQUEST)
    new = _version(tmp_path, "v0.1", "fresh.response", RESPONSE)
    report = spec_diff.diff(spec.read_spec_dir(old), spec.read_spec_dir(new))
    assert [(c.rule.id, c.message) for c in report.changes] == [
        ("response.message.added", "fresh.response"),
        ("request.message.removed", "gone.request"),
    ]
    assert report.required_bump == "major"


def test_the_real_spec_against_itself_has_no_change() -> None:
    files = spec.read_spec_dir(ROOT / "spec" / "v0")
    report = spec_diff.diff(files, files)
    assert report.changes == ()
    assert report.required_bump == "none"


def test_declared_bumps() -> None:
    assert spec_diff.declared_bump("v0", "v0.1") == "minor"
    assert spec_diff.declared_bump("v0.5", "v1") == "major"
    assert spec_diff.declared_bump("v0.1", "v0.1.1") == "none"
    assert spec_diff.declared_bump("v0.1", "v0.1") is None
    assert spec_diff.declared_bump("v0.2", "v0.1") is None


@pytest.fixture
def v0_to_edited(tmp_path: Path) -> tuple[Path, Path]:
    """The real v0 and a v0.1 with one safe and one breaking request change."""
    old, new = copies_of_v0(tmp_path, "v0", "v0.1")
    recall = json.loads((new / "recall.request.json").read_text())
    recall["properties"]["k"]["maximum"] = 500
    recall["properties"]["cursor"] = {"type": "string"}
    (new / "recall.request.json").write_text(json.dumps(recall))
    return old, new


def test_the_command_prints_json_under_its_schema(v0_to_edited: tuple[Path, Path]) -> None:
    old, new = v0_to_edited
    result = CliRunner().invoke(cli, ["spec", "diff", str(old), str(new), "--format", "json"])
    assert result.exit_code == Exit.OK, result.output
    report = json.loads(result.stdout)
    schema = json.loads((ROOT / "spec" / "diff" / "report.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(report)
    assert {(c["rule"], c["path"]) for c in report["changes"]} == {
        ("request.bound.tightened", "/k"),
        ("request.property.added.optional", "/cursor"),
    }
    assert (report["required_bump"], report["declared_bump"]) == ("major", "minor")
    assert "require a major bump" in result.stderr


def test_fail_on_and_check_bump_fail_with_exit_1(v0_to_edited: tuple[Path, Path]) -> None:
    """(--check-bump on a break: test_check_bump_lets_a_0x_minor_bump_break_through_v0_5.)"""
    old, new = v0_to_edited
    runner = CliRunner()
    for options in (["--fail-on", "ERR"], ["--fail-on", "WARN"]):
        result = runner.invoke(cli, ["spec", "diff", str(old), str(new), *options])
        assert result.exit_code == Exit.REJECTED, (options, result.output)
    assert "changes at WARN or above: failing" in result.stderr
    same = runner.invoke(cli, ["spec", "diff", str(old), str(old), "--check-bump"])
    assert same.exit_code == Exit.REJECTED
    assert "not newer" in same.stderr


def test_every_output_format(v0_to_edited: tuple[Path, Path]) -> None:
    old, new = v0_to_edited
    runner = CliRunner()

    def run(output: str) -> str:
        result = runner.invoke(cli, ["spec", "diff", str(old), str(new), "--format", output])
        assert result.exit_code == Exit.OK, result.output
        return result.stdout

    assert "ERR  request.bound.tightened  recall.request /k: maximum 1000 -> 500" in run("text")
    assert "| ERR | `request.bound.tightened` | `recall.request` | `/k` |" in run("markdown")
    github = run("github").splitlines()
    error = f"::error file={new}/recall.request.json,title=request.bound.tightened::/k: "
    assert [line.startswith(error) for line in github].count(True) == 1
    assert any(line.startswith("::warning ") for line in github)
    suite = ElementTree.fromstring(run("junit").split("?>", 1)[1])[0]
    failures = [case.get("name") for case in suite if case.find("failure") is not None]
    assert failures == ["recall.request"]
    assert suite.get("tests") == str(len(spec.read_spec_dir(new).messages))


def test_a_folder_that_is_not_a_spec_version_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["spec", "diff", str(tmp_path), str(ROOT / "spec" / "v0")])
    assert result.exit_code == Exit.USAGE
    assert "no common.json" in result.output


def test_a_recursive_definition_is_walked_without_end(tmp_path: Path) -> None:
    """A schema that refers to itself (a tree of filters, say) is compared once per place it
    is reached and stops where the same definitions are already being compared."""
    old = _edit(REQUEST, "/properties/child", {"$ref": "#"})
    new = _edit(old, "/properties/k/maximum", 500)
    report = _classify(tmp_path, "request", old, new)
    assert report == ["request.bound.tightened", "request.bound.tightened"]  # /child/k and /k


def test_the_rules_page_lists_every_rule_as_the_code_has_it() -> None:
    page = (ROOT / "docs" / "spec" / "diff.md").read_text(encoding="utf-8")
    table = page.split("<!-- rules:start -->", 1)[1].split("<!-- rules:end -->", 1)[0]
    rows = [line.split(" | ") for line in table.strip().splitlines()[2:]]
    listed = {row[0].strip("| `"): (row[1], row[2]) for row in rows}
    assert listed == {r.id: (r.level, r.bump) for r in spec_diff.RULES.values()}


def test_a_memory_type_added_in_common_is_read_per_direction(tmp_path: Path) -> None:
    """One edit in common.json, judged where each message uses it: a closed request enum
    (WARN), behind OpenMemoryType's $ref an open response enum (INFO), and inside a then."""
    old, new = copies_of_v0(tmp_path, "v0", "v0.1")
    common = json.loads((new / "common.json").read_text())
    common["$defs"]["MemoryType"]["enum"].append("working")
    (new / "common.json").write_text(json.dumps(common))
    report = spec_diff.diff(spec.read_spec_dir(old), spec.read_spec_dir(new))
    found = {(c.message, c.path, c.rule.id) for c in report.changes}
    assert ("remember.request", "/type", "request.enum.appended") in found
    assert ("recall.response", "/results/*/type", "response.enum.appended.open") in found
    # and one the policy table misses: a review-request (which stores send) carries the
    # original remember request under its closed schema, so an older reviewer rejects it
    errors = [(c.message, c.path, c.rule.id) for c in report.changes if c.rule.level == "ERR"]
    assert errors == [("review-request", "/request/type", "response.enum.appended")]


@pytest.mark.parametrize(
    ("edits", "old_edits", "expected"),
    [
        # a then under the same if is a constraint: tightened inside it is tightened
        ([("/allOf/0/then/properties/k/maximum", 5)], [], ["request.bound.tightened"]),
        # a constraint on another field, under the same if
        ([("/allOf/0/then/properties/note", {"maxLength": 3})], [], ["request.condition.added"]),
        ([("/allOf/0/else", {"required": ["note"]})], [], ["request.condition.added"]),
        ([("/allOf/0/if/properties/kind/const", "b")], [], ["request.keyword.changed"]),
    ],
    ids=["inside then", "a constraint added", "an else added", "the if changed"],
)
def test_conditionals(
    tmp_path: Path,
    edits: list[tuple[str, Any]],
    old_edits: list[tuple[str, Any]],
    expected: list[str],
) -> None:
    conditional = {
        "if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
        "then": {"properties": {"k": {"maximum": 10}}},
    }
    old = _edit(REQUEST, "/allOf", [conditional])
    for pointer, value in old_edits:
        old = _edit(old, pointer, value)
    new = old
    for pointer, value in edits:
        new = _edit(new, pointer, value)
    assert _classify(tmp_path, "request", old, new) == expected


def test_a_field_forbidden_beside_a_ref_is_gone(tmp_path: Path) -> None:
    """``{"$ref": X, "properties": {"f": false}}``: X without f. Properties beside a $ref refine
    the target's name by name, and in a closed object a property that is ``false`` can never
    be present: what v0.1 does to present a staged remember without its seal."""
    common: dict[str, Any] = {"$defs": {"Thing": {"type": "object", "additionalProperties": False,
                                  "properties": {"a": {"type": "string"}}}}}  # fmt: skip
    grown = copy.deepcopy(common)
    grown["$defs"]["Thing"]["properties"]["seal"] = {"type": "string"}
    old = {"type": "object", "properties": {"thing": {"$ref": "common.json#/$defs/Thing"}}}
    new = _edit(old, "/properties/thing/properties", {"seal": False})
    versions = []
    for version, defs, schema in (("v0", common, old), ("v0.1", grown, new)):
        folder = _version(tmp_path, version, "thing.response", schema)
        (folder / "common.json").write_text(
            json.dumps({"$id": BASE.format(version=version) + "common.json", **defs})
        )
        versions.append(spec.read_spec_dir(folder))
    assert [c.rule.id for c in spec_diff.diff(*versions).changes] == []
    plain = spec.read_spec_dir(_version(tmp_path / "plain", "v0.1", "thing.response", old))
    (tmp_path / "plain" / "v0.1" / "common.json").write_text(
        json.dumps({"$id": BASE.format(version="v0.1") + "common.json", **grown})
    )
    plain = spec.read_spec_dir(tmp_path / "plain" / "v0.1")
    assert [c.rule.id for c in spec_diff.diff(versions[0], plain).changes] == [
        "response.property.added.closed"  # without the false, the field is there
    ]


def test_v0_1_needs_no_more_than_a_minor_bump() -> None:
    """The real v0 -> v0.1: every change a minor one at most, no ERR, and the three new request
    fields are the only WARNs ([compat.minor])."""
    report = spec_diff.diff(spec.read_spec("v0"), spec.read_spec("v0.1"))
    assert report.required_bump == "minor"
    assert report.bump_ok
    assert report.at_least("ERR") == []
    assert [(c.message, c.path) for c in report.at_least("WARN")] == [
        ("expire.request", "/dry_run"),
        ("recall.request", "/query_vector"),
        ("remember.request", "/seal"),
    ]


def test_v0_2_needs_no_more_than_a_minor_bump() -> None:
    """The real v0.1 -> v0.2: the review queue is minor; the WARNs are the request fields an
    older store refuses, and the conditions added reach only messages carrying a new field."""
    report = spec_diff.diff(spec.read_spec("v0.1"), spec.read_spec("v0.2"))
    assert report.required_bump == "minor"
    assert report.bump_ok
    assert report.at_least("ERR") == []
    assert [(c.message, c.path) for c in report.at_least("WARN")] == [
        ("forget.request", "/approval_required"),
        ("forget.request", "/review_id"),
        ("merge.request", "/approval_required"),
        ("merge.request", "/review_id"),
        ("review-decision", "/merge_into"),
        ("review-decision", "/outcome"),
    ]
    new_field = {
        c.message for c in report.changes if c.rule.id.endswith("condition.added.new-field")
    }
    assert {"forget.request", "merge.request", "review-decision"} <= new_field


def test_a_field_added_to_a_reviewable_request_breaks_older_reviewers(tmp_path: Path) -> None:
    """remember.request gains an optional field: safe for remember.request itself (a WARN),
    but review-request, which stores send, embeds the request under its closed schema."""
    old, new = copies_of_v0(tmp_path, "v0", "v0.1")
    remember = json.loads((new / "remember.request.json").read_text())
    remember["properties"]["seal"] = {"type": "string"}
    (new / "remember.request.json").write_text(json.dumps(remember))
    report = spec_diff.diff(spec.read_spec_dir(old), spec.read_spec_dir(new))
    assert [(c.message, c.path, c.rule.id) for c in report.changes] == [
        ("remember.request", "/seal", "request.property.added.optional"),
        ("review-request", "/request/seal", "response.property.added.embedded-request"),
    ]


def test_folders_not_named_like_versions_diff_by_the_version_their_ids_name(
    tmp_path: Path,
) -> None:
    """old/ and new/ (a draft beside a release, say): each schema's $id names its version."""
    old, new = copies_of_v0(tmp_path, "v0", "v0.1")
    old, new = old.rename(tmp_path / "old"), new.rename(tmp_path / "new")
    result = CliRunner().invoke(cli, ["spec", "diff", str(old), str(new), "--check-bump"])
    assert result.exit_code == Exit.OK, result.output
    assert "spec v0 -> v0.1: 0 ERR, 0 WARN, 0 INFO" in result.stderr


@pytest.mark.parametrize(
    ("ids", "folder", "says"),
    [
        ("https://example.com/{name}", "draft", "no $id names one"),
        ("https://mnemowire.dev/spec/v0.2/{name}", "v0.3", "named v0.3, but its schemas' $ids"),
    ],
    ids=["no version anywhere", "the folder and the ids disagree"],
)
def test_a_spec_whose_version_cannot_be_told_is_a_usage_error(
    tmp_path: Path, ids: str, folder: str, says: str
) -> None:
    [old] = copies_of_v0(tmp_path, "v0")
    new = tmp_path / folder
    new.mkdir()
    for path in old.glob("*.json"):
        document = json.loads(path.read_text())
        document["$id"] = ids.format(name=path.name)
        (new / path.name).write_text(json.dumps(document))
    result = CliRunner().invoke(cli, ["spec", "diff", str(old), str(new)])
    assert result.exit_code == Exit.USAGE, result.output
    assert "'NEW'" in result.output
    assert says in result.output


def _grown(tmp_path: Path) -> tuple[Path, Path]:
    """The real v0.2, and a v0.3 whose remember.request gains the optional field mood."""
    old, new = copies_of("v0.2", tmp_path, "v0.2", "v0.3")
    remember = json.loads((new / "remember.request.json").read_text())
    remember["properties"]["mood"] = {"type": "string"}
    (new / "remember.request.json").write_text(json.dumps(remember))
    return old, new


def test_a_field_added_to_a_reviewable_request_says_to_lift_it_out(tmp_path: Path) -> None:
    """The ERR names the fix v0.1 used for seal: forbid the field in the embedded request,
    beside the $ref of the file that embeds it, and carry it beside; done, the ERRs are gone."""
    old, new = _grown(tmp_path)
    result = CliRunner().invoke(cli, ["spec", "diff", str(old), str(new), "--fail-on", "ERR"])
    assert result.exit_code == Exit.REJECTED, result.output
    errors = [line for line in result.stdout.splitlines() if line.startswith("ERR")]
    assert [line.split()[1:3] for line in errors] == [
        ["response.property.added.embedded-request", "review-request"],
        ["response.property.added.embedded-request", "reviews.response"],
    ]
    for line in errors:
        assert "field 'mood' added to remember.request, which review-request.json embeds" in line
        assert "lift it out" in line
        assert '"mood": false beside that $ref' in line
    review = json.loads((new / "review-request.json").read_text())
    review["allOf"][0]["then"]["properties"]["request"]["properties"]["mood"] = False
    review["properties"]["mood"] = {"type": "string", "description": "A staged remember's mood."}
    (new / "review-request.json").write_text(json.dumps(review))
    lifted = CliRunner().invoke(cli, ["spec", "diff", str(old), str(new), "--fail-on", "ERR"])
    assert lifted.exit_code == Exit.OK, lifted.output
    assert "require a minor bump" in lifted.stderr


@pytest.mark.parametrize(
    ("old", "new", "allowed"),
    [
        ("v0", "v0.1", "major"),  # before 1.0, a minor bump may break ...
        ("v0.4.2", "v0.5", "major"),  # ... through v0.5
        ("v0.1", "v0.7", "major"),  # a span that holds such a step
        ("v0.5", "v0.6", "minor"),  # v0.5 stabilises: past it, a break needs v1
        ("v0.5", "v1", "major"),
        ("v1", "v1.1", "minor"),
        ("v0.2", "v0.2.1", "none"),  # a patch never breaks
        ("v0.2", "v0.2", None),
    ],
)
def test_the_bump_a_version_number_allows(old: str, new: str, allowed: str | None) -> None:
    assert spec_diff.allowed_bump(old, new) == allowed


@pytest.mark.parametrize(
    ("versions", "code"),
    [(("v0.2", "v0.3"), Exit.OK), (("v0.5", "v0.6"), Exit.REJECTED)],
    ids=["v0.2 to v0.3", "v0.5 to v0.6"],
)
def test_check_bump_lets_a_0x_minor_bump_break_through_v0_5(
    tmp_path: Path, versions: tuple[str, str], code: Exit
) -> None:
    """A request bound tightened (ERR): v0.2 -> v0.3 may carry it, v0.5 -> v0.6 may not."""
    old, new = copies_of_v0(tmp_path, *versions)
    recall = json.loads((new / "recall.request.json").read_text())
    recall["properties"]["k"]["maximum"] = 500
    (new / "recall.request.json").write_text(json.dumps(recall))
    result = CliRunner().invoke(cli, ["spec", "diff", str(old), str(new), "--check-bump"])
    assert result.exit_code == code, result.output
    assert "require a major bump" in result.stderr
    if code == Exit.OK:
        assert "before 1.0 a minor bump may break, through v0.5" in result.stderr
    else:
        assert "declares minor; a break needs a major bump (a minor one only up to v0.5)" in (
            result.stderr
        )


def _scoped(tmp_path: Path, *, lift: bool) -> tuple[Path, Path]:
    """The real v0.3, and a v0.4 whose forget gains a third way to name its scope (``all``):
    an anyOf alternative added to the rule it already states (its description unchanged),
    and a rule of its own that reaches only messages with the new field; the review lifts
    ``all`` out of its embedded forget when ``lift``."""
    old, new = copies_of("v0.3", tmp_path, "v0.3", "v0.4")
    forget = json.loads((new / "forget.request.json").read_text())
    forget["properties"]["all"] = {"type": "boolean", "const": True}
    forget["allOf"][0]["anyOf"].append({"required": ["all"]})
    forget["allOf"][0]["description"] += " (or all)"  # reworded, too
    forget["allOf"].append(
        {
            "description": "all names the whole scope: ids and filter are not sent with it.",
            "if": {"anyOf": [{"required": ["all"]}]},
            "then": {
                "properties": {
                    "ids": {"type": "array", "maxItems": 0},
                    "filter": {"type": "object", "maxProperties": 0},
                }
            },
        }
    )
    (new / "forget.request.json").write_text(json.dumps(forget))
    if lift:
        review = json.loads((new / "review-request.json").read_text())
        review["allOf"][1]["then"]["properties"]["request"]["properties"]["all"] = False
        (new / "review-request.json").write_text(json.dumps(review))
    return old, new


def test_a_rule_that_gains_an_alternative_only_widens(tmp_path: Path) -> None:
    """An edited composition branch is matched with its earlier self by the rule it states
    (its description, or an anyOf keeping every alternative it had, reworded or not): a new
    anyOf alternative lets more through (a WARN for a request: older stores refuse it), it
    is not a condition removed and another added. Where the field the alternative
    requires is lifted out (a review's embedded request), it admits nothing: no change."""
    report = spec_diff.diff(*(spec.read_spec_dir(d) for d in _scoped(tmp_path, lift=True)))
    assert report.at_least("ERR") == []
    assert sorted((c.message, c.path, c.rule.id) for c in report.at_least("WARN")) == [
        ("forget.request", "", "request.alternative.added"),
        ("forget.request", "/all", "request.property.added.optional"),
    ]
    assert report.required_bump == "minor"
    unlifted = spec_diff.diff(
        *(spec.read_spec_dir(d) for d in _scoped(tmp_path / "unlifted", lift=False))
    )
    assert {(c.message, c.rule.id) for c in unlifted.at_least("ERR")} >= {
        ("review-request", "response.property.added.embedded-request"),
        ("review-request", "response.alternative.added"),
    }
