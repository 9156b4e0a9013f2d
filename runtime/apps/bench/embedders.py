"""What the real embedder costs: load time, one-sentence latency and batch throughput.

Every setup (backend x thread setting) runs in its own fresh Python process, so load time is
what a cold ``mnemowire`` invocation pays (imports, model load, first vector; the OS file cache
is warm) and no setup inherits another's thread pools. ``busy`` starts that many CPU-bound
processes for the duration, because on a 2-core machine the interesting question is how each
setting behaves when something else wants the cores too.

Run as ``mnemowire bench embedders``; ``python -m mnemowire.apps.bench.embedders SETUP_JSON`` is the
worker it starts.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["DEFAULT_SETUPS", "Setup", "parse_setup", "run_embedders", "sentences"]


@dataclass(frozen=True)
class Setup:
    """One backend with one thread setting; ``threads=None`` is the embedder's own default."""

    backend: str  # "onnx", "torch" or "hash"
    threads: int | None = None
    #: onnx: let idle threads spin-wait; torch: OMP_WAIT_POLICY=ACTIVE (torch's own default)
    spin: bool = False
    env: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def label(self) -> str:
        threads = "auto" if self.threads is None else str(self.threads)
        return f"{self.backend}:{threads}" + (":spin" if self.spin else "")


#: the settings compared in docs/benchmarks.md
DEFAULT_SETUPS = (
    Setup("onnx", 1),
    Setup("onnx", 2),
    Setup("onnx", 2, spin=True),
    Setup("torch", 1),
    Setup("torch", 2),
    Setup("torch", 2, spin=True),
    Setup("torch", None),
)


def parse_setup(text: str) -> Setup:
    """``BACKEND[:THREADS|auto][:spin]``, e.g. ``onnx:1``, ``torch:auto``, ``torch:2:spin``."""
    backend, *rest = text.strip().lower().split(":")
    if backend not in {"onnx", "torch", "hash"}:
        raise ValueError(f"unknown backend {backend!r} in {text!r}: use onnx, torch or hash")
    threads: int | None = None
    spin = False
    for part in rest:
        if part == "spin":
            spin = True
        elif part.isdigit() and int(part) >= 1:
            threads = int(part)
        elif part != "auto":
            raise ValueError(f"bad setup {text!r}: expected BACKEND[:THREADS|auto][:spin]")
    return Setup(backend, threads, spin)


_SUBJECTS = ["Alice", "Bob", "The user", "My manager", "Our team", "The customer", "Dr. Chen"]
_VERBS = ["prefers", "asked about", "is allergic to", "booked", "cancelled", "wrote about"]
_OBJECTS = [
    "green tea in the morning",
    "the quarterly report due on Friday",
    "peanuts and tree nuts",
    "a flight to Lisbon on 12 March",
    "the vector database migration",
    "a vegetarian restaurant near the office",
    "the meeting that moved to 3 pm",
    "a café in Zürich with good Wi-Fi",
]
_TAILS = ["", "", " because it helps them focus", " and wants a reminder the day before",
          " (mentioned twice this week)", ", but only when travelling for work"]  # fmt: skip


def sentences(count: int, seed: int = 7) -> list[str]:
    """Memory-like sentences of 5-30 words, the same for every run and setup."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}"
        text += rng.choice(_TAILS)
        if rng.random() < 0.3:  # a few longer, multi-sentence memories
            text += f". {rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}."
        out.append(text)
    return out


def _percentile(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _measure(setup: Setup, single: int, batch_sizes: Sequence[int], rounds: int) -> dict[str, Any]:
    """The worker: runs in a fresh process, prints one JSON object."""
    started = time.perf_counter()
    from mnemowire.embedders import HashEmbedder, OnnxEmbedder, SentenceTransformerEmbedder
    from mnemowire.embedders._protocol import Embedder

    embedder: Embedder
    if setup.backend == "onnx":
        embedder = OnnxEmbedder(threads=setup.threads, spin=setup.spin)
    elif setup.backend == "torch":
        embedder = SentenceTransformerEmbedder(threads=setup.threads)
    else:
        embedder = HashEmbedder()
    embedder.embed(["warm up"])
    load_s = time.perf_counter() - started
    texts = sentences(max(single, max(batch_sizes, default=0) * rounds) + 10)
    for text in texts[:5]:
        embedder.embed([text])
    latencies = []
    for text in texts[:single]:
        begin = time.perf_counter()
        embedder.embed([text])
        latencies.append((time.perf_counter() - begin) * 1000)
    throughput = {}
    for size in batch_sizes:
        embedder.embed(texts[:size])  # warm the shapes
        begin = time.perf_counter()
        for r in range(rounds):
            embedder.embed(texts[r * size : (r + 1) * size])
        throughput[str(size)] = round(size * rounds / (time.perf_counter() - begin), 1)
    return {
        "setup": setup.label,
        "name": embedder.name,
        "load_s": round(load_s, 3),
        "single_ms": {
            "p50": round(statistics.median(latencies), 2),
            "p95": round(_percentile(latencies, 0.95), 2),
            "p99": round(_percentile(latencies, 0.99), 2),
        },
        "batch_per_s": throughput,
    }


@contextmanager
def _busy(processes: int, seconds: float) -> Iterator[None]:
    """CPU-bound competitors that end by themselves after ``seconds`` at the latest."""
    loop = f"import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass"
    burners = [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(processes)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def _ensure_exported() -> None:
    """Export once up front (in its own process), so no setup's load time includes it."""
    code = "from mnemowire.embedders import OnnxEmbedder; OnnxEmbedder().export()"
    subprocess.run([sys.executable, "-c", code], check=True)


def run_embedders(
    setups: Sequence[Setup] = DEFAULT_SETUPS,
    *,
    single: int = 200,
    batch_sizes: Sequence[int] = (32, 128),
    rounds: int = 3,
    busy: int = 0,
) -> list[dict[str, Any]]:
    """Measure each setup in a fresh process; ``busy`` CPU-bound processes run meanwhile."""
    if any(setup.backend == "onnx" for setup in setups):
        _ensure_exported()
    rows = []
    for setup in setups:
        env = dict(os.environ, **setup.env)
        if setup.backend == "torch" and setup.spin:
            env["OMP_WAIT_POLICY"] = "ACTIVE"
        request = {"setup": asdict(setup), "single": single, "rounds": rounds}
        request["batch_sizes"] = list(batch_sizes)
        with _busy(busy, seconds=600):
            # other tenants of a shared machine show here: read the numbers next to it
            load_average = round(os.getloadavg()[0], 2)
            done = subprocess.run(
                [sys.executable, "-m", "mnemowire.apps.bench.embedders", json.dumps(request)],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
        if done.returncode != 0:
            raise RuntimeError(f"embedder benchmark {setup.label} failed:\n{done.stderr}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append({**result, "busy": busy, "load_average": load_average})
    return rows


def _worker(argv: Sequence[str]) -> None:
    request = json.loads(argv[0])
    setup = Setup(**request["setup"])
    result = _measure(setup, request["single"], request["batch_sizes"], request["rounds"])
    print(json.dumps(result))


if __name__ == "__main__":
    _worker(sys.argv[1:])
