"""Python emitter: Pydantic v2 models, written by datamodel-code-generator from the IR.

The IR is rendered back into one JSON Schema bundle (every named type under ``$defs``, named as
the IR names it), so the Python classes carry the same names as the TypeScript and Go types, and
datamodel-code-generator (pinned) writes the models. Requests forbid unknown fields; responses
keep them (``extra="allow"``) and type enumerations as "known values or any string", so a v0
client keeps what a newer server sends.

What Pydantic cannot express (the if/then rules, "ids or filter", JSON content schemas,
uniqueItems) is listed in docs/bindings.md; the runtime validates every message with the spec
itself, so those rules still hold at every boundary.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from mnemowire.codegen._output import GeneratedFile, header_lines
from mnemowire.codegen.ir import NO_DEFAULT, Constraints, Schema, Spec

__all__ = ["constant_name", "emit", "emit_module", "module_name", "vocabulary"]

_CONSTRAINT_KEYS = {
    "min_length": "minLength",
    "max_length": "maxLength",
    "pattern": "pattern",
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusive_minimum": "exclusiveMinimum",
    "exclusive_maximum": "exclusiveMaximum",
    "min_items": "minItems",
    "max_items": "maxItems",
    "unique_items": "uniqueItems",
    "min_properties": "minProperties",
    "max_properties": "maxProperties",
}


def emit(spec: Spec) -> list[GeneratedFile]:
    """``python/<version>.py`` with every model, ``python/__init__.py`` re-exporting it (the
    version given is what ``mnemowire.models`` means: codegen passes the latest) and
    ``python/operations.py``, its operation table and typed entries."""
    from mnemowire.codegen.emit._python_operations import emit_operations  # it names modules

    module = emit_module(spec)
    init = GeneratedFile("python/__init__.py", _package_init(spec, module.content))
    return [module, init, emit_operations(spec)]


def emit_module(spec: Spec) -> GeneratedFile:
    """``python/<version>.py``: every model of one spec version, then its vocabulary (the
    enumerations, property sets and defaults as constants), so hand-written code names them
    instead of copying the spec's strings."""
    source = _run_generator(bundle(spec))
    for step in (_drop_root_placeholder, _annotate_constrained, _replace_header):
        source = step(source, spec)
    return GeneratedFile(f"python/{module_name(spec.version)}.py", _with_vocabulary(source, spec))


def module_name(version: str) -> str:
    """The importable module of a spec version: ``v0`` -> ``v0``, ``v0.1`` -> ``v0_1``
    (``mnemowire.models.v0.1`` would name a package ``v0`` with a module ``1``)."""
    return version.replace(".", "_")


def bundle(spec: Spec) -> dict[str, Any]:
    """One JSON Schema document: every IR type under ``$defs`` by its IR name.

    Open enumerations, constrained scalars (ids, names, times) and free-form objects (metadata)
    are written in place rather than as classes of their own, so a field reads
    ``Literal[...] | str``, ``list[str]`` or ``dict[str, Any]`` instead of a wrapper class.
    """
    inlined = {
        t.name: t.schema
        for t in spec.types
        if t.schema.open_enum is not None
        or (t.schema.kind == "primitive" and t.schema.enum is None)
        or (t.schema.is_map and t.schema.additional is True)
    }

    def render(schema: Schema) -> dict[str, Any]:
        if schema.kind == "ref" and schema.ref in inlined:
            inline = _render(inlined[schema.ref], render)
            if schema.description:
                inline["description"] = schema.description
            return inline
        return _render(schema, render)

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {t.name: render(t.schema) for t in spec.types if t.name not in inlined},
    }


