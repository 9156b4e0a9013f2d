"""What a transport sends: kit.json_bytes writes every validated message exactly."""

from __future__ import annotations

import json

import numpy as np

from mnemowire.kit import json_bytes


def test_a_float32_vector_reads_back_as_the_same_float32s_in_fewer_bytes() -> None:
    vector = np.random.default_rng(7).standard_normal(384).astype(np.float32)
    sent = json_bytes({"query_vector": {"embedder": "e", "vector": vector}})
    read = np.asarray(json.loads(sent)["query_vector"]["vector"], np.float32)
    assert np.array_equal(read, vector)
    assert len(sent) < len(json.dumps(vector.tolist()))  # float32 text, not float64's


def test_what_orjson_refuses_is_written_by_json_exactly() -> None:
    huge = 10**30  # JSON allows it in metadata; orjson stops at 64 bits
    message = {"metadata": {"n": huge, "v": np.array([0.5], np.float32)}, "content": "café"}
    assert json.loads(json_bytes(message)) == {"metadata": {"n": huge, "v": [0.5]},
                                               "content": "café"}  # fmt: skip


def test_text_is_utf8_and_text_that_is_not_unicode_is_escaped_not_lost() -> None:
    assert json_bytes({"content": "café ☕"}) == '{"content":"café ☕"}'.encode()
    assert json.loads(json_bytes({"field": "\ud800"})) == {"field": "\ud800"}


def test_integers_and_floats_keep_their_kind() -> None:
    assert json.loads(json_bytes({"k": 5, "confidence": 1.0})) == {"k": 5, "confidence": 1.0}
    assert b'"confidence":1.0' in json_bytes({"confidence": 1.0})
