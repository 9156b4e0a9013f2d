"""LoCoMo's Markdown tables, as docs/benchmarks.md shows them (the plot is in ``plots``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemowire.apps.bench.markdown import latency_cells

__all__ = ["COLUMNS", "markdown"]

#: the scores a LoCoMo report shows per group, with their column headings
COLUMNS = (
    ("recall_at_5", "R@5 any"),
    ("recall_at_10", "R@10 any"),
    ("all_at_5", "R@5 all"),
    ("all_at_10", "R@10 all"),
    ("mrr", "MRR"),
)


def _row(label: str, summary: Mapping[str, Any]) -> str:
    cells = [f"{summary[key]:.3f}" if key in summary else "-" for key, _ in COLUMNS]
    return f"| {label} | {summary['questions']} | " + " | ".join(cells) + " |"


def markdown(results: Mapping[str, Any]) -> str:
    """The headline, per category and per conversation, then ingest and recall latency."""
    data = results["data"]
    names = results["categories"]
    headline = ", ".join(f"{n} {names[str(n)]}" for n in results["headline_categories"])
    header = "| | questions | " + " | ".join(label for _, label in COLUMNS) + " |"
    rule = "|---|---:|" + "---:|" * len(COLUMNS)
    lines = [
        f"Store `{results['store']}`; {data['file']} (sha256 {data['sha256'][:12]}), "
        f"conversations {', '.join(data['conversations'])}: {data['turns']} turns, "
        f"{data['questions']} questions ({data['without_evidence']} without evidence left out, "
        f"{data['unknown_evidence']} evidence ids naming no turn).",
        "",
        "Categories (the release numbers them; this reading is pinned): "
        + "; ".join(f"{number} = {name}" for number, name in names.items())
        + f". Headline: categories {headline}.",
        "",
        header,
        rule,
        _row("**headline (1-4)**", results["headline"]),
        *([_row("**held out (1-4)**", results["held_out"])] if results["held_out"] else []),
        *(_row(f"{c['category']} {c['name']}", c) for c in results["by_category"]),
        "",
        "| conversation (1-4) | questions | " + " | ".join(label for _, label in COLUMNS) + " |",
        rule,
        *(
            _row(f"{c['conversation']}{' (held out)' if c['held_out'] else ''}", c)
            for c in results["by_conversation"]
        ),
        "",
        f"Ingest {results['ingest']['seconds']:.1f} s ({results['ingest']['turns_per_s']} "
        f"turns/s, batches of 100); recall (k = 10, through the facade, query embedded) "
        f"p50 / p95 / p99 {latency_cells(results['recall_latency'])} ms over "
        f"{results['recall_latency']['n']} questions.",
        "",
        f"Held back: {results['held_back']}",
    ]
    return "\n".join(lines)
