"""How well ``mnemowire.kit.duplicates`` tells duplicate memories from near misses, on the
labelled pairs in ``consolidation/`` (README there): the false-merge rate is the number that
matters, so precision leads. The similarity each verdict weighs is the real embedder's
(all-MiniLM-L6-v2), as a consolidation over a store made with it would see."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from mnemowire.embedders import Embedder
from mnemowire.kit.duplicates import judge

__all__ = ["DATA", "score_pairs"]

DATA = Path(__file__).parent / "consolidation"


def score_pairs(embedder: Embedder, name: str) -> dict[str, Any]:
    """Precision, recall, and the false merges and misses by kind, on ``duplicates-{name}``."""
    lines = (DATA / f"duplicates-{name}.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    first = np.asarray(embedder.embed([row["a"] for row in rows]), dtype=np.float32)
    second = np.asarray(embedder.embed([row["b"] for row in rows]), dtype=np.float32)
    first /= np.linalg.norm(first, axis=1, keepdims=True)
    second /= np.linalg.norm(second, axis=1, keepdims=True)
    similarity = (first * second).sum(axis=1)
    false_merges: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    merged = 0
    for row, cosine in zip(rows, similarity, strict=True):
        verdict = judge(row["a"], row["b"], float(cosine))
        if verdict.duplicate and row["duplicate"]:
            merged += 1
        elif verdict.duplicate:
            false_merges[row["kind"]] += 1
        elif row["duplicate"]:
            missed[row["kind"]] += 1
    duplicates = sum(1 for row in rows if row["duplicate"])
    proposed = merged + sum(false_merges.values())
    return {
        "file": f"duplicates-{name}.jsonl",
        "pairs": len(rows),
        "duplicates": duplicates,
        "precision": round(merged / proposed, 3) if proposed else 1.0,
        "recall": round(merged / duplicates, 3),
        "false_merges": sum(false_merges.values()),
        "false_merges_by_kind": dict(sorted(false_merges.items())),
        "missed_by_kind": dict(sorted(missed.items())),
    }
