"""``mnemowire codegen``: regenerate the bindings under generated/, or check they are current."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mnemowire.apps.cli._app import Exit, cli

if TYPE_CHECKING:
    from mnemowire.codegen import GeneratedFile


@cli.command("codegen")
@click.option(
    "--check",
    is_flag=True,
    help="Change nothing; exit 1 with a diff when generated/ is stale (the npm package's "
    "compiled dist/ included).",
)
@click.option(
    "--lang",
    "languages",
    default="python,ts,go,openapi",
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
@click.option(
    "--spec",
    "spec_root",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="The spec/ folder to generate from (one subfolder per version)  "
    "[default: the spec/ beside --out, else the spec mnemowire was installed with]",
)
def codegen_command(check: bool, languages: str, out: Path, spec_root: Path | None) -> None:
    """Generate the Python, TypeScript and Go bindings and the OpenAPI document from the spec.

    In a checkout, the checkout's own spec/ is read, so --check in a fork checks the fork. The
    npm package's dist/ is compiled from the TypeScript written (with npm: `npm ci` once, then
    `npm run build` in generated/ts)."""
    from mnemowire import codegen
    from mnemowire.codegen import dist
    from mnemowire.spec import available_versions

    chosen = [lang.strip() for lang in languages.split(",") if lang.strip()]
    unknown = sorted(set(chosen) - set(codegen.LANGUAGES))
    if unknown:
        raise click.UsageError(f"unknown language(s) {unknown}; known: {sorted(codegen.LANGUAGES)}")
    if spec_root is not None and not available_versions(spec_root):
        raise click.UsageError(
            f"--spec {spec_root} has no version folder (v0/, ...); give the spec/ folder of a "
            "checkout"
        )
    beside = out.parent / "spec"
    if spec_root is None and beside.is_dir() and available_versions(beside):
        spec_root = out.parent / "spec"
    used = codegen.spec_versions(spec_root)
    for version in used:
        where = spec_root / version.version if spec_root is not None else "the installed mnemowire"
        click.echo(f"spec {version.version} from {where} ({version.digest})", err=True)
    files = codegen.generate(chosen, used)
    if check:
        stale = codegen.diff(files, out)
        uncompiled = dist.stale(files, out)
        if stale or uncompiled:
            click.echo(stale, nl=False)
            if uncompiled:
                click.echo(uncompiled, err=True)
            click.echo(f"generated/ is stale: run `mnemowire codegen --lang {languages}`", err=True)
            sys.exit(Exit.REJECTED)
        click.echo(f"generated/ is current ({len(files)} files)", err=True)
        return
    for path in codegen.write(files, out):
        click.echo(f"wrote generated/{path}")
    _compile(files, out)


def _compile(files: list[GeneratedFile], out: Path) -> None:
    """Compile the npm package's dist/ when it was not compiled from the sources just written:
    npm users install dist/, so sources without it would be a package at odds with itself."""
    from mnemowire.codegen import CodegenError, dist

    if dist.stale(files, out) is None:
        return
    try:
        dist.build(out / "ts", lambda line: click.echo(line, err=True))
    except CodegenError as exc:
        raise click.ClickException(f"generated/ts/src/ is written, not compiled: {exc}") from exc
    uncompiled = dist.stale(files, out)
    if uncompiled:  # the build ran, yet dist/ records other sources
        raise click.ClickException(f"{uncompiled}: {dist.HOW}")
    click.echo("built generated/ts/dist/ (npm run build)")
