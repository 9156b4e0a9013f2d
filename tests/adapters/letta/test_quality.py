"""Retrieval quality through the Letta store, on the project's dev corpus with the real model:
the adapter must not lose what the model finds (published in docs/adapters/letta.md#measured,
beside sqlite-vec's)."""

from __future__ import annotations

from mnemowire.apps.bench.quality import run_quality
from mnemowire.embedders import default_embedder
from tests.adapters.letta.conftest import server_url


async def test_the_dev_corpus_through_letta() -> None:
    run = await run_quality(
        f"{server_url()}&ids=:memory:", default_embedder(), corpus_name="dev", floors=(0.0,)
    )
    assert run["overall"]["queries"] == 138
    # measured 0.952, as mem0 and Cognee (the same model, exact cosine); a tag-filtered search
    # (Letta filters after its top_k) measured 0.938
    assert run["overall"]["recall_at_5"] >= 0.945
    exact = next(c for c in run["classes"] if c["class"] == "exact")
    assert exact["recall_at_5"] == 1.0
    # Letta embeds the query text itself: a "?" with a vector would not be a diagnostic
    assert run["vector_only"] is None
