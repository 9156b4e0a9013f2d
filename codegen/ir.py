"""The intermediate representation every emitter reads: the spec, interpreted once.

A ``Spec`` holds named types (every ``$defs`` entry and every message) and the messages. Schemas
are normalised into a handful of kinds so an emitter never sees raw JSON Schema and the three
languages cannot disagree about what the spec says:

- ``primitive``: one or more of string / integer / number / boolean / null, with bounds, an
  optional ``enum`` or ``const``, and for strings an optional JSON content schema;
- ``object``: fields, closure (closed, open, or a map with a value schema), property-name rules,
  conditionals (if/then);
- ``array``: an item schema and bounds;
- ``union``: anyOf members; ``open_enum`` names the enum when the union is "that enum or any
  other string" (how responses keep values a newer server sends);
- ``ref``: a named type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from mnemowire.spec import Route, version_key

__all__ = [
    "Conditional",
    "Constraints",
    "Field",
    "Message",
    "NamedType",
    "RequireAny",
    "Schema",
    "Spec",
]

Kind = Literal["primitive", "object", "array", "union", "ref"]
Primitive = Literal["string", "integer", "number", "boolean", "null"]
Direction = Literal["in", "out"]

#: Marker for "no default"; a default may itself be JSON null.
NO_DEFAULT: Any = type("NoDefault", (), {"__repr__": lambda self: "NO_DEFAULT"})()


@dataclass(frozen=True)
class Constraints:
    """Bounds a value must respect; None means unbounded. Numbers keep their JSON type."""

    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None
    min_items: int | None = None
    max_items: int | None = None
    unique_items: bool = False
    min_properties: int | None = None
    max_properties: int | None = None

    def is_empty(self) -> bool:
        return self == Constraints()


@dataclass(frozen=True)
class Schema:
    """One normalised schema node (see the module docstring for the kinds)."""

    kind: Kind
    description: str = ""
    constraints: Constraints = Constraints()
    # primitive
    types: tuple[Primitive, ...] = ()
    enum: tuple[Any, ...] | None = None
    const: Any = NO_DEFAULT
    content_schema: Schema | None = None  # string whose JSON text must validate against this
    # object
    fields: tuple[Field, ...] = ()
    #: False: closed (unknown fields rejected); True: open; a Schema: a map with that value type
    additional: bool | Schema = True
    property_names: Constraints | None = None
    conditionals: tuple[Conditional, ...] = ()
    require_any: tuple[RequireAny, ...] = ()
    # ref: members of the target this use forbids ({"$ref": X, "properties": {"f": false}})
    forbidden: tuple[str, ...] = ()
    # array
    items: Schema | None = None
    # union
    members: tuple[Schema, ...] = ()
    open_enum: str | None = None
    # ref
    ref: str | None = None

    @property
    def is_map(self) -> bool:
        """An object with no declared fields whose members all share one schema."""
        return self.kind == "object" and not self.fields

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)


@dataclass(frozen=True)
class Field:
    """One property of an object."""

    name: str
    schema: Schema
    required: bool
    description: str = ""
    default: Any = NO_DEFAULT


@dataclass(frozen=True)
class Conditional:
    """``if`` (a property equals a constant, or any of some properties is present) ``then``
    (each listed property's value must also satisfy a schema). ``description`` says the rule."""

    description: str
    #: the property a const test reads, and the constant; None for a presence test
    const_property: str | None
    const_value: Any
    #: for a presence test: the properties any one of which triggers the rule
    present: tuple[str, ...]
    then: tuple[tuple[str, Schema], ...]


@dataclass(frozen=True)
class RequireAny:
    """At least one of ``fields`` must be present (an anyOf of single-field requireds)."""

    description: str
    fields: tuple[str, ...]


@dataclass(frozen=True)
class NamedType:
    """A type with a name in every language: a ``$defs`` entry or a message."""

    name: str
    schema: Schema
    #: where it is defined: ``<file>.json#/$defs/<name>`` or ``<file>.json#``
    source: str
    #: for a message, its spec name (``remember.request``); None for a definition
    message: str | None = None


@dataclass(frozen=True)
class Message:
    """A message of the spec and the type that carries it."""

    name: str
    type_name: str
    #: in: sent to a store (closed: unknown fields are rejected); out: emitted by one (open)
    direction: Direction
    description: str
    #: how deeply the message may nest ([messages.wellformed]: requests less than what a store
    #: sends back, which wraps their metadata a few levels deeper)
    max_depth: int = 64
    #: the first spec version with this message: an operation newer than the first version of
    #: the tree is optional (a store of an older version lacks it), declared by capability
    since: str = ""


@dataclass(frozen=True)
class Spec:
    """The whole spec version, as every emitter sees it."""

    version: str
    digest: str
    types: tuple[NamedType, ...]
    messages: tuple[Message, ...]
    #: messages with semantic rules beyond the schema (docs/spec/v0.md), by rule name
    semantic_rules: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: the HTTP binding's routes (``mnemowire.spec.routes``), for the generated clients
    routes: tuple[Route, ...] = ()
    #: every version generated with this one, oldest first, this one last (what a client
    #: may negotiate down to); empty when this version is generated alone
    lineage: tuple[str, ...] = ()

    @property
    def first_version(self) -> str:
        """The oldest version any message of this spec dates from."""
        return min((m.since or self.version for m in self.messages), key=version_key)

    @property
    def operations(self) -> tuple[str, ...]:
        """Every operation, by name: a ``<name>.request`` answered by a ``<name>.response``."""
        names = {m.name for m in self.messages}
        requests = (n.removesuffix(".request") for n in names if n.endswith(".request"))
        return tuple(sorted(op for op in requests if f"{op}.response" in names))

    def optional(self, operation: str) -> bool:
        """Whether ``operation`` came after the first version: a store may lack it."""
        return (self.message(f"{operation}.request").since or self.version) != self.first_version

    def type(self, name: str) -> NamedType:
        return next(t for t in self.types if t.name == name)

    def message(self, name: str) -> Message:
        return next(m for m in self.messages if m.name == name)
