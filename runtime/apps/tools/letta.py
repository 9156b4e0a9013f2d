"""A local, offline Letta server (the real ``letta`` 0.16.8) for the Letta store's tests, its
certification and anyone trying ``letta://`` on one machine (docs/adapters/letta.md).

Three processes, each with its files in one folder:

- PostgreSQL with pgvector (``mnemowire.apps.tools.postgres``, in ``DIR/pg``): Letta runs on
  nothing else. Its database ``letta`` gets Letta's tables from Letta's own ORM
  (``_letta_schema.py``, run by the server's Python: the wheel ships no migrations).
- The project's embedder behind an OpenAI-compatible endpoint
  (``mnemowire.apps.tools.embeddings``), which Letta calls for every vector.
- ``letta server``, from a virtualenv of its own (``--venv``: ``letta[server]==0.16.8`` with the
  pins of ``constraints/letta-server.txt``; it cannot share mnemowire's), with ``HOME`` in
  ``DIR/home`` and no provider keys, so it makes no outbound call that matters.

Command line::

    python -m mnemowire.apps.tools.letta start --dir DIR --venv VENV [--port 8283]
    python -m mnemowire.apps.tools.letta status --dir DIR
    python -m mnemowire.apps.tools.letta stop --dir DIR

``start`` prints the store URL (``letta://127.0.0.1:PORT?embedding=...``) once the server
answers its health check (15-20 s, most of it importing letta); ``stop`` ends all three.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from mnemowire.apps.tools import postgres
from mnemowire.errors import ConfigError

__all__ = ["LocalLetta", "main", "start", "status", "stop"]

#: seconds ``start`` waits for each process to answer (letta imports for ~15 s on 2 cores)
_READY_S = {"embeddings": 120.0, "letta": 240.0}
#: what the server must not see: a provider key makes it list that vendor's models at start
_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GROQ_API_KEY", "LETTA_API_KEY")


@dataclass(frozen=True)
class LocalLetta:
    """A running local Letta: its processes and how to reach them."""

    folder: str
    port: int
    pid: int
    embeddings_port: int
    embeddings_pid: int

    @property
    def embedding_url(self) -> str:
        return f"http://127.0.0.1:{self.embeddings_port}/v1"

    @property
    def url(self) -> str:
        """The store URL for this server."""
        return f"letta://127.0.0.1:{self.port}?embedding={self.embedding_url}"


def _state_file(root: Path) -> Path:
    return root / "letta.json"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _answers(url: str) -> bool:
    with (
        contextlib.suppress(OSError, ValueError),
        urllib.request.urlopen(url, timeout=2) as response,
    ):
        return bool(response.status == 200)
    return False


def _wait(process: subprocess.Popen[bytes], url: str, what: str, log: Path) -> None:
    deadline = time.monotonic() + _READY_S[what]
    while time.monotonic() < deadline:
        if _answers(url):
            return
        if process.poll() is not None:
            break
        time.sleep(0.25)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:]) if log.exists() else ""
    ended = "exited" if process.poll() is not None else f"did not answer {url} in time"
    raise ConfigError(f"{what} {ended}; the end of {log}:\n{tail}")


def _spawn(
    command: list[str], log: Path, env: dict[str, str], cwd: Path
) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            start_new_session=True,  # a Ctrl-C in the starting shell does not reach it
        )


def _database(server: postgres.LocalServer) -> str:
    """The ``letta`` database (made when missing), as the URI Letta takes."""
    import psycopg

    with psycopg.connect(server.dsn(), autocommit=True) as connection:
        found = connection.execute("SELECT 1 FROM pg_database WHERE datname = 'letta'")
        if found.fetchone() is None:
            connection.execute("CREATE DATABASE letta")
    # pooled connections (3x faster calls); with pooling on, letta asks for TLS unless told
    return server.dsn("letta") + "?sslmode=disable"


def start(
    folder: Path | str,
    venv: Path | str,
    *,
    port: int | None = None,
    embeddings_port: int | None = None,
    embedder: str = "minilm",
    fast: bool = False,
) -> LocalLetta:
    """Start PostgreSQL, the embedding endpoint and Letta, with their files in ``folder``;
    return the running one if it already runs."""
    root = Path(folder).absolute()
    running = status(root)
    if running is not None:
        return running
    letta = Path(venv).absolute() / "bin" / "letta"
    if not letta.exists():
        raise ConfigError(
            f"no Letta server in {venv}: make that virtualenv with pip install -c "
            "constraints/letta-server.txt 'letta[server]==0.16.8' asyncpg pg8000 pgvector "
            "psycopg2-binary (docs/adapters/letta.md#server)"
        )
    for sub in ("home", "run"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    database = postgres.start(root / "pg", settings=dict(postgres.FAST_SETTINGS) if fast else None)
    uri = _database(database)
    env = {k: v for k, v in os.environ.items() if k not in _KEYS}
    env |= {
        "HOME": str(root / "home"),
        "LETTA_PG_URI": uri,
        "LETTA_DISABLE_SQLALCHEMY_POOLING": "false",
    }
    embeddings_port = embeddings_port or postgres.free_port()
    log = root / "embeddings.log"
    embeddings = _spawn(
        [sys.executable, "-m", "mnemowire.apps.tools.embeddings", "--port", str(embeddings_port),
         "--embedder", embedder],
        log, {**env, "OMP_NUM_THREADS": "1"}, root,
    )  # fmt: skip
    _wait(embeddings, f"http://127.0.0.1:{embeddings_port}/health", "embeddings", log)
    schema = Path(__file__).with_name("_letta_schema.py")
    made = subprocess.run(  # from stdin: run by path, its folder would shadow ``letta``
        [str(letta.with_name("python")), "-"],
        input=schema.read_text(), env=env, cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if made.returncode != 0:
        os.kill(embeddings.pid, signal.SIGTERM)
        raise ConfigError(f"creating Letta's tables failed: {made.stderr.strip()[-2000:]}")
    port = port or postgres.free_port()
    log = root / "letta.log"
    # letta writes openapi_letta.json (1.7 MB) into its working folder: run it in DIR/run
    server = _spawn(
        [str(letta), "server", "--host", "127.0.0.1", "--port", str(port)], log, env, root / "run"
    )
    try:
        _wait(server, f"http://127.0.0.1:{port}/v1/health/", "letta", log)
    except ConfigError:
        os.kill(embeddings.pid, signal.SIGTERM)
        raise
    local = LocalLetta(str(root), port, server.pid, embeddings_port, embeddings.pid)
    _state_file(root).write_text(json.dumps(asdict(local)))
    return local


def status(folder: Path | str) -> LocalLetta | None:
    """The running Letta of ``folder``, or None."""
    root = Path(folder).absolute()
    try:
        local = LocalLetta(**json.loads(_state_file(root).read_text()))
    except (OSError, ValueError, TypeError):
        return None
    if not (_alive(local.pid) and _answers(f"http://127.0.0.1:{local.port}/v1/health/")):
        return None
    return local


def _end(pid: int, grace_s: float = 30.0) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def stop(folder: Path | str) -> bool:
    """Stop Letta, the embedding endpoint and PostgreSQL of ``folder``; False when none of
    them ran."""
    root = Path(folder).absolute()
    stopped = False
    with contextlib.suppress(OSError, ValueError, TypeError):
        local = LocalLetta(**json.loads(_state_file(root).read_text()))
        for pid in (local.pid, local.embeddings_pid):
            stopped = stopped or _alive(pid)
            _end(pid)
        _state_file(root).unlink()
    return postgres.stop(root / "pg") or stopped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mnemowire.apps.tools.letta",
        description="A local, offline Letta 0.16.8 server with PostgreSQL and the project's "
        "embedder, for letta:// stores.",
    )
    parser.add_argument("action", choices=["start", "stop", "status"])
    parser.add_argument("--dir", required=True, type=Path, help="the folder for all its files")
    parser.add_argument("--venv", type=Path, help="start: the Letta server's virtualenv")
    parser.add_argument("--port", type=int, default=None, help="Letta's port (default: free)")
    parser.add_argument("--embeddings-port", type=int, default=None, help="default: free")
    parser.add_argument("--embedder", default="minilm", help="what Letta embeds with")
    parser.add_argument(
        "--fast", action="store_true", help="PostgreSQL without fsync: tests and demos only"
    )
    args = parser.parse_args(argv)
    try:
        if args.action == "start":
            if args.venv is None:
                parser.error("start needs --venv (the Letta server's virtualenv)")
            local = start(
                args.dir,
                args.venv,
                port=args.port,
                embeddings_port=args.embeddings_port,
                embedder=args.embedder,
                fast=args.fast,
            )
            print(local.url)
            return 0
        if args.action == "stop":
            print("stopped" if stop(args.dir) else "not running", file=sys.stderr)
            return 0
        local_or_none = status(args.dir)
        if local_or_none is None:
            print("not running", file=sys.stderr)
            return 3
        print(local_or_none.url)
        return 0
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
