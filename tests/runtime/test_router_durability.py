"""A router killed mid-batch: every child holds each batch whole or not at all
([batch.atomic]), because each child gets the batch as one message and stores it in one
transaction. Sent as single remembers, a kill -9 during a 300-item batch left 60-160 of them."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

BATCH = 300
WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from mnemowire.adapters.sqlite_vec import SqliteVecStore
    from mnemowire.embedders import HashEmbedder
    from mnemowire.layers.memory import Memory
    from mnemowire.layers.router import MemoryRouter

    async def main(first, second, size):
        children = [SqliteVecStore(path, embedder=HashEmbedder(64), name=name)
                    for path, name in ((first, "first"), (second, "second"))]
        async with Memory(MemoryRouter(children)) as router:
            for batch in range(1_000_000):
                await router.remember_batch({"requests": [
                    {"agent_id": "a", "type": "semantic", "content": f"batch {batch} note {i}"}
                    for i in range(size)
                ]})
                print(batch, flush=True)

    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
    """
)


def stored(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM memories").fetchone()[0])


def test_a_router_killed_mid_batch_leaves_each_batch_whole_or_absent(tmp_path: Path) -> None:
    for attempt, into in enumerate((0.2, 0.5, 0.8)):  # killed this far into a batch's time
        first, second = tmp_path / f"first-{attempt}.db", tmp_path / f"second-{attempt}.db"
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(first), str(second), str(BATCH)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout is not None
        # two whole batches land; the time between them says how long one takes
        assert writer.stdout.readline(), "the writer died before it was killed"
        started = time.monotonic()
        assert writer.stdout.readline(), "the writer died before it was killed"
        time.sleep((time.monotonic() - started) * into)
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait(timeout=30)
        writer.stdout.close()
        counts = [stored(first), stored(second)]
        assert all(count % BATCH == 0 for count in counts), counts
        assert all(count >= 2 * BATCH for count in counts), counts
