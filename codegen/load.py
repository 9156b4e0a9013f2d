"""Stage 1: read one spec version's files and interpret them into the IR (``codegen.ir``)."""

from __future__ import annotations

from typing import Any

from mnemowire.codegen.ir import (
    NO_DEFAULT,
    Conditional,
    Constraints,
    Field,
    Message,
    NamedType,
    RequireAny,
    Schema,
    Spec,
)
from mnemowire.spec import SpecFiles, routes
from mnemowire.spec._refs import absolute, lookup
from mnemowire.spec._semantic import SEMANTIC_RULE_NAMES
from mnemowire.spec._wellformed import MAX_DEPTH, MAX_REQUEST_DEPTH

__all__ = ["CodegenError", "load"]

_CONSTRAINTS = {
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusiveMinimum": "exclusive_minimum",
    "exclusiveMaximum": "exclusive_maximum",
    "minItems": "min_items",
    "maxItems": "max_items",
    "uniqueItems": "unique_items",
    "minProperties": "min_properties",
    "maxProperties": "max_properties",
}
_PRIMITIVES = ("string", "integer", "number", "boolean", "null")
_ANNOTATIONS = frozenset({"description", "default", "title", "$comment"})


class CodegenError(Exception):
    """The spec uses a shape the code generators do not support (the spec lint should say)."""


def load(files: SpecFiles) -> Spec:
    """Interpret ``files`` into the IR. Raises CodegenError on shapes no emitter supports."""
    by_id = {doc["$id"]: doc for doc in files.documents.values()}
    names: dict[str, str] = {}
    for name, doc in files.documents.items():
        for def_name in doc.get("$defs", {}):
            names[f"{doc['$id']}#/$defs/{def_name}"] = def_name
        if name in files.messages:
            names[f"{doc['$id']}#"] = doc["title"]
    if len(set(names.values())) != len(names):
        clash = sorted(n for n in names.values() if list(names.values()).count(n) > 1)
        raise CodegenError(f"type names must be unique across the spec: {clash}")
    builder = _Builder(by_id, names)
    types = []
    for uri, name in sorted(names.items(), key=lambda item: item[1]):
        node = lookup(by_id, uri)
        document, _, fragment = uri.partition("#")
        file = document.rsplit("/", 1)[-1]
        source = f"{file}#{fragment}"
        message = file.removesuffix(".json") if not fragment else None
        types.append(NamedType(name, builder.schema(node, uri), source, message))
    closed = {n for n in files.messages if files.documents[n].get("additionalProperties") is False}
    messages = tuple(
        Message(
            name=name,
            type_name=files.documents[name]["title"],
            direction="in" if name in closed else "out",
            description=files.documents[name].get("description", ""),
            max_depth=MAX_REQUEST_DEPTH if name in closed else MAX_DEPTH,
        )
        for name in files.messages
    )
    return Spec(
        version=files.version,
        digest=files.digest,
        types=tuple(types),
        messages=messages,
        semantic_rules={
            m: rules for m, rules in SEMANTIC_RULE_NAMES.items() if m in files.messages
        },
        routes=tuple(routes(files)),
    )


