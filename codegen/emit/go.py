"""Go emitter: a Go module (``generated/go``, standard library only) from the IR.

What it writes, and why it looks the way it does:

- one struct per object type, fields in spec order. Required fields are plain values; optional
  fields are pointers with ``omitempty`` (slices, maps and ``any`` too), so "absent" and "empty"
  (or "null") stay distinct. Integers are ``int64``, numbers ``float64``;
- a named string type per enumeration with one constant per value. An open enumeration (the
  "enum or any other string" of responses) is typed as its enumeration: a Go string type takes
  any string, so a newer server's values decode and survive a round trip;
- every other named type (a bounded string, a map, a list, a union) is a type alias, so its doc
  comment is one click away while plain Go values still fit. Unions and multi-type values are
  ``any``: decoded, they hold ``string``, ``json.Number``, ``bool``, ``nil``, ``[]any`` or
  ``map[string]any``;
- extensible ("out") structs keep the members they do not declare in ``Extra`` and write them
  back; closed ("in") structs are closed by validation, not by decoding;
- validators generated from the IR, one function per named type (and per anonymous array or
  map inside one), reproducing the reference validator's ``(path, rule)`` set, plus the spec's
  semantic rules;
- the ``MemoryStore`` interface and ``HTTPClient`` over the HTTP binding's routes, a test over
  the spec examples and ``cmd/vectors``, the runner the cross-language matrix consumes.

Everything that varies (names, types, tags, doc comments, validator bodies) is computed here
(the types and their validators) and in helpers: ``_go_text`` (Go spelling and layout),
``_go_body`` (the statements of a validator), ``_go_api`` (the messages, the store interface,
the HTTP client and the error type) and ``_go_templates`` (the templates under
``templates/go``, which only loop and fill in). The output is gofmt-clean as emitted, and the
same bytes on every run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mnemowire.codegen._output import GeneratedFile, header_lines
from mnemowire.codegen.emit._go_api import GoFunction, http_routes, message_list, semantic_functions
from mnemowire.codegen.emit._go_api import error_type as api_error_type
from mnemowire.codegen.emit._go_api import operations as api_operations
from mnemowire.codegen.emit._go_body import _Body, _Site
from mnemowire.codegen.emit._go_templates import declared, read_templates, render
from mnemowire.codegen.emit._go_text import (
    _WIDTH,
    _a,
    _fill,
    _go_string,
    _go_value,
    _indent,
    _json_tag_name_ok,
    _literal_lines,
    _Names,
    _sentence,
    _unexported,
    comment,
    go_name,
)
from mnemowire.codegen.ir import NO_DEFAULT, Field, NamedType, Schema, Spec
from mnemowire.codegen.load import CodegenError

__all__ = ["GO_VERSION", "MODULE", "PACKAGE", "emit", "go_name"]

#: The module path of the generated bindings, its package name and the oldest Go it builds with.
MODULE = "mnemowire.dev/memorywire"
PACKAGE = "memorywire"
GO_VERSION = "1.19"

#: Methods of every struct, of every message struct, and of the error envelope: a field may not
#: share their name.
_METHODS = frozenset({"MarshalJSON", "UnmarshalJSON"})
_MESSAGE_METHODS = frozenset({"MessageName", "Validate"})
_ERROR_METHODS = frozenset({"Error"})
#: Names the generated method bodies give their own variables.
_LOCALS = frozenset({"data", "err", "m", "members", "v"})

_SCALARS = {"string": "string", "integer": "int64", "number": "float64", "boolean": "bool"}
#: the Go type of a decoded JSON value (numbers as json.Number), by JSON type
_DYNAMIC_OF = {
    "string": "string",
    "integer": "json.Number",
    "number": "json.Number",
    "boolean": "bool",
    "null": "nil",
    "object": "map[string]any",
    "array": "[]any",
}
_DYNAMIC = ("string", "json.Number", "bool", "nil", "[]any", "map[string]any")
_MAX_SAFE_INTEGER = 2**53 - 1


def emit(spec: Spec) -> list[GeneratedFile]:
    """Every file of the Go module, paths relative to ``generated/`` (``go/...``)."""
    templates = read_templates()  # read once: what they declare, then what they render
    return render(templates, _Model(spec, reserved=declared(templates.values())).context())


# --- the model the templates fill in ------------------------------------------------------------


@dataclass
class _GoField:
    name: str
    json_name: str
    go_type: str
    tag: str
    doc: list[str]
    json_literal: str = ""
    empty: str = ""


@dataclass
class _GoStruct:
    name: str
    local: str
    doc: list[str]
    fields: list[_GoField]
    extensible: bool
    fields_var: str
    field_lines: list[str]
    integers_var: str
    integer_lines: list[str]
    nullable: list[_GoField]
    required_collections: list[_GoField]
    unmarshal_doc: list[str]
    marshal_doc: list[str]


@dataclass
class _GoEnum:
    name: str
    doc: list[str]
    constant_lines: list[str]
    case_lines: list[str]
    values_var: str
    value_lines: list[str]


@dataclass
class _GoAlias:
    name: str
    doc: list[str]
    target: str


@dataclass
class _GoVar:
    name: str
    doc: list[str]
    value: str


class _Model:
    """The spec, seen as Go declarations."""

    def __init__(self, spec: Spec, *, reserved: set[str]) -> None:
        """``reserved``: the identifiers the templates declare themselves."""
        self.spec = spec
        self.types = {t.name: t for t in spec.types}
        self.go_names = {t.name: go_name(t.name) for t in spec.types}
        names = list(self.go_names.values())
        clash = sorted({n for n in names if names.count(n) > 1 or n in reserved})
        if clash:
            raise CodegenError(f"Go type names clash (with each other or the runtime): {clash}")
        self.open_enums = {
            t.name: t.schema.open_enum for t in spec.types if t.schema.open_enum is not None
        }
        self.messages_by_type = {m.type_name: m for m in spec.messages}
        self.names = _Names(reserved)
        for t in spec.types:
            self.names.taken.add(self.validator_name(t.name))
        self.functions: list[GoFunction] = []
        self.vars: list[_GoVar] = []
        self.pattern_vars: dict[str, str] = {}
        self.enum_vars: dict[str, str] = {}
        self.fields_vars: dict[str, str] = {}

    def validator_name(self, type_name: str) -> str:
        return f"validate{self.go_names[type_name]}"

    # -- classification

    def is_struct(self, t: NamedType) -> bool:
        return t.schema.kind == "object" and bool(t.schema.fields)

    def is_enum(self, t: NamedType) -> bool:
        s = t.schema
        return s.kind == "primitive" and s.enum is not None and s.types == ("string",)

    def resolve(self, schema: Schema) -> Schema:
        """Follow refs to the schema that says what a value is."""
        seen: set[str] = set()
        while schema.kind == "ref" and schema.ref is not None and schema.ref not in seen:
            seen.add(schema.ref)
            schema = self.types[schema.ref].schema
        return schema

    def is_collection(self, schema: Schema) -> bool:
        """Whether values of the schema are Go slices or maps (nil unless set)."""
        resolved = self.resolve(schema)
        return resolved.kind == "array" or (resolved.kind == "object" and not resolved.fields)

    # -- Go types

    def go_type(self, schema: Schema, where: str) -> str:
        if schema.kind == "ref":
            assert schema.ref is not None
            return self.go_names[self.open_enums.get(schema.ref, schema.ref)]
        if schema.kind == "primitive":
            if len(schema.types) == 1 and schema.types[0] in _SCALARS:
                return _SCALARS[schema.types[0]]
            return "any"
        if schema.kind == "object":
            if schema.fields:
                raise CodegenError(
                    f"{where}: an object with fields must be a named definition ($defs) to "
                    "become a Go struct"
                )
            if isinstance(schema.additional, Schema):
                return f"map[string]{self.go_type(schema.additional, where)}"
            return "map[string]any"
        if schema.kind == "array":
            item = self.go_type(schema.items, where) if schema.items is not None else "any"
            return f"[]{item}"
        if schema.open_enum is not None:
            return self.go_names[schema.open_enum]
        return "any"

    def holds_integers(self, schema: Schema) -> bool:
        """Whether a field's Go type has int64s in it (other structs' fields aside)."""
        schema = self.resolve(schema)
        if schema.kind == "primitive":
            return schema.types == ("integer",)
        if schema.kind == "array":
            return schema.items is not None and self.holds_integers(schema.items)
        if schema.kind == "object" and not schema.fields:
            extra = schema.additional
            return isinstance(extra, Schema) and self.holds_integers(extra)
        return False

    def where(self, t: NamedType) -> str:
        """What a named type is in the spec, for the first sentence of its doc comment."""
        if t.message is not None:
            return f'the "{t.message}" message (spec/{self.spec.version}/{t.message}.json)'
        go = self.go_names[t.name]
        spelt = "" if go == t.name else f" ({t.name} in the spec)"
        return f"a definition of spec {self.spec.version}{spelt}"

    def holds_any(self, schema: Schema) -> bool:
        """Whether the Go type of the schema is ``any`` (perhaps through an alias)."""
        if schema.kind == "ref" and schema.ref not in self.open_enums:
            assert schema.ref is not None
            t = self.types[schema.ref]
            return not self.is_struct(t) and not self.is_enum(t) and self.holds_any(t.schema)
        return self.go_type(schema, "") == "any"

    def dynamic_types(self, schema: Schema) -> list[str]:
        """The Go types a decoded value of the schema can have, for doc comments."""
        schema = self.resolve(schema)
        if schema.kind == "union":
            found = [t for m in schema.members for t in self.dynamic_types(m)]
            return [t for t in _DYNAMIC if t in found]
        if schema.kind == "object":
            return ["map[string]any"]
        if schema.kind == "array":
            return ["[]any"]
        kinds: Sequence[str] = schema.types or list(_DYNAMIC_OF)
        return [t for t in _DYNAMIC if t in {_DYNAMIC_OF[k] for k in kinds}]

    # -- declarations

    def struct(self, t: NamedType) -> _GoStruct:
        name = self.go_names[t.name]
        message = self.messages_by_type.get(t.name)
        extensible = t.schema.additional is not False
        fields = [self.field(t, f) for f in t.schema.fields]
        seen = [f.name for f in fields] + (["Extra"] if extensible else [])
        methods = _METHODS | (_MESSAGE_METHODS if message else set())
        if message is not None and message.name == "error":
            methods |= _ERROR_METHODS
        clash = sorted({n for n in seen if seen.count(n) > 1 or n in methods})
        if clash:
            raise CodegenError(f"{t.name}: Go field names clash: {clash}")
        local = _unexported(name)
        if local in _LOCALS:
            local += "Value"
        fields_var = self.fields_vars[t.name]
        integer_names = sorted(f.name for f in t.schema.fields if self.holds_integers(f.schema))
        integers_var = self.names.new(f"{local}Integers") if integer_names else "nil"
        required_collections = [
            go
            for f, go in zip(t.schema.fields, fields, strict=True)
            if f.required and self.is_collection(f.schema)
        ]
        for go in required_collections:
            go.empty = f"{go.go_type}{{}}"
        nullable = [
            go
            for f, go in zip(t.schema.fields, fields, strict=True)
            if not f.required and self.holds_any(f.schema)
        ]
        for go in nullable:
            go.json_literal = _go_string(go.json_name)
        if extensible:
            what = "message" if message else "object"
            text = (
                f"Extra holds the members of the {what} that spec {self.spec.version} does not "
                "declare (a newer peer's fields), by name, as JSON text: decoding and encoding "
                "again keeps them."
            )
            fields.append(
                _GoField(
                    "Extra", "", "map[string]json.RawMessage", '`json:"-"`', comment([text], 1)
                )
            )
        unmarshal = f"UnmarshalJSON decodes {_a(name)}"
        if extensible:
            unmarshal += ", keeping the members it does not declare in Extra"
        marshal_doc: list[str] = []
        if extensible or required_collections:
            text = f"MarshalJSON encodes {_a(name)}"
            if extensible:
                text += ", followed by the members kept in Extra"
            text += "."
            if required_collections:
                text += " A required list or map that is nil is written empty, not as null."
            marshal_doc = comment([text])
        doc = [f"{name} is {self.where(t)}.", t.schema.description]
        if message is not None and message.direction == "in":
            doc.append(
                f"Decode{name} validates before it decodes: encoding/json alone ignores the "
                "members the struct does not declare."
            )
        return _GoStruct(
            name=name,
            local=local,
            doc=comment(doc),
            fields=fields,
            extensible=extensible,
            fields_var=fields_var,
            field_lines=_literal_lines(
                [_go_string(n) for n in sorted(f.name for f in t.schema.fields)]
            ),
            integers_var=integers_var,
            integer_lines=_literal_lines([_go_string(n) for n in integer_names]),
            nullable=nullable,
            required_collections=required_collections,
            unmarshal_doc=comment([unmarshal]),
            marshal_doc=marshal_doc,
        )

    def field(self, t: NamedType, f: Field) -> _GoField:
        if not _json_tag_name_ok(f.name):
            raise CodegenError(f"{t.name}.{f.name}: encoding/json cannot name a field so")
        go_type = self.go_type(f.schema, f"{t.name}.{f.name}")
        tag = f'`json:"{f.name}"`'
        if not f.required:
            go_type = f"*{go_type}"
            tag = f'`json:"{f.name},omitempty"`'
        description = f.description or f.schema.description
        if not description and f.schema.kind == "ref" and f.schema.ref is not None:
            description = self.types[f.schema.ref].schema.description
        text = _sentence(description or f"The {f.name} member.")
        resolved = self.resolve(f.schema)
        if (
            resolved.kind == "primitive"
            and resolved.types == ("integer",)
            and resolved.constraints.maximum == _MAX_SAFE_INTEGER
            and "2^53" not in text
        ):
            text += " At most 2^53-1, so every language holds it exactly."
        if f.default is not NO_DEFAULT:
            text += f" Default: {json.dumps(f.default)}."
        return _GoField(go_name(f.name), f.name, go_type, tag, comment([text], 1))

    def enum(self, t: NamedType) -> _GoEnum:
        name = self.go_names[t.name]
        assert t.schema.enum is not None
        values = [v for v in t.schema.enum if isinstance(v, str)]
        if not values or len(values) != len(t.schema.enum):
            raise CodegenError(f"{t.name}: a string enum needs string values, at least one")
        constants = [name + go_name(v) for v in values]
        clash = sorted({c for c in constants if constants.count(c) > 1})
        if clash:
            raise CodegenError(f"{t.name}: enum constants clash: {clash}")
        width = max(len(c) for c in constants)
        doc = [f"{name} is {self.where(t)}.", t.schema.description]
        for open_name in sorted(n for n, e in self.open_enums.items() if e == t.name):
            doc.append(
                f"Where the spec says {open_name}, a {name} holds any other string too, and "
                f"keeps it. {open_name}: {self.types[open_name].schema.description} Known tells "
                f"the values of spec {self.spec.version} apart."
            )
        items = [f"{c}," for c in constants[:-1]] + [f"{constants[-1]}:"]
        case_lines = _fill(["case", *items], _WIDTH - 8)
        case_lines = case_lines[:1] + ["\t" + line for line in case_lines[1:]]
        return _GoEnum(
            name=name,
            doc=comment(doc),
            constant_lines=[
                f"{c.ljust(width)} {name} = {_go_string(v)}"
                for c, v in zip(constants, values, strict=True)
            ],
            case_lines=case_lines,
            values_var=self.enum_vars[t.name],
            value_lines=_literal_lines([_go_string(v) for v in values]),
        )

    def alias(self, t: NamedType) -> _GoAlias:
        name = self.go_names[t.name]
        target = self.go_type(t.schema, t.name)
        doc = [f"{name} is {self.where(t)}.", t.schema.description]
        if target == "any":
            held = self.dynamic_types(t.schema)
            listed = ", ".join(held[:-1]) + f" or {held[-1]}" if len(held) > 1 else held[0]
            doc.append(f"Decoded from JSON, it holds a {listed}.")
        return _GoAlias(name, comment(doc), target)

    # -- validators

    def validators(self) -> list[GoFunction]:
        for t in self.spec.types:
            go = self.go_names[t.name]
            doc = comment(
                [f"{self.validator_name(t.name)} checks v, the value at p, against {t.name}."]
            )
            body = _Body(self, _Site(go, t.name)).function(t.schema)
            self.functions.append(GoFunction(self.validator_name(t.name), doc, body))
        return sorted(self.functions, key=lambda f: f.name)

    def helper(self, body: list[str], site: _Site) -> str:
        """A validator function for an anonymous schema, given its body: its name."""
        name = self.names.new(f"validate{site.hint}")
        doc = comment([f"{name} checks v, the value at p, against {site.label}."])
        self.functions.append(GoFunction(name, doc, body))
        return name

    def pattern(self, pattern: str, site: _Site) -> str:
        """The package-level regexp for a pattern: its name."""
        if pattern not in self.pattern_vars:
            if re.search(r"\(\?<?[=!]|\\[1-9]", pattern):
                raise CodegenError(
                    f"pattern {pattern!r}: lookaround and back-references are not in Go's RE2"
                )
            try:
                re.compile(pattern)
            except re.error as exc:
                raise CodegenError(f"pattern {pattern!r} does not compile: {exc}") from exc
            var = self.names.new(f"{_unexported(site.hint)}Pattern")
            literal = f"`{pattern}`" if "`" not in pattern else _go_string(pattern)
            self.pattern_vars[pattern] = var
            self.vars.append(
                _GoVar(
                    var,
                    comment([f"{var} is the pattern of {site.label}."]),
                    f"regexp.MustCompile({literal})",
                )
            )
        return self.pattern_vars[pattern]

    def enum_values(self, schema: Schema, site: _Site) -> str:
        """The package-level []any holding a schema's enum values: its name."""
        assert schema.enum is not None
        for name, var in self.enum_vars.items():
            if self.types[name].schema is schema:
                return var
        var = self.names.new(f"{_unexported(site.hint)}Values")
        values = "\n".join(_indent(_literal_lines([_go_value(v) for v in schema.enum])))
        doc = comment([f"{var} are the values {site.label} allows."])
        self.vars.append(_GoVar(var, doc, f"[]any{{\n{values}\n}}"))
        return var

    # -- messages, semantic rules, the store

    # -- everything the templates get

    def context(self) -> dict[str, Any]:
        ordered = sorted(self.spec.types, key=lambda t: self.go_names[t.name])
        for t in ordered:  # names of package-level variables first: validators refer to them
            local = _unexported(self.go_names[t.name])
            if self.is_struct(t):
                self.fields_vars[t.name] = self.names.new(f"{local}Fields")
            elif self.is_enum(t):
                self.enum_vars[t.name] = self.names.new(f"{local}Values")
        structs, enums, aliases = [], [], []
        for t in ordered:
            if self.is_struct(t):
                structs.append(self.struct(t))
            elif self.is_enum(t):
                enums.append(self.enum(t))
            elif t.name not in self.open_enums:
                aliases.append(self.alias(t))
        validators = self.validators()
        semantic, rule_templates = semantic_functions(self.spec, self.types, self.go_names)
        messages = message_list(self.spec, self.go_names)
        operations = api_operations(self.spec, self.go_names)
        error_type = api_error_type(self.spec, self.types, self.go_names)
        version = self.spec.version
        header = [
            *(f"// {line}" for line in header_lines(self.spec)),
            f"// Code generated by mnemowire-codegen from spec/{version}. DO NOT EDIT.",
        ]
        schema_code = [line for f in validators for line in f.body] + [v.value for v in self.vars]
        return {
            "header": "\n".join(header) + "\n",
            "module": MODULE,
            "package": PACKAGE,
            "go_version": GO_VERSION,
            "version": version,
            "version_literal": _go_string(version),
            "digest_literal": _go_string(self.spec.digest),
            "structs": structs,
            "enums": enums,
            "aliases": aliases,
            "types_use_json": any(s.extensible for s in structs),
            "validators": validators,
            "vars": sorted(self.vars, key=lambda v: v.name),
            "schema_imports": [
                name
                for name, used in (
                    ('"encoding/json"', any("json." in line for line in schema_code)),
                    ('"regexp"', any("regexp." in line for line in schema_code)),
                )
                if used
            ],
            "semantic": semantic,
            "rule_templates": rule_templates,
            "messages": messages,
            "message_lines": _literal_lines([m.literal for m in messages]),
            "requests": [m for m in messages if m.direction == "in"],
            "direction_doc": comment(
                [
                    "The messages a store emits ("
                    + ", ".join(m.name for m in messages if m.direction == "out")
                    + ") are extensible: their structs keep the members they do not declare in "
                    "Extra and write them back when encoded, so decoding and encoding a newer "
                    "peer's message loses nothing. The messages sent to a store ("
                    + ", ".join(m.name for m in messages if m.direction == "in")
                    + ") are closed: validation rejects the members they do not declare."
                ]
            ),
            "operations": operations,
            "http_routes": http_routes(self.spec, self.go_names),
            "store_doc": comment(
                [
                    "MemoryStore is anything that implements the operations of memorywire ("
                    + ", ".join(op.method for op in operations if not op.optional)
                    + "): a backend adapter, or a router over several stores.",
                    "A store validates every request before it acts on it (the Decode functions "
                    "do both) and changes nothing for an invalid one; an operation that fails "
                    "leaves the store as it was."
                    + (
                        f" The error of a failed operation is an *{error_type}, the spec's error "
                        "envelope, whenever the store can say why."
                        if error_type
                        else ""
                    ),
                ]
            ),
            "error_type": error_type,
            "examples_dir": f"../../spec/{version}/examples",
        }
