"""A memorywire archive file (docs/spec/v0.3.md#archive.format): JSON Lines, a manifest first,
record and tombstone lines, an end line with the counts and the SHA-256 of every byte before it.

``ArchiveWriter`` streams lines out and closes the file with its end line. ``Archive`` reads
one back in two passes over the file, so memory stays flat however large it is: ``verify``
checks every line against its schema, the counts and the digest, and refuses the file naming
the line and the rule before anything is written anywhere; ``pages`` then hands out its lines
in pages for an import."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import orjson

from mnemowire import spec
from mnemowire.errors import RequestError
from mnemowire.kit import json_bytes
from mnemowire.kit.archive import decoded_vector

__all__ = ["FORMAT", "FORMAT_VERSION", "Archive", "ArchiveWriter", "Page"]

FORMAT = "memorywire-archive"
FORMAT_VERSION = 1
#: the spec version whose schemas the lines are checked against
SPEC_VERSION = "v0.3"
_KINDS = {"record": "archive-record", "tombstone": "archive-tombstone"}


#: a run of 19 digits, which no 64-bit integer or double's shortest text has: orjson would
#: read such an integer as a float, so its line is read by json instead. Looked for in a copy of
#: the line with every digit as ``1`` and every other byte as ``0`` (two C passes: a regular
#: expression took ten times as long on a line carrying a vector)
_DIGIT_MAP = bytes(0x31 if 0x30 <= byte <= 0x39 else 0x30 for byte in range(256))
_LONG_DIGITS = b"1" * 19


def _line(data: dict[str, Any]) -> bytes:
    """One line: compact JSON (orjson), a vector written as float32 text when its numbers are
    float32 values (every store here keeps float32: half the bytes, the same numbers read
    back), otherwise as the doubles they are."""
    vector = data.get("vector")
    if vector is not None:
        with np.errstate(over="ignore"):  # a double past float32's range: kept as a double
            narrow = np.asarray(vector, dtype=np.float32)
        if np.array_equal(narrow, np.asarray(vector, dtype=np.float64)):
            data = {**data, "vector": narrow}
    return json_bytes(data) + b"\n"


def _loads(raw: bytes) -> Any:
    """A line's JSON value, exactly: orjson, or json where orjson would round a long integer
    or refuses what json reads (NaN, a lone surrogate), so the schema check names it."""
    if _LONG_DIGITS not in raw.translate(_DIGIT_MAP):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw)


class ArchiveWriter:
    """Writes an archive to ``out`` (binary), the digest taken as the bytes go."""

    def __init__(self, out: IO[bytes], manifest: dict[str, Any]) -> None:
        self._out = out
        self._digest = hashlib.sha256()
        self.records = 0
        self.tombstones = 0
        self._write({"kind": "manifest", "format": FORMAT, "format_version": FORMAT_VERSION,
                     "spec_version": SPEC_VERSION, **manifest})  # fmt: skip

    def _write(self, data: dict[str, Any]) -> None:
        self._written(_line(data))

    def _written(self, lines: bytes) -> None:
        self._digest.update(lines)
        self._out.write(lines)

    def page(self, page: Page) -> None:
        """A page's record lines, then its tombstones: hashed and written together (one
        digest update and one write a page, not a line)."""
        self._written(b"".join([*map(_line, page.records), *map(_line, page.tombstones)]))
        self.records += len(page.records)
        self.tombstones += len(page.tombstones)

    def close(self) -> str:
        """Write the end line; the archive's digest."""
        sha = self._digest.hexdigest()
        end = {"kind": "end", "records": self.records, "tombstones": self.tombstones, "sha256": sha}
        self._out.write(_line(end))
        self._out.flush()
        return sha


@dataclass
class Page:
    """A page of an archive's lines for one import request."""

    records: list[dict[str, Any]] = field(default_factory=list)
    tombstones: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.records) + len(self.tombstones)


def _refuse(
    path: Path, number: int, message: str, pointer: str = "", rule: str = "archive"
) -> RequestError:
    return RequestError(
        f"{path}: line {number}: {message}; nothing was imported",
        details=[{"path": f"/line/{number}{pointer}", "rule": rule, "message": message}],
    )


