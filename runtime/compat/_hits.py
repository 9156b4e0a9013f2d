"""What a recall hit scores as, for the libraries whose searches report one score per hit."""

from __future__ import annotations

from mnemowire.models import RecallHit

__all__ = ["hit_score"]


def hit_score(hit: RecallHit) -> float:
    """The hit's relevance (cosine similarity, comparable across queries) where the store
    measures it, else its fused score (meaningful within one answer only)."""
    return hit.relevance if hit.relevance is not None else hit.score
