"""PNG plots of benchmark reports (matplotlib's Agg canvas: no display, same bytes every run).

``plot(report, out)`` draws whatever the report's benchmark has and returns the files written.
Needs matplotlib (``pip install 'mnemowire[bench]'``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot"]

_DPI = 110
#: the issue's targets for the floor (docs/benchmarks.md): at least this share of no-match probes
#: answered empty while recall@5 stays at least TARGET_RECALL; drawn on the trade-off plot
TARGET_NO_MATCH_EMPTY = 0.8
TARGET_RECALL = 0.93


def plot(report: Mapping[str, Any], out: Path) -> list[Path]:
    """Draw the report's plots into ``out``; returns their paths (none for validation and
    embedders, which are tables only)."""
    out.mkdir(parents=True, exist_ok=True)
    kind = report["benchmark"]
    results = report["results"]
    if kind == "quality":
        return [
            _floor(results, out / "quality-floor.png"),
            _classes(results, out / "quality-classes.png"),
        ]
    if kind == "latency":
        return [_latency(results, out / "latency.png")]
    if kind == "scale":
        return [_scale(results, out / "scale.png")]
    if kind == "http":
        return [_http(results, out / "http.png")]
    if kind == "adversarial":
        from mnemowire.apps.bench.adversarial import plot as adversarial_plot

        adversarial_plot(results, out / "adversarial.png")
        return [out / "adversarial.png"]
    if kind == "locomo":
        return [_locomo(results, out / "locomo.png")]
    return []


def _labels(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Legend labels for a report's runs: the store's scheme (``pgvector``, not the DSN) and the
    corpus when the run says one; the whole URL wherever the short label would be ambiguous."""

    def label(store: str, run: Mapping[str, Any]) -> str:
        return f"{store} ({run['corpus']})" if "corpus" in run else store

    short = [label(str(run["store"]).split("://", 1)[0], run) for run in runs]
    return [
        name if short.count(name) == 1 else label(str(run["store"]), run)
        for name, run in zip(short, runs, strict=True)
    ]


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    # a bare Figure draws on the Agg canvas; pyplot (and its global backend state) stays out
    return Figure(figsize=(width, height), layout="constrained")


def _save(figure: Figure, path: Path) -> Path:
    figure.savefig(path, dpi=_DPI, metadata={"Software": None})
    return path


def _floor(results: Mapping[str, Any], path: Path) -> Path:
    """The relevance floor's false-positive / false-negative trade-off, per store: against the
    floor (left) and against each other (right), the recommended floor marked."""
    figure = _figure(11, 4.2)
    left, right = figure.subplots(1, 2)
    runs = results["stores"]
    for index, (run, name) in enumerate(zip(runs, _labels(runs), strict=True)):
        floor = run["floor"]
        if floor is None:
            continue
        curve = [p for p in floor["curve"] if "no_match_empty" in p]
        floors = [p["floor"] for p in curve]
        false_pos = [1 - p["no_match_empty"] for p in curve]
        false_neg = [1 - p["recall_at_5"] for p in curve]
        colour = f"C{index}"
        # later runs drawn smaller, so a run lying exactly on an earlier one stays visible
        size = 8 - 4 * index / max(1, len(runs) - 1)
        left.plot(
            floors,
            false_pos,
            marker="o",
            markersize=size,
            color=colour,
            label=f"{name}: no-match probes answered (FP)",
        )
        left.plot(
            floors,
            false_neg,
            marker="s",
            markersize=size,
            linestyle="--",
            color=colour,
            label=f"{name}: relevant missed from top 5 (1 - recall@5)",
        )
        right.plot(false_pos, false_neg, marker="o", markersize=size, color=colour, label=name)
        for p, fp, fn in zip(curve, false_pos, false_neg, strict=True):
            if round(p["floor"] * 100) % 20 == 0:
                right.annotate(
                    f"{p['floor']:.1f}",
                    (fp, fn),
                    textcoords="offset points",
                    xytext=(4, 4),
                    fontsize="x-small",
                )
        chosen = floor["recommended"]
        if chosen is not None:
            point = next(p for p in curve if p["floor"] == chosen["floor"])
            left.axvline(chosen["floor"], color=colour, alpha=0.4, linestyle=":")
            right.scatter(
                [1 - point["no_match_empty"]],
                [1 - point["recall_at_5"]],
                s=160,
                facecolors="none",
                edgecolors=colour,
                linewidths=2,
                label=f"{name}: recommended {chosen['floor']:.2f}",
            )
    right.axvspan(
        0,
        1 - TARGET_NO_MATCH_EMPTY,
        ymax=(1 - TARGET_RECALL) / 1.03,
        color="green",
        alpha=0.12,
        label=f"target: >= {TARGET_NO_MATCH_EMPTY:.0%} probes empty, recall@5 >= {TARGET_RECALL}",
    )
    right.set_xlim(-0.02, 1.02)
    right.set_ylim(0, 1.03)
    left.set_xlabel("min_relevance (cosine similarity)")
    left.set_ylabel("rate")
    left.set_ylim(-0.03, 1.03)
    left.set_title("Error rates against the relevance floor (k = 5)")
    left.grid(True, alpha=0.3)
    # below the panels: inside them, the legends covered the curves
    left.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.2))
    right.set_xlabel("false positives: share of no-match probes answered")
    right.set_ylabel("false negatives: 1 - recall@5")
    right.set_title("Trade-off (labels: floor)")
    right.grid(True, alpha=0.3)
    right.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return _save(figure, path)


