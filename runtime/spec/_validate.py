"""Validate messages against the spec and explain every failure as the spec's error envelope.

The validators are compiled once per spec version with jsonschema-rs: a typical remember request
validates in about a microsecond, where the pure-Python ``jsonschema`` takes 150-300 µs on the same
schema (measured, see docs/benchmarks.md), too slow to sit on every request. ``jsonschema`` stays
the independent reference that ``mnemowire spec lint`` and the tests compare against.

Two annotation keywords are asserted, as the spec prose requires: a string with
``contentMediaType: application/json`` must be JSON text, and its parsed value must validate
against ``contentSchema`` (procedural content is the JSON text of a state machine).
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import jsonschema_rs

from mnemowire.errors import RequestError
from mnemowire.spec._loader import LATEST, SpecFiles, read_spec
from mnemowire.spec._refs import lookup, pointer
from mnemowire.spec._semantic import SEMANTIC_RULES
from mnemowire.spec._wellformed import MAX_DEPTH, MAX_REQUEST_DEPTH, wellformed_problems

__all__ = [
    "Validator",
    "check",
    "compile_files",
    "compile_spec",
    "integral_bounds",
    "loads_strict",
    "pointer",
    "validate",
    "validator",
]

Detail = dict[str, str]
JSON_MEDIA_TYPE = "application/json"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads_strict(text: str | bytes) -> Any:
    """``json.loads`` without Python's extensions (NaN, Infinity): JSON text, or ValueError
    (also for text nested too deeply for the parser, and for bytes that are not UTF-8)."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("nested too deeply to parse") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from None


class _ContentMediaType:
    """Assert that a string declared ``application/json`` parses as JSON."""

    def __init__(self, parent: dict[str, Any], value: Any, schema_path: list[str | int]) -> None:
        self.applies = value == JSON_MEDIA_TYPE

    def validate(self, instance: Any) -> None:
        if self.applies and isinstance(instance, str):
            try:
                loads_strict(instance)
            except ValueError as exc:
                raise ValueError(f"must be JSON text ({exc})") from None


def _content_schema_keyword(
    make: Callable[[Any], jsonschema_rs.Validator], by_id: dict[str, Any]
) -> type:
    class _ContentSchema:
        """Assert that the parsed JSON text of a string validates against ``contentSchema``."""

        def __init__(self, parent: dict[str, Any], value: Any, path: list[str | int]) -> None:
            self.applies = parent.get("contentMediaType") == JSON_MEDIA_TYPE
            self.inner = make(value)

        def validate(self, instance: Any) -> None:
            if not (self.applies and isinstance(instance, str)):
                return
            try:
                parsed = loads_strict(instance)
            except ValueError:
                return  # contentMediaType reports it; one rule, one error
            problems = [
                f"{d['path'] or '(root)'}: {d['message']}"
                for d in _explain(self.inner, parsed, by_id)
            ]
            if problems:
                raise ValueError("is not valid content: " + "; ".join(problems))

    return _ContentSchema


class Validator:
    """A compiled validator for one message of one spec version."""

    def __init__(
        self, message: str, schema: dict[str, Any], compiled: Any, by_id: dict[str, Any]
    ) -> None:
        self.message = message
        self.schema = schema
        self._compiled = compiled
        self._by_id = by_id
        self._semantic = SEMANTIC_RULES.get(message)
        #: requests (closed schemas) nest less deeply than what a store sends back
        self.max_depth = (
            MAX_REQUEST_DEPTH if schema.get("additionalProperties") is False else MAX_DEPTH
        )

    def schema_valid(self, payload: Any) -> bool:
        """Valid under the JSON Schema alone, without the spec's semantic and well-formedness
        rules (the reference validator's verdict, for differential tests)."""
        return bool(self._compiled.is_valid(payload))

    def is_valid(self, payload: Any) -> bool:
        if wellformed_problems(payload, self.max_depth) or not self._compiled.is_valid(payload):
            return False
        return self._semantic is None or next(self._semantic(payload), None) is None

    def errors(self, payload: Any) -> list[Detail]:
        """Every broken rule as ``{path, rule, message}``, sorted, without duplicates.

        A value that is not JSON, or nests too deeply, is reported as that alone: the schema
        cannot be read against it ([messages.wellformed]). Text problems are reported with the
        schema's. Semantic rules (docs/spec/v0.md) are checked once both pass: they read fields
        the schema has already vouched for.
        """
        wellformed = wellformed_problems(payload, self.max_depth)
        if any(d["rule"] != "text" for d in wellformed):
            return _sorted(wellformed)
        try:
            details = _explain(self._compiled, payload, self._by_id)
        except UnicodeEncodeError:  # a key with no UTF-8 encoding: jsonschema-rs cannot read
            return _sorted(wellformed)  # the object at all, so the text rule is said alone
        if wellformed:
            return _sorted([*details, *wellformed])
        if not details and self._semantic is not None:
            details = _sorted(self._semantic(payload))
        return details

    def envelope(self, payload: Any) -> dict[str, Any] | None:
        """The spec error envelope for ``payload``, or None when it is valid."""
        if self.is_valid(payload):
            return None
        details = self.errors(payload)
        first = details[0] if details else {"path": "", "message": "is invalid"}
        where = f"`{first['path']}`" if first["path"] else "the message"
        more = f" (and {len(details) - 1} more)" if len(details) > 1 else ""
        return {
            "code": "invalid_request",
            "message": f"invalid {self.message}: {where} {first['message']}{more}; "
            "fix every field listed in details and send it again",
            "details": details,
        }


