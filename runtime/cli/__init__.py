"""The ``mnemowire`` command line: thin click commands over the library, JSON in and out."""

from mnemowire.cli import _bench, _bench_store, _codegen, _demo, _operations, _spec
from mnemowire.cli._app import Exit, cli, main

__all__ = ["Exit", "cli", "main"]
del (
    _bench,
    _bench_store,
    _codegen,
    _demo,
    _operations,
    _spec,
)  # imported for their side effect: registering their commands on ``cli``