def _render(schema: Schema, render: Callable[[Schema], dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if schema.description:
        out["description"] = schema.description
    if schema.kind == "ref":
        out["$ref"] = f"#/$defs/{schema.ref}"
    elif schema.kind == "union":
        if schema.open_enum is not None:
            # "known values or any string": Literal[...] | str keeps a newer server's values
            out["anyOf"] = [{"$ref": f"#/$defs/{schema.open_enum}"}, {"type": "string"}]
        else:
            out["anyOf"] = [render(m) for m in schema.members]
    elif schema.kind == "object":
        out["type"] = "object"
        if schema.fields:
            out["properties"] = {
                f.name: _field(render(f.schema), f.description, f.default) for f in schema.fields
            }
            required = [f.name for f in schema.fields if f.required]
            if required:
                out["required"] = required
        if isinstance(schema.additional, Schema):
            out["additionalProperties"] = render(schema.additional)
        else:
            out["additionalProperties"] = schema.additional
    elif schema.kind == "array":
        out["type"] = "array"
        if schema.items is not None:
            out["items"] = _plain(render(schema.items))
    else:
        if schema.types:
            out["type"] = list(schema.types) if len(schema.types) > 1 else schema.types[0]
        if schema.enum is not None:
            out["enum"] = list(schema.enum)
        if schema.const is not NO_DEFAULT:
            out["const"] = schema.const
    out.update(_constraints(schema.constraints))
    return out


def _plain(item: dict[str, Any]) -> dict[str, Any]:
    """Array items lose their scalar bounds: datamodel-code-generator would otherwise wrap every
    constrained item in a RootModel class (ids: list[Id]); the spec validator checks them."""
    if "type" in item and item["type"] in ("string", "integer", "number") and "enum" not in item:
        return {"type": item["type"]}
    if "anyOf" in item:
        return {**item, "anyOf": [_plain(member) for member in item["anyOf"]]}
    return item


def _field(rendered: dict[str, Any], description: str, default: Any) -> dict[str, Any]:
    out = dict(rendered)
    if description:
        out["description"] = description
    if default is not NO_DEFAULT:
        out["default"] = default
    return out


def _constraints(constraints: Constraints) -> dict[str, Any]:
    out = {}
    for attr, key in _CONSTRAINT_KEYS.items():
        value = getattr(constraints, attr)
        if value is not None and value is not False:
            out[key] = value
    return out


def _run_generator(schema: dict[str, Any]) -> str:
    from datamodel_code_generator import generate
    from datamodel_code_generator.enums import DataModelType, InputFileType, StrictTypes
    from datamodel_code_generator.format import Formatter, PythonVersion
    from datamodel_code_generator.parser import LiteralType

    result = generate(
        json.dumps(schema),
        input_file_type=InputFileType.JsonSchema,
        output_model_type=DataModelType.PydanticV2BaseModel,
        target_python_version=PythonVersion.PY_311,
        use_annotated=True,
        field_constraints=True,
        use_standard_collections=True,
        use_union_operator=True,
        use_double_quotes=True,
        enum_field_as_literal=LiteralType.All,
        use_schema_description=True,
        use_field_description=True,
        collapse_root_models=True,
        strict_nullable=True,
        disable_timestamp=True,
        # "yes" is not a boolean: lax Pydantic would read it as True and hide the mistake
        strict_types=[StrictTypes.bool],
        formatters=[Formatter.BUILTIN],
    )
    if not isinstance(result, str):
        raise TypeError("datamodel-code-generator returned several modules; expected one")
    return result


def _drop_root_placeholder(source: str, spec: Spec) -> str:
    """The bundle's root has no type of its own; drop the ``Model`` class written for it."""
    return re.sub(r"\n\nclass Model\(RootModel\[Any\]\):\n    root: Any\n", "", source)


_CONSTRAINED = re.compile(r"\bcon(float|int|str)\(([^()]*)\)")


def _annotate_constrained(source: str, spec: Spec) -> str:
    """A constrained member of a union comes out as ``confloat(ge=...)``, a call mypy refuses in
    an annotation; ``Annotated[float, Field(ge=...)]`` means the same to Pydantic."""
    source = _CONSTRAINED.sub(r"Annotated[\1, Field(\2)]", source)
    return re.sub(
        r"^(from pydantic import .*?)(, con(?:float|int|str))+\b",
        r"\1",
        source,
        flags=re.MULTILINE,
    )


def _replace_header(source: str, spec: Spec) -> str:
    body = source.split("\n\n", 1)[1] if source.startswith("# generated by") else source
    header = "".join(f"# {line}\n" for line in header_lines(spec))
    return f"{header}\n{body}"


def constant_name(name: str) -> str:
    """``MemoryRecord`` -> ``MEMORY_RECORD``; ``recall.request`` -> ``RECALL_REQUEST``."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return re.sub(r"[^A-Za-z0-9]+", "_", snake).upper()


def _member_name(value: str) -> str:
    name = constant_name(value)
    return name if name[:1].isalpha() else f"V_{name}"


def vocabulary(spec: Spec) -> list[str]:
    """The Python lines of a version's vocabulary: a ``StrEnum`` per named enumeration,
    ``<TYPE>_FIELDS`` (every property, in spec order) and ``<TYPE>_REQUIRED`` per object type,
    ``<MESSAGE>_DEFAULTS`` per message with defaults, and ``TYPE_SPECIFIC_FIELDS`` (the fields
    the spec's "episodic only" / "emotional only" rules reserve to one memory type)."""
    lines = [
        "",
        "",
        "# -- vocabulary: the spec's enumerations, property sets and defaults --",
        "",
        "#: the spec version these models are generated from, and its schema files' digest",
        f"SPEC_VERSION: Final = {json.dumps(spec.version)}",
        f"SPEC_DIGEST: Final = {json.dumps(spec.digest)}",
    ]
    for named in spec.types:
        schema = named.schema
        if schema.kind != "primitive" or schema.enum is None:
            continue
        doc = " ".join((schema.description or f"The values of {named.name}.").split())
        lines += ["", "", f"class {named.name}(StrEnum):", f"    {json.dumps(doc)}", ""]
        lines += [f"    {_member_name(str(v))} = {json.dumps(v)}" for v in schema.enum]
    lines.append("")
    messages = {m.type_name: m.name for m in spec.messages}
    for named in spec.types:
        schema = named.schema
        if schema.kind != "object" or not schema.fields:
            continue
        const = constant_name(named.name)
        fields = tuple(f.name for f in schema.fields)
        required = tuple(f.name for f in schema.fields if f.required)
        lines += ["", f"{const}_FIELDS: Final[tuple[str, ...]] = {fields!r}"]
        lines.append(f"{const}_REQUIRED: Final[tuple[str, ...]] = {required!r}")
        defaults = {f.name: f.default for f in schema.fields if f.default is not NO_DEFAULT}
        if named.name in messages and defaults:
            lines.append(
                f"{constant_name(messages[named.name])}_DEFAULTS: Final[Mapping[str, Any]] = "
                f"MappingProxyType({defaults!r})"
            )
    specific: dict[str, tuple[str, ...]] = {}
    for named in spec.types:
        for rule in named.schema.conditionals:
            for prop, then in rule.then:
                if rule.present and prop == "type" and then.const is not NO_DEFAULT:
                    specific[str(then.const)] = specific.get(str(then.const), ()) + rule.present
    lines += [
        "",
        "#: the fields the spec reserves to one memory type (its conditionals on `type`)",
        "TYPE_SPECIFIC_FIELDS: Final[Mapping[str, tuple[str, ...]]] = "
        f"MappingProxyType({specific!r})",
    ]
    return lines


def _with_vocabulary(source: str, spec: Spec) -> str:
    def typing_import(match: re.Match[str]) -> str:
        names = sorted({*match.group(1).split(", "), "Final"})
        return (
            "from collections.abc import Mapping\nfrom enum import StrEnum\n"
            f"from types import MappingProxyType\nfrom typing import {', '.join(names)}\n"
        )

    source = re.sub(r"^from typing import (.*)\n", typing_import, source, count=1, flags=re.M)
    return source.rstrip("\n") + "\n" + "\n".join(vocabulary(spec)) + "\n"


def _exported(source: str) -> list[str]:
    """Every class and constant a version module defines, for the package to re-export."""
    classes = re.findall(r"^class (\w+)\(", source, flags=re.MULTILINE)
    constants = re.findall(r"^([A-Z][A-Z0-9_]*): Final", source, flags=re.MULTILINE)
    return sorted({*classes, *constants})


def _package_init(spec: Spec, source: str) -> str:
    classes = _exported(source)
    header = "".join(f"# {line}\n" for line in header_lines(spec))
    imports = "".join(f"    {name},\n" for name in classes)
    exports = "".join(f'    "{name}",\n' for name in classes)
    docstring = (
        f"Pydantic models and vocabulary of memorywire {spec.version}, the newest spec version;\n"
        "each version, this one included, is also its own module (``mnemowire.models.v0``)."
    )
    return (
        f'{header}"""{docstring}"""\n'
        f"\nfrom mnemowire.models.{module_name(spec.version)} import (\n{imports})\n"
        f"\n__all__ = [\n{exports}]\n"
    )
