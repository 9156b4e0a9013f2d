"""The spec lint: keep the schemas inside the JSON Schema subset every tool in our chain honours.

Our chain is jsonschema-rs (run time), python-jsonschema (the reference), hypothesis-jsonschema
(fuzzing), datamodel-code-generator (Pydantic) and our own TypeScript and Go emitters. Each
supports a different slice of 2020-12; a keyword outside the common slice would be enforced by
some and silently ignored by others, which is exactly the drift a spec must not have. The lint
also checks the house rules (closed requests, open responses, documented fields, canonical
formatting) and runs every example through both validators.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import jsonschema
import referencing
import referencing.jsonschema

from mnemowire.spec._loader import COMMON, SpecFiles
from mnemowire.spec._refs import absolute, lookup
from mnemowire.spec._validate import JSON_MEDIA_TYPE, compile_files, loads_strict, pointer

__all__ = [
    "ALLOWED_KEYWORDS",
    "FORBIDDEN_KEYWORDS",
    "Problem",
    "canonical_json",
    "format_files",
    "lint",
    "reference_validator",
]

DIALECT = "https://json-schema.org/draft/2020-12/schema"
ID_PREFIX = "https://mnemowire.dev/spec/"
MIN_VALID_EXAMPLES = 3

#: Keywords a schema may use, and nothing else.
ALLOWED_KEYWORDS = frozenset(
    {
        "$schema", "$id", "$ref", "$defs", "$comment", "title", "description", "default",
        "type", "enum", "const", "properties", "required", "additionalProperties",
        "propertyNames", "minProperties", "maxProperties", "items", "minItems", "maxItems",
        "uniqueItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "minLength", "maxLength", "pattern", "anyOf", "allOf", "if", "then",
        "contentMediaType", "contentSchema",
    }
)  # fmt: skip

#: Keywords people reach for that our tool chain does not honour, and why.
FORBIDDEN_KEYWORDS = {
    "unevaluatedProperties": "hypothesis-jsonschema and datamodel-code-generator ignore it",
    "unevaluatedItems": "hypothesis-jsonschema and datamodel-code-generator ignore it",
    "prefixItems": "hypothesis-jsonschema does not honour it",
    "dependentRequired": "hypothesis-jsonschema does not honour it; use if/then",
    "dependentSchemas": "hypothesis-jsonschema does not honour it; use if/then",
    "$dynamicRef": "recursive references are not supported by the code generators",
    "$dynamicAnchor": "recursive references are not supported by the code generators",
    "$anchor": "refer to $defs by JSON Pointer instead",
    "format": "validators disagree on formats; use pattern or a bounded type",
    "oneOf": "use anyOf: exclusive unions are slow to check and explained badly",
    "patternProperties": "the TypeScript and Go emitters do not support it",
    "else": "write the condition as if/then",
    "not": "the emitters and hypothesis-jsonschema handle negation poorly",
    "contains": "the emitters do not support it",
    "multipleOf": "floating-point multiples differ between languages",
}

# Keywords whose value is a schema, a list of schemas or a map of schemas.
_SCHEMA_VALUE = frozenset(
    {"items", "additionalProperties", "propertyNames", "if", "then", "contentSchema"}
)
_SCHEMA_LIST = frozenset({"anyOf", "allOf"})
_SCHEMA_MAP = frozenset({"properties", "$defs"})
_CLOSED_MESSAGES = ("review-decision",)


@dataclass(frozen=True)
class Problem:
    """One lint finding: where (file and JSON Pointer), which rule, and what to change."""

    file: str
    path: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}#{self.path} [{self.rule}] {self.message}"


def lint(files: SpecFiles, *, examples: bool = True) -> list[Problem]:
    """Every problem in one spec version's files (and its examples), sorted; empty when clean."""
    problems: list[Problem] = []
    for name, doc in sorted(files.documents.items()):
        problems.extend(_lint_document(files, name, doc))
    problems.extend(_lint_refs(files))
    if examples and not problems:
        problems.extend(_lint_examples(files))
    return sorted(problems, key=lambda p: (p.file, p.path, p.rule, p.message))


