"""``mnemowire spec ...``: lint the schemas, format them, validate messages against them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, BinaryIO

import click

from mnemowire import spec
from mnemowire.apps.cli._app import Exit, cli
from mnemowire.spec import lint as spec_lint
from mnemowire.spec import loads_strict


@cli.group("spec")
def spec_group() -> None:
    """The memorywire JSON Schemas: lint, fmt, list, validate."""


def _files(directory: Path | None, version: str) -> spec.SpecFiles:
    if directory is None:
        return spec.read_spec(version)
    return spec.read_spec_dir(directory)


@spec_group.command("lint")
@click.option(
    "--dir",
    "directory",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Lint this version folder (e.g. spec/v0) instead of the installed spec.",
)
@click.option(
    "--version",
    "version",
    default=spec.LATEST,
    show_default=True,
    help="Installed spec version to lint.",
)
@click.option(
    "--examples/--no-examples",
    default=True,
    show_default=True,
    help="Also check every example against both validators and its annotation.",
)
def lint_command(directory: Path | None, version: str, examples: bool) -> None:
    """Check the schemas stay inside the JSON Schema subset our tool chain honours."""
    files = _files(directory, version)
    problems = spec_lint.lint(files, examples=examples)
    for problem in problems:
        click.echo(str(problem))
    if problems:
        click.echo(f"{len(problems)} problem(s) in spec {files.version}", err=True)
        sys.exit(Exit.REJECTED)
    count = sum(1 for _ in files.examples()) if examples else 0
    click.echo(
        f"spec {files.version}: {len(files.messages)} messages, {count} examples, "
        f"{files.digest}: clean",
        err=True,
    )


@spec_group.command("fmt")
@click.option(
    "--dir",
    "directory",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Spec folder whose JSON files are rewritten in canonical form.",
)
def fmt_command(directory: Path) -> None:
    """Rewrite spec JSON files in the canonical form the lint expects."""
    for changed in spec_lint.format_files(directory):
        click.echo(f"formatted {changed}")


@spec_group.command("list")
@click.option("--version", "version", default=spec.LATEST, show_default=True)
def list_command(version: str) -> None:
    """List the message names MESSAGE can take."""
    for name in spec.read_spec(version).messages:
        click.echo(name)


@spec_group.command("validate")
@click.argument("message")
@click.argument("source", type=click.File("rb"), default="-")
@click.option("--version", "version", default=spec.LATEST, show_default=True)
def validate_command(message: str, source: BinaryIO, version: str) -> None:
    """Validate the JSON in SOURCE (a file, or - for stdin) as MESSAGE.

    MESSAGE is <operation>.request or <operation>.response (e.g. remember.request), or a
    shared message (error, capabilities, health, review-request, review-decision).
    Exit 0 when valid; 1 with the spec error envelope on stdout when not; 2 on usage errors.
    """
    if message not in spec.read_spec(version).messages:
        known = ", ".join(spec.read_spec(version).messages)
        raise click.UsageError(f"unknown message {message!r}; known: {known}")
    envelope = _validate_text(message, source.read(), version)
    if envelope is not None:
        click.echo(json.dumps(envelope, ensure_ascii=False))
        sys.exit(Exit.REJECTED)


def _validate_text(message: str, text: bytes, version: str) -> dict[str, Any] | None:
    try:
        payload = loads_strict(text)
    except ValueError as exc:
        return {
            "code": "invalid_request",
            "message": f"input is not JSON: {exc}; send one JSON document",
            "details": [{"path": "", "rule": "json", "message": f"not JSON: {exc}"}],
        }
    return spec.validate(message, payload, version=version)
