"""TypeScript emitter: an npm package (``generated/ts``) with types, validators and a client.

Everything a file says is decided here, from the IR: names, type expressions, doc comments,
and (in ``_ts_validators``) the straight-line validator code of every named type. The
templates under ``templates/ts/`` only lay those values out. The validators reproduce the
reference validator (``mnemowire.spec``) rule for rule, as the shared validation semantics
define it: the same ``(path, rule)`` set for every payload. Output is deterministic: no
timestamps, no set or dict iteration whose order could vary, so two runs (under any
``PYTHONHASHSEED``) give the same bytes.

The package's ``package-lock.json`` is not emitted: ``npm install`` wrote it once, and codegen
neither writes nor checks it. Nor is ``dist/``, which ``tsc`` compiles from ``src/``: the module
``src/sources.ts`` records the digest of what it is compiled from, so a ``dist/`` that was not
rebuilt is found by reading ``dist/sources.js`` (``compiled_from``), without Node.
"""

from __future__ import annotations

import hashlib
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from mnemowire.codegen._output import GeneratedFile, header_lines
from mnemowire.codegen.emit._ts_validators import WIDTH as _WIDTH
from mnemowire.codegen.emit._ts_validators import Validators as _Validators
from mnemowire.codegen.emit._ts_validators import js as _js
from mnemowire.codegen.ir import (
    NO_DEFAULT,
    Field,
    NamedType,
    Schema,
    Spec,
)
from mnemowire.codegen.load import CodegenError
from mnemowire.spec._wellformed import MAX_DEPTH

__all__ = ["DEV_DEPENDENCIES", "PACKAGE_NAME", "SOURCES_MODULE", "compiled_from", "emit"]

PACKAGE_NAME = "@mnemowire/memorywire"
#: Exact pins: the package has no runtime dependencies at all.
DEV_DEPENDENCIES = {"@types/node": "20.19.43", "typescript": "5.9.3"}
#: Test modules under ``test/``, compiled to ``build/tests/test/`` (``dist/`` is the package).
TEST_MODULES = ("guards", "runtime", "vectors")
#: Where the spec examples are, seen from ``generated/ts``.
EXAMPLES_DIR = "../../spec/{version}/examples"
#: The module recording what ``dist/`` is compiled from (``dist/sources.js`` once compiled).
SOURCES_MODULE = "ts/src/sources.ts"
#: Its one statement, the same in the TypeScript source and in the JavaScript tsc makes of it.
SOURCES_RECORD = r'^export const SOURCES = "(sha256:[0-9a-f]{64})";$'

_MAX_SAFE_INTEGER = 2**53 - 1
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_TS_PRIMITIVE = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}
#: (message, semantic rule) -> the function of ``semantic.ts`` that checks it. A rule the spec
#: adds without an entry here stops codegen rather than being skipped.
_SEMANTIC_CHECKS = {
    ("remember.request", "stateReference"): "stateReferenceInRemember",
    ("review-request", "stateReference"): "stateReferenceInReview",
}


def emit(spec: Spec) -> list[GeneratedFile]:
    """Every file of ``generated/ts`` (paths relative to ``generated/``) but the lockfile and
    ``dist/`` (see ``codegen.dist``)."""
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
        "check-dist.mjs": "check-dist.mjs.j2",
        "test/tsconfig.json": "test-tsconfig.json.j2",
        **{f"test/{name}.test.ts": f"{name}.test.ts.j2" for name in TEST_MODULES},
    }
    files = [
        GeneratedFile(f"ts/{path}", render(template, common)) for path, template in outputs.items()
    ]
    sources = render("sources.ts.j2", {**common, "sources": _compiled_digest(files)})
    return [*files, GeneratedFile(SOURCES_MODULE, sources)]


def compiled_from(text: str) -> str | None:
    """The digest a ``src/sources.ts`` or ``dist/sources.js`` records; None if it has none."""
    found = re.search(SOURCES_RECORD, text, flags=re.MULTILINE)
    return found[1] if found else None


def _compiled_digest(files: Sequence[GeneratedFile]) -> str:
    """sha256 over what tsc compiles ``dist/`` from: tsconfig.json, the modules of ``src/``
    and the compiler's pinned version (another compiler may emit other JavaScript)."""
    digest = hashlib.sha256(f"typescript@{DEV_DEPENDENCIES['typescript']}\0".encode())
    for file in sorted(files, key=lambda f: f.path):
        if file.path == "ts/tsconfig.json" or file.path.startswith("ts/src/"):
            digest.update(file.path.encode() + b"\0" + file.content.encode() + b"\0")
    return f"sha256:{digest.hexdigest()}"


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
        self.sources_record = SOURCES_RECORD
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
