"""``python/operations.py``: the operation table of the newest spec and the typed entry of each
operation, the Python twin of Go's ``store.go``.

The table names each operation's request and response models, the version that added it,
whether a store may lack it and the capability it then declares. From it come one Protocol
per optional operation and three bases whose typed methods all call one ``_operate``: the
boundary and the harness build on ``ClientOperations`` (requests as models or JSON objects),
a client store on ``StoreOperations`` (models), ``SyncMemory`` on ``SyncOperations``. Adding
an operation to the spec and regenerating gives each of them its typed method.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from mnemowire.codegen._output import GeneratedFile, header_lines
from mnemowire.codegen.emit.python import constant_name, module_name
from mnemowire.codegen.ir import Spec
from mnemowire.spec import version_key

__all__ = ["emit_operations"]


@dataclass(frozen=True)
class _Op:
    name: str
    request: str
    response: str
    since: str
    optional: bool
    capability: str | None

    @property
    def constant(self) -> str:
        return constant_name(self.name)

    @property
    def protocol(self) -> str:
        return "".join(part.title() for part in self.name.split("_")) + "Store"


def _operations(spec: Spec) -> list[_Op]:
    capability = spec.type("Capability").schema.enum or ()
    found = []
    for name in spec.operations:
        request = spec.message(f"{name}.request")
        since = request.since or spec.version
        found.append(
            _Op(
                name,
                request.type_name,
                spec.message(f"{name}.response").type_name,
                since,
                spec.optional(name),
                name if name in capability else None,
            )
        )
    return sorted(found, key=lambda o: (version_key(o.since), o.name))


def emit_operations(spec: Spec) -> GeneratedFile:
    ops = _operations(spec)
    models = sorted({m for o in ops for m in (o.request, o.response)} | {"Capability"})
    lines = [*(f"# {line}" for line in header_lines(spec))]
    lines += [
        f'"""The operations of memorywire {spec.version} as one table (``OPERATIONS``: each one\'s',
        "request and response models, the version that added it, whether a store may lack it and",
        "the capability it then declares), one Protocol per optional operation, and the typed",
        "methods every boundary, client and transport inherits: each calls ``_operate`` with the",
        'operation\'s entry."""',
        "",
        "from __future__ import annotations",
        "",
        "import abc",
        "from collections.abc import Mapping",
        "from dataclasses import dataclass",
        "from types import MappingProxyType",
        "from typing import Any, Final, Generic, Protocol, TypeVar, runtime_checkable",
        "",
        "from pydantic import BaseModel",
        "",
        f"from mnemowire.models.{module_name(spec.version)} import (",
        *(f"    {m}," for m in models),
        ")",
        "",
        "__all__ = [",
        *(
            f'    "{n}",'
            for n in sorted(
                [
                    "BY_NAME",
                    "OPERATIONS",
                    "PROTOCOLS",
                    "SPEC_VERSIONS",
                    "ClientOperations",
                    "Operation",
                    "StoreOperations",
                    "SyncOperations",
                    *(o.constant for o in ops),
                    *(o.protocol for o in ops if o.optional),
                ]
            )
        ),
        "]",
        "",
        'Req = TypeVar("Req", bound=BaseModel)',
        'Resp = TypeVar("Resp", bound=BaseModel)',
        "",
        "",
        "@dataclass(frozen=True)",
        "class Operation(Generic[Req, Resp]):",
        '    """One operation of the spec: ``<name>.request`` answered by ``<name>.response``."""',
        "",
        "    name: str",
        "    request: type[Req]",
        "    response: type[Resp]",
        "    #: the first spec version with the operation",
        "    since: str",
        "    #: added after the first version: a store may lack it (it declares the capability",
        "    #: when it serves it)",
        "    optional: bool",
        "    #: the capability of the same name, when the spec defines one",
        "    capability: Capability | None",
        "",
        "    @property",
        "    def request_message(self) -> str:",
        '        return f"{self.name}.request"',
        "",
        "    @property",
        "    def response_message(self) -> str:",
        '        return f"{self.name}.response"',
        "",
        "",
    ]
    for o in ops:
        capability = "None" if o.capability is None else f"Capability.{constant_name(o.capability)}"
        lines += [
            f"{o.constant}: Final[Operation[{o.request}, {o.response}]] = Operation(",
            f'    "{o.name}", {o.request}, {o.response}, "{o.since}", {o.optional}, {capability}',
            ")",
        ]
    lineage = spec.lineage or (spec.version,)
    versions = ", ".join(map(json.dumps, lineage)) + ("," if len(lineage) == 1 else "")
    lines += [
        "#: every spec version generated with this one, oldest first, this one last: what a",
        "#: client may fall back to when a server does not serve the newest",
        f"SPEC_VERSIONS: Final = ({versions})",
        "#: every operation, oldest version first, then by name",
        "OPERATIONS: Final[tuple[Operation[Any, Any], ...]] = (",
        *(f"    {o.constant}," for o in ops),
        ")",
        "BY_NAME: Final[Mapping[str, Operation[Any, Any]]] = MappingProxyType(",
        "    {o.name: o for o in OPERATIONS}",
        ")",
        "",
    ]
    for o in ops:
        if not o.optional:
            continue
        lines += [
            "",
            "@runtime_checkable",
            f"class {o.protocol}(Protocol):",
            f'    """A store that serves ``{o.name}`` (added in {o.since}); it declares the '
            f'capability ``{o.capability or o.name}``."""',
            "",
            f"    async def {o.name}(self, request: {o.request}) -> {o.response}: ...",
            "",
        ]
    lines += [
        "",
        "#: the Protocol of each optional operation, by name",
        "PROTOCOLS: Final[Mapping[str, type[Any]]] = MappingProxyType(",
        "    {",
        *(f'        "{o.name}": {o.protocol},' for o in ops if o.optional),
        "    }",
        ")",
        "",
    ]
    lines += _base(
        "ClientOperations",
        "Every operation as a typed method taking a model or a JSON object (a boundary).",
        ops,
        "async ",
        "{request} | Mapping[str, Any]",
        "await ",
    )
    lines += _base(
        "StoreOperations",
        "Every operation as a typed method taking its model (a store that forwards them).",
        ops,
        "async ",
        "{request}",
        "await ",
    )
    lines += _base(
        "SyncOperations",
        "Every operation as a typed blocking method taking a model or a JSON object.",
        ops,
        "",
        "{request} | Mapping[str, Any]",
        "",
    )
    return GeneratedFile("python/operations.py", "\n".join(lines).rstrip() + "\n")


def _base(  # noqa: PLR0917 (one call per base, each a different shape)
    name: str, doc: str, ops: list[_Op], kind: str, argument: str, wait: str
) -> list[str]:
    taken = argument.format(request="Req")
    lines = [
        "",
        f"class {name}(abc.ABC):",
        f'    """{doc} Each calls ``_operate``, which a subclass implements."""',
        "",
        "    @abc.abstractmethod",
        f"    {kind}def _operate(",
        f"        self, operation: Operation[Req, Resp], request: {taken}",
        "    ) -> Resp: ...",
    ]
    for o in ops:
        lines += [
            "",
            f"    {kind}def {o.name}(self, request: {argument.format(request=o.request)}) -> "
            f"{o.response}:",
            f"        return {wait}self._operate({o.constant}, request)",
        ]
    return [*lines, ""]
