"""``mnemowire demo``: load a small bundled corpus, ask it questions, show what came back.

Everything goes through the Memory facade, exactly as an application would: a temporary
sqlite-vec store (nothing touches the user's own store), the real embedder unless told
otherwise, and the same JSON-validated requests the CLI sends.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from mnemowire.layers.memory import Memory

__all__ = ["QUESTIONS", "Question", "corpus", "run_demo"]


@dataclass(frozen=True)
class Question:
    """One demo recall and what it shows."""

    shows: str
    request: dict[str, Any]


QUESTIONS = (
    Question(
        "a paraphrase finds the fact",
        {
            "agent_id": "assistant",
            "user_id": "alice",
            "query": "What food should I never serve Alice?",
            "k": 3,
        },
    ),
    Question(
        "the same question for another user finds that user's facts",
        {
            "agent_id": "assistant",
            "user_id": "bob",
            "query": "What food should I avoid for Bob?",
            "k": 3,
        },
    ),
    Question(
        "emotional memories, filtered by type",
        {
            "agent_id": "assistant",
            "user_id": "alice",
            "query": "How does Alice feel about flying?",
            "types": ["emotional"],
            "k": 2,
        },
    ),
    Question(
        "a procedure, stored as a state machine",
        {
            "agent_id": "assistant",
            "query": "How do I book a flight for someone?",
            "types": ["procedural"],
            "k": 1,
        },
    ),
    Question(
        "episodes, across every user of the agent",
        {
            "agent_id": "assistant",
            "query": "travel trouble at an airport or a station",
            "types": ["episodic"],
            "k": 3,
        },
    ),
    Question(
        "a metadata filter narrows by topic",
        {
            "agent_id": "assistant",
            "query": "what is going on at work",
            "filter": {"topic": "work"},
            "k": 4,
        },
    ),
    Question(
        "another agent's memory stays its own",
        {"agent_id": "support-bot", "query": "What is Alice allergic to?", "k": 2},
    ),
)


def corpus() -> list[dict[str, Any]]:
    """The bundled demo memories (33 remember requests over two agents and four users)."""
    text = (
        resources.files("mnemowire.apps.demo").joinpath("corpus.jsonl").read_text(encoding="utf-8")
    )
    return [json.loads(line) for line in text.splitlines() if line.strip()]


async def run_demo(
    embedder: Any = None, echo: Callable[[str], None] = print, *, store: str | None = None
) -> dict[str, Any]:
    """Run the demo, printing as it goes; returns the timings for tests and benchmarks.

    ``store`` is a store URL to run it against (an empty one: the demo adds its memories),
    instead of a temporary sqlite-vec file."""
    if embedder is None:
        from mnemowire.embedders import default_embedder

        embedder = default_embedder()
    started = time.perf_counter()
    embedder.embed(["warm up"])  # load the model once, outside the measured operations
    load_ms = (time.perf_counter() - started) * 1000
    echo(f"embedder {embedder.name} ({embedder.dimension}-d) ready in {load_ms:.0f} ms")
    with tempfile.TemporaryDirectory(prefix="mnemowire-demo-") as folder:
        url = store or f"sqlite-vec://{Path(folder) / 'demo.db'}"
        async with Memory.open(url, embedder=embedder) as memory:
            memories = corpus()
            remember_ms = []
            for request in memories:
                begun = time.perf_counter()
                await memory.remember(request)
                remember_ms.append((time.perf_counter() - begun) * 1000)
            echo(
                f"remembered {len(memories)} memories into {url} "
                f"(p50 {statistics.median(remember_ms):.1f} ms each)\n"
            )
            recall_ms = []
            for question in QUESTIONS:
                begun = time.perf_counter()
                found = await memory.recall(question.request)
                recall_ms.append((time.perf_counter() - begun) * 1000)
                scope = question.request.get("user_id") or "every user"
                echo(f"[{question.shows}]")
                echo(f"  {question.request['agent_id']} / {scope}: {question.request['query']!r}")
                for hit in found.results:  # relevance (cosine), not the fusion score
                    shown = "" if hit.relevance is None else f"{hit.relevance:.2f}"
                    echo(f"    {shown:>5}  {hit.type:<10}  {_summary(hit.type, hit.content)}")
                echo(f"  ({recall_ms[-1]:.1f} ms)\n")
    summary = {
        "embedder": embedder.name,
        "model_load_ms": round(load_ms, 1),
        "memories": len(memories),
        "remember_p50_ms": round(statistics.median(remember_ms), 2),
        "recall_p50_ms": round(statistics.median(recall_ms), 2),
    }
    echo(
        f"recall p50 {summary['recall_p50_ms']} ms, remember p50 "
        f"{summary['remember_p50_ms']} ms, model load {summary['model_load_ms']} ms"
    )
    return summary


def _summary(kind: str, content: str) -> str:
    if kind == "procedural":
        machine = json.loads(content)
        steps = " -> ".join(t["trigger"] for t in machine["transitions"])
        return f"procedure {machine['name']}: {steps}"
    return content
