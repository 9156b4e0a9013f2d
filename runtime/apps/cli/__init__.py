"""The ``mnemowire`` command line: thin click commands over the library, JSON in and out."""

from mnemowire.apps.cli import (  # noqa: F401  (each module registers its commands on ``cli``)
    _audit,
    _bench,
    _bench_adversarial,
    _bench_locomo,
    _bench_pgvector,
    _bench_reference,
    _bench_suite,
    _browse,
    _capabilities,
    _certify,
    _codegen,
    _consolidate,
    _demo,
    _five,
    _mcp,
    _operations,
    _portability,
    _promote,
    _review,
    _runs,
    _serve,
    _spec,
    _spec_changelog,
    _spec_diff,
)
from mnemowire.apps.cli._app import Exit, cli, main

__all__ = ["Exit", "cli", "main"]
