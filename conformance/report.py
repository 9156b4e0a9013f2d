"""The certification report: built from outcomes, written as JSON under the published schema
(spec/conformance/report.schema.json), and read back for rendering and comparison."""

from __future__ import annotations

import datetime
import json
import platform
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from mnemowire import __version__, spec
from mnemowire.conformance._harness import Outcome, RunOptions, Tally

__all__ = ["Report", "load_report", "validate_report"]


@dataclass(frozen=True)
class Report:
    """A certification report as JSON-ready data (see the schema for every field)."""

    data: dict[str, Any]

    @classmethod
    def build(
        cls,
        outcomes: Sequence[Outcome],
        *,
        adapter: str,
        capabilities: Sequence[str],
        fidelity: Mapping[str, str] | None = None,
        options: RunOptions,
        fuzz_store: str | None,
        started: datetime.datetime,
        duration_s: float,
    ) -> Report:
        files = spec.read_spec()
        header = {
            "harness": "mnemowire-conformance",
            "harness_version": __version__,
            "spec_version": files.version,
            "spec_digest": files.digest,
            "adapter": {
                "name": adapter,
                "capabilities": sorted(capabilities),
                **({"fidelity": dict(fidelity)} if fidelity is not None else {}),
            },
            "fuzz_store": fuzz_store,
            "seed": options.seed,
            "examples": options.examples,
            "stateful_runs": options.stateful_runs,
            "python": sys.version.split()[0],
            "platform": f"{platform.system()} {platform.machine()}",
            "started_at": started.isoformat(timespec="seconds"),
            "duration_s": round(duration_s, 2),
        }
        checks = [
            {
                "id": o.check.id,
                "section": o.check.section,
                "document": o.check.document,
                "strength": o.check.strength,
                "summary": o.check.summary,
                "status": o.status,
                "reason": o.reason,
                "reproducer": o.reproducer,
                "duration_ms": o.duration_ms,
                **({"found": dict(o.found)} if o.found else {}),
            }
            for o in outcomes
        ]
        return cls({"header": header, "checks": checks, "summary": Tally.of(outcomes).counts})

    @property
    def adapter(self) -> str:
        return str(self.data["header"]["adapter"]["name"])

    @property
    def summary(self) -> dict[str, int]:
        return dict(self.data["summary"])

    def status(self, check_id: str) -> str | None:
        return next((c["status"] for c in self.data["checks"] if c["id"] == check_id), None)

    def to_json(self) -> str:
        return json.dumps(self.data, indent=2, ensure_ascii=False) + "\n"

    def save(self, path: Path) -> None:
        validate_report(self.data)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_json(), encoding="utf-8")


def _schema() -> dict[str, Any]:
    text = resources.files("mnemowire.schemas").joinpath("conformance/report.schema.json")
    schema: dict[str, Any] = json.loads(text.read_text(encoding="utf-8"))
    return schema


def validate_report(data: Any) -> None:
    """Raise jsonschema.ValidationError unless ``data`` is a valid report."""
    jsonschema.Draft202012Validator(_schema()).validate(data)


def load_report(path: Path) -> Report:
    data = json.loads(path.read_text(encoding="utf-8"))
    validate_report(data)
    return Report(data)
