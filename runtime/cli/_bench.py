"""``mnemowire bench ...``: measured numbers, printed with the machine, date and command."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from mnemowire.cli._app import cli


@cli.group("bench")
def bench_group() -> None:
    """Benchmarks (not tests): print measured numbers and where they were measured."""


@bench_group.command("validation")
@click.option("--seconds", default=0.3, show_default=True, help="Sampling time per case.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also write validation.json into this folder.",
)
def validation_command(seconds: float, out: Path | None) -> None:
    """Time spec validation per message (target: < 50 µs for a typical remember)."""
    from mnemowire.bench import environment, run_validation

    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    rows = run_validation(seconds)
    click.echo(json.dumps(env, indent=2))
    click.echo("| case | mnemowire p50 µs | p95 µs | python-jsonschema p50 µs |")
    click.echo("|---|---:|---:|---:|")
    for row in rows:
        click.echo(
            f"| {row['case']} | {row['mnemowire']['p50_us']} | "
            f"{row['mnemowire']['p95_us']} | {row['python_jsonschema']['p50_us']} |"
        )
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        report = {"environment": env, "validation": rows}
        (out / "validation.json").write_text(json.dumps(report, indent=2) + "\n")
