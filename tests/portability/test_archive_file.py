"""The archive file's numbers come back as they went (docs/spec/v0.3.md#archive.record):
integers past 64 bits exactly (orjson would read them as floats), a vector of float32 values
as the same float32 values (written as float32 text, half the bytes), a vector of other
doubles exactly, a base64 vector bit for bit; a vector that is not float32 values refuses the
archive before anything is written ([archive.vector])."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
import pytest

from mnemowire.errors import RequestError
from mnemowire.portability import Archive, ArchiveWriter, Page

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
    writer.page(Page([
        line("01J0000000000000000000000A", narrow, {}),
        line("01J0000000000000000000000B", wide, {"big": BIG, "n": -(2**70)}),
        line("01J0000000000000000000000C", narrow, {"big": BIG}),
    ]))  # fmt: skip
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


def _packed(values: np.ndarray) -> str:
    return base64.b64encode(values.astype("<f4").tobytes()).decode()


NAN_BITS = np.array([0.5, np.nan], dtype=np.float32)


@pytest.mark.parametrize(
    ("extra", "pointer", "rule"),
    [
        ({"vector": [0.5], "vector_base64": _packed(np.ones(1))}, "", "oneVector"),
        ({"vector_base64": base64.b64encode(b"\x00" * 6).decode()}, "/vector_base64", "float32"),
        ({"vector_base64": _packed(NAN_BITS)}, "/vector_base64", "json"),
        ({"vector_base64": "AAAA AAA="}, "/vector_base64", "pattern"),
    ],
)
def test_a_vector_that_is_not_float32_values_refuses_the_archive_naming_line_and_rule(
    tmp_path: Path, extra: dict[str, object], pointer: str, rule: str
) -> None:
    out = io.BytesIO()
    writer = ArchiveWriter(out, {"created_at": 1, "source": {"store": "s", "kind": "s"},
                                 "scope": {"agent_ids": ["a"]}})  # fmt: skip
    bad = line("01J0000000000000000000000B", [0.25], {})
    del bad["vector"]
    writer.page(Page([line("01J0000000000000000000000A", [0.25], {}), {**bad, **extra}]))
    writer.close()
    path = tmp_path / "a.jsonl"
    path.write_bytes(out.getvalue())
    with pytest.raises(RequestError) as refused:
        Archive(path).verify()
    [detail] = refused.value.envelope["details"]
    assert (detail["path"], detail["rule"]) == (f"/line/3{pointer}", rule)


def test_a_base64_vector_reads_back_as_the_same_float32_bits(tmp_path: Path) -> None:
    values = np.array([0.1, -0.0, 3.4e38, 1e-45], dtype=np.float32)
    out = io.BytesIO()
    writer = ArchiveWriter(out, {"created_at": 1, "source": {"store": "s", "kind": "s"},
                                 "scope": {"agent_ids": ["a"]}})  # fmt: skip
    packed = line("01J0000000000000000000000A", [0.0], {})
    del packed["vector"]
    writer.page(Page([{**packed, "vector_base64": _packed(values)}]))
    writer.close()
    path = tmp_path / "a.jsonl"
    path.write_bytes(out.getvalue())
    [page] = list(Archive(path).verify().pages(10))
    raw = base64.b64decode(page.records[0]["vector_base64"])
    assert raw == values.astype("<f4").tobytes()  # -0.0 and the subnormal too
