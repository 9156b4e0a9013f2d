"""``mnemowire bench store``: latency and scale of the embedded sqlite-vec store."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import click

from mnemowire.cli._bench import bench_group


@bench_group.command("store")
@click.option(
    "--sizes",
    default="1000,10000,100000",
    show_default=True,
    help="Comma-separated corpus sizes (one agent each; the largest also spread).",
)
@click.option("--queries", default=200, show_default=True, help="Recalls measured per size.")
@click.option("--ingest", default=1000, show_default=True, help="Memories for bulk ingest.")
@click.option(
    "--embedder",
    envvar="MNEMOWIRE_EMBEDDER",
    default=None,
    help="Embedder (default: the real all-MiniLM-L6-v2).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also write store.json into this folder.",
)
def store_command(
    sizes: str, queries: int, ingest: int, embedder: str | None, out: Path | None
) -> None:
    """Ingest and recall p50/p95/p99 at each size, vector recall@10 vs exact search."""
    from mnemowire.bench import environment
    from mnemowire.bench.store import run_store_bench
    from mnemowire.embedders import default_embedder, load_embedder

    chosen = load_embedder(embedder) if embedder else default_embedder()
    numbers = tuple(int(s) for s in sizes.split(","))
    bars: dict[str, Any] = {}

    def progress(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None or bar.length != total:
            if bar is not None:
                bar.render_finish()
            bar = bars[stage] = click.progressbar(length=total, label=stage, file=sys.stderr)
        bar.update(done - bar.pos)

    report = asyncio.run(
        run_store_bench(chosen, sizes=numbers, queries=queries, ingest=ingest, progress=progress)
    )
    for bar in bars.values():
        bar.render_finish()
    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    click.echo(json.dumps(env, indent=2))
    click.echo(
        f"embedder {report['embedder']}: one sentence p50 {report['embed_one']['p50_ms']} "
        f"ms; remember p50 {report['remember']['p50_ms']} ms; bulk ingest "
        f"{report['bulk_ingest']['per_second']} memories/s"
    )
    click.echo(
        "| memories | agents | recall p50 / p95 / p99 ms | search only p50 / p95 / p99 ms "
        "| vector recall@10 |"
    )
    click.echo("|---:|---:|---|---|---:|")
    for row in report["sizes"].values():
        r, s = row["recall"], row["recall_search_only"]
        click.echo(
            f"| {row['memories']} | {row['agents']} | {r['p50_ms']} / {r['p95_ms']} / "
            f"{r['p99_ms']} | {s['p50_ms']} / {s['p95_ms']} / {s['p99_ms']} | "
            f"{row['vector_recall_at_10']} |"
        )
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "store.json").write_text(json.dumps({"environment": env, **report}, indent=2))