def _classes(results: Mapping[str, Any], path: Path) -> Path:
    """recall@1, recall@5 and recall@10 per query class (no floor), one panel per store."""
    runs = results["stores"]
    figure = _figure(11, 3.6 * len(runs))
    axes = figure.subplots(len(runs), 1, squeeze=False)
    for ax_row, run, name in zip(axes, runs, _labels(runs), strict=True):
        ax: Axes = ax_row[0]
        classes = [c for c in run["classes"] if c["class"] != "no_match"]
        names = [c["class"] for c in classes] + ["all labelled"]
        rows = [*classes, run["overall"]]
        width = 0.26
        for offset, (metric, label) in enumerate(
            (
                ("recall_at_1", "recall@1"),
                ("recall_at_5", "recall@5"),
                ("recall_at_10", "recall@10"),
            )
        ):
            xs = [i + (offset - 1) * width for i in range(len(rows))]
            ax.bar(xs, [r[metric] for r in rows], width, label=label)
        ax.set_xticks(range(len(rows)), names, rotation=20, fontsize="small")
        ax.set_ylim(0, 1.2)
        ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_title(f"{name}: recall per query class (no floor)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize="small", loc="upper center", ncols=3)
    return _save(figure, path)


def _latency(results: Mapping[str, Any], path: Path) -> Path:
    """p50 / p95 / p99 of ingest, recall and search-only recall, single and fused."""
    runs = results["stores"]
    figure = _figure(11, 3.8 * len(runs))
    axes = figure.subplots(len(runs), 1, squeeze=False)
    for ax_row, run, name in zip(axes, runs, _labels(runs), strict=True):
        ax: Axes = ax_row[0]
        groups = [
            (f"{setup}\n{name.replace('_', ' ')}", run[setup][name])
            for setup in ("single", "fused")
            for name in ("ingest", "recall", "recall_search_only")
        ]
        width = 0.26
        for offset, quantile in enumerate(("p50_ms", "p95_ms", "p99_ms")):
            xs = [i + (offset - 1) * width for i in range(len(groups))]
            ax.bar(xs, [g[1][quantile] for g in groups], width, label=quantile.removesuffix("_ms"))
        ax.set_xticks(range(len(groups)), [g[0] for g in groups], fontsize="small")
        ax.set_ylabel("ms")
        loads = [f"{values[0]:.2f}" for values in run["load_average"].values() if values]
        ax.set_title(f"{name}, 1-minute load average {' -> '.join(loads)}")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize="small")
    return _save(figure, path)


