"""``mnemowire bench adapter``'s cognee baseline on the real cognee: cognee's own calls, in a
dataset beside the store's. (The whole benchmark, 310 memories and 165 queries on each side,
takes minutes; its numbers are in docs/benchmarks.md#adapters.)"""

from __future__ import annotations

from pathlib import Path

from mnemowire.adapters.cognee import COGNEE, CogneeStore
from mnemowire.apps.bench.adapter import BACKENDS


async def test_the_baseline_writes_searches_and_removes_its_dataset(tmp_path: Path) -> None:
    store = CogneeStore(tmp_path / "cognee")  # the baseline works where the store opened cognee
    try:
        native = BACKENDS["cognee"](tmp_path / "native", "cognee://unused")
        for content in ("Alice likes tea", "Bob fixes bikes", "/etc/hostname"):
            native.remember({"content": content, "metadata": {"kind": "x"}})
        native.recall("what does Alice drink")
        native.close()

        def datasets() -> list[str]:
            import cognee

            found = COGNEE.run(cognee.datasets.list_datasets(user=COGNEE.user()))
            return [d.name for d in found]

        assert "bench_native" not in COGNEE.worker.submit(datasets).result()
    finally:
        await store.aclose()
