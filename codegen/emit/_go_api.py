"""The Go package's API around the types: each message (its name, validator and semantic
rules), the ``MemoryStore`` interface of the operations, the ``HTTPClient`` over the routes, and
the error type. Computed from the IR for the templates; ``go.py`` fills in the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mnemowire.codegen.emit._go_text import (
    _a,
    _condition,
    _go_string,
    _pointer,
    _sentence,
    comment,
    go_name,
)
from mnemowire.codegen.ir import NamedType, Spec
from mnemowire.codegen.load import CodegenError

__all__ = [
    "GoFunction",
    "GoMessage",
    "GoOperation",
    "GoRoute",
    "error_type",
    "http_routes",
    "message_list",
    "operations",
    "semantic_functions",
]


@dataclass
class GoFunction:
    name: str
    doc: list[str]
    body: list[str]


@dataclass(frozen=True)
class _SemanticRule:
    """A semantic rule of the spec, written by hand in Go (in its template) once."""

    #: the message whose payload the rule reads; other messages apply it where they embed one
    owner: str
    function: str
    template: str


_SEMANTIC_RULES = {
    "stateReference": _SemanticRule(
        owner="remember.request",
        function="checkStateReferences",
        template="rule_state_reference.go.j2",
    ),
}


@dataclass
class GoMessage:
    name: str
    literal: str
    type: str
    direction: str
    validate: str
    semantic: str
    max_depth: int
    name_doc: list[str]
    validate_doc: list[str]
    decode_doc: list[str]


@dataclass
class GoOperation:
    method: str
    request: str
    response: str
    doc: list[str]
    #: added after the first version: its own interface, which a store may implement
    optional: bool = False
    interface: str = ""
    interface_doc: tuple[str, ...] = ()


@dataclass(frozen=True)
class GoRoute:
    """One method of the HTTP client: the route it calls and the messages it carries."""

    method_name: str
    http_method: str
    path: str
    request_message: str
    request_type: str
    response_message: str
    response_type: str
    doc: list[str]


def message_list(spec: Spec, go_names: Mapping[str, str]) -> list[GoMessage]:
    out = []
    for m in sorted(spec.messages, key=lambda m: m.name):
        go = go_names[m.type_name]
        semantic = f"semantic{go}" if m.name in spec.semantic_rules else "nil"
        literal = _go_string(m.name)
        rules = " and the semantic rules of the spec" if semantic != "nil" else ""
        out.append(
            GoMessage(
                name=m.name,
                literal=literal,
                type=go,
                direction=m.direction,
                validate=f"validate{go}",
                semantic=semantic,
                max_depth=m.max_depth,
                name_doc=comment([f"MessageName returns {literal}."]),
                validate_doc=comment(
                    [
                        f"Validate checks the JSON m encodes to against the {m.name} "
                        f"schema{rules}: it returns ValidationErrors listing every rule m "
                        "breaks, or nil when m is valid."
                    ]
                ),
                decode_doc=comment(
                    [
                        f"Decode{go} validates data as {_a(m.name)} message, then decodes "
                        "it. The error is ValidationErrors when data breaks the spec, or "
                        "the decoding error when data is not JSON."
                    ]
                ),
            )
        )
    return out


def semantic_functions(
    spec: Spec, types: Mapping[str, NamedType], go_names: Mapping[str, str]
) -> tuple[list[GoFunction], list[str]]:
    """Per message with semantic rules, the function applying them; the rules' templates."""
    functions = []
    templates: set[str] = set()
    for message_name, rules in sorted(spec.semantic_rules.items()):
        go = go_names[spec.message(message_name).type_name]
        body: list[str] = []
        for rule_name in rules:
            rule = _SEMANTIC_RULES.get(rule_name)
            if rule is None:
                raise CodegenError(
                    f"{message_name}: semantic rule {rule_name!r} has no Go implementation"
                )
            templates.add(rule.template)
            body.extend(_apply_rule(spec, types, message_name, rule))
        doc = comment(
            [
                f"semantic{go} checks the semantic rules of {message_name} "
                f"({', '.join(rules)}) on a value that passed the schema."
            ]
        )
        functions.append(GoFunction(f"semantic{go}", doc, body))
    return functions, sorted(templates)


def _apply_rule(
    spec: Spec, types: Mapping[str, NamedType], message_name: str, rule: _SemanticRule
) -> list[str]:
    """Where a message carries the payload a rule reads: itself, or a member that a
    conditional of the message validates against the owner's type."""
    if message_name == rule.owner:
        return [f"{rule.function}(r, v, p)"]
    owner_type = spec.message(rule.owner).type_name
    t = types[spec.message(message_name).type_name]
    body: list[str] = []
    for cond in t.schema.conditionals:
        for prop, schema in cond.then:
            if schema.kind == "ref" and schema.ref == owner_type:
                body += comment([cond.description])
                body += [
                    f"if {_condition(cond)} {{",
                    f"\t{rule.function}(r, obj[{_go_string(prop)}], "
                    f"{_pointer('p', prop, argument=True)})",
                    "}",
                ]
    if not body:
        raise CodegenError(
            f"{message_name}: cannot tell where it carries a {rule.owner}, to check the "
            "semantic rules there"
        )
    return ["obj, _ := v.(map[string]any)", *body]


def operations(spec: Spec, go_names: Mapping[str, str]) -> list[GoOperation]:
    names = {m.name for m in spec.messages}
    out = []
    for m in sorted(spec.messages, key=lambda m: m.name):
        operation = m.name.removesuffix(".request")
        if operation == m.name or f"{operation}.response" not in names:
            continue
        response = spec.message(f"{operation}.response")
        method = go_name(operation)
        doc = f"{method} serves {_a(m.name)}. {_sentence(m.description)}"
        optional = spec.optional(operation)
        interface = f"{method}Store"
        about = (
            f"{interface} is a MemoryStore that also serves {m.name} (added in {m.since}): "
            f"a store that implements it declares the capability {operation}. Callers "
            "find it with a type assertion."
        )
        out.append(
            GoOperation(
                method,
                go_names[m.type_name],
                go_names[response.type_name],
                comment([doc], 1),
                optional,
                interface,
                tuple(comment([about], 0)) if optional else (),
            )
        )
    return out


def http_routes(spec: Spec, go_names: Mapping[str, str]) -> list[GoRoute]:
    by_message = {m.name: go_names[m.type_name] for m in spec.messages}
    out = []
    for route in spec.routes:
        name = go_name(route.operation)
        sends = f"sends {_a(route.request)} and " if route.request else ""
        answer = _a(route.response)
        doc = f"{name} calls {route.method} {route.path}: it {sends}returns {answer}."
        out.append(
            GoRoute(
                method_name=name,
                http_method=route.method,
                path=route.path,
                request_message=route.request or "",
                request_type=by_message[route.request] if route.request else "",
                response_message=route.response,
                response_type=by_message[route.response],
                doc=comment([doc], 0),
            )
        )
    return out


def error_type(spec: Spec, types: Mapping[str, NamedType], go_names: Mapping[str, str]) -> str:
    """The struct of the error message, which becomes a Go error; "" if there is none."""
    if "error" not in {m.name for m in spec.messages}:
        return ""
    t = types[spec.message("error").type_name]
    declared = {f.name: f for f in t.schema.fields}
    if not all(n in declared and declared[n].required for n in ("code", "message")):
        return ""
    return go_names[t.name]
