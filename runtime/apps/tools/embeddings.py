"""The project's embedder behind an OpenAI-compatible ``/v1/embeddings`` endpoint, on loopback.

A server that embeds on its own, such as Letta, calls an OpenAI-style endpoint for its vectors;
this one answers with mnemowire's embedder (all-MiniLM-L6-v2 by default), so the server's
vectors are the ones every other store of the project makes, offline. Three routes:

- ``POST /v1/embeddings``: ``{"input": text | [text, ...], "model": ..., "encoding_format":
  "float" | "base64"}``, answered in OpenAI's shape (the openai SDK asks for base64 float32 by
  default). A model other than the embedder's name (or its last part) is refused, so a server
  configured for another model fails loudly instead of mixing vector spaces.
- ``GET /v1/models``: the one model.
- ``GET /health``: ``{"status": "ok", "model": ..., "dimension": ...}``.

Errors answer OpenAI's envelope, ``{"error": {"message", "type", "param", "code"}}``.

Command line::

    python -m mnemowire.apps.tools.embeddings [--port 8399] [--embedder minilm]

It prints ``serving MODEL at http://127.0.0.1:PORT/v1`` once it listens (``--port 0`` picks a
free port) and stops on SIGINT or SIGTERM. Loopback only: it has no authentication.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mnemowire.embedders import Embedder, Preparable, load_embedder
from mnemowire.errors import ConfigError

if TYPE_CHECKING:
    from starlette.responses import JSONResponse

__all__ = ["MAX_INPUTS", "create_app", "main", "model_names"]

#: the most texts one request may carry (OpenAI's own limit)
MAX_INPUTS = 2048
#: the longest text, in characters (the model reads 256 tokens; this only bounds the work)
MAX_CHARS = 100_000


def model_names(embedder: Embedder) -> set[str]:
    """The names a request may ask for: the embedder's, and its last part
    (``all-MiniLM-L6-v2`` for ``sentence-transformers/all-MiniLM-L6-v2``)."""
    return {embedder.name, embedder.name.rsplit("/", 1)[-1]}


def _refusal(message: str, param: str | None, status: int = 400) -> JSONResponse:
    from starlette.responses import JSONResponse

    kind = "invalid_request_error" if status == 400 else "not_found_error"
    error = {"message": message, "type": kind, "param": param, "code": None}
    return JSONResponse({"error": error}, status_code=status)


def _texts(body: Any) -> tuple[list[str], None] | tuple[None, JSONResponse]:
    """The request's texts, or None and the refusal to send."""
    if not isinstance(body, dict):
        return None, _refusal("the body must be a JSON object", None)
    given = body.get("input")
    texts = [given] if isinstance(given, str) else given
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        return None, _refusal(
            "input must be a string or a non-empty array of strings (token arrays are not "
            "accepted)",
            "input",
        )
    if len(texts) > MAX_INPUTS:
        return None, _refusal(f"input has {len(texts)} texts; at most {MAX_INPUTS}", "input")
    if any(len(t) > MAX_CHARS for t in texts):
        return None, _refusal(f"a text is longer than {MAX_CHARS} characters", "input")
    return texts, None


def create_app(embedder: Embedder) -> Any:
    """The ASGI app. Embedding runs on a worker thread, one batch at a time (the model is
    not shared between threads)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    names = model_names(embedder)
    lock = threading.Lock()

    def embed(texts: Sequence[str]) -> Any:
        with lock:
            return embedder.embed(texts)

    async def embeddings(request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            return _refusal("the body is not JSON", None)
        texts, refusal = _texts(body)
        if texts is None:
            assert refusal is not None
            return refusal
        model = body.get("model")
        if model not in names:
            return _refusal(
                f"model {model!r} is not served here; this endpoint embeds with {embedder.name}",
                "model",
                404,
            )
        encoding = body.get("encoding_format", "float")
        if encoding not in ("float", "base64"):
            return _refusal("encoding_format must be float or base64", "encoding_format")
        vectors = await asyncio.to_thread(embed, texts)
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": (
                    base64.b64encode(vector.astype("<f4").tobytes()).decode()
                    if encoding == "base64"
                    else vector.tolist()
                ),
            }
            for i, vector in enumerate(vectors)
        ]
        usage = {"prompt_tokens": 0, "total_tokens": 0}
        return JSONResponse({"object": "list", "data": data, "model": model, "usage": usage})

    async def models(request: Request) -> JSONResponse:
        card = {"id": embedder.name, "object": "model", "created": 0, "owned_by": "mnemowire"}
        return JSONResponse({"object": "list", "data": [card]})

    async def health(request: Request) -> JSONResponse:
        return JSONResponse(
            {"status": "ok", "model": embedder.name, "dimension": embedder.dimension}
        )

    routes = [
        Route("/v1/embeddings", embeddings, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
    ]
    return Starlette(routes=routes)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mnemowire.apps.tools.embeddings",
        description="Serve the project's embedder as an OpenAI-compatible /v1/embeddings "
        "endpoint on 127.0.0.1.",
    )
    parser.add_argument("--port", type=int, default=8399, help="0 picks a free port")
    parser.add_argument("--embedder", default="minilm", help="an embedder name (default minilm)")
    args = parser.parse_args(argv)

    from mnemowire.apps.transport import Binding, bind, serve_announced, uvicorn_config

    try:
        embedder = load_embedder(args.embedder)
        if isinstance(embedder, Preparable):
            embedder.prepare()  # load the model before announcing: the first call is not slow
        sock = bind(Binding(host="127.0.0.1", port=args.port))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    port = sock.getsockname()[1]
    config = uvicorn_config(create_app(embedder), Binding(port=port), log_level="warning")
    serve_announced(config, sock, f"serving {embedder.name} at http://127.0.0.1:{port}/v1")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
