"""mnemowire-codegen: the spec's bindings for Python, TypeScript and Go, generated from one IR.

Three stages, each its own module: ``load`` (spec files -> ``ir.Spec``), then one emitter per
language under ``emit/`` (IR -> files), then ``write`` / ``diff`` here (files -> ``generated/``);
``dist`` compiles the npm package from the TypeScript written, and says when it was not.
Build-time only: nothing in the runtime imports this package.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from mnemowire.codegen._output import GeneratedFile, header_lines
from mnemowire.codegen.emit import openapi, python
from mnemowire.codegen.ir import Spec
from mnemowire.codegen.load import CodegenError, load
from mnemowire.spec import LATEST, SpecFiles, available_versions, read_spec, read_spec_dir

__all__ = [
    "LANGUAGES",
    "CodegenError",
    "GeneratedFile",
    "diff",
    "generate",
    "header_lines",
    "load",
    "spec_files",
    "spec_versions",
    "write",
]

#: language -> the module whose ``emit(spec) -> list[GeneratedFile]`` writes its bindings
LANGUAGES = {
    "python": "mnemowire.codegen.emit.python",
    "ts": "mnemowire.codegen.emit.typescript",
    "go": "mnemowire.codegen.emit.go",
    "openapi": "mnemowire.codegen.emit.openapi",
}


def generate(
    languages: Iterable[str] = LANGUAGES, source: SpecFiles | Sequence[SpecFiles] | None = None
) -> list[GeneratedFile]:
    """Every file the given languages' bindings consist of, paths relative to ``generated/``,
    from ``source``: one version's files or every version's, oldest first (``spec_versions``;
    by default every version this mnemowire was installed with).

    Python gets a module per version (the runtime serves each one) and ``mnemowire.models`` is
    the newest; TypeScript and Go bind the newest version; the OpenAPI document has every
    version's routes."""
    sources = spec_versions() if source is None else source
    versions = [sources] if isinstance(sources, SpecFiles) else list(sources)
    if not versions:
        raise CodegenError("no spec version to generate from")
    specs = _dated([load(files) for files in versions])
    files: list[GeneratedFile] = []
    for language in languages:
        if language == "openapi":
            files.append(openapi.emit_document(versions))
            continue
        module = importlib.import_module(LANGUAGES[language])
        if language == "python":
            files.extend(python.emit_module(spec) for spec in specs[:-1])
        files.extend(module.emit(specs[-1]))
    return sorted(files, key=lambda f: f.path)


def _dated(specs: list[Spec]) -> list[Spec]:
    """Each message marked with the first version (of these, oldest first) that has it."""
    first: dict[str, str] = {}
    dated = []
    for place, spec in enumerate(specs):
        for message in spec.messages:
            first.setdefault(message.name, spec.version)
        messages = tuple(dataclasses.replace(m, since=first[m.name]) for m in spec.messages)
        lineage = tuple(s.version for s in specs[: place + 1])
        dated.append(dataclasses.replace(spec, messages=messages, lineage=lineage))
    return dated


def spec_files(version: str = LATEST, spec_root: Path | None = None) -> SpecFiles:
    """One version's schema files, from ``spec_root`` (a ``spec/`` folder with one subfolder
    per version, e.g. a checkout's) or from the installed package."""
    if spec_root is None:
        return read_spec(version)
    return read_spec_dir(spec_root / version, version)


def spec_versions(spec_root: Path | None = None) -> list[SpecFiles]:
    """Every version's schema files under ``spec_root`` (or the installed package), oldest
    first."""
    return [spec_files(v, spec_root) for v in available_versions(spec_root)]


def write(files: Sequence[GeneratedFile], out: Path) -> list[str]:
    """Write files under ``out``; return the paths whose content changed."""
    changed = []
    for file in files:
        target = out / file.path
        if not target.exists() or target.read_text(encoding="utf-8") != file.content:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(file.content, encoding="utf-8")
            changed.append(file.path)
    return changed


def diff(files: Sequence[GeneratedFile], out: Path) -> str:
    """A unified diff from what is under ``out`` to what codegen would write; empty if current."""
    chunks: list[str] = []
    for file in files:
        target = out / file.path
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != file.content:
            chunks.extend(
                difflib.unified_diff(
                    current.splitlines(keepends=True),
                    file.content.splitlines(keepends=True),
                    fromfile=f"generated/{file.path} (on disk)",
                    tofile=f"generated/{file.path} (from spec)",
                )
            )
    return "".join(chunks)
