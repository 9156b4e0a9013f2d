"""TypeScript emitter: an npm package (``generated/ts``) with types, validators and a client.

Everything a file says is decided here, from the IR: names, type expressions, doc comments and
the straight-line validator code of every named type. The templates under ``templates/ts/`` only
lay those values out. The validators reproduce the reference validator (``mnemowire.spec``)
rule for rule, as the shared validation semantics define it: the same ``(path, rule)`` set for
every payload. Output is deterministic: no timestamps, no set or dict iteration whose order
could vary, so two runs (under any ``PYTHONHASHSEED``) give the same bytes.

The package's ``package-lock.json`` is not emitted: ``npm install`` wrote it once, and codegen
neither writes nor checks it.
"""

from __future__ import annotations

import json
import math
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from mnemowire.codegen._output import GeneratedFile, header_lines
from mnemowire.codegen.ir import (
    NO_DEFAULT,
    Conditional,
    Constraints,
    Field,
    NamedType,
    Schema,
    Spec,
)
from mnemowire.codegen.load import CodegenError
from mnemowire.spec._wellformed import MAX_DEPTH

__all__ = ["DEV_DEPENDENCIES", "PACKAGE_NAME", "emit"]

PACKAGE_NAME = "@mnemowire/memorywire"
#: Exact pins: the package has no runtime dependencies at all.
DEV_DEPENDENCIES = {"@types/node": "20.19.43", "typescript": "5.9.3"}
#: Test modules under ``test/``, compiled to ``build/tests/test/`` (``dist/`` is the package).
TEST_MODULES = ("guards", "runtime", "vectors")
#: Where the spec examples are, seen from ``generated/ts``.
EXAMPLES_DIR = "../../spec/{version}/examples"

_WIDTH = 100
_MAX_SAFE_INTEGER = 2**53 - 1
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_TS_PRIMITIVE = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}
_TYPE_TEST = {
    "string": 'typeof {x} === "string"',
    "integer": "Number.isInteger({x})",
    "number": 'typeof {x} === "number"',
    "boolean": 'typeof {x} === "boolean"',
    "null": "{x} === null",
}
_ARTICLE_TYPE = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
    "array": "an array",
    "object": "an object",
}
#: (message, semantic rule) -> the function of ``semantic.ts`` that checks it. A rule the spec
#: adds without an entry here stops codegen rather than being skipped.
_SEMANTIC_CHECKS = {
    ("remember.request", "stateReference"): "stateReferenceInRemember",
    ("review-request", "stateReference"): "stateReferenceInReview",
}


def emit(spec: Spec) -> list[GeneratedFile]:
    """Every file of ``generated/ts`` (paths relative to ``generated/``) except the lockfile."""
    package = _Package(spec)
    render = _renderer()
    common = {"header": header_lines(spec), "package": package}
    outputs = {
        "package.json": "package.json.j2",
        "tsconfig.json": "tsconfig.json.j2",
        "README.md": "README.md.j2",
        "src/types.ts": "types.ts.j2",
        "src/runtime.ts": "runtime.ts.j2",
        "src/validators.ts": "validators.ts.j2",
        "src/semantic.ts": "semantic.ts.j2",
        "src/client.ts": "client.ts.j2",
        "src/http.ts": "http.ts.j2",
        "src/index.ts": "index.ts.j2",
        "src/examples.ts": "examples.ts.j2",
        "src/vectors.ts": "vectors.ts.j2",
        "test/tsconfig.json": "test-tsconfig.json.j2",
        **{f"test/{name}.test.ts": f"{name}.test.ts.j2" for name in TEST_MODULES},
    }
    return [
        GeneratedFile(f"ts/{path}", render(template, common)) for path, template in outputs.items()
    ]


def _renderer() -> Callable[[str, dict[str, Any]], str]:
    import jinja2

    folder = resources.files("mnemowire.codegen") / "templates" / "ts"

    def load(name: str) -> str:
        return (folder / name).read_text(encoding="utf-8")

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(load),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["tojson_ts"] = _js

    def render(template: str, context: dict[str, Any]) -> str:
        text = env.get_template(template).render(**context)
        return re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"

    return render


# --- what the templates print ------------------------------------------------------------------


@dataclass(frozen=True)
class _Member:
    """One property line of an interface: its doc comment and its declaration."""

    doc: list[str]
    declaration: str


@dataclass(frozen=True)
class _Declaration:
    """One named type of ``types.ts``: an interface (``members``) or a type alias (``expr``)."""

    name: str
    doc: list[str]
    members: list[_Member] | None
    expr: str


@dataclass(frozen=True)
class _Function:
    """A module-private ``check<Name>`` function of ``validators.ts``."""

    name: str
    type_name: str
    params: str
    body: list[str]


@dataclass(frozen=True)
class _Export:
    """The exported ``validate<Name>`` / ``is<Name>`` pair of one named type."""

    type_name: str
    validate: str
    guard: str
    check: str
    semantic: list[str]
    doc: list[str]
    guard_doc: list[str]
    #: how deeply the value may nest ([messages.wellformed])
    max_depth: int


@dataclass(frozen=True)
class _MessageEntry:
    name: str
    key: str
    type_name: str
    validate: str
    guard: str
    direction: str


@dataclass(frozen=True)
class _Operation:
    name: str
    request: str
    response: str
    doc: list[str]
    #: added after the first version: a store may lack it (it declares the capability)
    optional: bool = False


