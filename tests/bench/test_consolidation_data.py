"""The labelled duplicate pairs issue 34's consolidation is tuned and judged on
(runtime/apps/bench/consolidation/README.md): well formed, balanced as the README says, every
kind represented, and the held-out file independent of the tuning file, so a threshold picked
on one says something about the other."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

FOLDER = Path(__file__).parents[2] / "runtime" / "apps" / "bench" / "consolidation"
KINDS = {
    True: {"exact-noise", "paraphrase", "reordered", "elaborated", "pronoun"},
    False: {"value-changed", "entity-changed", "negation", "antonym-preference",
            "different-attribute", "temporal", "unrelated"},
}  # fmt: skip


def pairs(name: str) -> list[dict[str, object]]:
    lines = (FOLDER / f"duplicates-{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize(("name", "prefix", "least"), [("tune", "t", 240), ("holdout", "h", 320)])
def test_each_file_is_well_formed_and_balanced(name: str, prefix: str, least: int) -> None:
    rows = pairs(name)
    assert len(rows) >= least
    assert [r["id"] for r in rows] == [f"{prefix}-{n:03d}" for n in range(1, len(rows) + 1)]
    for row in rows:
        assert set(row) == {"id", "a", "b", "duplicate", "kind", "type"}, row["id"]
        assert row["kind"] in KINDS[bool(row["duplicate"])], row["id"]
        assert row["type"] in ("semantic", "episodic"), row["id"]
        assert all(5 <= len(str(row[side]).split()) <= 40 for side in ("a", "b")), row["id"]
    kinds = Counter(str(r["kind"]) for r in rows)
    assert set(kinds) == KINDS[True] | KINDS[False]
    assert min(kinds.values()) >= 12
    share = sum(bool(r["duplicate"]) for r in rows) / len(rows)
    assert 0.40 <= share <= 0.50  # the near misses, which a false merge comes from, lead


def test_the_held_out_file_shares_no_text_with_the_tuning_file() -> None:
    def texts(name: str) -> set[str]:
        return {str(r[side]).lower() for r in pairs(name) for side in ("a", "b")}

    assert texts("tune").isdisjoint(texts("holdout"))
