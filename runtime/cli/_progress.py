"""Progress bars on stderr for long benchmark runs (stdout stays the report)."""

from __future__ import annotations

import sys
from typing import Any

import click

__all__ = ["Bars"]


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
