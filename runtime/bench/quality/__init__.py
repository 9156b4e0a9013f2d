"""Retrieval quality: a hand-written corpus, labelled queries, and the runner that scores a store.

The corpus (``corpus.jsonl``, 310 memories) and queries (``queries.jsonl``, 165 queries) were
written for mnemowire, labelled before anything was measured on them, and are shipped as
package data so anyone can rerun the numbers in docs/benchmarks.md.
"""

from mnemowire.bench.quality._data import (
    CLASSES,
    CorpusError,
    CorpusMemory,
    LabelledQuery,
    load_corpus,
    load_queries,
    parse_corpus,
    parse_queries,
)
from mnemowire.bench.quality._run import (
    DEFAULT_FLOORS,
    MAX_RECALL_LOSS,
    corpus_summary,
    run_quality,
)

__all__ = [
    "CLASSES",
    "DEFAULT_FLOORS",
    "MAX_RECALL_LOSS",
    "CorpusError",
    "CorpusMemory",
    "LabelledQuery",
    "corpus_summary",
    "load_corpus",
    "load_queries",
    "parse_corpus",
    "parse_queries",
    "run_quality",
]
