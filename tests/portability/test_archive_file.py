"""The archive file's numbers come back as they went (docs/spec/v0.3.md#archive.record):
integers past 64 bits exactly (orjson would read them as floats), a vector of float32 values
as the same float32 values (written as float32 text, half the bytes), a vector of other
doubles exactly."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from mnemowire.portability import Archive, ArchiveWriter

BIG = 123456789012345678901234567890


def line(record_id: str, vector: list[float], metadata: dict[str, object]) -> dict[str, object]:
    record = {"id": record_id, "agent_id": "a", "type": "semantic", "content": "x",
              "created_at": 1, "metadata": metadata}  # fmt: skip
    return {"kind": "record", "state": "active", "record": record, "vector": vector}


def test_long_integers_and_both_kinds_of_vector_read_back(tmp_path: Path) -> None:
    narrow = np.random.default_rng(0).standard_normal(16).astype(np.float32).tolist()
    wide = [0.1, 0.2, 1 / 3, 2.0**-60, 1e300]  # not float32 values (the last past its range)
    out = io.BytesIO()
    writer = ArchiveWriter(out, {"created_at": 1, "source": {"store": "s", "kind": "s"},
                                 "scope": {"agent_ids": ["a"]}})  # fmt: skip
    writer.record(line("01J0000000000000000000000A", narrow, {}))
    writer.record(line("01J0000000000000000000000B", wide, {"big": BIG, "n": -(2**70)}))
    writer.record(line("01J0000000000000000000000C", narrow, {"big": BIG}))
    writer.close()
    path = tmp_path / "a.jsonl"
    path.write_bytes(out.getvalue())
    text = out.getvalue().splitlines()
    assert b'"vector":[0.12573022,' in text[1]  # float32's shortest text, not 0.1257302165...
    assert b"0.1,0.2,0.3333333333333333" in text[2]
    assert b"1e+300" in text[2]
    archive = Archive(path).verify()
    [page] = list(archive.pages(10))
    first, second, third = page.records
    assert np.array_equal(np.float32(first["vector"]), np.float32(narrow))
    assert second["vector"] == wide
    assert second["record"]["metadata"] == {"big": BIG, "n": -(2**70)}
    assert third["record"]["metadata"] == {"big": BIG}
    assert np.array_equal(np.float32(third["vector"]), np.float32(narrow))
