"""``mnemowire bench reference``: this package beside the preprint's own (memorywire 0.5.0)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from mnemowire.apps.cli._bench import bench_group, publish, report_folder


@bench_group.command("reference")
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Rounds; each gives both sides a fresh store, the sides alternating who goes first.",
)
@report_folder("reference.json and reference.md")
def reference_command(rounds: int, out: Path | None) -> None:
    """Remember and recall p50 of this package's default store beside the preprint's package
    (memorywire 0.5.0 from PyPI: pip install 'memorywire==0.5.0' transitions
    sentence-transformers sqlite-vec), the dev quality corpus written and asked in one
    process."""
    from mnemowire.apps.bench import environment
    from mnemowire.apps.bench.reference import ReferenceMissingError, run_reference
    from mnemowire.apps.cli._progress import Bars
    from mnemowire.embedders import default_embedder

    env = environment(" ".join(["mnemowire", *sys.argv[1:]]), embedder=default_embedder())
    bars = Bars()
    try:
        results = asyncio.run(run_reference(rounds=rounds, progress=bars))
    except ReferenceMissingError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        bars.close()
    publish("reference", env, results, out)
