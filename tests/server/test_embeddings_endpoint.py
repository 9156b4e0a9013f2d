"""The OpenAI-compatible embedding endpoint a Letta server embeds through: OpenAI's request and
answer shapes (float and base64), the embedder's own vectors, and OpenAI's error envelope for
what it refuses."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
import pytest
from starlette.testclient import TestClient

from mnemowire.apps.tools.embeddings import MAX_INPUTS, create_app, main
from mnemowire.embedders import HashEmbedder

EMBEDDER = HashEmbedder(64)


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(EMBEDDER))


def _embed(client: TestClient, **body: Any) -> Any:
    return client.post("/v1/embeddings", json={"model": EMBEDDER.name, **body})


def test_vectors_are_the_embedders_as_floats_or_base64(client: TestClient) -> None:
    texts = ["Alice likes tea", "  ü 🎉 "]
    expected = EMBEDDER.embed(texts)
    floats = _embed(client, input=texts).json()
    assert [d["index"] for d in floats["data"]] == [0, 1]
    assert np.allclose([d["embedding"] for d in floats["data"]], expected)
    packed = _embed(client, input=texts, encoding_format="base64").json()
    for item, vector in zip(packed["data"], expected, strict=True):
        decoded = np.frombuffer(base64.b64decode(item["embedding"]), dtype="<f4")
        assert np.array_equal(decoded, vector)
    one = _embed(client, input="Alice likes tea").json()
    assert np.allclose(one["data"][0]["embedding"], expected[0])


def test_the_model_is_named_in_full_or_by_its_last_part(client: TestClient) -> None:
    assert client.get("/v1/models").json()["data"][0]["id"] == EMBEDDER.name
    short = EMBEDDER.name.rsplit("/", 1)[-1]
    assert client.post("/v1/embeddings", json={"model": short, "input": "x"}).status_code == 200
    other = client.post("/v1/embeddings", json={"model": "text-embedding-3-small", "input": "x"})
    assert other.status_code == 404
    assert other.json()["error"]["param"] == "model"
    assert EMBEDDER.name in other.json()["error"]["message"]


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"input": []}, "input"),
        ({"input": [1, 2, 3]}, "input"),
        ({"input": None}, "input"),
        ({"input": ["x"] * (MAX_INPUTS + 1)}, "input"),
        ({"input": "x", "encoding_format": "int8"}, "encoding_format"),
    ],
)
def test_bad_requests_get_openais_envelope(
    client: TestClient, body: dict[str, Any], param: str
) -> None:
    answer = _embed(client, **body)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param


def test_a_body_that_is_not_json_is_refused(client: TestClient) -> None:
    answer = client.post("/v1/embeddings", content=b"{not json")
    assert answer.status_code == 400
    assert "not JSON" in answer.json()["error"]["message"]


def test_an_unknown_embedder_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--embedder", "no-such-model", "--port", "0"]) == 2
    assert "no-such-model" in capsys.readouterr().err
