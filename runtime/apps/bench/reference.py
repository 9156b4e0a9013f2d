"""This package beside the preprint's own (``mnemowire bench reference``): remember and recall
latency of memorywire 0.5.0, the reference implementation the preprint's tables measured
(installed from PyPI, never vendored), and of this package's default store, in one process.

Both sides write the quality benchmark's dev corpus (310 memories of three agents), one
remember at a time, then ask its questions (k = 5), one recall at a time; each round gives
each side a fresh store, and the sides alternate which goes first. This package's side is
its default store (sqlite-vec, the ONNX embedder) through ``Memory``, as applications call
it. The reference side is its ``SqliteVecStore`` with its default embedder as that code
defines it (sentence-transformers on torch, ``encode(text, normalize_embeddings=True)`` per
text), given the same all-MiniLM-L6-v2 weights from the bundled model folder: its default
names the model on the Hugging Face hub, which may be unreachable (it is here).

Its store loads sqlite-vec through the standard ``sqlite3`` module; a Python built without
extension loading (``enable_load_extension``; this machine's, macOS's system Python) gets, for
that one import, the drop-in this package's sqlite-vec store runs on (``find_driver``), which
the report says.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mnemowire.adapters.sqlite_vec._driver import find_driver
from mnemowire.apps.bench._timing import load_average, percentiles
from mnemowire.apps.bench.markdown import latency_cells
from mnemowire.apps.bench.quality import load_queries
from mnemowire.apps.bench.quality._data import load_corpus
from mnemowire.embedders import Embedder

__all__ = ["REFERENCE", "ReferenceMissingError", "run_reference"]

#: the package and version compared (what `pip install` needs)
REFERENCE = "memorywire==0.5.0"
_NAME, _, _VERSION = REFERENCE.partition("==")

Progress = Callable[[str, int, int], None]
#: one side's run: (remember latencies ms, recall latencies ms)
Timings = tuple[list[float], list[float]]


class ReferenceMissingError(RuntimeError):
    """The reference package (or what its store needs) is not installed."""


def _reference() -> tuple[Any, Any, Any, str]:
    """memorywire's store module and its two request models, and which sqlite3 module its
    store got."""
    try:
        installed = importlib.metadata.version(_NAME)
    except importlib.metadata.PackageNotFoundError:
        raise ReferenceMissingError(
            f"the comparison needs the preprint's package: pip install '{REFERENCE}' "
            "transitions sentence-transformers sqlite-vec"
        ) from None
    if installed != _VERSION:
        raise ReferenceMissingError(
            f"{_NAME} {installed} is installed; the comparison is with {_VERSION}: "
            f"pip install '{REFERENCE}'"
        )
    # its store imports the standard sqlite3; where that cannot load extensions, it gets the
    # module this package's own sqlite-vec store runs on, for that one import
    driver = find_driver()
    standard = sys.modules["sqlite3"]
    sys.modules["sqlite3"] = driver.module
    try:
        store = importlib.import_module("memorywire.store.sqlite_vec")
    finally:
        sys.modules["sqlite3"] = standard
    sqlite_module = driver.name
    if driver.name != "sqlite3":
        sqlite_module += " (this Python's sqlite3 cannot load extensions)"
    models = importlib.import_module("memorywire.models")
    return store, models.RememberRequest, models.RecallRequest, sqlite_module


def _reference_embedder() -> Callable[[str], list[float]]:
    """The reference store's default embedder, as its code builds it, from the bundled
    weights."""
    from sentence_transformers import SentenceTransformer

    from mnemowire.embedders._local import bundled_model_path

    model = SentenceTransformer(str(bundled_model_path()), device="cpu")

    def encode(text: str) -> list[float]:
        return [float(x) for x in model.encode(text, normalize_embeddings=True)]

    return encode


async def _timed(
    call: Callable[[dict[str, Any]], Awaitable[Any]], requests: Sequence[dict[str, Any]]
) -> list[float]:
    """Milliseconds each ``call(request)`` took, one at a time."""
    spent = []
    for request in requests:
        started = time.perf_counter()
        await call(request)
        spent.append((time.perf_counter() - started) * 1000)
    return spent


async def run_reference(
    *, rounds: int = 3, embedder: Embedder | None = None, progress: Progress | None = None
) -> dict[str, Any]:
    """Measure both sides ``rounds`` times (this package's with ``embedder``, default: the
    default model); returns the report's results."""
    from mnemowire.apps.bench._stores import DEFAULT_STORE, opened
    from mnemowire.embedders import default_embedder
    from mnemowire.layers.memory import Memory

    store_module, remember_model, recall_model, sqlite_module = _reference()
    corpus = [dict(item.remember) for item in load_corpus("dev")]
    questions = [
        {**query.recall, "k": 5}
        for query in load_queries("dev")
        if "fresher_than_days" not in query.recall  # its store takes no clock to backdate
    ]
    encode = _reference_embedder()
    embedder = embedder or default_embedder()
    encode("warm up")
    embedder.embed(["warm up"])

    async def ours() -> Timings:
        async with opened(DEFAULT_STORE, embedder) as handle:
            memory = Memory(handle.store)
            return await _timed(memory.remember, corpus), await _timed(memory.recall, questions)

    async def theirs() -> Timings:
        with tempfile.TemporaryDirectory(prefix="mnemowire-reference-") as folder:
            store = store_module.SqliteVecStore(Path(folder) / "memorywire.db", embedder=encode)

            async def remember(request: dict[str, Any]) -> Any:
                return await store.remember(remember_model(**request))

            async def recall(request: dict[str, Any]) -> Any:
                return await store.recall(recall_model(**request))

            try:
                return await _timed(remember, corpus), await _timed(recall, questions)
            finally:
                store.close()

    sides: dict[str, Callable[[], Awaitable[Timings]]] = {
        "mnemowire": ours,
        f"{_NAME} {_VERSION}": theirs,
    }
    samples: dict[str, Timings] = {name: ([], []) for name in sides}
    per_round = []
    loads = {"start": load_average()}
    for number in range(rounds):
        order = list(sides) if number % 2 == 0 else list(reversed(sides))
        medians: dict[str, dict[str, float]] = {}
        for name in order:
            written, asked = await sides[name]()
            samples[name][0].extend(written)
            samples[name][1].extend(asked)
            medians[name] = {
                "remember_p50_ms": percentiles(written)["p50_ms"],
                "recall_p50_ms": percentiles(asked)["p50_ms"],
            }
            if progress is not None:
                progress("reference", number * len(sides) + len(medians), rounds * len(sides))
        per_round.append({"round": number + 1, "order": order, "sides": medians})
    loads["end"] = load_average()
    measured = [
        {"name": name, "remember": percentiles(written), "recall": percentiles(asked)}
        for name, (written, asked) in samples.items()
    ]
    return {
        "reference": {
            "package": _NAME,
            "version": _VERSION,
            "embedder": "sentence-transformers (torch), all-MiniLM-L6-v2 from the bundled folder",
            "sqlite_module": sqlite_module,
        },
        "corpus": {"name": "dev", "memories": len(corpus), "questions": len(questions)},
        "rounds": rounds,
        "sides": measured,
        "per_round": per_round,
        "ratio": _ratio(measured),
        "load_average": loads,
    }


