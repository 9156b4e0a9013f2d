"""``mnemowire bench adversarial``: the fusion-under-attack sweep, as JSON, a plot and tables."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import click

from mnemowire.cli._bench import bench_group


def _budgets(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        budgets = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter("a comma-separated list of integers, e.g. 0,5,10") from None
    if any(b < 0 for b in budgets):
        raise click.BadParameter("attacker budgets are >= 0")
    return budgets


@bench_group.command("adversarial")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("bench-out"),
    show_default=True,
    help="Folder for adversarial.json and adversarial.png.",
)
@click.option("--seed", default=1337, show_default=True, help="Seed of the corpus and queries.")
@click.option(
    "--budgets",
    default="0,5,10,15,20,25,30,35,40,45,50",
    show_default=True,
    callback=_budgets,
    help="Attacker budgets K (records injected per recall).",
)
@click.option(
    "--queries",
    type=click.IntRange(1, 25),
    default=20,
    show_default=True,
    help="Queries per configuration (each names one of 25 people).",
)
def adversarial_command(out: Path, seed: int, budgets: tuple[int, ...], queries: int) -> None:
    """Recall@5 and leak rate of rrf, max and weighted fusion when 1 or 2 of 3 stores inject
    K records at the top of every recall (docs/benchmarks.md, "Fusion under attack")."""
    from mnemowire.bench import environment
    from mnemowire.bench.adversarial import markdown, plot, run_adversarial

    try:
        import matplotlib  # noqa: F401 - checked before the sweep, not after it
    except ImportError:
        raise click.ClickException(
            "the plot needs matplotlib: pip install 'mnemowire[bench]'"
        ) from None
    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    report = {
        "environment": env,
        **asyncio.run(run_adversarial(seed=seed, budgets=budgets, queries=queries)),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "adversarial.json").write_text(json.dumps(report, indent=2) + "\n")
    plot(report, out / "adversarial.png")
    click.echo(json.dumps(env, indent=2))
    for attackers in (1, 2):
        for quorum in (None, 2):
            click.echo(f"\n{attackers} of 3 stores malicious, quorum {quorum or 'off'}:\n")
            click.echo(markdown(report["results"], adversaries=attackers, quorum=quorum))
    click.echo(f"\nwrote {out / 'adversarial.json'} and {out / 'adversarial.png'}")
