"""Retrieval quality: hand-written corpora, labelled queries, and the runner that scores a store.

Two corpora, each labelled before anything was measured on it, shipped as package data so anyone
can rerun the numbers in docs/benchmarks.md: ``dev`` (``corpus.jsonl``, 310 memories;
``queries.jsonl``, 165 queries), on which the stores were built and tuned, and ``holdout``
(``holdout/``, 360 memories, 163 queries), written later by someone who had not read ``dev``,
other people and topics, on which nothing was tuned (``CORPORA``).
"""

from mnemowire.apps.bench.quality._data import (
    CLASSES,
    CORPORA,
    CorpusError,
    CorpusMemory,
    LabelledQuery,
    load_corpus,
    load_queries,
    parse_corpus,
    parse_queries,
)
from mnemowire.apps.bench.quality._run import (
    DEFAULT_FLOORS,
    MAX_RECALL_LOSS,
    corpus_summary,
    run_quality,
    transfer,
)

__all__ = [
    "CLASSES",
    "CORPORA",
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
    "transfer",
]