def _ratio(measured: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """This package's p50 over the reference's, per operation (below 1: faster)."""
    ours, theirs = measured
    return {
        f"{operation}_p50": round(ours[operation]["p50_ms"] / theirs[operation]["p50_ms"], 3)
        for operation in ("remember", "recall")
    }


def markdown(results: Mapping[str, Any]) -> str:
    """The two sides' latencies, their ratio, and each round's medians."""
    lines = [
        "| side | remember p50 / p95 / p99 ms | recall p50 / p95 / p99 ms |",
        "|---|---|---|",
    ]
    for side in results["sides"]:
        remember, recall = latency_cells(side["remember"]), latency_cells(side["recall"])
        lines.append(f"| {side['name']} | {remember} | {recall} |")
    ratio = results["ratio"]
    corpus = results["corpus"]
    lines += [
        "",
        f"This package's p50 over the reference's: remember {ratio['remember_p50']:.2f}x, "
        f"recall {ratio['recall_p50']:.2f}x ({corpus['memories']} memories, "
        f"{corpus['questions']} questions, {results['rounds']} rounds; the reference's sqlite3: "
        f"{results['reference']['sqlite_module']}).",
        "",
        "| round | first | "
        + " | ".join(f"{s['name']} remember / recall p50 ms" for s in results["sides"])
        + " |",
        "|---|---|" + "---|" * len(results["sides"]),
    ]
    for entry in results["per_round"]:
        cells = [
            f"{entry['sides'][s['name']]['remember_p50_ms']:.1f} / "
            f"{entry['sides'][s['name']]['recall_p50_ms']:.1f}"
            for s in results["sides"]
        ]
        lines.append(f"| {entry['round']} | {entry['order'][0]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
