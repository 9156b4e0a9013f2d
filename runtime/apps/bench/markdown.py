"""Markdown tables of a benchmark report, as pasted into docs/benchmarks.md."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["environment_line", "latency_cells", "render"]


def render(report: Mapping[str, Any]) -> str:
    """The report as Markdown: where it was measured, then the benchmark's tables."""
    renderer = _RENDERERS[report["benchmark"]]
    body = renderer(report["results"])
    return f"{environment_line(report['environment'])}\n\n{body}\n"


def environment_line(env: Mapping[str, Any]) -> str:
    """One sentence naming the date, command, commit, machine, embedder and load."""
    commit = env.get("commit") or "unknown"
    if env.get("commit_dirty"):
        commit += " (with uncommitted changes)"
    loads = env["load_average"]
    load = _loads(loads)
    parts = [
        f"Measured {env['date']} with `{env['command']}` at commit {commit}",
        f"{env['platform']}, {env['cpu']} ({env['cpus']} CPUs), Python {env['python']}",
    ]
    embedder = env.get("embedder")
    if embedder:
        parts.append(
            f"embedder {embedder['name']} ({embedder['dimension']}-d, {embedder['backend']})"
        )
    parts.append(f"load average (1/5/15 min) {load}")
    return ", ".join(parts) + "."


def _loads(loads: Mapping[str, Sequence[float]]) -> str:
    start = "/".join(f"{v:.2f}" for v in loads.get("start", []))
    end = "/".join(f"{v:.2f}" for v in loads.get("end", []))
    return f"{start} at the start, {end} at the end" if end else start


