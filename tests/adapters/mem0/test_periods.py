"""[recall.named-period] on the mem0 store: the store kit's document stores rank by a period
the query names as sqlite-vec and pgvector do (tests/adapters/_semantics_periods.py)."""

from tests.adapters._semantics_periods import *  # noqa: F403  (pytest collects the imported tests)
