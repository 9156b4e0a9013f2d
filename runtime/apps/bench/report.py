"""Benchmark reports: one JSON document per benchmark run, under a published schema.

Every report is ``{"report": "mnemowire-bench", "report_version": 1, "benchmark", "environment",
"results"}`` and is checked against ``spec/bench/report.schema.json`` before it is written, so
no command can publish a report the schema does not describe. ``write`` puts
``<benchmark>.json`` and ``<benchmark>.md`` (the Markdown tables of ``render``) in the output
folder; plots are the benchmark's own (``mnemowire.apps.bench.plots``).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from mnemowire.apps.bench._timing import load_average

__all__ = ["BENCHMARKS", "load_report", "make_report", "schema", "validate_report", "write"]


@functools.cache
def schema() -> dict[str, Any]:
    """The report schema, as shipped in ``mnemowire.schemas``."""
    text = resources.files("mnemowire.schemas").joinpath("bench/report.schema.json")
    loaded: dict[str, Any] = json.loads(text.read_text(encoding="utf-8"))
    return loaded


#: the benchmarks a report may hold, as the schema names them
BENCHMARKS: tuple[str, ...] = tuple(schema()["properties"]["benchmark"]["enum"])


def validate_report(data: Any) -> None:
    """Raise jsonschema.ValidationError unless ``data`` is a valid benchmark report."""
    jsonschema.Draft202012Validator(
        schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    ).validate(data)


def make_report(benchmark: str, environment: dict[str, Any], results: Any) -> dict[str, Any]:
    """Wrap a benchmark's results with its environment; stamps the end-of-run load average."""
    if benchmark not in BENCHMARKS:
        raise ValueError(f"unknown benchmark {benchmark!r}; known: {', '.join(BENCHMARKS)}")
    env = {**environment, "load_average": {**environment["load_average"], "end": load_average()}}
    report = {
        "report": "mnemowire-bench",
        "report_version": 1,
        "benchmark": benchmark,
        "environment": env,
        "results": results,
    }
    validate_report(report)
    return report


def write(report: dict[str, Any], out: Path) -> list[Path]:
    """Validate, then write ``<benchmark>.json`` and ``<benchmark>.md`` into ``out``."""
    from mnemowire.apps.bench.markdown import render

    validate_report(report)
    out.mkdir(parents=True, exist_ok=True)
    name = report["benchmark"]
    data = out / f"{name}.json"
    data.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    table = out / f"{name}.md"
    table.write_text(render(report), encoding="utf-8")
    return [data, table]


def load_report(path: Path) -> dict[str, Any]:
    """Read a report back, validated."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    validate_report(data)
    return data