class _Builder:
    def __init__(self, by_id: dict[str, Any], names: dict[str, str]) -> None:
        self.by_id = by_id
        self.names = names

    def _followed(self, node: Any, base: str) -> Any:
        """``node``, or the definition its ``$ref`` names (a member-name rule such as
        ``propertyNames: {"$ref": "MemoryId"}`` is read for its bounds, not as a type)."""
        if not isinstance(node, dict) or "$ref" not in node:
            return node
        return lookup(self.by_id, absolute(base, node["$ref"]))

    def schema(self, node: Any, base: str) -> Schema:
        if not isinstance(node, dict):
            raise CodegenError(f"{base}: boolean schemas are not supported")
        description = str(node.get("description", ""))
        if "$ref" in node:
            target = absolute(base, node["$ref"])
            if target not in self.names:
                raise CodegenError(f"{base}: $ref {node['$ref']!r} is not a named definition")
            forbidden = tuple(sorted(node.get("properties") or ()))  # the spec lint: all false
            return Schema("ref", description, ref=self.names[target], forbidden=forbidden)
        if "anyOf" in node and not node.get("type"):
            members = tuple(self.schema(m, base) for m in node["anyOf"])
            return Schema("union", description, members=members, open_enum=self._open_enum(members))
        kind = node.get("type")
        if kind == "object" or "properties" in node:
            return self._object(node, base, description)
        if kind == "array":
            return Schema(
                "array",
                description,
                constraints=_constraints(node),
                items=self.schema(node["items"], base) if "items" in node else None,
            )
        types = tuple(kind) if isinstance(kind, list) else (kind,) if kind else ()
        if any(t not in _PRIMITIVES for t in types):
            raise CodegenError(f"{base}: unsupported type {kind!r}")
        content = None
        if "contentSchema" in node:
            content = self.schema(node["contentSchema"], base)
        return Schema(
            "primitive",
            description,
            constraints=_constraints(node),
            types=types,
            enum=tuple(node["enum"]) if "enum" in node else None,
            const=node.get("const", NO_DEFAULT),
            content_schema=content,
        )

    def _object(self, node: dict[str, Any], base: str, description: str) -> Schema:
        required = set(node.get("required", []))
        fields = tuple(
            Field(
                name=name,
                schema=self.schema(sub, base),
                required=name in required,
                description=str(sub.get("description", "")),
                default=sub.get("default", NO_DEFAULT),
            )
            for name, sub in node.get("properties", {}).items()
        )
        extra = node.get("additionalProperties", True)
        additional: bool | Schema = extra if isinstance(extra, bool) else self.schema(extra, base)
        names = self._followed(node.get("propertyNames"), base)
        conditionals: list[Conditional] = []
        require_any: list[RequireAny] = []
        for i, part in enumerate(node.get("allOf", [])):
            where = f"{base}/allOf/{i}"
            if "if" in part:
                conditionals.append(self._conditional(part, where))
            elif set(part) <= {"anyOf", "description"} and all(
                set(alt) == {"required"} for alt in part["anyOf"]
            ):
                fields_any = tuple(r for alt in part["anyOf"] for r in alt["required"])
                require_any.append(RequireAny(str(part.get("description", "")), fields_any))
            else:
                raise CodegenError(f"{where}: unsupported allOf entry")
        return Schema(
            "object",
            description,
            constraints=_constraints(node),
            fields=fields,
            additional=additional,
            property_names=_constraints(names) if isinstance(names, dict) else None,
            conditionals=tuple(conditionals),
            require_any=tuple(require_any),
        )

    def _conditional(self, part: dict[str, Any], where: str) -> Conditional:
        test = part["if"]
        then = tuple(
            (name, self.schema(sub, where)) for name, sub in part["then"]["properties"].items()
        )
        description = str(part.get("description", ""))
        if "anyOf" in test:
            present = tuple(alt["required"][0] for alt in test["anyOf"])
            return Conditional(description, None, None, present, then)
        [(prop, sub)] = test["properties"].items()
        return Conditional(description, prop, sub["const"], (), then)

    def _open_enum(self, members: tuple[Schema, ...]) -> str | None:
        """``anyOf: [{$ref: SomeEnum}, {type: string}]``: the enum, open to newer values."""
        if len(members) != 2 or members[0].kind != "ref":
            return None
        other = members[1]
        if other.kind == "primitive" and other.types == ("string",) and other.enum is None:
            target = next(uri for uri, n in self.names.items() if n == members[0].ref)
            enum = lookup(self.by_id, target)
            if isinstance(enum, dict) and "enum" in enum:
                return members[0].ref
        return None


def _constraints(node: dict[str, Any]) -> Constraints:
    return Constraints(**{attr: node[key] for key, attr in _CONSTRAINTS.items() if key in node})
