"""``mnemowire bench adversarial``: the fusion-under-attack sweep, as JSON, a plot and tables."""

from __future__ import annotations

from pathlib import Path

import click

from mnemowire.apps.cli._bench import bench_group


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
    help="Folder for adversarial.json, adversarial.md and adversarial.png.",
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
@click.option(
    "--store",
    default="sqlite-vec://:memory:",
    show_default=True,
    metavar="URL",
    help="The honest stores (opened twice); {tmp} becomes a fresh temporary folder.",
)
@click.option(
    "--embedder",
    "embedders",
    multiple=True,
    help="Embedder of the honest stores: once for both, twice for one each  [default: hash:64 "
    "and hash:48, so their rankings differ].",
)
def adversarial_command(
    out: Path, seed: int, budgets: tuple[int, ...], queries: int, store: str,
    embedders: tuple[str, ...],
) -> None:  # fmt: skip
    """Recall@5 and leak rate of rrf, max and weighted fusion when 1 or 2 of 3 stores inject
    K records at the top of every recall (docs/benchmarks.md, "Fusion under attack")."""
    from mnemowire.apps.cli._bench_suite import run_suite
    from mnemowire.embedders import load_embedder

    if len(embedders) > 2:
        raise click.BadParameter("at most two, one per honest store", param_hint="--embedder")
    models = tuple(load_embedder(name) for name in embedders or ("hash:64", "hash:48"))
    run_suite(
        ["adversarial"],
        stores=(store,),
        embedder=None,
        out=out,
        embedder_object=models[0],
        seed=seed,
        budgets=budgets,
        adversarial_queries=queries,
        adversarial_embedders=models,
    )
