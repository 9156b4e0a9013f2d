"""The in-process vector index on its own: the sign-bit coarse pass past COARSE_ABOVE
candidates, against exact search on clustered vectors (embeddings of text cluster by topic)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from mnemowire.adapters.sqlite_vec._accel import COARSE_ABOVE, AgentIndex, sign_codes
from mnemowire.adapters.sqlite_vec._schema import NEVER, user_key

DIMENSION = 96
ROWS = 3 * COARSE_ABOVE


def unit(rows: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.float32]:
    return np.asarray(rows / np.linalg.norm(rows, axis=1, keepdims=True), np.float32)


@pytest.fixture(scope="module")
def clustered() -> tuple[AgentIndex, npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """An index over ROWS vectors in 300 clusters, and 50 queries near random members."""
    rng = np.random.default_rng(7)
    centres = unit(rng.normal(size=(300, DIMENSION)).astype(np.float32))
    vectors = unit(centres[rng.integers(0, 300, ROWS)] + 0.1 * rng.normal(size=(ROWS, DIMENSION)))
    rows = [
        (rowid, vectors[rowid].tobytes(), f"u{rowid % 2}", "semantic", rowid, None)
        for rowid in range(ROWS)
    ]
    index = AgentIndex("a", DIMENSION, vectors=np.zeros((0, DIMENSION), np.float32))
    index._reserve(ROWS)
    index._append(rows, NEVER)
    queries = unit(vectors[rng.integers(0, ROWS, 50)] + 0.05 * rng.normal(size=(50, DIMENSION)))
    return index, vectors, queries


def test_sign_codes_pack_one_bit_per_dimension_and_pad_with_zeros() -> None:
    vectors = np.array([[1.0, -1.0] * 48, [-0.5] * 96], np.float32)
    codes = sign_codes(vectors)
    assert codes.shape == (2, 2)  # 96 bits fill two 64-bit words
    assert [int(np.bitwise_count(row).sum()) for row in codes] == [48, 0]


def test_coarse_pass_keeps_recall_at_10_against_exact_search(
    clustered: tuple[AgentIndex, npt.NDArray[np.float32], npt.NDArray[np.float32]],
) -> None:
    index, vectors, queries = clustered
    found = 0
    for query in queries:
        exact = set(np.argsort(-(vectors @ query), kind="stable")[:10].tolist())
        hits = index.search(query, 10, user_key=None, types=None, created_min=None, now=0)
        assert len(hits) == 10
        assert [d for _, d in hits] == sorted(d for _, d in hits)
        found += len(exact & {rowid for rowid, _ in hits})
    assert found / (10 * len(queries)) >= 0.95


def test_filters_apply_before_the_coarse_pass(
    clustered: tuple[AgentIndex, npt.NDArray[np.float32], npt.NDArray[np.float32]],
) -> None:
    """Half the rows belong to user u1: still more than COARSE_ABOVE candidates, and every
    hit is u1's, exactly the user's nearest when recall is right."""
    index, vectors, queries = clustered
    mine = np.arange(ROWS)[np.arange(ROWS) % 2 == 1]
    for query in queries[:10]:
        hits = index.search(query, 20, user_key=user_key("u1"), types=None, created_min=None, now=0)
        assert len(hits) == 20
        assert all(rowid % 2 == 1 for rowid, _ in hits)
        exact = set(mine[np.argsort(-(vectors[mine] @ query), kind="stable")[:20]].tolist())
        assert len(exact & {rowid for rowid, _ in hits}) >= 18


def test_removed_rows_never_come_back_from_the_coarse_pass(
    clustered: tuple[AgentIndex, npt.NDArray[np.float32], npt.NDArray[np.float32]],
) -> None:
    index, _, queries = clustered
    [(nearest, _)] = index.search(queries[0], 1, user_key=None, types=None, created_min=None, now=0)
    index.alive[index.position[nearest]] = False
    try:
        again = index.search(queries[0], 50, user_key=None, types=None, created_min=None, now=0)
        assert nearest not in {rowid for rowid, _ in again}
    finally:
        index.alive[index.position[nearest]] = True
