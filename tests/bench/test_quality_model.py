"""The quality benchmark with the real model, as docs/benchmarks.md publishes it (fewer floors).

Retrieval quality is what this benchmark measures, so its smoke run uses all-MiniLM-L6-v2, not
the hash embedder. The bounds sit a little under the published numbers: they trip on a
regression of the store, the embedder or the corpus without pinning the third digit.
"""

from __future__ import annotations

import pytest

from mnemowire.bench._stores import DEFAULT_STORE
from mnemowire.bench.quality import run_quality
from mnemowire.embedders import OnnxEmbedder
from tests.models import shared_model_cache


async def test_minilm_on_the_quality_corpus(request: pytest.FixtureRequest) -> None:
    embedder = OnnxEmbedder(cache_dir=shared_model_cache(request))
    embedder.export()  # a no-op once the tests have exported it on this machine
    run = await run_quality(DEFAULT_STORE, embedder, floors=(0.0, 0.25, 0.6))
    overall = run["overall"]
    assert run["backdated"] is True
    assert overall["queries"] == 138
    assert overall["recall_at_5"] >= 0.9
    assert overall["recall_at_10"] >= 0.95
    assert overall["no_match_empty"] == 0.0  # without a floor every probe gets k answers
    exact = next(c for c in run["classes"] if c["class"] == "exact")
    assert exact["recall_at_5"] == 1.0
    curve = {point["floor"]: point for point in run["floor"]["curve"]}
    # the floor trades recall for empty answers, monotonically
    assert (
        curve[0.0]["no_match_empty"]
        <= curve[0.25]["no_match_empty"]
        <= curve[0.6]["no_match_empty"]
    )
    assert curve[0.0]["recall_at_5"] >= curve[0.25]["recall_at_5"] >= curve[0.6]["recall_at_5"]
    assert run["floor"]["recommended"]["floor"] == 0.25
    assert run["floor"]["recommended"]["overall"]["no_match_empty"] > 0.1