def _f(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def latency_cells(p: Mapping[str, Any]) -> str:
    """p50 / p95 / p99 of a Percentiles object, one decimal each."""
    return f"{p['p50_ms']:.1f} / {p['p95_ms']:.1f} / {p['p99_ms']:.1f}"


_METRICS = (
    ("recall_at_1", "R@1"),
    ("recall_at_5", "R@5"),
    ("recall_at_10", "R@10"),
    ("precision_at_5", "P@5"),
    ("mrr", "MRR"),
    ("ndcg_at_10", "nDCG@10"),
)


def _class_table(overall: Mapping[str, Any], classes: Sequence[Mapping[str, Any]]) -> list[str]:
    header = "| class | queries | " + " | ".join(label for _, label in _METRICS)
    lines = [header + " | no-match empty |", "|---|---:|" + "---:|" * (len(_METRICS) + 1)]
    for row in [*classes, {"class": "**all labelled**", **overall}]:
        cells = [str(row["class"]), str(row["queries"])]
        cells += [_f(row.get(name)) for name, _ in _METRICS]
        cells.append(_f(row.get("no_match_empty")))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _quality(results: Mapping[str, Any]) -> str:
    out: list[str] = []
    moves = results.get("transfer", [])
    if moves:
        out += [
            "A floor tuned on one corpus, judged on the other (recall@5 without and with it):",
            "",
            "| store | tuned on | floor | judged on | recall@5 | with floor | lost "
            "| no-match empty | holds |",
            "|---|---|---:|---|---:|---:|---:|---:|---|",
        ]
        out += [
            f"| {m['store']} | {m['tuned_on']} | {m['floor']:.2f} | {m['judged_on']} | "
            f"{m['recall_at_5']:.3f} | {m['recall_at_5_with_floor']:.3f} | {m['loss']:.3f} | "
            f"{_f(m['no_match_empty'])} | {'yes' if m['holds'] else 'no'} |"
            for m in moves
        ]
        out.append("")
    for run in results["stores"]:
        out.append(
            f"**{run['store']}**, corpus `{run.get('corpus', 'dev')}` (loads "
            f"{_loads(run['load_average'])}; corpus written in {run['ingest_seconds']} s; "
            f"backdated: {run['backdated']})"
        )
        out.append("")
        out += _class_table(run["overall"], run["classes"])
        for skipped in run["skipped"]:
            out.append(
                f"\nSkipped: {skipped['queries']} {skipped['class']} queries ({skipped['reason']})."
            )
        floor = run["floor"]
        if floor is not None:
            out.append("\nRelevance floor sweep (k = 5):\n")
            out.append("| min_relevance | recall@5 | labelled answered empty | no-match empty |")
            out.append("|---:|---:|---:|---:|")
            for point in floor["curve"]:
                out.append(
                    f"| {point['floor']:.2f} | {point['recall_at_5']:.3f} | "
                    f"{point['labelled_empty']:.3f} | {_f(point.get('no_match_empty'))} |"
                )
            chosen = floor["recommended"]
            if chosen is None:
                out.append(
                    f"\nNo floor meets the rule ({floor['rule']}, "
                    f"max_recall_loss {floor['max_recall_loss']})."
                )
            else:
                out.append(
                    f"\nRecommended floor {chosen['floor']:.2f} ({floor['rule']}, "
                    f"max_recall_loss {floor['max_recall_loss']}); every query re-asked with it:\n"
                )
                out += _class_table(chosen["overall"], chosen["classes"])
        alone = run["vector_only"]
        if alone is None:
            out.append(
                "\nNo diagnostic of the vector search alone: the store takes no query vector "
                "(its search embeds the query text itself)."
            )
        else:
            out.append(
                "\nDiagnostic, the store's vector search alone (no keyword half), recall@5 by "
                "class: "
                + ", ".join(
                    f"{c['class']} {c['recall_at_5']:.3f}"
                    for c in alone["classes"]
                    if "recall_at_5" in c
                )
                + f"; all labelled {alone['overall']['recall_at_5']:.3f} (as measured above: "
                f"{run['overall']['recall_at_5']:.3f})."
            )
        misses = [q for q in run["queries"] if q.get("recall_at_5", 1.0) < 1.0]
        if misses:
            out.append(f"\nLabelled queries with recall@5 below 1 ({len(misses)}):\n")
            for q in misses:
                missing = sorted(set(q["relevant"]) - set(q["returned"]))
                out.append(
                    f'- {q["id"]} ({q["class"]}) "{q["query"]}": recall@5 {q["recall_at_5"]:.2f}, '
                    f"missing {', '.join(missing)}; top 5: {', '.join(q['returned'])}"
                )
        out.append("")
    return "\n".join(out).rstrip()


def _latency(results: Mapping[str, Any]) -> str:
    out = [
        "| store | setup | ingest p50 / p95 / p99 ms | recall p50 / p95 / p99 ms "
        "| search only p50 / p95 / p99 ms | overhead p50 / p95 / p99 ms |",
        "|---|---|---|---|---|---|",
    ]
    notes = []
    for run in results["stores"]:
        for setup in ("single", "fused"):
            w = run[setup]
            label = setup if setup == "single" else f"fused ({w['stores']} stores, {w['fusion']})"
            out.append(
                f"| {run['store']} | {label} | {latency_cells(w['ingest'])} | "
                f"{latency_cells(w['recall'])} | "
                f"{latency_cells(w['recall_search_only'])} | {latency_cells(w['overhead'])} |"
            )
        notes.append(
            f"{run['store']}: fused recall p50 is {run['fused_vs_single']:.2f}x single; the "
            f"embedder alone takes {latency_cells(run['embed'])} ms per query; "
            f"load average {_loads(run['load_average'])}."
        )
    return "\n".join([*out, "", *notes])


def _scale(results: Mapping[str, Any]) -> str:
    out = [
        "| store | memories | agents | load s | recall p50 / p95 / p99 ms "
        "| search only p50 / p95 / p99 ms | vector recall@10 | questions | templates |",
        "|---|---:|---:|---:|---|---|---:|---:|---:|",
    ]
    notes = []
    for run in results["stores"]:
        if "skipped" in run:
            notes.append(f"{run['store']}: skipped ({run['skipped']}).")
            continue
        for row in run["layouts"]:
            out.append(
                f"| {run['store']} | {row['memories']} | {row['agents']} | {row['load_seconds']} | "
                f"{latency_cells(row['recall'])} | {latency_cells(row['recall_search_only'])} | "
                f"{row['vector_recall_at_10']:.4f} | "
                f"{_f(row.get('vector_recall_at_10_questions'), 4)} | "
                f"{_f(row.get('vector_recall_at_10_templates'), 4)} |"
            )
        bulk = run["bulk_ingest"]
        notes.append(
            f"{run['store']}: bulk ingest with embedding {bulk['per_second']} memories/s "
            f"({bulk['memories']} in {bulk['seconds']} s); "
            f"load average {_loads(run['load_average'])}."
        )
    return "\n".join([*out, "", *notes])


def _adversarial(results: Mapping[str, Any]) -> str:
    from mnemowire.apps.bench.adversarial import markdown

    config = results["config"]
    out = [
        f"Honest stores: {config['stores']}; seed {config['seed']}, "
        f"{config['queries']} queries, k = {config['k']}."
    ]
    rows = results["results"]
    for attackers in sorted({r["adversaries"] for r in rows}):
        for quorum in sorted({r["quorum"] or 0 for r in rows}):
            out.append(f"\n{attackers} of 3 stores malicious, quorum {quorum or 'off'}:\n")
            out.append(markdown(rows, adversaries=attackers, quorum=quorum or None))
    return "\n".join(out)


def _reference(results: Mapping[str, Any]) -> str:
    from mnemowire.apps.bench.reference import markdown

    return markdown(results)


def _locomo(results: Mapping[str, Any]) -> str:
    from mnemowire.apps.bench.locomo import markdown

    return markdown(results)


def _validation(rows: Sequence[Mapping[str, Any]]) -> str:
    out = [
        "| case | mnemowire p50 µs | p95 µs | python-jsonschema p50 µs |",
        "|---|---:|---:|---:|",
    ]
    for row in rows:
        out.append(
            f"| {row['case']} | {row['mnemowire']['p50_us']} | {row['mnemowire']['p95_us']} | "
            f"{row['python_jsonschema']['p50_us']} |"
        )
    return "\n".join(out)


def _embedders(rows: Sequence[Mapping[str, Any]]) -> str:
    sizes = list(rows[0]["batch_per_s"]) if rows else []
    out = [
        "| setup | busy | loadavg | load s | 1 sentence p50 ms | p95 | p99 | "
        + " | ".join(f"batch {size}/s" for size in sizes)
        + " |",
        "|---|---:|---:|---:|---:|---:|---:|" + "---:|" * len(sizes),
    ]
    for row in rows:
        latency = row["single_ms"]
        cells = [row["setup"], row["busy"], row["load_average"], row["load_s"], latency["p50"]]
        cells += [latency["p95"], latency["p99"], *(row["batch_per_s"][size] for size in sizes)]
        out.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    return "\n".join(out)


def _records(results: Mapping[str, Any]) -> str:
    listing, got, seal = results["list"], results["get"], results["seal_verify"]
    audit = results["audit_verify"]
    return "\n".join(
        [
            f"{results['records']:,} records of one agent in {results['store']} "
            f"(bulk-loaded in {results.get('load_s', '?')} s), through the validating boundary.",
            "",
            "| operation | measured | target |",
            "|---|---:|---:|",
            f"| list, {listing['pages']} pages of {listing['page_size']} | "
            f"{listing['records_per_s']:,} records/s | ≥ 20,000 records/s |",
            f"| list, resident memory first → last page | {listing['rss_mb_first_page']} → "
            f"{listing['rss_mb_last_page']} MB (max {listing['rss_mb_max']}) | constant |",
            f"| get of {got['ids_per_request']} ids, p50 / p95 ({got['n']} requests) | "
            f"{got['p50_ms']} / {got['p95_ms']} ms | p50 ≤ 2 ms |",
            f"| seal verification per hit, p50 / p95 | {seal['p50_us']} / {seal['p95_us']} µs | "
            "≤ 20 µs |",
            f"| audit chain of {audit['entries']:,} entries read and verified, p50 (of which "
            f"reading {audit['read_p50_s']} s) | {audit['p50_s']} s | ≤ 2 s |",
        ]
    )


def _reviews(results: Mapping[str, Any]) -> str:
    page, decision = results["list_page"], results["decision"]

    def row(kind: str, side: Mapping[str, Any]) -> str:
        decide, alone = side["decide"], side["write_alone"]
        return (
            f"| decision approving a staged {kind}: decide / the write alone, p50 "
            f"({decide['n']} each) | {decide['p50_ms']} / {alone['p50_ms']} ms: "
            f"+{side['added_p50_ms']} ms | ≤ +5 ms |"
        )

    return "\n".join(
        [
            f"{results['pending']:,} staged remembers beside {results['existing']:,} active "
            f"memories of one agent in {results['store']} (bulk-loaded in "
            f"{results.get('load_s', '?')} s), through the validating boundary.",
            "",
            "| operation | measured | target |",
            "|---|---:|---:|",
            f"| a page of {page['page']} reviews with diffs ({page['related']} related each), "
            f"p50 / p95 ({page['n']} pages) | {page['p50_ms']} / {page['p95_ms']} ms | "
            "p50 ≤ 50 ms |",
            row("remember", decision["remember"]),
            row("forget", decision["forget"]),
        ]
    )


def _http(results: Mapping[str, Any]) -> str:
    latency, sustained, memory = results["latency"], results["sustained"], results["memory"]
    paced, flat = sustained["open_loop"], sustained["closed_loop"]

    def row(name: str, stats: Mapping[str, Any]) -> str:
        cells = [name, stats["p50_ms"], stats["p95_ms"], stats["p99_ms"], stats["n"]]
        return "| " + " | ".join(str(cell) for cell in cells) + " |"

    def load(name: str, run: Mapping[str, Any]) -> str:
        stats = run.get("latency", {})
        return (
            f"| {name} | {run['per_second']} | {stats.get('p50_ms', '-')} | "
            f"{stats.get('p99_ms', '-')} | {run['errors']} of {run['requests']} | "
            f"{run['server_cpu_s']} / {run['client_cpu_s']} | {run['seconds']} |"
        )

    clients, offered = sustained["clients"], sustained["offered_per_second"]
    return "\n".join(
        [
            f"{results['store']}; embedder {results['embedder']}; {results['queries']} queries x "
            f"{results['rounds']} rounds, every setup in turn, query by query.",
            "",
            "| recall | p50 ms | p95 ms | p99 ms | n |",
            "|---|---:|---:|---:|---:|",
            row("in-process (Memory over the store)", latency["in_process"]),
            row("through one server (Memory over http://)", latency["http"]),
            row("through one server, bare HTTP client", latency["http_bare"]),
            row("router over two servers (query embedded once)", latency["router_2x_http"]),
            "",
            f"HTTP minus in-process at p50: **{latency['http_minus_in_process_p50_ms']} ms** "
            "(target ≤ 1 ms); router over two servers / one server at p50: "
            f"**{latency['router_over_http_p50_ratio']}x** (target ≤ 1.3x).",
            "",
            "| load | recalls/s | p50 ms | p99 ms | errors | CPU s server / client | s |",
            "|---|---:|---:|---:|---:|---:|---:|",
            load(f"{offered:g}/s offered, {clients} clients (open loop)", paced),
            load(f"{clients} clients, no pacing (closed loop)", flat),
            "",
            "Target: ≥ 250 recalls/s with 16 clients at p99 ≤ 60 ms and 0 errors; open-loop "
            "latencies count from when each request was due.",
            "",
            f"Server memory over {memory['requests']:,} requests ({memory['per_second']}/s, "
            f"{memory['errors']} unexpected answers; a tenth were bad requests, answered 400): "
            f"resident **{memory['rss_mb_before']} → {memory['rss_mb_after']} MB**, "
            f"{memory.get('rss_mb_halfway', '?')} MB halfway (target: flat).",
        ]
    )


def _adapter(results: Mapping[str, Any]) -> str:
    def row(name: str, stats: Mapping[str, Any]) -> str:
        cells = (stats["p50_ms"], stats["p95_ms"], stats["p99_ms"], stats["n"])
        return f"| {name} | " + " | ".join(str(cell) for cell in cells) + " |"

    lines = [
        f"{results['store']} against {results['backend']}; {results['memories']} memories, "
        f"{results['queries']} queries x {results['rounds']} rounds (k={results['k']}), the "
        "adapter and the backend's own call in turn.",
        "",
        "| operation | p50 ms | p95 ms | p99 ms | n |",
        "|---|---:|---:|---:|---:|",
    ]
    for operation in ("remember", "recall"):
        lines.append(row(f"{operation}, through the adapter", results[operation]["adapter"]))
        lines.append(row(f"{operation}, the backend's own API", results[operation]["native"]))
    lines += [
        "",
        f"Adapter overhead at p50: remember **{results['remember']['overhead_p50_pct']} %**, "
        f"recall **{results['recall']['overhead_p50_pct']} %** (target ≤ 10 %).",
    ]
    moved = results.get("import")
    if moved is not None:
        lines += [
            "",
            f"Import of the {moved['records']} memories as archive pages: "
            f"{moved['adapter_records_per_s']} records/s ({moved['adapter_seconds']} s) through "
            f"the adapter, {moved['native_records_per_s']} records/s ({moved['native_seconds']} "
            f"s) by the backend's own writes; the adapter's cost: **{moved['overhead_pct']} %**.",
        ]
    return "\n".join(lines)


def _facades(results: Mapping[str, Any]) -> str:
    lines = [
        f"{results['store']}; {results['memories']} memories, {results['queries']} queries x "
        f"{results['rounds']} rounds (k={results['k']}), each facade and the call it wraps in "
        "turn, each on a store of its own.",
        "",
        "| facade | operation | facade p50 ms | wrapped p50 ms | facade p95 ms | wrapped p95 ms "
        "| overhead at p50 |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for run in results["facades"]:
        for operation in ("remember", "recall"):
            measured = run[operation]
            lines.append(
                f"| {run['facade']} | {operation} | {measured['facade']['p50_ms']} | "
                f"{measured['wrapped']['p50_ms']} | {measured['facade']['p95_ms']} | "
                f"{measured['wrapped']['p95_ms']} | **{measured['overhead_p50_pct']} %** |"
            )
    lines += [
        "",
        "Wrapped calls: "
        + "; ".join(f"{r['facade']}: {r['wraps']}" for r in results["facades"])
        + ". Target: ≤ 5 % at p50.",
    ]
    return "\n".join(lines)


def _lifecycle(results: Mapping[str, Any]) -> str:
    cost = results["write_cost"]
    shipped, bare = cost["with_history"], cost["without_history"]

    def page(store: str, history: Mapping[str, Any]) -> str:
        return (
            f"| {store}: a history page of {history['versions']} versions ({history['records']} "
            f"records in a store of {history['store_records']:,}, {history['n']} reads) "
            f"| {history['p50_ms']} ms | {history['p95_ms']} ms | p50 ≤ 5 ms |"
        )

    return "\n".join(
        [
            "Duplicate detection (mnemowire.kit.duplicates, similarities from all-MiniLM-L6-v2) "
            "on the labelled pairs; target: precision ≥ 0.99 at recall ≥ 0.85 on the held-out "
            "file:",
            "",
            "| file | pairs (duplicates) | precision | recall | false merges | missed |",
            "|---|---:|---:|---:|---|---|",
            *(_duplicates_row(row) for row in results["duplicates"]),
            "",
            "`consolidate` as a dry run over one agent's records (all-MiniLM-L6-v2 vectors; "
            "one in a hundred followed by a planted copy); target: ≤ 60 s:",
            "",
            "| store | records | plan | records/s | groups | planted pairs found | "
            "other groups | peak RSS |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
            *(
                f"| {store} | {p['records']:,} | {p['seconds']} s | {p['records_per_s']:,} | "
                f"{p['groups']}{' (more)' if p['more'] else ''} | "
                f"{p['planted_found']} of {p['planted_pairs']} | {p['other_groups']} | "
                f"{p['peak_rss_mb']:,} MB |"
                for store, p in results["consolidate_plan"].items()
            ),
            "",
            f"{results['store']}, through the validating boundary.",
            "",
            "| measured | p50 | p95 | target |",
            "|---|---:|---:|---:|",
            page("sqlite-vec", results["history"]),
            page("pgvector", results["history_pgvector"]),
            *(
                f"| {store}: a procedure run's step (run_fire, {steps['machine_states']} states, "
                f"a store of {steps['store_records']:,} records, {steps['n']} events) "
                f"| {steps['p50_ms']} ms | {steps['p95_ms']} ms | "
                + ("p50 ≤ 2 ms |" if store == "sqlite-vec" else "none |")
                for store, steps in results["procedure_steps"].items()
            ),
            "",
            "What keeping history costs sqlite-vec's writes: the same writes on a store as "
            f"shipped and on one whose history triggers were dropped, {cost['turns']} turns in "
            "alternating "
            f"order, fresh files ({cost['records']:,} records bulk-loaded, then "
            f"{cost['updates']} updates):",
            "",
            "| side | bulk load | update p50 | update p95 |",
            "|---|---:|---:|---:|",
            f"| with history | {shipped['records_per_s']:,} records/s ({shipped['load_s']} s) | "
            f"{shipped['update_p50_ms']} ms | {shipped['update_p95_ms']} ms |",
            f"| without history | {bare['records_per_s']:,} records/s ({bare['load_s']} s) | "
            f"{bare['update_p50_ms']} ms | {bare['update_p95_ms']} ms |",
            f"| cost of history | **{cost['load_overhead_pct']} %** | "
            f"**{cost['update_overhead_pct']} %** | |",
        ]
    )


def _duplicates_row(row: Mapping[str, Any]) -> str:
    def kinds(counts: Mapping[str, int]) -> str:
        return ", ".join(f"{kind} {n}" for kind, n in counts.items()) or "none"

    return (
        f"| {row['file']} | {row['pairs']} ({row['duplicates']}) | {row['precision']} | "
        f"{row['recall']} | {row['false_merges']}: {kinds(row['false_merges_by_kind'])} | "
        f"{kinds(row['missed_by_kind'])} |"
    )


def _portability(results: Mapping[str, Any]) -> str:
    export, check = results["export"], results["verify_archive"]
    loaded = results["loaded"]

    def moved(name: str, run: Mapping[str, Any], target: str) -> str:
        again = run.get("rerun_with_verify")
        rerun = (
            ""
            if again is None
            else f"; the same command again with its verify pass: {again['seconds']} s "
            f"({again['records_per_s']:,} records/s), faithful: {again['faithful']}"
        )
        indexing = ""
        if "indexing_seconds" in run:
            indexing = (
                f", of which {run['indexing_seconds']} s building the indexes after the last "
                f"page (the pages alone: {run['pages_records_per_s']:,} records/s)"
            )
        return (
            f"| {name} | {run['records_per_s']:,} records/s ({run['seconds']} s{indexing}){rerun} "
            f"| {target} |"
        )

    return "\n".join(
        [
            f"{loaded['records']:,} records of one agent (a tenth archived) and "
            f"{loaded['erased']:,} erased ids in {results['store']}, through the validating "
            "boundary, as `mnemowire export|import|migrate` run them.",
            "",
            "| step | measured | target |",
            "|---|---|---:|",
            f"| export with vectors ({export['archive_mb']} MB archive) | "
            f"{export['records_per_s']:,} records/s ({export['seconds']} s) | ≥ 20,000 records/s |",
            f"| export, resident memory first → last page | {export['rss_mb_first_page']} → "
            f"{export['rss_mb_last_page']} MB (max {export['rss_mb_max']}) | constant |",
            f"| archive verified whole (schemas, counts, SHA-256) | {check['lines_per_s']:,} "
            f"lines/s ({check['seconds']} s) | |",
            moved("import into sqlite-vec, vectors reused", results["import_sqlite_vec"],
                  "≥ 5,000 records/s"),
            *_without_history(results.get("without_history")),
            moved("import into pgvector, vectors reused", results["import_pgvector"],
                  "≥ 5,000 records/s"),
            moved("migrate sqlite-vec → pgvector, no file", results[
                "migrate_sqlite_vec_to_pgvector"], "≥ 3,000 records/s"),
        ]
    )  # fmt: skip


def _without_history(side: Mapping[str, Any] | None) -> list[str]:
    """The export and the sqlite-vec import again without history, beside the rows with."""
    if side is None:
        return []
    export, written = side["export"], side["import_sqlite_vec"]
    return [
        f"| the same export without history ({export['archive_mb']} MB archive) | "
        f"{export['records_per_s']:,} records/s ({export['seconds']} s) | |",
        f"| the same import without history | {written['records_per_s']:,} records/s "
        f"({written['seconds']} s) | |",
    ]


_RENDERERS: dict[str, Callable[[Any], str]] = {
    "quality": _quality,
    "latency": _latency,
    "scale": _scale,
    "adversarial": _adversarial,
    "validation": _validation,
    "embedders": _embedders,
    "records": _records,
    "reviews": _reviews,
    "http": _http,
    "adapter": _adapter,
    "facades": _facades,
    "portability": _portability,
    "lifecycle": _lifecycle,
    "locomo": _locomo,
    "reference": _reference,
}
