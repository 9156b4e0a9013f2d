"""The Go emitter's templates (``templates/go``): which file each becomes, the identifiers they
declare by name (which no generated name may take), and their rendering."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any

import jinja2

from mnemowire.codegen._output import GeneratedFile

__all__ = ["declared", "read_templates", "render"]

#: (template, output path under generated/go)
FILES = (
    ("go.mod.j2", "go.mod"),
    ("doc.go.j2", "doc.go"),
    ("types.go.j2", "types.go"),
    ("json.go.j2", "json.go"),
    ("schema.go.j2", "schema.go"),
    ("validate.go.j2", "validate.go"),
    ("messages.go.j2", "messages.go"),
    ("semantic.go.j2", "semantic.go"),
    ("store.go.j2", "store.go"),
    ("http.go.j2", "http.go"),
    ("vectors_test.go.j2", "vectors_test.go"),
    ("vectors_main.go.j2", "cmd/vectors/main.go"),
)


def read_templates() -> dict[str, str]:
    """Every template, by file name."""
    folder = resources.files("mnemowire.codegen").joinpath("templates", "go")
    return {
        entry.name: entry.read_text(encoding="utf-8")
        for entry in folder.iterdir()
        if entry.name.endswith(".j2")
    }


def declared(sources: Iterable[str]) -> set[str]:
    """The package-level Go identifiers the templates declare by name (not filled in)."""
    names: set[str] = set()
    for source in sources:
        names.update(re.findall(r"^(?:func|type|var|const) ([A-Za-z_]\w*)", source, re.M))
        for block in re.findall(r"^(?:const|var) \(\n(.*?)^\)", source, re.M | re.S):
            names.update(re.findall(r"^\t([A-Za-z_]\w*)", block, re.M))
    return names


def render(templates: Mapping[str, str], context: Mapping[str, Any]) -> list[GeneratedFile]:
    """Every file of the Go module, paths relative to ``generated/`` (``go/...``)."""
    env = jinja2.Environment(
        loader=jinja2.DictLoader(dict(templates)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    return [
        GeneratedFile(f"go/{path}", env.get_template(template).render(**context))
        for template, path in FILES
    ]
