"""``mnemowire codegen``: regenerate the bindings under generated/, or check they are current."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mnemowire.cli._app import Exit, cli


@cli.command("codegen")
@click.option(
    "--check", is_flag=True, help="Change nothing; exit 1 with a diff when generated/ is stale."
)
@click.option(
    "--lang",
    "languages",
    default="python,ts,go",
    show_default=True,
    help="Comma-separated languages to generate.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("generated"),
    show_default=True,
    help="The generated/ folder of a mnemowire checkout.",
)
def codegen_command(check: bool, languages: str, out: Path) -> None:
    """Generate the Python, TypeScript and Go bindings from the spec."""
    from mnemowire import codegen

    chosen = [lang.strip() for lang in languages.split(",") if lang.strip()]
    unknown = sorted(set(chosen) - set(codegen.LANGUAGES))
    if unknown:
        raise click.UsageError(f"unknown language(s) {unknown}; known: {sorted(codegen.LANGUAGES)}")
    files = codegen.generate(chosen)
    if check:
        stale = codegen.diff(files, out)
        if stale:
            click.echo(stale, nl=False)
            click.echo(f"generated/ is stale: run `mnemowire codegen --lang {languages}`", err=True)
            sys.exit(Exit.REJECTED)
        click.echo(f"generated/ is current ({len(files)} files)", err=True)
        return
    for path in codegen.write(files, out):
        click.echo(f"wrote generated/{path}")
