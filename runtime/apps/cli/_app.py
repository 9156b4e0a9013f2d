"""The root ``mnemowire`` command group and the exit codes every command shares."""

from __future__ import annotations

import enum
import signal
from types import FrameType
from typing import NoReturn

import click

from mnemowire._version import __version__

__all__ = ["Exit", "cli", "main"]


class Exit(enum.IntEnum):
    """Exit codes: scripts rely on them, so they never change meaning."""

    OK = 0
    #: a message was invalid or an operation was rejected; stdout holds the error envelope
    REJECTED = 1
    #: the command line itself was wrong (click's own code for usage errors)
    USAGE = 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mnemowire")
def cli() -> None:
    """mnemowire: the memorywire agent-memory wire format, made real."""


def main() -> None:
    # SIGTERM (a CI timeout, `kill`) ends a command as Ctrl-C does, so what it started (a local
    # PostgreSQL for a benchmark, a temporary folder) is stopped by the code that started it;
    # Python's default ends the process at once and left such a server running
    signal.signal(signal.SIGTERM, _terminate)
    cli()


def _terminate(signum: int, _frame: FrameType | None) -> NoReturn:
    raise SystemExit(128 + signum)
