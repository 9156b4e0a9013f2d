"""``mnemowire certify``: run the conformance harness against a store and write the report."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from mnemowire.apps.cli._app import Exit, cli
from mnemowire.errors import ConfigError


@cli.command("certify")
@click.argument("store_urls", nargs=-1, required=True)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("report"),
    show_default=True,
    help="Folder for report.json, report.md, matrix.html, badge.json.",
)
@click.option("--seed", default=0, show_default=True, help="Seed of every generated case.")
@click.option(
    "--examples",
    default=200,
    show_default=True,
    help="Generated requests per request schema (valid and invalid each).",
)
@click.option(
    "--stateful-runs",
    default=50,
    show_default=True,
    help="Operation sequences checked against the model.",
)
@click.option(
    "--fuzz-store",
    multiple=True,
    help="Run fuzzing and stateful checks on this store instead (e.g. the same "
    "backend with a faster embedder); named in the report.",
)
@click.option(
    "--only",
    multiple=True,
    help="Only this check, or the checks whose id starts with this (repeatable).",
)
@click.option(
    "--embedder",
    envvar="MNEMOWIRE_EMBEDDER",
    default=None,
    help="Embedder for stores that embed (e.g. hash:64 for a quick run).",
)
def certify_command(
    store_urls: tuple[str, ...],
    out: Path,
    seed: int,
    examples: int,
    stateful_runs: int,
    fuzz_store: tuple[str, ...],
    only: tuple[str, ...],
    embedder: str | None,
) -> None:
    """Certify STORE_URLS against the memorywire spec (several: the router over them).

    Exit 1 if a MUST check fails or errors (SHOULD and MAY results are reported, not fatal);
    2 when the command line is wrong (a store URL that cannot be opened, --only selecting no
    check)."""
    from mnemowire.conformance import (
        CHECKS,
        RunOptions,
        StoreFactory,
        certify,
        select_checks,
        url_factory,
        write_outputs,
    )
    from mnemowire.embedders import load_embedder
    from mnemowire.layers.router import MemoryRouter

    try:
        options: dict[str, Any] = {} if embedder is None else {"embedder": load_embedder(embedder)}
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--embedder") from None
    for hint, urls in (("STORE_URLS", store_urls), ("--fuzz-store", fuzz_store)):
        asyncio.run(_can_open(urls, options, hint))
    total = len(select_checks(only))
    if total == 0:
        groups = sorted({c.id.split(".", 1)[0] + "." for c in CHECKS})
        raise click.BadParameter(
            f"no check id is or starts with {' or '.join(map(repr, only))}; check ids start with "
            f"{', '.join(groups)} (docs/conformance.md lists them all)",
            param_hint="--only",
        )
    with click.progressbar(
        length=total, label="certifying", file=sys.stderr, item_show_func=lambda name: name
    ) as bar:

        def progress(check: Any) -> None:
            bar.update(1, check.id)

        def opened(urls: Sequence[str]) -> StoreFactory:
            """Several URLs are certified as the router over them."""
            return url_factory(urls, combine=MemoryRouter if len(urls) > 1 else None, **options)

        report = asyncio.run(
            certify(
                opened(store_urls),
                options=RunOptions(seed=seed, examples=examples, stateful_runs=stateful_runs),
                fuzz_factory=opened(fuzz_store) if fuzz_store else None,
                fuzz_store=" + ".join(fuzz_store) or None,
                only=only or None,
                progress=progress,
            )
        )
    for path in write_outputs(report, out):
        click.echo(f"wrote {path}", err=True)
    counts = report.summary
    click.echo(json.dumps({"adapter": report.adapter, **counts}))
    failing = False
    for item in report.data["checks"]:
        if item["status"] in ("FAIL", "ERROR"):
            must = item["strength"] == "MUST"
            failing |= must
            label = item["status"] if must else f"WARNING ({item['strength']} not met)"
            click.echo(f"{label} {item['id']} [{item['section']}]: {item['reason']}", err=True)
    sys.exit(Exit.REJECTED if failing else Exit.OK)


async def _can_open(urls: tuple[str, ...], options: dict[str, Any], hint: str) -> None:
    """Open and close each store once, so a bad URL is a usage error before anything runs."""
    from mnemowire.registry import open_store

    for url in urls:
        try:
            store = open_store(url, **options)
        except ConfigError as exc:
            raise click.BadParameter(str(exc), param_hint=hint) from None
        await store.aclose()


@cli.command("certify-matrix")
@click.argument(
    "reports", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--docs",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="Markdown page whose matrix block is rewritten.",
)
@click.option(
    "--html",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the combined, filterable HTML matrix here.",
)
@click.option(
    "--portability",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Also rewrite the archive fidelity tables of this page (docs/portability.md).",
)
def certify_matrix_command(
    reports: tuple[Path, ...], docs: Path, html: Path | None, portability: Path | None
) -> None:
    """Rebuild the adapter matrix of a docs page from certification reports."""
    from mnemowire.conformance.docs import update_docs

    changed = update_docs(docs, list(reports), html, portability)
    click.echo(f"{docs}: {'updated' if changed else 'unchanged'}", err=True)