@dataclass(frozen=True)
class _HttpRoute:
    """One method of the HTTP client: the route it calls and the messages it carries."""

    name: str
    method: str
    path: str
    #: the request message, None for a GET route
    request: str | None
    request_type: str
    response: str
    response_type: str


@dataclass(frozen=True)
class _EnumCase:
    """A top-level enumerated field of a message, for the guard tests."""

    message: str
    field: str
    value: str


class _Package:
    """Everything the templates print, computed once from the spec."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.version = spec.version
        self.digest = spec.digest
        self.name = PACKAGE_NAME
        self.examples_dir = EXAMPLES_DIR.format(version=spec.version)
        self.dev_dependencies = sorted(DEV_DEPENDENCIES.items())
        self.test_modules = list(TEST_MODULES)
        self.description = (
            f"memorywire {spec.version} for TypeScript: types, validators, a client interface "
            "and its HTTP client. " + header_lines(spec)[0]
        )
        self._types = {t.name: t for t in spec.types}
        self._messages_by_type = {m.type_name: m for m in spec.messages}
        missing = sorted(
            (m, r)
            for m, rules in spec.semantic_rules.items()
            for r in rules
            if (m, r) not in _SEMANTIC_CHECKS
        )
        if missing:
            raise CodegenError(f"the TypeScript emitter implements no semantic rule for {missing}")
        self.declarations = [self._declaration(t) for t in spec.types]
        validators = _Validators(spec)
        self.functions = [validators.function(t) for t in spec.types]
        self.constants = validators.constants()
        self.runtime_imports = validators.runtime_imports()
        self.semantic_imports = sorted(
            _SEMANTIC_CHECKS[(m, r)] for m, rules in spec.semantic_rules.items() for r in rules
        )
        self.exports = [self._export(t) for t in spec.types]
        self.messages = [
            _MessageEntry(
                name=m.name,
                key=_js(m.name),
                type_name=m.type_name,
                validate=f"validate{m.type_name}",
                guard=f"is{m.type_name}",
                direction=m.direction,
            )
            for m in sorted(spec.messages, key=lambda m: m.name)
        ]
        self.type_names = [t.name for t in spec.types]
        self.message_type_names = sorted({m.type_name for m in spec.messages})
        self.operations = self._operations()
        self.client_imports = sorted(
            {o.request for o in self.operations}
            | {o.response for o in self.operations}
            | ({"ErrorEnvelope"} if "ErrorEnvelope" in self._types else set())
        )
        self.has_error_envelope = "ErrorEnvelope" in self._types
        by_message = {m.name: m.type_name for m in spec.messages}
        self.http_routes = [
            _HttpRoute(
                name=route.operation,
                method=route.method,
                path=route.path,
                request=route.request,
                request_type=by_message[route.request] if route.request else "",
                response=route.response,
                response_type=by_message[route.response],
            )
            for route in spec.routes
        ]
        self.http_imports = sorted(
            {r.request_type for r in self.http_routes if r.request}
            | {r.response_type for r in self.http_routes}
            | {"ErrorEnvelope"}
        )
        #: the npm version: the spec version's numbers (v0.1 -> 0.1.0)
        self.npm_version = _npm_version(spec.version)
        self.in_messages = [m.name for m in self.messages if m.direction == "in"]
        self.out_messages = [m.name for m in self.messages if m.direction == "out"]
        self.open_enum_types = [
            (t.name, _js(self._enum_values(t.schema.open_enum)[0]))
            for t in spec.types
            if t.schema.open_enum is not None
        ]
        self.open_enum_fields, self.closed_enum_fields = self._enum_fields()

    # -- types.ts

    def _declaration(self, t: NamedType) -> _Declaration:
        schema = t.schema
        paragraphs = [schema.description]
        message = self._messages_by_type.get(t.name)
        if message is not None:
            how = (
                "sent to a store; closed: a field not declared here is rejected"
                if message.direction == "in"
                else "emitted by a store; extensible: keep and ignore fields you do not know"
            )
            paragraphs.append(f"Message `{message.name}` ({how}).")
        paragraphs.extend(_constraint_notes(schema))
        rules = [r.description for r in schema.require_any]
        rules += [c.description for c in schema.conditionals]
        paragraphs.extend(f"Rule: {rule}" for rule in rules if rule)
        if schema.open_enum is not None:
            paragraphs.append(
                f"Any {schema.open_enum} value, or a string a newer spec version added: "
                "`(string & {})` keeps the known values suggested by editors."
            )
        doc = _jsdoc(paragraphs, "")
        if schema.kind == "object":
            members = [self._member(f) for f in schema.fields]
            index = self._index_signature(schema)
            if index is not None:
                members.append(index)
            return _Declaration(t.name, doc, members, "")
        expr = _type(schema, "")
        if len(f"export type {t.name} = {expr};") > _WIDTH and "\n" not in expr:
            parts = [_type(m, "  ") for m in schema.members] if schema.kind == "union" else []
            if schema.kind == "primitive" and schema.enum is not None:
                parts = [_js(v) for v in schema.enum]
            if parts and schema.open_enum is None:
                return _Declaration(t.name, doc, None, "".join(f"\n  | {p}" for p in parts))
        return _Declaration(t.name, doc, None, f" {expr}")

    def _member(self, f: Field) -> _Member:
        paragraphs = [f.description or self._described(f.schema)]
        if f.schema.kind != "ref":
            paragraphs.extend(_constraint_notes(f.schema))
        if f.default is not NO_DEFAULT:
            paragraphs.append(f"@defaultValue `{_js(f.default)}`")
        key = f.name if _IDENTIFIER.match(f.name) else _js(f.name)
        optional = "" if f.required else "?"
        return _Member(_jsdoc(paragraphs, "  "), f"{key}{optional}: {_type(f.schema, '  ')};")

    def _index_signature(self, schema: Schema) -> _Member | None:
        if schema.additional is False:
            return None
        if isinstance(schema.additional, Schema) and not schema.fields:
            doc = "Every key is application-defined; each value must satisfy the schema."
            return _Member(_jsdoc([doc], "  "), f"[key: string]: {_type(schema.additional, '  ')};")
        doc = (
            "Fields this version does not declare (a newer version may add some): kept, not typed."
            if schema.additional is True and schema.fields
            else "Application-defined members."
        )
        return _Member(_jsdoc([doc], "  "), "[key: string]: unknown;")

    def _described(self, schema: Schema) -> str:
        if schema.description:
            return schema.description
        if schema.kind == "ref" and schema.ref is not None:
            return self._types[schema.ref].schema.description
        return ""

    def _enum_values(self, name: str | None) -> tuple[Any, ...]:
        if name is None:
            return ()
        enum = self._types[name].schema.enum
        return enum if enum is not None else ()

    # -- validators.ts

    def _export(self, t: NamedType) -> _Export:
        message = self._messages_by_type.get(t.name)
        rule_names = self.spec.semantic_rules.get(message.name, ()) if message else ()
        semantic = [_SEMANTIC_CHECKS[(message.name, r)] for r in rule_names] if message else []
        what = f"message `{message.name}`" if message is not None else f"a `{t.name}`"
        paragraphs = [
            f"Every rule `value` breaks as {what}, as `{{path, rule, message}}` (path: a JSON "
            "Pointer), sorted by path and rule; empty when it is valid."
        ]
        if semantic:
            rules = ", ".join(f"`{r}`" for r in rule_names)
            paragraphs.append(
                f"The spec's semantic rules ({rules}) are checked once the schema holds."
            )
        return _Export(
            type_name=t.name,
            validate=f"validate{t.name}",
            guard=f"is{t.name}",
            check=f"check{t.name}",
            semantic=semantic,
            doc=_jsdoc(paragraphs, ""),
            guard_doc=_jsdoc([f"Whether `value` is a valid {t.name} (no rule broken)."], ""),
            max_depth=message.max_depth if message is not None else MAX_DEPTH,
        )

    # -- client.ts

    def _operations(self) -> list[_Operation]:
        by_name = {m.name: m for m in self.spec.messages}
        operations = []
        for name in sorted(n.removesuffix(".request") for n in by_name if n.endswith(".request")):
            request, response = by_name[f"{name}.request"], by_name.get(f"{name}.response")
            if response is None:
                raise CodegenError(f"message {name}.request has no {name}.response")
            paragraphs = [
                request.description,
                f"Resolves with `{response.type_name}` (message `{response.name}`). "
                + response.description,
                "@throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation "
                "fails (code `invalid_request` with one detail per broken rule when the request "
                f"is not a valid `{request.name}`).",
            ]
            optional = self.spec.optional(name)
            if optional:
                paragraphs.append(
                    f"Optional: added in {request.since}; a store that has it declares the "
                    f"capability `{name}`."
                )
            operations.append(
                _Operation(
                    name, request.type_name, response.type_name, _jsdoc(paragraphs, "  "), optional
                )
            )
        return operations

    # -- tests

    def _enum_fields(self) -> tuple[list[_EnumCase], list[_EnumCase]]:
        """Top-level enumerated fields: open ones in emitted messages, closed ones in sent ones."""
        open_cases, closed_cases = [], []
        for message in sorted(self.spec.messages, key=lambda m: m.name):
            schema = self._types[message.type_name].schema
            for f in schema.fields:
                if f.schema.kind != "ref" or f.schema.ref is None:
                    continue
                target = self._types[f.schema.ref].schema
                if message.direction == "out" and target.open_enum is not None:
                    open_cases.append(_EnumCase(message.name, f.name, "from_a_newer_version"))
                elif message.direction == "in" and target.enum is not None:
                    closed_cases.append(_EnumCase(message.name, f.name, "from_a_newer_version"))
        return open_cases, closed_cases


# --- types ------------------------------------------------------------------------------------


def _npm_version(version: str) -> str:
    numbers = version.removeprefix("v").split(".")
    return ".".join([*numbers, "0", "0"][:3])


def _type(schema: Schema, indent: str) -> str:
    """The TypeScript type expression for a schema (``indent``: where an inline object sits)."""
    if schema.kind == "ref":
        assert schema.ref is not None
        return schema.ref
    if schema.kind == "union":
        if schema.open_enum is not None:
            return f"{schema.open_enum} | (string & {{}})"
        return _union([_type(m, indent) for m in schema.members])
    if schema.kind == "array":
        item = _type(schema.items, indent) if schema.items is not None else "unknown"
        return f"({item})[]" if re.search(r"[|&]", item) else f"{item}[]"
    if schema.kind == "object":
        return _inline_object(schema, indent)
    if schema.const is not NO_DEFAULT:
        return _js(schema.const)
    if schema.enum is not None:
        return _union([_js(v) for v in schema.enum])
    return _union([_TS_PRIMITIVE[t] for t in schema.types]) if schema.types else "unknown"


def _union(parts: Sequence[str]) -> str:
    unique = list(dict.fromkeys(parts))
    return " | ".join(unique) if unique else "never"


def _inline_object(schema: Schema, indent: str) -> str:
    if not schema.fields:
        if isinstance(schema.additional, Schema):
            return f"{{ [key: string]: {_type(schema.additional, indent)} }}"
        return "{ [key: string]: unknown }" if schema.additional else "Record<string, never>"
    inner = indent + "  "
    lines = []
    for f in schema.fields:
        key = f.name if _IDENTIFIER.match(f.name) else _js(f.name)
        optional = "" if f.required else "?"
        lines.extend(_jsdoc([f.description], inner))
        lines.append(f"{inner}{key}{optional}: {_type(f.schema, inner)};")
    if schema.additional is not False:
        lines.append(f"{inner}[key: string]: unknown;")
    return "{\n" + "\n".join(lines) + f"\n{indent}}}"


def _constraint_notes(schema: Schema) -> list[str]:
    """Doc sentences for what a type cannot say: bounds, patterns, JSON content."""
    c = schema.constraints
    notes = []
    words = []
    for attr, label in (
        ("min_length", "at least {} character(s)"),
        ("max_length", "at most {} character(s)"),
        ("pattern", "matches `{}`"),
        ("minimum", "≥ {}"),
        ("exclusive_minimum", "> {}"),
        ("maximum", "≤ {}"),
        ("exclusive_maximum", "< {}"),
        ("min_items", "at least {} item(s)"),
        ("max_items", "at most {} item(s)"),
        ("min_properties", "at least {} member(s)"),
        ("max_properties", "at most {} member(s)"),
    ):
        value = getattr(c, attr)
        if value is not None:
            words.append(label.format(_js(value) if attr != "pattern" else value))
    if c.unique_items:
        words.append("no two items equal")
    keys = schema.property_names
    if keys is not None and not keys.is_empty():
        rules = [
            f"at least {_js(keys.min_length)} character(s)" if keys.min_length is not None else "",
            f"at most {_js(keys.max_length)} character(s)" if keys.max_length is not None else "",
            f"matching `{keys.pattern}`" if keys.pattern is not None else "",
        ]
        words.append("keys of " + " and ".join(r for r in rules if r))
    if "integer" in schema.types:
        words.insert(0, "an integer")
    if words:
        text = "Constraints: " + ", ".join(words) + "."
        notes.append(re.sub(r"\b1 (\w+)\(s\)", r"1 \1", text).replace("(s)", "s"))
    if "integer" in schema.types and c.maximum is not None and c.maximum <= _MAX_SAFE_INTEGER:
        notes.append(
            "Always exact as a JavaScript `number`: the spec bounds it by 2^53-1 "
            "(`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed."
        )
    if schema.content_schema is not None:
        notes.append(f"JSON text of a {_type(schema.content_schema, '')}.")
    return notes


def _jsdoc(paragraphs: Sequence[str], indent: str) -> list[str]:
    """A doc comment: one line when it fits, else wrapped at the line length."""
    texts = [p.replace("*/", "*\\/").strip() for p in paragraphs if p and p.strip()]
    if not texts:
        return []
    single = f"{indent}/** {texts[0]} */"
    if len(texts) == 1 and len(single) <= _WIDTH:
        return [single]
    lines = [f"{indent}/**"]
    for i, text in enumerate(texts):
        if i:
            lines.append(f"{indent} *")
        width = _WIDTH - len(indent) - 3
        wrapped = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
        lines.extend(f"{indent} * {line}" for line in wrapped)
    lines.append(f"{indent} */")
    return lines


def _js(value: Any) -> str:
    """A JSON value as a JavaScript (and TypeScript type) literal."""
    if isinstance(value, float) and not math.isfinite(value):
        raise CodegenError(f"{value!r} is not a JSON number")
    return json.dumps(value, ensure_ascii=True, sort_keys=True)


# --- validators --------------------------------------------------------------------------------
#
# Code is built as lines, each relative to its block; nested blocks are indented by ``_indent``.
# A line that may be too long for the line length (an ``if`` with its statement, a call) is first
# written as a marker holding its parts, and ``_layout`` lays it out once its indentation is known.

_MARK = "\x00"


def _call(callee: str, *args: str) -> str:
    """A call statement, broken one argument per line when it does not fit."""
    return _MARK + json.dumps({"call": callee, "args": list(args)})


def _if(tests: Sequence[str], joiner: str = "&&", then: str | None = None) -> str:
    """``if (tests joined) then`` (a statement line, or a call marker); ``then=None`` opens a
    block the caller closes with ``}``."""
    return _MARK + json.dumps({"if": list(tests), "joiner": joiner, "then": then})


def _layout(lines: Sequence[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        code = line.lstrip(" ")
        if not code.startswith(_MARK):
            out.append(line)
            continue
        out.extend(_layout_marker(line[: len(line) - len(code)], json.loads(code[1:])))
    return out


def _layout_marker(indent: str, node: dict[str, Any]) -> list[str]:
    if "call" in node:
        one = f"{indent}{node['call']}({', '.join(node['args'])});"
        if len(one) <= _WIDTH:
            return [one]
        args = [f"{indent}  {arg}," for arg in node["args"]]
        return [f"{indent}{node['call']}(", *args, f"{indent});"]
    tests, joiner, then = node["if"], node["joiner"], node["then"]
    head = f"{indent}if ({f' {joiner} '.join(tests)})"
    if len(head) + 2 > _WIDTH and len(tests) > 1:
        broken = [f"{indent}  {t} {joiner}" for t in tests[:-1]] + [f"{indent}  {tests[-1]}"]
        opening = [f"{indent}if (", *broken, f"{indent}) {{"]
    else:
        opening = [f"{head} {{"]
    if then is None:
        return opening
    body = _layout([f"{indent}  {then}"])
    if len(body) == 1 and len(opening) == 1 and len(f"{head} {body[0].lstrip()}") <= _WIDTH:
        return [f"{head} {body[0].lstrip()}"]
    return [*opening, *body, f"{indent}}}"]


def _json_types(schema: Schema, types: dict[str, NamedType], seen: frozenset[str]) -> set[str]:
    """The JSON types a schema can accept at all (its ``type`` keyword, through refs/unions)."""
    if schema.kind == "ref" and schema.ref is not None:
        if schema.ref in seen:
            return set()
        return _json_types(types[schema.ref].schema, types, seen | {schema.ref})
    if schema.kind == "union":
        return {t for m in schema.members for t in _json_types(m, types, seen)}
    if schema.kind in ("object", "array"):
        return {schema.kind}
    return set(schema.types) if schema.types else set(_ARTICLE_TYPE)


def _describe_types(names: set[str]) -> str:
    order = ["object", "array", "string", "integer", "number", "boolean", "null"]
    if "number" in names:
        names = names - {"integer"}
    words = [_ARTICLE_TYPE[n] for n in order if n in names]
    if len(words) > 2:
        return ", ".join(words[:-1]) + " or " + words[-1]
    return " or ".join(words) if words else "nothing"


def _str(text: str) -> str:
    """A string literal, single-quoted when that spares escaping double quotes."""
    literal = _js(text)
    if '"' in text and "'" not in text:
        return "'" + literal[1:-1].replace('\\"', '"') + "'"
    return literal


def _plural(n: int | float, word: str) -> str:
    return f"{_js(n)} {word}" + ("" if n == 1 else "s")


class _Path:
    """A JSON Pointer expression built from string literals and TypeScript expressions."""

    def __init__(self, parts: tuple[tuple[bool, str], ...]) -> None:
        self.parts = parts  # (is_literal, text)

    @classmethod
    def root(cls, name: str) -> _Path:
        return cls(((False, name),))

    @classmethod
    def empty(cls) -> _Path:
        return cls(((True, ""),))

    def key(self, name: str) -> _Path:
        token = name.replace("~", "~0").replace("/", "~1")
        return self._append((True, "/" + token))

    def dynamic(self, expression: str) -> _Path:
        return self._append((True, "/"))._append((False, expression))

    def _append(self, part: tuple[bool, str]) -> _Path:
        parts = list(self.parts)
        if part[0] and parts and parts[-1][0]:
            parts[-1] = (True, parts[-1][1] + part[1])
        else:
            parts.append(part)
        return _Path(tuple(parts))

    def __str__(self) -> str:
        return " + ".join(_js(text) if literal else text for literal, text in self.parts)


class _Validators:
    """Straight-line TypeScript checking values against the IR: one function per named type.

    Each ``_check*`` method returns the statements that check the value held by the identifier
    ``x`` at the JSON Pointer expression ``p``, adding what breaks to the ``Errors`` sink ``e``.
    """

    def __init__(self, spec: Spec) -> None:
        self.types = {t.name: t for t in spec.types}
        self._constants: dict[str, str] = {}
        self._imports: set[str] = {"Errors"}
        self._counter = 0

    def constants(self) -> list[tuple[str, str]]:
        return sorted(self._constants.items())

    def runtime_imports(self) -> list[str]:
        return sorted(self._imports, key=lambda name: (name.lower(), name))

    def _use(self, *names: str) -> None:
        self._imports.update(names)

    def _constant(self, name: str, initializer: str) -> str:
        name = re.sub(r"[^A-Za-z0-9_]", "_", name)
        candidate, n = name, 1
        while self._constants.get(candidate, initializer) != initializer:
            n += 1
            candidate = f"{name}_{n}"
        self._constants[candidate] = initializer
        return candidate

    def _set(self, name: str, kind: str, values: Sequence[str]) -> str:
        """A module-level ``Set`` of literals, wrapped at the line length."""
        one = f"new Set<{kind}>([{', '.join(values)}])"
        if len(f"const {name} = {one};") <= _WIDTH:
            return self._constant(name, one)
        rows = textwrap.wrap(", ".join(values), _WIDTH - 2, break_long_words=False)
        return self._constant(
            name, f"new Set<{kind}>([\n" + "".join(f"  {r}\n" for r in rows) + "])"
        )

    def _fresh(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def function(self, t: NamedType) -> _Function:
        self._counter = 0
        schema, label = t.schema, t.name
        p = _Path.root("p")
        body: list[str]
        if schema.kind in ("object", "array"):
            test, article = (
                ("isObject", "an object") if schema.kind == "object" else ("isArray", "an array")
            )
            self._use(test, "typeMessage")
            inner = (
                self._object_body(schema, "v", p, "e", label)
                if schema.kind == "object"
                else self._array_body(schema, "v", p, "e", label)
            )
            body = [
                f"if (!{test}(v)) {{",
                f'  e.add(p, "type", typeMessage("{article}", v));',
                "  return;",
                "}",
                *inner,
            ]
        else:
            body = self._check(schema, "v", p, "e", label)
        code = "\n".join(body)
        params = []
        for name, kind in (("v", "unknown"), ("p", "string"), ("e", "Errors")):
            used = re.search(r"\b" + name + r"\b", code) is not None
            params.append(f"{name if used else '_' + name}: {kind}")
        return _Function(f"check{t.name}", t.name, ", ".join(params), _layout(_indent(body)))

    # -- dispatch

    def _check(self, schema: Schema, x: str, p: _Path, e: str, label: str) -> list[str]:
        if schema.kind == "ref":
            return [_call(f"check{schema.ref}", x, str(p), e), *self._forbid(schema, x, p, e)]
        if schema.kind == "primitive":
            return self._primitive(schema, x, p, e, label, reason="")
        if schema.kind == "union":
            return self._union(schema, x, p, e, label)
        if schema.kind == "object":
            test, article = "isObject", "an object"
            inner = self._object_body(schema, x, p, e, label)
        else:
            test, article = "isArray", "an array"
            inner = self._array_body(schema, x, p, e, label)
        self._use(test, "typeMessage")
        wrong = _call(f"{e}.add", str(p), '"type"', f'typeMessage("{article}", {x})')
        if not inner:
            return [_if([f"!{test}({x})"], then=wrong)]
        return [f"if (!{test}({x})) {{", *_indent([wrong]), "} else {", *_indent(inner), "}"]

    def _forbid(self, schema: Schema, x: str, p: _Path, e: str) -> list[str]:
        if not schema.forbidden:
            return []
        self._use("forbid")
        return [_call("forbid", x, str(p), e, *(json.dumps(n) for n in schema.forbidden))]

    def _bound(self, expression: str, schema: Schema, p: _Path, e: str, label: str) -> list[str]:
        """Check the value of ``expression`` (a member): passed to a ref's check, else bound."""
        if schema.kind == "ref" and not schema.forbidden:
            return [_call(f"check{schema.ref}", expression, str(p), e)]
        x = self._fresh("x")
        return [f"const {x} = {expression};", *self._check(schema, x, p, e, label)]

    # -- primitives

    def _primitive(
        self, schema: Schema, x: str, p: _Path, e: str, label: str, *, reason: str
    ) -> list[str]:
        out: list[str] = []
        if schema.enum is not None:
            out.append(self._enum_check(schema.enum, x, p, e, label))
        if schema.const is not NO_DEFAULT:
            message = f"must be {_js(schema.const)}"
            if reason:
                message = f"{reason.rstrip('.')} ({message})"
            if isinstance(schema.const, (dict, list)):
                self._use("jsonEqual")
                test = f"!jsonEqual({x}, {_js(schema.const)})"
            else:
                test = f"{x} !== {_js(schema.const)}"
            out.append(_if([test], then=_call(f"{e}.add", str(p), '"const"', _str(message))))
        strings = self._string_checks(schema, x, p, e, label)
        numbers = self._number_checks(schema.constraints, x, p, e)
        types = [t for t in schema.types if not (t == "integer" and "number" in schema.types)]
        wrong: list[str] = []
        if types:
            self._use("typeMessage")
            expected = _describe_types(set(types))
            add = _call(f"{e}.add", str(p), '"type"', f"typeMessage({_js(expected)}, {x})")
            if types == ["string"] and strings and not numbers:
                # a string or not: one if/else reads better than two tests
                return [
                    f'if (typeof {x} !== "string") {{',
                    *_indent([add]),
                    "} else {",
                    *_indent(strings),
                    "}",
                    *out,
                ]
            tests = [_TYPE_TEST[t].format(x=x) for t in types]
            negated = f"!{tests[0]}" if tests[0].startswith("Number.") else None
            if len(tests) == 1:
                single = tests[0]
                test = negated or single.replace("===", "!==", 1)
                wrong = [_if([test], then=add)]
            else:
                wrong = [_if([f"!({' || '.join(tests)})"], then=add)]
        out = wrong + out
        if strings:
            out.extend([f'if (typeof {x} === "string") {{', *_indent(strings), "}"])
        if numbers:
            out.extend([f'if (typeof {x} === "number") {{', *_indent(numbers), "}"])
        return out

    def _enum_check(self, values: tuple[Any, ...], x: str, p: _Path, e: str, label: str) -> str:
        self._use("oneOf")
        literals = [_js(v) for v in values]
        if all(not isinstance(v, (dict, list)) for v in values):
            name = self._set(f"ENUM_{label}", "unknown", literals)
            test = f"!{name}.has({x})"
        else:
            self._use("jsonEqual")
            name = self._constant(f"ENUM_{label}", f"[{', '.join(literals)}]")
            test = f"!{name}.some((allowed) => jsonEqual({x}, allowed))"
        return _if([test], then=_call(f"{e}.add", str(p), '"enum"', f"oneOf({name})"))

    def _string_checks(self, schema: Schema, x: str, p: _Path, e: str, label: str) -> list[str]:
        c = schema.constraints
        out = []
        if c.min_length is not None:
            self._use("codePoints")
            message = f"must be at least {_plural(c.min_length, 'character')} long"
            add = _call(f"{e}.add", str(p), '"minLength"', _js(message))
            out.append(_if([f"codePoints({x}) < {c.min_length}"], then=add))
        if c.max_length is not None:
            self._use("codePoints")
            message = f"must be at most {_plural(c.max_length, 'character')} long"
            add = _call(f"{e}.add", str(p), '"maxLength"', _js(message))
            out.append(_if([f"codePoints({x}) > {c.max_length}"], then=add))
        if c.pattern is not None:
            regex = self._constant(f"PATTERN_{label}", f'new RegExp({_js(c.pattern)}, "u")')
            add = _call(f"{e}.add", str(p), '"pattern"', _str(f"must match {c.pattern}"))
            out.append(_if([f"!{regex}.test({x})"], then=add))
        if schema.content_schema is not None:
            out.extend(self._content(schema.content_schema, x, p, e, label))
        return out

    def _content(self, content: Schema, x: str, p: _Path, e: str, label: str) -> list[str]:
        """JSON text whose parsed value must satisfy ``content``: one error for either failure."""
        self._use("parseJsonText")
        parsed, inner = self._fresh("parsed"), self._fresh("inner")
        check = self._bound(f"{parsed}.value", content, _Path.empty(), inner, f"{label}_content")
        what = _type(content, "") if content.kind == "ref" else "content"
        not_json = _call(
            f"{e}.add", str(p), '"contentMediaType"', f'"must be JSON text: " + {parsed}.reason'
        )
        invalid = _call(
            f"{e}.add", str(p), '"contentSchema"', f'"is not a valid {what}: " + {inner}.summary()'
        )
        return [
            f"const {parsed} = parseJsonText({x});",
            f"if (!{parsed}.ok) {{",
            *_indent([not_json]),
            "} else {",
            *_indent(
                [f"const {inner} = new Errors();", *check, _if([f"{inner}.size > 0"], then=invalid)]
            ),
            "}",
        ]

    def _number_checks(self, c: Constraints, x: str, p: _Path, e: str) -> list[str]:
        out = []
        for attr, rule, op, words in (
            ("minimum", "minimum", "<", "at least"),
            ("maximum", "maximum", ">", "at most"),
            ("exclusive_minimum", "exclusiveMinimum", "<=", "greater than"),
            ("exclusive_maximum", "exclusiveMaximum", ">=", "less than"),
        ):
            bound = getattr(c, attr)
            if bound is not None:
                add = _call(f"{e}.add", str(p), _js(rule), _js(f"must be {words} {_js(bound)}"))
                out.append(_if([f"{x} {op} {_js(bound)}"], then=add))
        return out

    # -- objects

    def _object_body(self, schema: Schema, x: str, p: _Path, e: str, label: str) -> list[str]:
        """Checks of ``x``, already known to be an object."""
        self._use("has")
        out: list[str] = []
        fields_set = ""
        if schema.additional is False or (schema.fields and isinstance(schema.additional, Schema)):
            fields_set = self._set(
                f"FIELDS_{label}", "string", [_js(f.name) for f in schema.fields]
            )
        for f in schema.fields:
            if f.required:
                add = _call(f"{e}.add", str(p.key(f.name)), '"required"', '"is required"')
                out.append(_if([f"!has({x}, {_js(f.name)})"], then=add))
        out.extend(self._members(schema, x, p, e, label, fields_set=fields_set))
        out.extend(self._member_count(schema, x, p, e))
        for f in schema.fields:
            check = self._bound(
                f"{x}[{_js(f.name)}]", f.schema, p.key(f.name), e, f"{label}_{f.name}"
            )
            if len(check) == 1:
                out.append(_if([f"has({x}, {_js(f.name)})"], then=check[0]))
            else:
                out.extend([f"if (has({x}, {_js(f.name)})) {{", *_indent(check), "}"])
        for rule in schema.require_any:
            out.extend(self._require_any(rule.fields, rule.description, x, p, e))
        for i, cond in enumerate(schema.conditionals):
            out.extend(self._conditional(cond, x, p, e, f"{label}_if{i}"))
        return out

    def _members(
        self, schema: Schema, x: str, p: _Path, e: str, label: str, *, fields_set: str
    ) -> list[str]:
        """The loop over the keys of ``x``: closure, map values and key rules."""
        key = self._fresh("key")
        at = p.dynamic(f"pointerToken({key})")
        body: list[str] = []
        if schema.property_names is not None:
            body.extend(self._property_names(schema.property_names, key, at, e, label))
        extra: list[str] = []
        if schema.additional is False:
            self._use("unknownField")
            extra = [
                _call(
                    f"{e}.add",
                    str(at),
                    '"additionalProperties"',
                    f"unknownField({key}, {fields_set})",
                )
            ]
        elif isinstance(schema.additional, Schema):
            extra = self._bound(f"{x}[{key}]", schema.additional, at, e, f"{label}_value")
        if extra and fields_set:
            body.extend([f"if (!{fields_set}.has({key})) {{", *_indent(extra), "}"])
        else:
            body.extend(extra)
        if not body:
            return []
        self._use("pointerToken")
        return [f"for (const {key} of Object.keys({x})) {{", *_indent(body), "}"]

    def _member_count(self, schema: Schema, x: str, p: _Path, e: str) -> list[str]:
        c = schema.constraints
        if c.min_properties is None and c.max_properties is None:
            return []
        count = self._fresh("count")
        out = [f"const {count} = Object.keys({x}).length;"]
        if c.min_properties is not None:
            note = f" ({schema.description.rstrip('.')})" if schema.description else ""
            message = f"must have at least {_plural(c.min_properties, 'member')}{note}"
            add = _call(f"{e}.add", str(p), '"minProperties"', _str(message))
            out.append(_if([f"{count} < {c.min_properties}"], then=add))
        if c.max_properties is not None:
            message = f"must have at most {_plural(c.max_properties, 'member')}"
            add = _call(f"{e}.add", str(p), '"maxProperties"', _str(message))
            out.append(_if([f"{count} > {c.max_properties}"], then=add))
        return out

    def _property_names(
        self, rules: Constraints, key: str, at: _Path, e: str, label: str
    ) -> list[str]:
        tests, words = [], []
        if rules.min_length is not None:
            self._use("codePoints")
            tests.append(f"codePoints({key}) < {rules.min_length}")
            words.append(f"at least {_plural(rules.min_length, 'character')}")
        if rules.max_length is not None:
            self._use("codePoints")
            tests.append(f"codePoints({key}) > {rules.max_length}")
            words.append(f"at most {_plural(rules.max_length, 'character')}")
        if rules.pattern is not None:
            regex = self._constant(f"PATTERN_{label}_key", f'new RegExp({_js(rules.pattern)}, "u")')
            tests.append(f"!{regex}.test({key})")
            words.append(f"matching {rules.pattern}")
        if not tests:
            return []
        message = "is not an allowed key: a key has " + " and ".join(words)
        add = _call(f"{e}.add", str(at), '"propertyNames"', _str(message))
        return [_if(tests, "||", then=add)]

    def _require_any(
        self, fields: tuple[str, ...], description: str, x: str, p: _Path, e: str
    ) -> list[str]:
        if not fields:
            return []
        if len(fields) == 1:
            # an anyOf of one branch: the reference explains it through that branch
            [name] = fields
            add = _call(f"{e}.add", str(p.key(name)), '"required"', '"is required"')
            return [_if([f"!has({x}, {_js(name)})"], then=add)]
        names = ", ".join(f"`{n}`" for n in fields)
        note = f" ({description.rstrip('.')})" if description else ""
        message = f"needs at least one of {names}{note}"
        add = _call(f"{e}.add", str(p), '"anyOf"', _str(message))
        return [_if([f"!has({x}, {_js(n)})" for n in fields], "&&", then=add)]

    def _conditional(self, cond: Conditional, x: str, p: _Path, e: str, label: str) -> list[str]:
        if cond.const_property is not None:
            member = f"{x}[{_js(cond.const_property)}]"
            if isinstance(cond.const_value, (dict, list)):
                self._use("jsonEqual")
                equals = f"jsonEqual({member}, {_js(cond.const_value)})"
            else:
                equals = f"{member} === {_js(cond.const_value)}"
            tests, joiner = [f"has({x}, {_js(cond.const_property)})", equals], "&&"
        else:
            tests, joiner = [f"has({x}, {_js(n)})" for n in cond.present], "||"
        body: list[str] = []
        for prop, schema in cond.then:
            at, member = p.key(prop), f"{x}[{_js(prop)}]"
            if schema.kind == "primitive":
                value = self._fresh("x")
                check = [
                    f"const {value} = {member};",
                    *self._primitive(
                        schema, value, at, e, f"{label}_{prop}", reason=cond.description
                    ),
                ]
            else:
                check = self._bound(member, schema, at, e, f"{label}_{prop}")
            body.extend([f"if (has({x}, {_js(prop)})) {{", *_indent(check), "}"])
        comment = [f"// {line}" for line in textwrap.wrap(cond.description, _WIDTH - 10)]
        return [*comment, _if(tests, joiner), *_indent(body), "}"]

    # -- arrays

    def _array_body(self, schema: Schema, x: str, p: _Path, e: str, label: str) -> list[str]:
        """Checks of ``x``, already known to be an array."""
        out = []
        c = schema.constraints
        if c.min_items is not None:
            note = f" ({schema.description.rstrip('.')})" if schema.description else ""
            message = f"must have at least {_plural(c.min_items, 'item')}{note}"
            add = _call(f"{e}.add", str(p), '"minItems"', _str(message))
            out.append(_if([f"{x}.length < {c.min_items}"], then=add))
        if c.max_items is not None:
            message = f"must have at most {_plural(c.max_items, 'item')}"
            add = _call(f"{e}.add", str(p), '"maxItems"', _str(message))
            out.append(_if([f"{x}.length > {c.max_items}"], then=add))
        if c.unique_items:
            self._use("allUnique")
            add = _call(f"{e}.add", str(p), '"uniqueItems"', '"must not repeat an item"')
            out.append(_if([f"!allUnique({x})"], then=add))
        if schema.items is not None:
            index, item = self._fresh("i"), self._fresh("item")
            check = self._check(schema.items, item, p.dynamic(index), e, f"{label}_item")
            out.extend([f"for (const [{index}, {item}] of {x}.entries()) {{", *_indent(check), "}"])
        return out

    # -- unions

    def _union(self, schema: Schema, x: str, p: _Path, e: str, label: str) -> list[str]:
        """anyOf: every member checked into a sink of its own, resolved by ``anyOf``."""
        self._use("anyOf")
        expected = _describe_types(_json_types(schema, self.types, frozenset()))
        members = []
        for i, member in enumerate(schema.members):
            sink = self._fresh("s")
            check = self._check(member, x, p, sink, f"{label}_{i}")
            if len(check) == 1 and check[0].startswith(_MARK) and '"call"' in check[0]:
                node = json.loads(check[0][1:])
                members.append(f"({sink}) => {node['call']}({', '.join(node['args'])}),")
            else:
                members.extend([f"({sink}) => {{", *_indent(check), "},"])
        return [f"anyOf({e}, {p}, {_js(expected)}, [", *_indent(members), "]);"]


def _indent(lines: Sequence[str]) -> list[str]:
    return ["  " + line if line else "" for line in lines]