@functools.cache
def compile_spec(version: str = LATEST) -> dict[str, Validator]:
    """Compile a validator for every message of ``version``; cached, so once per process."""
    return compile_files(read_spec(version))


def compile_files(files: SpecFiles) -> dict[str, Validator]:
    """Compile a validator for every message of a set of spec files (shipped or being linted)."""
    by_id = {doc["$id"]: doc for doc in files.documents.values()}
    registry = jsonschema_rs.Registry([(uri, integral_bounds(doc)) for uri, doc in by_id.items()])
    return {name: _compile(files, registry, by_id, name) for name in files.messages}


#: the numeric keywords jsonschema-rs compares every instance number against
_BOUNDS = frozenset(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"))


def integral_bounds(schema: Any) -> Any:
    """``schema`` with every integral float bound written as an integer (``1000000.0`` as
    ``1000000``): the same schema, since JSON Schema compares numbers by value, but jsonschema-rs
    0.61 compares an instance against a float bound ~20x slower than against an integer one,
    and a query vector is 384 numbers checked against two bounds (measured: 766 µs against
    ``±1000000.0``, 24 µs against ``±1000000``, docs/transports.md#http.bench)."""
    if isinstance(schema, dict):
        return {
            key: int(value)
            if key in _BOUNDS and type(value) is float and value.is_integer()
            else integral_bounds(value)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [integral_bounds(value) for value in schema]
    return schema


def _compile(files: SpecFiles, registry: Any, by_id: dict[str, Any], message: str) -> Validator:
    schema = files.documents[message]
    base = schema["$id"]

    def make(sub: Any) -> Any:
        return jsonschema_rs.Draft202012Validator(
            integral_bounds(sub), registry=registry, base_uri=base, keywords=keywords
        )

    keywords = {
        "contentMediaType": _ContentMediaType,
        "contentSchema": _content_schema_keyword(make, by_id),
    }
    return Validator(message, schema, make(schema), by_id)


def validate(message: str, payload: Any, *, version: str = LATEST) -> dict[str, Any] | None:
    """Return the spec error envelope for ``payload`` as ``message``, or None when it is valid.

    >>> validate("recall.request", {"agent_id": "a", "query": "peanuts", "k": 0})["details"]
    [{'path': '/k', 'rule': 'minimum', 'message': '0 is less than the minimum of 1'}]
    """
    return validator(message, version=version).envelope(payload)


def check(message: str, payload: Any, *, version: str = LATEST) -> None:
    """Raise :class:`~mnemowire.errors.RequestError` unless ``payload`` is a valid ``message``."""
    envelope = validate(message, payload, version=version)
    if envelope is not None:
        raise RequestError(envelope)


def validator(message: str, *, version: str = LATEST) -> Validator:
    validators = compile_spec(version)
    try:
        return validators[message]
    except KeyError:
        known = ", ".join(sorted(validators))
        raise KeyError(f"unknown message {message!r}; known messages: {known}") from None


# --- explaining failures -------------------------------------------------------------------


def _explain(compiled: Any, payload: Any, by_id: dict[str, Any]) -> list[Detail]:
    details: dict[tuple[str, str, str], Detail] = {}
    for error in compiled.iter_errors(payload):
        for detail in _details(error, by_id):
            details[(detail["path"], detail["rule"], detail["message"])] = detail
    return [details[key] for key in sorted(details)]


def _details(error: Any, by_id: dict[str, Any]) -> list[Detail]:
    kind = type(error.kind).__name__
    path = list(error.instance_path)
    rule = str(error.evaluation_path[-1]) if error.evaluation_path else "schema"
    if kind == "Required":
        name = error.kind.property
        return [_detail([*path, name], "required", "is required")]
    if kind == "AdditionalProperties":
        allowed = _allowed_properties(error, by_id)
        return [
            _detail([*path, name], "additionalProperties", _unknown_field(name, allowed))
            for name in error.kind.unexpected
        ]
    if kind == "PropertyNames":
        inner = error.kind.error
        return [_detail([*path, str(inner.instance)], "propertyNames", inner.message)]
    if kind == "AnyOf":
        return _any_of(error, path, by_id)
    if kind == "FalseSchema":  # a field named only to forbid it here: as good as unknown
        return [_detail(path, "additionalProperties", "is not allowed here")]
    message = error.message
    if kind == "Custom":
        message = str(error.message)
    context = _conditional_description(error, by_id)
    if context:
        message = f"{context.rstrip('.')} ({message})"
    elif rule in _EXPLAINED_BY_DESCRIPTION:
        message += _description_of(error, by_id)
    return [_detail(path, rule, message)]


# Rules whose bare message ("{} has less than 1 property") means little without the schema's
# description, which says why the rule exists.
_EXPLAINED_BY_DESCRIPTION = frozenset({"minProperties", "minItems"})


def _any_of(error: Any, path: list[str | int], by_id: dict[str, Any]) -> list[Detail]:
    """Explain an anyOf through the branch the instance was evidently meant for.

    A branch whose schema rejects the instance's JSON type at this very path was not the one
    the sender meant (a scalar is not an operator object). When one branch is left, its own
    errors are the precise explanation; when all were, the instance simply has the wrong type.
    """
    branches: Sequence[Sequence[Any]] = error.kind.context
    meant = [b for b in branches if not any(_is_type_error_at(e, path) for e in b)]
    if len(meant) == 1:
        return [d for e in meant[0] for d in _details(e, by_id)]
    if not meant:
        types = sorted({t for b in branches for e in b for t in _types_of(e, path)})
        return [_detail(path, "type", f"must be of type {' or '.join(types)}")]
    if all(type(e.kind).__name__ == "Required" for b in meant for e in b):
        names = ", ".join(f"`{e.kind.property}`" for b in meant for e in b)
        return [
            _detail(path, "anyOf", f"needs at least one of {names}{_description_of(error, by_id)}")
        ]
    reasons = "; or ".join(", ".join(e.message for e in b) for b in meant)
    return [_detail(path, "anyOf", f"matches none of the allowed shapes: {reasons}")]


def _is_type_error_at(error: Any, path: list[str | int]) -> bool:
    return type(error.kind).__name__ == "Type" and list(error.instance_path) == path


def _types_of(error: Any, path: list[str | int]) -> list[str]:
    if _is_type_error_at(error, path):
        return [str(t) for t in error.kind.types]
    return []


def _sorted(details: Iterable[Detail]) -> list[Detail]:
    unique = {(d["path"], d["rule"], d["message"]): d for d in details}
    return [unique[key] for key in sorted(unique)]


def _detail(path: Sequence[str | int], rule: str, message: str) -> Detail:
    return {"path": pointer(path), "rule": rule, "message": message}


def _unknown_field(name: str, allowed: list[str]) -> str:
    close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.75)
    if close:
        return f"is an unknown field; did you mean `{close[0]}`?"
    if allowed:
        return f"is an unknown field (known fields: {', '.join(allowed)})"
    return "is an unknown field"


def _schema_at(error: Any, by_id: dict[str, Any]) -> Any:
    """The schema object holding the failing keyword, found from its absolute location."""
    location = str(error.absolute_keyword_location or "")
    return lookup(by_id, location.rsplit("/", 1)[0]) if "#" in location else None


def _allowed_properties(error: Any, by_id: dict[str, Any]) -> list[str]:
    schema = _schema_at(error, by_id)
    return sorted(schema.get("properties", {})) if isinstance(schema, dict) else []


def _description_of(error: Any, by_id: dict[str, Any]) -> str:
    schema = _schema_at(error, by_id)
    if isinstance(schema, dict) and isinstance(schema.get("description"), str):
        return f" ({schema['description'].rstrip('.')})"
    return ""


def _conditional_description(error: Any, by_id: dict[str, Any]) -> str:
    """The description of the if/then rule an error came from, which says the rule in words."""
    location = str(error.absolute_keyword_location or "")
    uri, _, fragment = location.partition("#")
    node: Any = by_id.get(uri)
    found = ""
    for part in fragment.split("/")[1:]:
        if isinstance(node, list) and part.isdigit():
            node = node[int(part)]
        elif isinstance(node, dict):
            if "if" in node and isinstance(node.get("description"), str):
                found = node["description"]
            node = node.get(part)
        else:
            break
    return found