def canonical_json(doc: Any) -> str:
    """The one text form of a spec file: stable diffs and byte-stable content hashes."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def format_files(root: Traversable) -> list[str]:
    """Rewrite every JSON file under a spec folder in canonical form; return the changed ones."""
    changed = []
    for path in sorted(Path(str(root)).rglob("*.json")):
        text = path.read_text(encoding="utf-8")
        canonical = canonical_json(json.loads(text))
        if text != canonical:
            path.write_text(canonical, encoding="utf-8")
            changed.append(str(path))
    return changed


# --- one document --------------------------------------------------------------------------


def _lint_document(files: SpecFiles, name: str, doc: dict[str, Any]) -> Iterator[Problem]:
    file = f"{name}.json"
    text = (files.root / file).read_text(encoding="utf-8")
    if text != canonical_json(doc):
        yield Problem(file, "", "format", "not in canonical form: run `mnemowire spec fmt`")
    if doc.get("$schema") != DIALECT:
        yield Problem(file, "/$schema", "dialect", f"must be {DIALECT}")
    expected_id = f"{ID_PREFIX}{files.version}/{file}"
    if doc.get("$id") != expected_id:
        yield Problem(file, "/$id", "id", f"must be {expected_id}")
    try:
        jsonschema.Draft202012Validator.check_schema(doc)
    except jsonschema.SchemaError as exc:
        yield Problem(file, pointer(exc.absolute_path), "metaschema", exc.message)
        return
    if name != COMMON:
        yield from _lint_message_root(file, name, doc)
    yield from _walk(file, doc, [])


def _lint_message_root(file: str, name: str, doc: dict[str, Any]) -> Iterator[Problem]:
    if doc.get("type") != "object":
        yield Problem(file, "/type", "message", "a message must be a JSON object")
    closed = name.endswith(".request") or name in _CLOSED_MESSAGES
    want = not closed
    if doc.get("additionalProperties") is not want:
        kind = "requests are closed" if closed else "responses are extensible"
        yield Problem(
            file, "/additionalProperties", "closure", f"{kind}: set additionalProperties {want}"
        )
    if not isinstance(doc.get("title"), str):
        yield Problem(file, "/title", "title", "a message needs a title (the generated type name)")


def _walk(file: str, node: Any, path: list[str | int]) -> Iterator[Problem]:
    if isinstance(node, bool):
        yield Problem(file, pointer(path), "boolean-schema", "write {} or an explicit schema")
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        here = [*path, key]
        if key in FORBIDDEN_KEYWORDS:
            yield Problem(file, pointer(here), "forbidden-keyword", FORBIDDEN_KEYWORDS[key])
        elif key not in ALLOWED_KEYWORDS:
            yield Problem(file, pointer(here), "unknown-keyword", f"{key!r} is not allowed")
        elif key in _SCHEMA_VALUE and isinstance(value, dict | bool):
            if not (key == "additionalProperties" and isinstance(value, bool)):
                yield from _walk(file, value, here)
        elif key in _SCHEMA_LIST and isinstance(value, list):
            for i, item in enumerate(value):
                yield from _walk(file, item, [*here, i])
        elif key in _SCHEMA_MAP and isinstance(value, dict):
            if key == "properties" and "$ref" in node and _forbids_fields(node):
                continue
            for sub, item in value.items():
                yield from _walk(file, item, [*here, sub])
    yield from _house_rules(file, node, path)


def _house_rules(file: str, node: dict[str, Any], path: list[str | int]) -> Iterator[Problem]:
    where = pointer(path)
    closable = "properties" in node and not ("$ref" in node and _forbids_fields(node))
    if closable and "additionalProperties" not in node and not _in_conditional(path):
        yield Problem(file, where, "closure", "an object schema must set additionalProperties")
    for req in node.get("required", []):
        if "properties" in node and req not in node["properties"]:
            yield Problem(file, where, "required", f"required {req!r} is not a property")
    if not _in_conditional(path):
        for prop, sub in node.get("properties", {}).items():
            if isinstance(sub, dict) and "description" not in sub and "$ref" not in sub:
                yield Problem(
                    file,
                    pointer([*path, "properties", prop]),
                    "description",
                    "document the field (description), or $ref a documented type",
                )
    if path[-2:-1] == ["$defs"] and not isinstance(node.get("description"), str):
        yield Problem(file, where, "description", "document the definition (description)")
    if "$ref" in node:
        extra = set(node) - {"$ref", "description", "default", "title", "$comment"}
        if _forbids_fields(node):  # the target without some of its fields: "properties": {f: false}
            extra.discard("properties")
        if extra:
            yield Problem(
                file,
                where,
                "ref-siblings",
                f"beside $ref only annotations are allowed, not {sorted(extra)}",
            )
    if "if" in node:
        yield from _conditional(file, node, path)
    if "contentSchema" in node and node.get("contentMediaType") != JSON_MEDIA_TYPE:
        yield Problem(file, where, "content", "contentSchema needs contentMediaType JSON")
    if "default" in node and not _refers(node):
        try:
            jsonschema.Draft202012Validator(node).validate(node["default"])
        except jsonschema.ValidationError as exc:
            yield Problem(file, where, "default", f"default breaks its own schema: {exc.message}")


def _refers(node: Any) -> bool:
    """Whether a schema holds a ``$ref`` anywhere: its default is checked where the reference
    resolves (the generated models and the examples), not out of its document here."""
    if isinstance(node, dict):
        return "$ref" in node or any(_refers(value) for value in node.values())
    return isinstance(node, list) and any(_refers(item) for item in node)


def _forbids_fields(node: dict[str, Any]) -> bool:
    """A ``$ref`` with ``properties`` that are all ``false``: the target, minus those fields
    (how v0.1 presents a staged remember without its seal). The one sibling of ``$ref`` every
    tool handles: the generators build the target without them, the diff reads them as gone."""
    properties = node.get("properties")
    return (
        isinstance(properties, dict)
        and bool(properties)
        and all(value is False for value in properties.values())
    )


def _in_conditional(path: list[str | int]) -> bool:
    return any(p in ("if", "then") for p in path)


def _conditional(file: str, node: dict[str, Any], path: list[str | int]) -> Iterator[Problem]:
    """if/then is allowed in one shape only, the one every emitter implements."""
    where = pointer(path)
    if "then" not in node:
        yield Problem(file, where, "conditional", "an if needs a then")
    if not isinstance(node.get("description"), str):
        yield Problem(file, where, "conditional", "describe the rule: it becomes the error text")
    if path[-2:-1] != ["allOf"]:
        yield Problem(file, where, "conditional", "put each if/then in its own allOf entry")
    cond = node["if"]
    const_test = (
        set(cond) == {"properties", "required"}
        and len(cond["properties"]) == 1
        and all(set(s) == {"const"} for s in cond["properties"].values())
        and cond["required"] == list(cond["properties"])
    )
    presence_test = set(cond) == {"anyOf"} and all(
        set(alt) == {"required"} and len(alt["required"]) == 1 for alt in cond["anyOf"]
    )
    if not (const_test or presence_test):
        yield Problem(
            file,
            f"{where}/if",
            "conditional",
            "an if tests one property's const, or the presence of any of some fields",
        )
    then = node.get("then", {})
    if set(then) != {"properties"}:
        yield Problem(
            file, f"{where}/then", "conditional", "a then constrains properties, and nothing else"
        )


# --- references ----------------------------------------------------------------------------


def _lint_refs(files: SpecFiles) -> Iterator[Problem]:
    """Every $ref resolves, and no chain of $refs leads back to where it started."""
    by_id = {doc["$id"]: doc for doc in files.documents.values() if "$id" in doc}
    edges: dict[str, set[str]] = {}
    for name, doc in files.documents.items():
        for owner, ref in _refs(doc, "#"):
            target = absolute(doc.get("$id", ""), ref)
            if lookup(by_id, target) is None:
                yield Problem(f"{name}.json", owner[1:], "ref", f"$ref {ref!r} does not resolve")
                continue
            edges.setdefault(f"{doc.get('$id')}{owner}", set()).add(target)
    for start in sorted(edges):
        if _reaches(edges, start, start):
            file, _, frag = start.partition("#")
            yield Problem(
                file.rsplit("/", 1)[-1],
                frag,
                "recursive-ref",
                "recursive $ref: the code generators cannot express it",
            )


def _refs(node: Any, owner: str) -> Iterator[tuple[str, str]]:
    """(definition that holds it, $ref) for every $ref; owner is the enclosing $defs entry."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield owner, value
            elif key == "$defs" and isinstance(value, dict):
                for sub, item in value.items():
                    yield from _refs(item, f"#/$defs/{sub}")
            else:
                yield from _refs(value, owner)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item, owner)


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    seen: set[str] = set()
    stack = list(edges.get(start, ()))
    while stack:
        here = stack.pop()
        if here == goal:
            return True
        if here not in seen:
            seen.add(here)
            stack.extend(edges.get(here, ()))
    return False


