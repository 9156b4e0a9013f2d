"""Reports for people: a Markdown summary, a filterable HTML matrix, a shields.io badge."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

from mnemowire.conformance.report import Report

__all__ = ["badge", "html_matrix", "markdown", "ran"]

_COLOR = {"PASS": "#2da44e", "FAIL": "#cf222e", "SKIP": "#9a6700", "ERROR": "#8250df"}


def badge(report: Report) -> dict[str, Any]:
    """shields.io endpoint JSON: https://shields.io/badges/endpoint-badge."""
    counts = report.summary
    ran = counts["PASS"] + counts["FAIL"] + counts["ERROR"]
    failing = counts["FAIL"] + counts["ERROR"]
    color = "brightgreen" if failing == 0 else "red"
    skipped = f", {counts['SKIP']} skipped" if counts["SKIP"] else ""
    return {
        "schemaVersion": 1,
        "label": f"memorywire {report.data['header']['spec_version']}",
        "message": f"{counts['PASS']}/{ran} pass{skipped}",
        "color": color,
    }


def markdown(report: Report, spec_href: str | None = None) -> str:
    """One adapter's results: counts, then every check that did not pass (with its reason and
    reproducer), then all checks. ``spec_href`` is where the spec's prose is, relative to the
    report (``write_outputs`` finds it); without one, sections are named, not linked."""
    header = report.data["header"]
    counts = report.summary
    lines = [
        f"# Conformance: {report.adapter}",
        "",
        f"memorywire {header['spec_version']} ({header['spec_digest'][:19]}…), harness "
        f"{header['harness_version']}, seed {header['seed']}, {header['examples']} generated "
        f"requests per schema, {header['stateful_runs']} stateful runs, "
        f"{header['duration_s']} s on {header['platform']} (Python {header['python']}).",
    ]
    if header.get("fuzz_store"):
        lines.append(f"Fuzzing and stateful checks ran on `{header['fuzz_store']}`.")
    lines += [
        "",
        f"**{counts['PASS']} PASS · {counts['FAIL']} FAIL · {counts['SKIP']} SKIP · "
        f"{counts['ERROR']} ERROR** ({ran(report)} checks ran; a SHOULD or MAY that is not met "
        "is a warning, not a failure)",
        "",
    ]
    problems = [c for c in report.data["checks"] if c["status"] != "PASS"]
    if problems:
        lines += ["| check | strength | status | reason |", "|---|---|---|---|"]
        lines += [
            f"| `{c['id']}` | {c['strength']} | {c['status']} | {_cell(c['reason'])} |"
            for c in problems
        ]
        lines.append("")
        for c in problems:
            if c.get("reproducer"):
                lines += [f"Reproducer of `{c['id']}`:", "", "```", c["reproducer"], "```", ""]
    lines += ["| check | section | strength | status |", "|---|---|---|---|"]
    lines += [
        f"| `{c['id']}` | {_section(c['section'], c.get('document', 'v0.md'), spec_href)} "
        f"| {c['strength']} | {c['status']} |"
        for c in report.data["checks"]
    ]
    return "\n".join(lines) + "\n"


def ran(report: Report) -> int:
    """How many checks ran (every status but SKIP)."""
    counts = report.summary
    return counts["PASS"] + counts["FAIL"] + counts["ERROR"]


def _section(section: str, document: str, spec_href: str | None) -> str:
    if spec_href is None:
        return f"{document}#{section}"
    return f"[{section}]({spec_href}/{document}#{section})"


def html_matrix(reports: Sequence[Report]) -> str:
    """A static page: checks as rows, adapters as columns, each cell its status with the reason
    and reproducer one click away, a box to filter by text (id, section, status, reason)."""
    checks: dict[str, dict[str, Any]] = {}
    for report in reports:
        for item in report.data["checks"]:
            checks.setdefault(item["id"], item)
    head = "".join(f"<th>{html.escape(r.adapter)}</th>" for r in reports)
    rows = []
    for check_id, item in checks.items():
        cells = []
        for report in reports:
            found = next((c for c in report.data["checks"] if c["id"] == check_id), None)
            cells.append(_cell_html(found))
        rows.append(
            f"<tr><td><code>{html.escape(check_id)}</code></td>"
            f"<td>{html.escape(item.get('document', 'v0.md'))}#{html.escape(item['section'])}</td>"
            f"<td>{item['strength']}</td>"
            f"<td>{html.escape(item['summary'])}</td>{''.join(cells)}</tr>"
        )
    totals = "".join(
        f"<td>{r.summary['PASS']} of {ran(r)} run pass"
        + (f"; {r.summary['SKIP']} skipped" if r.summary["SKIP"] else "")
        + (
            f"; {r.summary['FAIL'] + r.summary['ERROR']} failing"
            if r.summary["FAIL"] + r.summary["ERROR"]
            else ""
        )
        + "</td>"
        for r in reports
    )
    return _PAGE.format(
        head=head,
        rows="\n".join(rows),
        totals=totals,
        data=html.escape(json.dumps([r.adapter for r in reports])),
    )


def _cell_html(found: dict[str, Any] | None) -> str:
    if found is None:
        return '<td style="color:#6e7781">—</td>'
    status = found["status"]
    color = _COLOR.get(status, "#6e7781")
    if not found.get("reason") and not found.get("reproducer"):
        return f'<td style="color:{color}">{status}</td>'
    body = html.escape(found.get("reason") or "")
    if found.get("reproducer"):
        body += f"<pre>{html.escape(found['reproducer'])}</pre>"
    return (
        f'<td style="color:{color}"><details><summary>{status}</summary>'
        f'<div class="why">{body}</div></details></td>'
    )


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:300]


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>memorywire conformance</title>
<style>
body {{ font: 14px system-ui, sans-serif; margin: 2rem; }}
table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #d0d7de; padding: 4px 8px; }}
th {{ background: #f6f8fa; position: sticky; top: 0; }}
input {{ margin-bottom: 1rem; width: 24rem; }}
details .why {{ color: #1f2328; max-width: 40rem; white-space: normal; }}
pre {{ white-space: pre-wrap; font-size: 12px; }}
</style></head><body data-adapters="{data}">
<h1>memorywire conformance</h1>
<input id="filter" placeholder="filter: check id, section, status, reason (e.g. FAIL, forget)">
<table><thead><tr>
<th>check</th><th>section</th><th>strength</th><th>what it verifies</th>{head}</tr>
</thead><tbody id="rows">
{rows}
</tbody><tfoot><tr><td colspan="4">passing</td>{totals}</tr></tfoot></table>
<script>
document.getElementById("filter").addEventListener("input", function (event) {{
  var needle = event.target.value.toLowerCase();
  document.querySelectorAll("#rows tr").forEach(function (row) {{
    row.style.display = row.textContent.toLowerCase().includes(needle) ? "" : "none";
  }});
}});
</script></body></html>
"""
