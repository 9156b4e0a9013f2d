"""``mnemowire bench locomo``: retrieval on LoCoMo's conversations, from the user's copy."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import click

from mnemowire.apps.cli._bench import bench_group, publish, report_folder, require_matplotlib


@bench_group.command("locomo")
@click.option(
    "--data",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="MNEMOWIRE_LOCOMO_DATA",
    help="LoCoMo's JSON (the release's locomo10.json or a subset); not shipped: CC BY-NC.",
)
@click.option(
    "--store",
    default="sqlite-vec://{tmp}/bench.db",
    show_default=True,
    metavar="URL",
    help="The store measured; {tmp} becomes a fresh temporary folder.",
)
@click.option(
    "--embedder",
    envvar="MNEMOWIRE_EMBEDDER",
    default=None,
    help="Embedder name (default: the real all-MiniLM-L6-v2; hash for logic checks only).",
)
@click.option(
    "--conversation",
    "only",
    multiple=True,
    metavar="SAMPLE_ID",
    help="Ask only this conversation (repeatable; e.g. conv-26) [default: all in the file].",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="At most this many conversations (after --conversation).",
)
@report_folder("locomo.json, locomo.md and locomo.png")
def locomo_command(
    data: Path,
    store: str,
    embedder: str | None,
    only: tuple[str, ...],
    limit: int | None,
    out: Path | None,
) -> None:
    """Recall@5/@10 (any and all evidence turns), MRR and recall latency on LoCoMo, one
    episodic memory per dialogue turn, each question asked through the public recall."""
    from mnemowire.apps.bench import environment
    from mnemowire.apps.bench.locomo import LocomoError, load_locomo, run_locomo, select
    from mnemowire.apps.bench.plots import plot
    from mnemowire.apps.cli._progress import Bars
    from mnemowire.embedders import default_embedder, load_embedder
    from mnemowire.errors import ConfigError, MnemowireError

    try:
        conversations = select(load_locomo(data), only=only, limit=limit)
    except LocomoError as exc:
        raise click.BadParameter(str(exc), param_hint="--data") from None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--conversation") from None
    if out is not None:
        require_matplotlib()
    chosen = load_embedder(embedder) if embedder else default_embedder()
    env = environment(" ".join(["mnemowire", *sys.argv[1:]]), embedder=chosen)
    bars = Bars()
    try:
        results = asyncio.run(run_locomo(store, chosen, data, conversations, progress=bars))
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--store") from None
    except MnemowireError as exc:  # the store refused a turn or a question: say which rule
        raise click.ClickException(f"{exc.code}: {exc}") from None
    finally:
        bars.close()
    report = publish("locomo", env, results, out)
    if out is not None:
        plot(report, out)