# --- examples ------------------------------------------------------------------------------


def reference_validator(files: SpecFiles, message: str) -> jsonschema.protocols.Validator:
    """A python-jsonschema validator for ``message``: the independent oracle for the examples.

    It asserts contentMediaType/contentSchema the way the run-time validator does, so the two
    can be compared on every example and every generated case.
    """
    # Without $schema in the documents, python-jsonschema keeps using the extended class when it
    # follows a $ref into another document (it would pick the plain 2020-12 class otherwise).
    documents = {
        name: {k: v for k, v in doc.items() if k != "$schema"}
        for name, doc in files.documents.items()
    }
    resources = [
        (doc["$id"], referencing.jsonschema.DRAFT202012.create_resource(doc))
        for doc in documents.values()
    ]
    registry: referencing.Registry[Any] = referencing.Registry().with_resources(resources)

    def content_media_type(v: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if value == JSON_MEDIA_TYPE and isinstance(instance, str):
            try:
                loads_strict(instance)
            except ValueError:
                yield jsonschema.ValidationError("must be JSON text")

    def content_schema(v: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if schema.get("contentMediaType") != JSON_MEDIA_TYPE or not isinstance(instance, str):
            return
        try:
            parsed = loads_strict(instance)
        except ValueError:
            return
        for error in v.descend(parsed, value):
            yield jsonschema.ValidationError(f"is not valid content: {error.message}")

    cls: Any = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        jsonschema.Draft202012Validator,
        {"contentMediaType": content_media_type, "contentSchema": content_schema},
    )
    validator: jsonschema.protocols.Validator = cls(documents[message], registry=registry)
    return validator


def _lint_examples(files: SpecFiles) -> Iterator[Problem]:
    validators = compile_files(files)
    oracles = {m: reference_validator(files, m) for m in files.messages}
    valid_counts: dict[str, int] = dict.fromkeys(files.messages, 0)
    seen_fields: dict[str, set[str]] = {m: set() for m in files.messages}
    invalid_counts: dict[str, int] = dict.fromkeys(files.messages, 0)
    for example in files.examples():
        file = f"examples/{example.message}/{'valid' if example.valid else 'invalid'}/"
        file += f"{example.name}.json"
        fast = validators[example.message]
        oracle = oracles[example.message]
        found = {(d["path"], d["rule"]) for d in fast.errors(example.instance)}
        if fast.schema_valid(example.instance) != oracle.is_valid(example.instance):
            yield Problem(
                file, "", "oracle", "jsonschema-rs and python-jsonschema disagree on this example"
            )
        if example.valid:
            valid_counts[example.message] += 1
            seen_fields[example.message] |= _fields(files, example.message, example.instance)
            if found:
                yield Problem(file, "", "example", f"must be valid but breaks {sorted(found)}")
        else:
            invalid_counts[example.message] += 1
            if found != set(example.errors):
                yield Problem(
                    file,
                    "",
                    "example",
                    f"annotated {sorted(example.errors)} but validation gives {sorted(found)}",
                )
    for message in files.messages:
        file = f"examples/{message}/"
        if valid_counts[message] < MIN_VALID_EXAMPLES:
            yield Problem(
                file, "", "examples", f"needs at least {MIN_VALID_EXAMPLES} valid examples"
            )
        if invalid_counts[message] < 1:
            yield Problem(file, "", "examples", "needs at least one invalid example")
        missing = _fields(files, message, declared=True) - seen_fields[message]
        if missing:
            names = sorted(m.rsplit("/", 1)[-1] + " (" + m.split("/")[-3] + ")" for m in missing)
            yield Problem(file, "", "coverage", f"no valid example uses {names}")


def _fields(
    files: SpecFiles, message: str, instance: Any = None, *, declared: bool = False
) -> set[str]:
    """Fields as ``<definition>#<property>``: declared by a message's schema, or used by an
    instance. Keyed by definition, so a record type's field counts as covered wherever the
    examples use it."""
    by_id = {doc["$id"]: doc for doc in files.documents.values()}
    out: set[str] = set()

    def visit(
        node: Any, owner: str, value: Any, depth: int, without: frozenset[str] = frozenset()
    ) -> None:
        if not isinstance(node, dict) or depth > 12:
            return
        if "$ref" in node:
            target = absolute(owner, node["$ref"])
            # the target without the fields this reference forbids ("properties": {f: false})
            forbidden = frozenset(node["properties"]) if _forbids_fields(node) else frozenset()
            visit(lookup(by_id, target), target, value, depth + 1, forbidden)
        for key, sub in node.get("properties", {}).items():
            if sub is False or key in without:
                continue
            if declared or (isinstance(value, dict) and key in value):
                out.add(f"{owner}/properties/{key}")
                visit(sub, f"{owner}/properties/{key}", None if declared else value[key], depth + 1)
        items = node.get("items")
        if isinstance(items, dict):
            for element in [None] if declared else (value if isinstance(value, list) else []):
                visit(items, f"{owner}/items", element, depth + 1)
        for i, alt in enumerate(node.get("anyOf", [])):
            visit(alt, f"{owner}/anyOf/{i}", value, depth + 1)

    doc = files.documents[message]
    visit(doc, f"{doc['$id']}#", instance, 0)
    return out
