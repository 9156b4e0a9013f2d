"""``mnemowire bench pgvector``: the PostgreSQL store at 100k memories."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import click

from mnemowire.apps.cli._bench import bench_group, report_folder


@bench_group.command("pgvector")
@click.option("--size", default=100_000, show_default=True, help="Memories of the one agent.")
@click.option("--queries", default=200, show_default=True, help="Recalls measured.")
@click.option(
    "--live-rows",
    default=2_000,
    show_default=True,
    help="Rows added afterwards with the vector index maintained row by row.",
)
@click.option(
    "--concurrency",
    default=2,
    show_default=True,
    help="Connections writing those rows at once.",
)
@click.option(
    "--embedder",
    envvar="MNEMOWIRE_EMBEDDER",
    default="hash:384",
    show_default=True,
    help="Embedder whose vectors are precomputed (and cached) for the corpus.",
)
@click.option(
    "--dsn",
    envvar="MNEMOWIRE_PG_DSN",
    default=None,
    help="Benchmark this server (postgresql://...) instead of a local one started for the run.",
)
@click.option(
    "--probes",
    type=click.IntRange(min=1),
    default=None,
    help="IVFFlat cells each search scans (store default: sized for the index and scope).",
)
@report_folder("pgvector.json")
def pgvector_command(
    size: int,
    queries: int,
    live_rows: int,
    concurrency: int,
    embedder: str,
    dsn: str | None,
    probes: int | None,
    out: Path | None,
) -> None:
    """Bulk ingest rows/s, recall p50/p95/p99 without embedding, recall@10 vs exact search,
    and a 10-record agent beside the big one."""
    from mnemowire.apps.bench import environment
    from mnemowire.apps.bench.pgvector import run_pgvector_bench
    from mnemowire.embedders import load_embedder

    bars: dict[str, Any] = {}

    def progress(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None or bar.length != total:
            if bar is not None:
                bar.render_finish()
            bar = bars[stage] = click.progressbar(length=total, label=stage, file=sys.stderr)
        bar.update(done - bar.pos)

    report = asyncio.run(
        run_pgvector_bench(
            load_embedder(embedder),
            size=size,
            queries=queries,
            live_rows=live_rows,
            concurrency=concurrency,
            dsn=dsn,
            probes=probes,
            progress=progress,
        )
    )
    for bar in bars.values():
        bar.render_finish()
    env = environment(" ".join(["mnemowire", *sys.argv[1:]]))
    click.echo(json.dumps(env, indent=2))
    recall, bulk, live = report["recall"], report["bulk_ingest"], report["live_index_ingest"]
    small = report["small_tenant"]
    so, we = recall["search_only"], recall["with_embedding"]
    click.echo(
        f"load average {report['load_average_start']} -> {report['load_average_end']}; "
        f"embedder {report['embedder']}; server {report['health']['postgres']}, "
        f"pgvector {report['health']['pgvector']}; sizes {report['health']['sizes']}"
    )
    click.echo("| measure | value |")
    click.echo("|---|---:|")
    click.echo(f"| memories (one agent) | {report['memories']} |")
    click.echo(
        f"| recall p50 / p95 / p99, excluding embedding | "
        f"{so['p50_ms']} / {so['p95_ms']} / {so['p99_ms']} ms |"
    )
    click.echo(
        f"| recall p50 / p95 / p99, with embedding | "
        f"{we['p50_ms']} / {we['p95_ms']} / {we['p99_ms']} ms |"
    )
    click.echo(f"| vector recall@10 vs exact | {recall['vector_recall_at_10']} |")
    click.echo(
        f"| {small['records']}-record agent beside it, k={small['k']} | "
        f"{small['returned']} returned |"
    )
    click.echo(f"| bulk ingest, index built at the end | {bulk['per_second']} rows/s |")
    click.echo(
        f"| ingest into the full store, index live, {live['concurrency']} connections | "
        f"{live['per_second']} rows/s |"
    )
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "pgvector.json").write_text(json.dumps({"environment": env, **report}, indent=2))
