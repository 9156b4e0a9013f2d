"""The statements of the Go validators (``validators.go``): one validator function body
per schema, built by ``_Body`` for the Go emitter's model (``go.py``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mnemowire.codegen.emit._go_text import (
    _condition,
    _go_string,
    _go_value,
    _indent,
    _pointer,
    go_name,
)
from mnemowire.codegen.ir import NO_DEFAULT, Schema
from mnemowire.codegen.load import CodegenError

if TYPE_CHECKING:
    from mnemowire.codegen.emit.go import _Model

_TYPE_FLAGS = {
    "string": "tString",
    "integer": "tInteger",
    "number": "tNumber",
    "boolean": "tBoolean",
    "null": "tNull",
}
_BOUNDS = (
    ("minimum", "minimum"),
    ("maximum", "maximum"),
    ("exclusive_minimum", "exclusiveMinimum"),
    ("exclusive_maximum", "exclusiveMaximum"),
)

#: stands for a member's pointer in statements until it is known whether to name it
_PATH = "\x00path\x00"


#: the pointer of a member of ``obj`` whose name is in ``key``: as an argument, and spaced
_KEY_PATH = ('p+"/"+escapeKey(key)', 'p + "/" + escapeKey(key)')


def _bind(lines: list[str], path: tuple[str, str]) -> list[str]:
    """Put a pointer where statements have ``_PATH``: in place when it is used once (``path[0]``,
    as a call argument), through a variable ``q`` (``path[1]``) when it is used more often."""
    uses = sum(line.count(_PATH) for line in lines)
    if uses <= 1:
        return [line.replace(_PATH, path[0]) for line in lines]
    return [f"q := {path[1]}", *(line.replace(_PATH, "q") for line in lines)]


@dataclass(frozen=True)
class _Site:
    """Where a schema sits: ``hint`` names Go helpers after it, ``label`` says it in words."""

    hint: str
    label: str

    def member(self, name: str) -> _Site:
        return _Site(self.hint + go_name(name), f"{self.label}.{name}")

    def alternative(self, i: int) -> _Site:
        return _Site(f"{self.hint}Alt{i}", f"{self.label} (alternative {i})")

    def items(self) -> _Site:
        return _Site(self.hint + "Item", f"the items of {self.label}")

    def values(self) -> _Site:
        return _Site(self.hint + "Value", f"the member values of {self.label}")

    def content(self) -> _Site:
        return _Site(self.hint + "Content", f"the content of {self.label}")


class _Body:
    """Go statements that validate one schema: ``r *report``, the value ``v`` at pointer ``p``."""

    def __init__(self, model: _Model, site: _Site) -> None:
        self.model = model
        self.site = site

    def function(self, schema: Schema) -> list[str]:
        """A validator function's body; objects and arrays return early on a wrong type."""
        if schema.kind == "object":
            return self._object(schema)
        if schema.kind == "array":
            return self._array(schema)
        return self.check(schema, "v", "p", self.site)

    def check(self, schema: Schema, v: str, p: str, site: _Site) -> list[str]:
        """Statements validating the value ``v`` at pointer ``p`` against ``schema``."""
        if schema.kind == "ref":
            assert schema.ref is not None
            call = f"{self.model.validator_name(schema.ref)}(r, {v}, {p})"
            if not schema.forbidden:
                return [call]
            names = ", ".join(json.dumps(name) for name in schema.forbidden)
            return [call, f"r.forbid({p}, {v}, {names})"]
        if schema.kind == "primitive":
            return self._primitive(schema, v, p, site)
        if schema.kind == "union":
            return self._union(schema, v, p, site)
        body = _Body(self.model, site).function(schema)
        if body in (["r.checkType(p, v, tObject)"], ["r.checkType(p, v, tArray)"]):
            return [body[0].replace("(p, v,", f"({p}, {v},")]  # nothing but the type
        return [f"{self.model.helper(body, site)}(r, {v}, {p})"]

    def member(self, schema: Schema, name: str, site: _Site) -> list[str]:
        """``if x, ok := obj[name]; ok { ... }``: validate a member of ``obj`` when present."""
        path = (_pointer("p", name, argument=True), _pointer("p", name))
        check = _bind(self.check(schema, "x", _PATH, site), path)
        if not check:
            return []
        return [f"if x, ok := obj[{_go_string(name)}]; ok {{", *_indent(check), "}"]

    def _primitive(self, s: Schema, v: str, p: str, site: _Site) -> list[str]:
        c = s.constraints
        if c.unique_items or any(
            x is not None for x in (c.min_items, c.max_items, c.min_properties, c.max_properties)
        ):
            raise CodegenError(f"{site.label}: array or object bounds on a schema of no such type")
        lines = []
        if s.types:
            flags = "|".join(flag for t, flag in _TYPE_FLAGS.items() if t in s.types)
            lines.append(f"r.checkType({p}, {v}, {flags})")
        if s.enum is not None:
            lines.append(f"r.checkEnum({p}, {v}, {self.model.enum_values(s, site)})")
        if s.const is not NO_DEFAULT:
            lines.append(f"r.checkConst({p}, {v}, {_go_value(s.const)})")
        strings = []
        if c.min_length is not None:
            strings.append(f"r.minLength({p}, s, {c.min_length})")
        if c.max_length is not None:
            strings.append(f"r.maxLength({p}, s, {c.max_length})")
        if c.pattern is not None:
            strings.append(f"r.pattern({p}, s, {self.model.pattern(c.pattern, site)})")
        if s.content_schema is not None:
            content = s.content_schema
            if content.kind == "ref":
                assert content.ref is not None
                function = self.model.validator_name(content.ref)
            else:
                inner = site.content()
                function = self.model.helper(_Body(self.model, inner).function(content), inner)
            strings.append(f"r.content({p}, s, {function})")
        if strings:
            lines += [f"if s, ok := {v}.(string); ok {{", *_indent(strings), "}"]
        numbers = []
        for attr, method in _BOUNDS:
            bound = getattr(c, attr)
            if bound is not None:
                numbers.append(f"r.{method}({p}, n, {_go_string(json.dumps(bound))})")
        if numbers:
            lines += [f"if n, ok := {v}.(json.Number); ok {{", *_indent(numbers), "}"]
        return lines

    def _union(self, s: Schema, v: str, p: str, site: _Site) -> list[str]:
        alternatives = [
            self.check(m, v, p, site.alternative(i)) for i, m in enumerate(s.members, start=1)
        ]
        if not alternatives or not all(alternatives):
            return []  # some alternative takes every value
        lines = [f"r.anyOf({p}, func(r *report) {{"]
        for i, alternative in enumerate(alternatives):
            if i:
                lines.append("}, func(r *report) {")
            lines += _indent(alternative)
        lines.append("})")
        return lines

    def _array(self, s: Schema) -> list[str]:
        c = s.constraints
        lines = ["arr, ok := v.([]any)", "if !ok {", "\tr.typeError(p, tArray)", "\treturn", "}"]
        if c.min_items is not None:
            lines.append(f"r.minItems(p, arr, {c.min_items})")
        if c.max_items is not None:
            lines.append(f"r.maxItems(p, arr, {c.max_items})")
        if c.unique_items:
            lines.append("r.uniqueItems(p, arr)")
        if s.items is not None:
            item = self.check(s.items, "item", "itemPath(p, i)", self.site.items())
            if item:
                lines += ["for i, item := range arr {", *_indent(item), "}"]
        return lines if len(lines) > 5 else ["r.checkType(p, v, tArray)"]

    def _object(self, s: Schema) -> list[str]:
        c = s.constraints
        lines = [
            "obj, ok := v.(map[string]any)",
            "if !ok {",
            "\tr.typeError(p, tObject)",
            "\treturn",
            "}",
        ]
        required = [f.name for f in s.fields if f.required]
        if required:
            lines.append("r.required(p, obj, " + ", ".join(map(_go_string, required)) + ")")
        fields_var = "nil"
        if s.fields:
            owner = next((t.name for t in self.model.spec.types if t.schema is s), None)
            if owner is None:
                raise CodegenError(f"{self.site.label}: an object with fields must be named")
            fields_var = self.model.fields_vars[owner]
        if s.additional is False:
            lines.append(f"r.closed(p, obj, {fields_var})")
        if c.min_properties is not None:
            lines.append(f"r.minProperties(p, obj, {c.min_properties})")
        if c.max_properties is not None:
            lines.append(f"r.maxProperties(p, obj, {c.max_properties})")
        names = s.property_names
        if names is not None and not names.is_empty():
            if any(getattr(names, attr) is not None for attr, _ in _BOUNDS):
                raise CodegenError(f"{self.site.label}: propertyNames bound only length, pattern")
            pattern = "nil"
            if names.pattern is not None:
                key_site = _Site(self.site.hint + "Key", f"the member names of {self.site.label}")
                pattern = self.model.pattern(names.pattern, key_site)
            low = names.min_length if names.min_length is not None else 0
            high = names.max_length if names.max_length is not None else -1
            lines += [
                "for key := range obj {",
                f"\tr.propertyName(p, key, {low}, {high}, {pattern})",
                "}",
            ]
        if isinstance(s.additional, Schema):
            value = _bind(self.check(s.additional, "x", _PATH, self.site.values()), _KEY_PATH)
            if value:
                skip = [f"\tif declares({fields_var}, key) {{", "\t\tcontinue", "\t}"]
                lines += [
                    "for key, x := range obj {",
                    *(skip if s.fields else []),
                    *_indent(value),
                    "}",
                ]
        for f in s.fields:
            lines += self.member(f.schema, f.name, self.site.member(f.name))
        for group in s.require_any:
            args = ", ".join(_go_string(n) for n in group.fields)
            lines.append(f"r.requireAny(p, {_go_string(group.description)}, obj, {args})")
        for cond in s.conditionals:
            then: list[str] = []
            for prop, schema in cond.then:
                then += self.member(schema, prop, self.site.member(prop))
            if then:
                lines += [
                    f"if {_condition(cond)} {{",
                    f"\tr.because({_go_string(cond.description)}, func(r *report) {{",
                    *_indent(_indent(then)),
                    "\t})",
                    "}",
                ]
        return lines if len(lines) > 5 else ["r.checkType(p, v, tObject)"]
