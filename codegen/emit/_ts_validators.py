"""The TypeScript emitter's validators: the straight-line ``check<Name>`` functions of
``validators.ts``, one per named type, reproducing the reference validator (``mnemowire.spec``)
rule for rule. Split from ``typescript.py`` (the package's files and types), which calls
``Validators`` and shares ``js`` (a JSON value as a JavaScript literal) and the line width."""

from __future__ import annotations

import json
import math
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mnemowire.codegen.ir import NO_DEFAULT, Conditional, Constraints, NamedType, Schema, Spec
from mnemowire.codegen.load import CodegenError

__all__ = ["WIDTH", "Function", "Validators", "js"]

WIDTH = 100

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


@dataclass(frozen=True)
class Function:
    """A module-private ``check<Name>`` function of ``validators.ts``."""

    name: str
    type_name: str
    params: str
    body: list[str]


def js(value: Any) -> str:
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
        if len(one) <= WIDTH:
            return [one]
        args = [f"{indent}  {arg}," for arg in node["args"]]
        return [f"{indent}{node['call']}(", *args, f"{indent});"]
    tests, joiner, then = node["if"], node["joiner"], node["then"]
    head = f"{indent}if ({f' {joiner} '.join(tests)})"
    if len(head) + 2 > WIDTH and len(tests) > 1:
        broken = [f"{indent}  {t} {joiner}" for t in tests[:-1]] + [f"{indent}  {tests[-1]}"]
        opening = [f"{indent}if (", *broken, f"{indent}) {{"]
    else:
        opening = [f"{head} {{"]
    if then is None:
        return opening
    body = _layout([f"{indent}  {then}"])
    if len(body) == 1 and len(opening) == 1 and len(f"{head} {body[0].lstrip()}") <= WIDTH:
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
    literal = js(text)
    if '"' in text and "'" not in text:
        return "'" + literal[1:-1].replace('\\"', '"') + "'"
    return literal


def _plural(n: int | float, word: str) -> str:
    return f"{js(n)} {word}" + ("" if n == 1 else "s")


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
        return " + ".join(js(text) if literal else text for literal, text in self.parts)


class Validators:
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
        if len(f"const {name} = {one};") <= WIDTH:
            return self._constant(name, one)
        rows = textwrap.wrap(", ".join(values), WIDTH - 2, break_long_words=False)
        return self._constant(
            name, f"new Set<{kind}>([\n" + "".join(f"  {r}\n" for r in rows) + "])"
        )

    def _fresh(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def function(self, t: NamedType) -> Function:
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
        return Function(f"check{t.name}", t.name, ", ".join(params), _layout(_indent(body)))

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
            message = f"must be {js(schema.const)}"
            if reason:
                message = f"{reason.rstrip('.')} ({message})"
            if isinstance(schema.const, (dict, list)):
                self._use("jsonEqual")
                test = f"!jsonEqual({x}, {js(schema.const)})"
            else:
                test = f"{x} !== {js(schema.const)}"
            out.append(_if([test], then=_call(f"{e}.add", str(p), '"const"', _str(message))))
        strings = self._string_checks(schema, x, p, e, label)
        numbers = self._number_checks(schema.constraints, x, p, e)
        types = [t for t in schema.types if not (t == "integer" and "number" in schema.types)]
        wrong: list[str] = []
        if types:
            self._use("typeMessage")
            expected = _describe_types(set(types))
            add = _call(f"{e}.add", str(p), '"type"', f"typeMessage({js(expected)}, {x})")
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
        literals = [js(v) for v in values]
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
            add = _call(f"{e}.add", str(p), '"minLength"', js(message))
            out.append(_if([f"codePoints({x}) < {c.min_length}"], then=add))
        if c.max_length is not None:
            self._use("codePoints")
            message = f"must be at most {_plural(c.max_length, 'character')} long"
            add = _call(f"{e}.add", str(p), '"maxLength"', js(message))
            out.append(_if([f"codePoints({x}) > {c.max_length}"], then=add))
        if c.pattern is not None:
            regex = self._constant(f"PATTERN_{label}", f'new RegExp({js(c.pattern)}, "u")')
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
        what = content.ref if content.kind == "ref" and content.ref else "content"
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
                add = _call(f"{e}.add", str(p), js(rule), js(f"must be {words} {js(bound)}"))
                out.append(_if([f"{x} {op} {js(bound)}"], then=add))
        return out

    # -- objects

    def _object_body(self, schema: Schema, x: str, p: _Path, e: str, label: str) -> list[str]:
        """Checks of ``x``, already known to be an object."""
        self._use("has")
        out: list[str] = []
        fields_set = ""
        if schema.additional is False or (schema.fields and isinstance(schema.additional, Schema)):
            fields_set = self._set(f"FIELDS_{label}", "string", [js(f.name) for f in schema.fields])
        for f in schema.fields:
            if f.required:
                add = _call(f"{e}.add", str(p.key(f.name)), '"required"', '"is required"')
                out.append(_if([f"!has({x}, {js(f.name)})"], then=add))
        out.extend(self._members(schema, x, p, e, label, fields_set=fields_set))
        out.extend(self._member_count(schema, x, p, e))
        for f in schema.fields:
            check = self._bound(
                f"{x}[{js(f.name)}]", f.schema, p.key(f.name), e, f"{label}_{f.name}"
            )
            if len(check) == 1:
                out.append(_if([f"has({x}, {js(f.name)})"], then=check[0]))
            else:
                out.extend([f"if (has({x}, {js(f.name)})) {{", *_indent(check), "}"])
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
            regex = self._constant(f"PATTERN_{label}_key", f'new RegExp({js(rules.pattern)}, "u")')
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
            return [_if([f"!has({x}, {js(name)})"], then=add)]
        names = ", ".join(f"`{n}`" for n in fields)
        note = f" ({description.rstrip('.')})" if description else ""
        message = f"needs at least one of {names}{note}"
        add = _call(f"{e}.add", str(p), '"anyOf"', _str(message))
        return [_if([f"!has({x}, {js(n)})" for n in fields], "&&", then=add)]

    def _conditional(self, cond: Conditional, x: str, p: _Path, e: str, label: str) -> list[str]:
        if cond.const_property is not None:
            member = f"{x}[{js(cond.const_property)}]"
            if isinstance(cond.const_value, (dict, list)):
                self._use("jsonEqual")
                equals = f"jsonEqual({member}, {js(cond.const_value)})"
            else:
                equals = f"{member} === {js(cond.const_value)}"
            tests, joiner = [f"has({x}, {js(cond.const_property)})", equals], "&&"
        else:
            tests, joiner = [f"has({x}, {js(n)})" for n in cond.present], "||"
        body: list[str] = []
        for prop, schema in cond.then:
            at, member = p.key(prop), f"{x}[{js(prop)}]"
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
            body.extend([f"if (has({x}, {js(prop)})) {{", *_indent(check), "}"])
        comment = [f"// {line}" for line in textwrap.wrap(cond.description, WIDTH - 10)]
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
        return [f"anyOf({e}, {p}, {js(expected)}, [", *_indent(members), "]);"]


def _indent(lines: Sequence[str]) -> list[str]:
    return ["  " + line if line else "" for line in lines]
