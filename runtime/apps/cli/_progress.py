"""Progress bars on stderr for long benchmark runs (stdout stays the report)."""

from __future__ import annotations

import logging
import sys
from typing import Any

import click

__all__ = ["Bars", "show_progress"]


class Bars:
    """A ``progress(stage, done, total)`` callback: one click progress bar per stage, each
    finished when the next stage starts."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._stage: str | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self._stage or self._bar is None or self._bar.length != total:
            self.close()
            self._bar = click.progressbar(length=total, label=stage, file=sys.stderr)
            self._stage = stage
        self._bar.update(done - self._bar.pos)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.render_finish()
            self._bar = None
            self._stage = None


class _Stderr(logging.Handler):
    """Log records as lines on the stderr of the moment (click's, under its test runner)."""

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(self.format(record), err=True)


def show_progress() -> None:
    """Show on stderr what the library logs while it works (a one-time model export, a model
    load), so a first command that takes 20 s says why while it waits. Once per process."""
    logger = logging.getLogger("mnemowire")
    if not any(isinstance(handler, _Stderr) for handler in logger.handlers):
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("mnemowire: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