class Archive:
    """An archive file, read in two passes (``verify``, then ``pages``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.manifest: dict[str, Any] = {}
        self.sha256 = ""
        self.records = 0
        self.tombstones = 0
        #: every agent a line names, in the order first named
        self.agents: list[str] = []

    def verify(self) -> Archive:
        """Check the whole file (RequestError naming the line and the rule): a manifest first,
        each line valid under its schema, an end line last whose counts and digest match."""
        digest = hashlib.sha256()
        records = tombstones = 0
        agents: dict[str, None] = {}
        end: dict[str, Any] | None = None
        number = 0
        checks = {kind: spec.validator(message, version=SPEC_VERSION)
                  for kind, message in _KINDS.items()}  # fmt: skip
        with self.path.open("rb") as source:
            for number, raw in enumerate(source, start=1):
                if end is not None:
                    raise _refuse(self.path, number, "a line follows the end line", rule="end")
                data = self._parse(raw, number)
                kind = data.get("kind") if isinstance(data, dict) else None
                if number == 1:
                    self._manifest(data, number)
                elif kind == "end":
                    end = data
                    continue
                elif kind in checks:
                    problems = checks[kind].errors(data)
                    if problems:
                        first = problems[0]
                        raise _refuse(
                            self.path, number, f"{kind} line: {first['path'] or '/'} "
                            f"breaks {first['rule']}: {first['message']}",
                            first["path"], first["rule"],
                        )  # fmt: skip
                    if kind == "record":
                        self._vector(data, number)
                    agent = data["record"]["agent_id"] if kind == "record" else data["agent_id"]
                    agents.setdefault(agent, None)
                    records += kind == "record"
                    tombstones += kind == "tombstone"
                else:
                    raise _refuse(
                        self.path, number, f"unknown line kind {kind!r} (record, tombstone, "
                        "end)", "/kind", "enum",
                    )  # fmt: skip
                digest.update(raw)
        if number == 0:
            raise _refuse(
                self.path, 1, "the file is empty, not a memorywire archive", rule="format"
            )
        if end is None:
            raise _refuse(
                self.path, number, "the archive ends without its end line: it was cut short "
                "(copy it again, or export again)", rule="end",
            )  # fmt: skip
        self._end(end, number, records, tombstones, digest.hexdigest())
        self.agents = list(agents)
        return self

    def _vector(self, line: dict[str, Any], number: int) -> None:
        """A record line's vector reads as float32 values, whichever its form."""
        try:
            decoded_vector(line.get("vector"), line.get("vector_base64"), "")
        except RequestError as exc:
            [detail] = exc.envelope["details"]
            raise _refuse(self.path, number, f"record line: {detail['path']} breaks "
                          f"{detail['rule']}: {detail['message']}", detail["path"],
                          detail["rule"]) from None  # fmt: skip

    def _parse(self, raw: bytes, number: int) -> Any:
        try:
            return _loads(raw)
        except (UnicodeDecodeError, ValueError) as exc:
            raise _refuse(self.path, number, f"not a JSON line ({exc})", rule="json") from None

    def _manifest(self, data: Any, number: int) -> None:
        if (
            not isinstance(data, dict)
            or data.get("kind") != "manifest"
            or data.get("format") != FORMAT
        ):
            raise _refuse(
                self.path, number, "not a memorywire archive (its first line must be the "
                "archive's manifest: docs/portability.md#format)", rule="format",
            )  # fmt: skip
        problems = spec.validator("archive-manifest", version=SPEC_VERSION).errors(data)
        if problems:
            first = problems[0]
            raise _refuse(self.path, number, f"manifest: {first['path']} breaks {first['rule']}: "
                          f"{first['message']}", first["path"], first["rule"])  # fmt: skip
        if data["format_version"] > FORMAT_VERSION:
            raise _refuse(
                self.path, number, f"format_version {data['format_version']} is newer than this "
                f"mnemowire reads ({FORMAT_VERSION}); upgrade mnemowire", "/format_version",
                "format_version",
            )  # fmt: skip
        self.manifest = data

    def _end(
        self, end: dict[str, Any], number: int, records: int, tombstones: int, sha: str
    ) -> None:
        problems = spec.validator("archive-end", version=SPEC_VERSION).errors(end)
        if problems:
            first = problems[0]
            raise _refuse(self.path, number, f"end line: {first['path']} breaks "
                          f"{first['rule']}", first["path"], first["rule"])  # fmt: skip
        if (end["records"], end["tombstones"]) != (records, tombstones):
            raise _refuse(
                self.path, number, f"the end line counts {end['records']} records and "
                f"{end['tombstones']} tombstones, the file holds {records} and {tombstones}: "
                "lines were added or removed", "/records", "counts",
            )  # fmt: skip
        if end["sha256"] != sha:
            raise _refuse(
                self.path, number, "the archive's digest does not match its lines: a line was "
                "edited, reordered or replaced after export", "/sha256", "digest",
            )  # fmt: skip
        self.sha256, self.records, self.tombstones = sha, records, tombstones

    def pages(self, size: int) -> Iterator[Page]:
        """The record and tombstone lines, ``size`` at most a page (after ``verify``)."""
        page = Page()
        with self.path.open("rb") as source:
            next(source)  # the manifest
            for raw in source:
                data = _loads(raw)
                if data["kind"] == "record":
                    page.records.append(data)
                elif data["kind"] == "tombstone":
                    page.tombstones.append(data)
                if len(page) >= size:
                    yield page
                    page = Page()
        if len(page):
            yield page
