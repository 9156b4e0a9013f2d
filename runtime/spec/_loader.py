"""Find and read the spec files shipped in ``mnemowire.schemas``, once per process."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from mnemowire.errors import SpecError

__all__ = [
    "LATEST",
    "Example",
    "SpecFiles",
    "available_versions",
    "capability_names",
    "read_spec",
    "read_spec_dir",
    "version_key",
]

SPEC_PACKAGE = "mnemowire.schemas"
COMMON = "common"


@dataclass(frozen=True)
class Example:
    """One spec example: a message instance and whether (and how) it must fail validation."""

    message: str
    name: str
    valid: bool
    instance: Any
    #: For an invalid example, the (path, rule) pairs validation must report, exactly.
    errors: tuple[tuple[str, str], ...]
    description: str


@dataclass(frozen=True)
class SpecFiles:
    """The raw documents of one spec version, keyed by message name (``common`` included)."""

    version: str
    documents: dict[str, dict[str, Any]]
    #: sha256 over every schema file's name and bytes: changes whenever the contract does.
    digest: str
    root: Traversable

    @property
    def messages(self) -> tuple[str, ...]:
        """Every message name: ``<operation>.request|response`` and the shared messages."""
        return tuple(sorted(name for name in self.documents if name != COMMON))

    def examples(self, message: str | None = None) -> Iterator[Example]:
        """Yield the examples under ``examples/<message>/{valid,invalid}/``, sorted by name."""
        base = self.root / "examples"
        for name in sorted(self.messages if message is None else [message]):
            folder = base / name
            for kind in ("valid", "invalid"):
                sub = folder / kind
                if not sub.is_dir():
                    continue
                for entry in sorted(sub.iterdir(), key=lambda e: e.name):
                    if entry.name.endswith(".json"):
                        yield _example(name, kind == "valid", entry)


def _example(message: str, valid: bool, entry: Traversable) -> Example:
    data = json.loads(entry.read_text(encoding="utf-8"))
    stem = entry.name.removesuffix(".json")
    if valid:
        return Example(message, stem, True, data, (), "")
    errors = tuple((str(e["path"]), str(e["rule"])) for e in data["errors"])
    return Example(message, stem, False, data["instance"], errors, str(data["description"]))


def available_versions(root: Traversable | None = None) -> tuple[str, ...]:
    """Spec versions under ``root`` (a ``spec/`` folder; by default the ones shipped in this
    package), oldest first: every subfolder named like a version (``v0``, ``v0.1``) with a
    ``common.json`` (a draft or a copy beside them, named otherwise, is not a version)."""
    root = root if root is not None else resources.files(SPEC_PACKAGE)
    found = [
        e.name
        for e in root.iterdir()
        if e.is_dir() and _VERSION.fullmatch(e.name) and (e / f"{COMMON}.json").is_file()
    ]
    return tuple(sorted(found, key=version_key))


_VERSION = re.compile(r"v\d+(\.\d+)*")


def version_key(version: str) -> tuple[int, ...]:
    """A spec version's place in order: ``v0`` < ``v0.1`` < ``v0.10`` < ``v1``."""
    return tuple(int(part) for part in version.removeprefix("v").split("."))


#: The newest spec version this package ships, read from the shipped folders (the one place
#: "newest" is decided; the generated ``mnemowire.models`` re-exports the same version, which
#: ``codegen --check`` keeps true): what every API uses unless told otherwise.
LATEST = available_versions()[-1]


@functools.cache
def read_spec(version: str = LATEST) -> SpecFiles:
    """Read every schema file of ``version``; cached, so the files are read once per process."""
    if version not in available_versions():
        raise SpecError(
            f"unknown spec version {version!r}; this mnemowire ships {list(available_versions())}"
        )
    return read_spec_dir(resources.files(SPEC_PACKAGE) / version, version)


@functools.cache
def capability_names(version: str = LATEST) -> tuple[str, ...]:
    """The capabilities a store speaking ``version`` may declare, in the spec's order (what a
    router over stores of several versions may promise is bounded by the oldest's)."""
    capability = read_spec(version).documents["capabilities"]["$defs"]["Capability"]
    return tuple(capability["enum"])


def read_spec_dir(root: Traversable, version: str | None = None) -> SpecFiles:
    """Read the schema files of one version folder, e.g. a spec being authored or linted."""
    version = version or root.name
    digest = hashlib.sha256()
    documents: dict[str, dict[str, Any]] = {}
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        raw = entry.read_bytes()
        digest.update(entry.name.encode() + b"\0" + raw + b"\0")
        try:
            documents[entry.name.removesuffix(".json")] = json.loads(raw)
        except ValueError as exc:
            raise SpecError(f"spec file {version}/{entry.name} is not JSON: {exc}") from exc
    return SpecFiles(version, documents, f"sha256:{digest.hexdigest()}", root)
