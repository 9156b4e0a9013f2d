"""mnemowire-codegen: the spec's bindings for Python, TypeScript and Go, generated from one IR.

Three stages, each its own module: ``load`` (spec files -> ``ir.Spec``), then one emitter per
language under ``emit/`` (IR -> files), then ``write`` / ``check`` here (files -> ``generated/``).
Build-time only: nothing in the runtime imports this package.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from mnemowire.codegen._output import GeneratedFile, header_lines
from mnemowire.codegen.ir import Spec
from mnemowire.codegen.load import CodegenError, load
from mnemowire.spec import LATEST, SpecFiles, read_spec, read_spec_dir

__all__ = [
    "LANGUAGES",
    "CodegenError",
    "GeneratedFile",
    "diff",
    "generate",
    "header_lines",
    "load",
    "spec_files",
    "write",
]

#: language -> the module whose ``emit(spec) -> list[GeneratedFile]`` writes its bindings
LANGUAGES = {
    "python": "mnemowire.codegen.emit.python",
    "ts": "mnemowire.codegen.emit.typescript",
    "go": "mnemowire.codegen.emit.go",
}


def generate(
    languages: Iterable[str] = LANGUAGES, source: SpecFiles | None = None
) -> list[GeneratedFile]:
    """Every file the given languages' bindings consist of, paths relative to ``generated/``,
    from ``source`` (``spec_files``; by default the latest version this mnemowire was
    installed with)."""
    spec: Spec = load(source if source is not None else read_spec(LATEST))
    files: list[GeneratedFile] = []
    for language in languages:
        module = importlib.import_module(LANGUAGES[language])
        files.extend(module.emit(spec))
    return sorted(files, key=lambda f: f.path)


def spec_files(version: str = LATEST, spec_root: Path | None = None) -> SpecFiles:
    """One version's schema files, from ``spec_root`` (a ``spec/`` folder with one subfolder
    per version, e.g. a checkout's) or from the installed package."""
    if spec_root is None:
        return read_spec(version)
    return read_spec_dir(spec_root / version, version)


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
