"""The layout's promises, checked on the source: spec types and vocabulary are only ever
generated, and imports flow one way between the tiers (docs/architecture.md, "Tiers").

The import graph is read from every first-party module's source, lazy imports inside functions
included; each rule is also shown to fail on a planted violation, so a rule that cannot fail
is caught too."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mnemowire import codegen, spec
from mnemowire.codegen.ir import NO_DEFAULT

ROOT = Path(__file__).parents[1]
#: the folders of the import root, and the module names they hold
FOLDERS = {
    "runtime": "mnemowire",
    "adapters": "mnemowire.adapters",
    "conformance": "mnemowire.conformance",
    "codegen": "mnemowire.codegen",
    "generated/python": "mnemowire.models",
}
HAND_WRITTEN = ("runtime", "adapters", "conformance")
#: every first-party module belongs to one tier (longest prefix wins; the root package alone
#: is the kernel's: it says the version, and names the facade, loaded on first use)
TIERS = {
    "kernel": (
        "mnemowire",
        "mnemowire._version",
        "mnemowire.protocol",
        "mnemowire.errors",
        "mnemowire.kit",
        "mnemowire.fusion",
        "mnemowire.seals",
        "mnemowire.filters",
        "mnemowire.embedders",
        "mnemowire.spec",
        "mnemowire.models",
        "mnemowire.registry",
    ),
    "layers": ("mnemowire.layers", "mnemowire.portability", "mnemowire.compat"),
    "applications": ("mnemowire.apps",),
    "adapters": ("mnemowire.adapters",),
    "conformance": ("mnemowire.conformance",),
    "codegen": ("mnemowire.codegen",),
}
#: what an adapter may import besides its own package
ADAPTER_MAY_IMPORT = (
    "mnemowire",
    "mnemowire.kit",
    "mnemowire.protocol",
    "mnemowire.models",
    "mnemowire.errors",
    "mnemowire.embedders",
)
#: what the conformance harness may import besides itself: it certifies any store through the
#: protocol, sends its requests through the validating boundary (as every client's arrive),
#: validates what it gets against the spec, and opens a store by URL
CONFORMANCE_MAY_IMPORT = (
    "mnemowire",
    "mnemowire.kit",
    "mnemowire.protocol",
    "mnemowire.models",
    "mnemowire.errors",
    "mnemowire.spec",
    "mnemowire.registry",
    "mnemowire.layers.validating",
)
#: the root package's one reach above the kernel: ``from mnemowire import Memory`` (a lazy
#: ``__getattr__``; ``import mnemowire`` loads no layer)
FACADE_EXPORT = ("mnemowire", "mnemowire.layers.memory")
#: the one run-time module that reaches the build-time codegen: `mnemowire codegen`
CODEGEN_COMMAND = "mnemowire.apps.cli._codegen"


def _within(module: str, prefixes: Iterable[str]) -> bool:
    return any(module == p or (p != "mnemowire" and module.startswith(p + ".")) for p in prefixes)


def tier(module: str) -> str | None:
    found = [
        (len(p), name) for name, prefixes in TIERS.items() for p in prefixes if _within(module, [p])
    ]
    return max(found)[1] if found else None


def _adapter(module: str) -> str:
    return ".".join(module.split(".")[:3])  # mnemowire.adapters.<name>


def _first_party(module: str) -> bool:
    return module == "mnemowire" or module.startswith("mnemowire.")


def _adapter_reach(source: str, target: str) -> bool:
    return (
        tier(source) == "adapters"
        and _first_party(target)
        and target != "mnemowire"
        and not _within(target, [_adapter(source), *ADAPTER_MAY_IMPORT[1:]])
    )


def _conformance_reach(source: str, target: str) -> bool:
    return (
        tier(source) == "conformance"
        and _first_party(target)
        and target != "mnemowire"
        and tier(target) != "conformance"
        and not _within(target, CONFORMANCE_MAY_IMPORT[1:])
    )


@dataclass(frozen=True)
class Rule:
    name: str
    broken_by: Callable[[str, str], bool]  # (importing module, imported module)
    planted: tuple[str, str]  # (module, source) that breaks the rule


RULES = [
    Rule(
        "adapters import only the kit, protocol, models, errors and embedders",
        _adapter_reach,
        ("mnemowire.adapters.sqlite_vec.store", "from mnemowire.layers._routing import call_child"),
    ),
    Rule(
        "the kernel imports no layer, adapter, application or harness",
        lambda s, t: (
            tier(s) == "kernel"
            and tier(t) in {"layers", "adapters", "applications", "conformance"}
            and (s, t) != FACADE_EXPORT
        ),
        ("mnemowire.kit", "def f():\n    from mnemowire.layers.router import MemoryRouter\n"),
    ),
    Rule(
        "layers never import adapters, applications or the harness",
        lambda s, t: tier(s) == "layers" and tier(t) in {"adapters", "applications", "conformance"},
        ("mnemowire.layers.router", "import mnemowire.adapters.pgvector.store"),
    ),
    Rule(
        "nothing imports the applications",
        lambda s, t: tier(s) != "applications" and tier(t) == "applications",
        ("mnemowire.adapters.pgvector.store", "from mnemowire.apps.tools import postgres"),
    ),
    Rule(
        "conformance imports only protocol, kit, models, errors, spec, registry, the boundary",
        _conformance_reach,
        ("mnemowire.conformance.checks", "from mnemowire.layers.router import MemoryRouter"),
    ),
    Rule(
        "codegen is build-time: only `mnemowire codegen` imports it",
        lambda s, t: tier(s) != "codegen" and tier(t) == "codegen" and s != CODEGEN_COMMAND,
        ("mnemowire.layers.memory", "from mnemowire.codegen import generate"),
    ),
    Rule(
        "the HTTP server and MCP share apps.transport and never import each other",
        lambda s, t: any(
            _within(s, [a, "mnemowire.apps.transport"]) and _within(t, [b])
            for a, b in (
                ("mnemowire.apps.mcp", "mnemowire.apps.server"),
                ("mnemowire.apps.server", "mnemowire.apps.mcp"),
            )
        ),
        ("mnemowire.apps.mcp._server", "from mnemowire.apps.server import MemoryServer"),
    ),
    Rule(
        "nothing imports tests",
        lambda s, t: t == "tests" or t.startswith("tests."),
        ("mnemowire.kit", "from tests.adapters import _support"),
    ),
]


def _modules() -> Iterator[tuple[str, str]]:
    """(module name, source) of every first-party module."""
    for folder, prefix in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            yield ".".join((prefix, *parts)), path.read_text(encoding="utf-8")


def imports_of(module: str, source: str) -> Iterator[str]:
    """Every module ``source`` imports, at its top or inside a function; for ``from X import
    Y`` X, and X.Y too when that is a module of ours."""
    package = module if module in PACKAGES else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            yield base
            yield from (f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES)


PACKAGES = {
    ".".join((prefix, *p.relative_to(ROOT / folder).parent.parts))
    for folder, prefix in FOLDERS.items()
    for p in (ROOT / folder).rglob("__init__.py")
}
MODULES = dict(_modules())
GRAPH = {(m, target) for m, source in MODULES.items() for target in imports_of(m, source)}


def violations(rule: Rule, graph: Iterable[tuple[str, str]]) -> list[str]:
    return sorted(f"{s} imports {t}" for s, t in graph if rule.broken_by(s, t))


def test_every_module_belongs_to_a_tier() -> None:
    assert [m for m in MODULES if tier(m) is None] == []


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_imports_flow_one_way(rule: Rule) -> None:
    assert violations(rule, GRAPH) == []


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_each_rule_fails_on_a_planted_violation(rule: Rule) -> None:
    module, source = rule.planted
    planted = {(module, target) for target in imports_of(module, source)}
    assert violations(rule, GRAPH | planted) != []
    assert all(line.startswith(module) for line in violations(rule, GRAPH | planted))


# -- the spec's types and vocabulary come from generated/ -------------------------------------

IR = codegen.load(spec.read_spec())
SPEC_TYPE_NAMES = {t.name for t in IR.types}


def vocabulary() -> dict[frozenset[str], str]:
    """Every string set the spec defines: its enumerations' values, each object type's
    property names, and the fields reserved to a memory type."""
    sets: dict[frozenset[str], str] = {}
    specific: set[str] = set()
    for named in IR.types:
        schema = named.schema
        if schema.kind == "primitive" and schema.enum is not None:
            sets[frozenset(map(str, schema.enum))] = f"the values of {named.name}"
        if schema.kind == "object" and len(schema.fields) > 1:
            sets[frozenset(f.name for f in schema.fields)] = f"the properties of {named.name}"
        for rule in schema.conditionals:
            if rule.present and any(
                p == "type" and s.const is not NO_DEFAULT for p, s in rule.then
            ):
                sets[frozenset(rule.present)] = f"the fields {named.name} reserves to one type"
                specific |= set(rule.present)
    sets[frozenset(specific)] = "the type-specific fields"
    return sets


def string_collections(tree: ast.AST) -> Iterator[tuple[int, frozenset[str]]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and len(node.elts) >= 2:
            values = [
                e.value
                for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            ]
            if len(values) == len(node.elts):
                yield node.lineno, frozenset(values)


def hand_copies(sources: Iterable[tuple[str, str]]) -> list[str]:
    known = vocabulary()
    return [
        f"{name}:{line} restates {known[values]}"
        for name, source in sources
        for line, values in string_collections(ast.parse(source))
        if values in known
    ]


def _hand_written() -> Iterator[tuple[str, str]]:
    for folder in HAND_WRITTEN:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def test_no_hand_written_copy_of_the_spec_vocabulary() -> None:
    """A string tuple equal to a spec enumeration or property set is a copy that a new spec
    version would leave behind: name the generated enum or constant instead."""
    assert hand_copies(_hand_written()) == []


@pytest.mark.parametrize(
    "planted",
    [
        'TYPES = ("semantic", "episodic", "procedural", "emotional")',
        'choices = ["rrf", "max", "weighted"]',
        'FIELDS = {"event_time", "location", "participants", "sentiment", "valence", "arousal",'
        ' "emotion", "target"}',
        'keys = ("store", "spec_version", "capabilities", "fidelity", "staging_policy")',
    ],
)
def test_a_planted_copy_of_the_vocabulary_is_found(planted: str) -> None:
    assert len(hand_copies([("planted.py", planted)])) == 1


def test_no_hand_written_copy_of_a_spec_type() -> None:
    offenders = []
    for name, source in _hand_written():
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {ast.unparse(base) for base in node.bases}
            if node.name in SPEC_TYPE_NAMES or bases & {"BaseModel", "pydantic.BaseModel"}:
                offenders.append(f"{name}: class {node.name}")
            if "TypedDict" in bases and node.name.removesuffix("Dict") in SPEC_TYPE_NAMES:
                offenders.append(f"{name}: class {node.name}")
    assert offenders == [], "spec types must come from mnemowire.models (generated/)"
