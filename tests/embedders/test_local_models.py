"""The real all-MiniLM-L6-v2 on both backends: shapes, norms, determinism, equality, meaning."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest

from mnemowire.apps.bench.embedders import sentences
from mnemowire.embedders import (
    MINILM_DIMENSION,
    MINILM_NAME,
    Embedder,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    Vectors,
)
from mnemowire.embedders._onnx import TOLERANCE
from mnemowire.embedders._sentence_transformers import SMALL_CALL, cores

BACKENDS = ["onnx_embedder", "torch_embedder"]
EDGE = 14  # the hand-written edge cases lead varied_texts()


@pytest.fixture(params=BACKENDS)
def embedder(request: pytest.FixtureRequest) -> Embedder:
    real: Embedder = request.getfixturevalue(request.param)
    return real


def varied_texts() -> list[str]:
    """A few hundred texts that stress tokenisation, padding and truncation differently."""
    rng = random.Random(20261129)
    alphabet = "abcxyzÄéñßøΩжя東京語😀🚀 ,.;:!?'\"()[]{}-_/\\@#$%&*+=<>0123456789\t\n"
    edge = [
        "",
        " ",
        "\n\t ",
        "a",
        "?!",
        "Hello, World!",
        "HELLO world",  # the tokenizer lowercases
        "東京で会いましょう",
        "Ünïcödé àccents — and “quotes”",
        "🙂🙃😀",
        "https://example.org/path?query=1&x=2",
        "def f(x):\n    return x ** 2",
        "word " * 600,  # far past max_seq_length (256 tokens): truncated identically
        "supercalifragilisticexpialidocious " * 40,
    ]
    noise = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) for _ in range(66)]
    assert len(edge) == EDGE
    return edge + noise + sentences(220, seed=3)


def test_identity_is_the_vector_space_not_the_backend(
    onnx_embedder: OnnxEmbedder, torch_embedder: SentenceTransformerEmbedder
) -> None:
    assert onnx_embedder.name == torch_embedder.name == MINILM_NAME
    assert onnx_embedder.dimension == torch_embedder.dimension == MINILM_DIMENSION
    assert isinstance(onnx_embedder, Embedder)
    assert isinstance(torch_embedder, Embedder)


def test_shape_dtype_and_unit_norms(embedder: Embedder) -> None:
    texts = varied_texts()[:20] + sentences(20)
    vectors = embedder.embed(texts)
    assert vectors.shape == (40, MINILM_DIMENSION)
    assert vectors.dtype == np.float32
    assert vectors.flags.c_contiguous
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_input_and_a_bare_string(embedder: Embedder) -> None:
    assert embedder.embed([]).shape == (0, MINILM_DIMENSION)
    with pytest.raises(TypeError, match="not one string"):
        embedder.embed("Alice likes tea")
    with pytest.raises(TypeError, match="takes strings"):
        embedder.embed([b"bytes"])  # type: ignore[list-item]


def test_deterministic_and_independent_of_the_batch(embedder: Embedder) -> None:
    texts = sentences(50, seed=11)
    first = embedder.embed(texts)
    assert np.array_equal(first, embedder.embed(texts))
    # alone, in another order, in another batch: padding and thread count change, vectors do not
    alone = np.stack([embedder.embed([text])[0] for text in texts[:6]])
    np.testing.assert_allclose(alone, first[:6], atol=1e-6)
    reordered = embedder.embed(texts[::-1])[::-1]
    np.testing.assert_allclose(reordered, first, atol=1e-6)


def test_onnx_equals_sentence_transformers(
    onnx_embedder: OnnxEmbedder, torch_embedder: SentenceTransformerEmbedder
) -> None:
    """The reason both backends may share one name: their vectors are interchangeable."""
    texts = varied_texts()
    assert len(texts) >= 300
    ours = onnx_embedder.embed(texts)
    # two calls, so the two 256-token texts do not pad every short text to 256 (slow, not wrong)
    reference = np.concatenate(
        [
            torch_embedder.model.encode(
                part, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
            )
            for part in (texts[:EDGE], texts[EDGE:])
        ]
    )
    difference = float(np.abs(ours - reference).max())
    assert difference < TOLERANCE  # measured ~3e-7
    # and the embedder's own torch path agrees with the raw library call
    np.testing.assert_allclose(torch_embedder.embed(texts[EDGE:]), reference[EDGE:], atol=1e-6)


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(embedder: Embedder) -> None:
    anchor, paraphrase, unrelated = embedder.embed(
        [
            "Alice is allergic to peanuts.",
            "Peanuts give Alice an allergic reaction.",
            "The train to Berlin leaves at noon.",
        ]
    )
    assert float(anchor @ paraphrase) > 0.7
    assert float(anchor @ paraphrase) > float(anchor @ unrelated) + 0.4


def test_queries_retrieve_the_memory_they_ask_about(embedder: Embedder) -> None:
    memories = [
        "Alice is allergic to peanuts and tree nuts.",
        "Bob's flight to Lisbon leaves on 12 March.",
        "The team moved the weekly meeting to Thursday at 3 pm.",
        "The user prefers green tea over coffee in the morning.",
    ]
    queries = [
        "What food should I avoid serving Alice?",
        "When does Bob travel to Portugal?",
        "When is our weekly sync now?",
        "What does the user like to drink?",
    ]
    scores = embedder.embed(queries) @ embedder.embed(memories).T
    assert list(scores.argmax(axis=1)) == [0, 1, 2, 3]


def test_concurrent_calls_give_the_serial_results(embedder: Embedder) -> None:
    """Stores call embed from worker threads; the torch backend switches thread counts."""
    batches = [sentences(size, seed=size) for size in (1, 2, 9, 40)]
    expected = [embedder.embed(batch) for batch in batches]
    results: dict[int, Vectors] = {}

    def run(index: int) -> None:
        for _ in range(3):
            results[index] = embedder.embed(batches[index])

    workers = [threading.Thread(target=run, args=(i,)) for i in range(len(batches))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for index, vectors in enumerate(expected):
        np.testing.assert_allclose(results[index], vectors, atol=1e-6)


def test_torch_thread_policy(torch_embedder: SentenceTransformerEmbedder) -> None:
    assert torch_embedder.threads_for(1) == 1
    assert torch_embedder.threads_for(SMALL_CALL) == 1
    assert torch_embedder.threads_for(SMALL_CALL + 1) == cores()
    assert SentenceTransformerEmbedder(threads=2).threads_for(1) == 2


@pytest.mark.parametrize("cls", [OnnxEmbedder, SentenceTransformerEmbedder])
def test_bad_arguments(cls: type[OnnxEmbedder] | type[SentenceTransformerEmbedder]) -> None:
    with pytest.raises(ValueError, match="threads"):
        cls(threads=0)
    with pytest.raises(ValueError, match="batch_size"):
        cls(batch_size=0)