def _scale(results: Mapping[str, Any], path: Path) -> Path:
    """Recall latency against corpus size on log axes (left) and vector recall@10 (right)."""
    figure = _figure(11, 4.2)
    left, right = figure.subplots(1, 2)
    runs = results["stores"]
    for index, (run, store_name) in enumerate(zip(runs, _labels(runs), strict=True)):
        single = [row for row in run["layouts"] if row["agents"] == 1]
        if not single:
            continue
        sizes = [row["memories"] for row in single]
        colour = f"C{index}"
        for name, style, label in (
            ("recall", "-", "recall"),
            ("recall_search_only", "--", "search only"),
        ):
            for quantile, marker in (("p50_ms", "o"), ("p95_ms", "^")):
                left.plot(
                    sizes,
                    [row[name][quantile] for row in single],
                    linestyle=style,
                    marker=marker,
                    color=colour,
                    label=f"{store_name}: {label} {quantile.removesuffix('_ms')}",
                )
        right.plot(
            sizes,
            [row["vector_recall_at_10"] for row in single],
            marker="o",
            color=colour,
            label=store_name,
        )
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlabel("memories in the agent (one agent)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="x-small")
    left.set_yscale("log")
    left.set_ylabel("recall latency, ms")
    left.set_title("Recall latency against corpus size (log-log)")
    right.set_ylim(0, 1.05)
    right.set_ylabel("vector recall@10 vs exact search")
    right.set_title("Search accuracy against corpus size")
    return _save(figure, path)


def _http(results: Mapping[str, Any], path: Path) -> Path:
    """Recall latency per setup (left), the paced run's latency distribution (middle), and the
    server's resident memory over the memory run (right)."""
    figure = _figure(13, 4)
    left, middle, right = figure.subplots(1, 3)
    names = {
        "in_process": "in-process",
        "http_bare": "bare HTTP",
        "http": "HTTP (Python client)",
        "router_2x_http": "router, 2 servers",
    }
    latency = results["latency"]
    for offset, quantile in enumerate(("p50_ms", "p95_ms", "p99_ms")):
        xs = [i + (offset - 1) * 0.27 for i in range(len(names))]
        left.bar(xs, [latency[n][quantile] for n in names], width=0.27, label=quantile[:3])
    left.set_xticks(range(len(names)), list(names.values()), rotation=15, fontsize=8)
    left.set_ylabel("recall latency, ms")
    left.set_title("recall: in-process vs over HTTP")
    left.legend(fontsize=8)
    sustained = results["sustained"]
    for key, label in (("open_loop", "paced"), ("closed_loop", "unpaced")):
        run = sustained[key]
        stats = run.get("latency")
        if stats:
            middle.bar(
                [f"{label}\n{run['per_second']:.0f}/s"],
                [stats["p99_ms"]],
                label="p99" if key == "open_loop" else None,
                color="tab:red",
            )
            middle.bar(
                [f"{label}\n{run['per_second']:.0f}/s"],
                [stats["p50_ms"]],
                color="tab:blue",
                label="p50" if key == "open_loop" else None,
            )
    middle.axhline(60, color="grey", linestyle="--", linewidth=1, label="p99 target")
    middle.set_ylabel("latency, ms")
    middle.set_title(f"{sustained['clients']} clients")
    middle.legend(fontsize=8)
    rss = results["memory"]["rss_mb"]
    right.plot([p["requests"] for p in rss], [p["mb"] for p in rss], marker="o")
    right.set_xlabel("requests served")
    right.set_ylabel("server resident memory, MB")
    right.set_ylim(0, max(p["mb"] for p in rss) * 1.2)
    right.set_title("server memory")
    return _save(figure, path)


def _locomo(results: Mapping[str, Any], path: Path) -> Path:
    """recall@5 and recall@10 (any evidence turn, and all of them) per LoCoMo category, the
    headline first."""
    groups = [("1-4", results["headline"])] + [
        (f"{c['category']} {c['name']}", c) for c in results["by_category"]
    ]
    figure = _figure(9, 3.8)
    ax = figure.subplots()
    width = 0.2
    from mnemowire.apps.bench.locomo import COLUMNS

    for offset, (key, label) in enumerate(COLUMNS[:4]):  # the recalls (MRR is not a share)
        xs = [i + (offset - 1.5) * width for i in range(len(groups))]
        ax.bar(xs, [g.get(key, 0.0) for _, g in groups], width, label=label)
    ax.set_xticks(range(len(groups)), [name for name, _ in groups])
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of questions")
    ax.set_title(f"LoCoMo retrieval ({', '.join(results['data']['conversations'])})")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="upper right", ncols=4, fontsize="small")
    return _save(figure, path)
