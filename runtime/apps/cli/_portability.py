"""``mnemowire export|import|migrate``: carry memory between stores (docs/portability.md).

``export`` writes a store's records (every agent, or those of ``--agent``) as a memorywire
archive, to ``--out`` or stdout; ``import`` checks a whole archive (every line's schema, the
counts, the digest) before it writes anything, then writes it a page at a time; ``migrate``
streams one store into another without a file. ``import`` and ``migrate`` keep the archive's
ids, timestamps, versions and states, skip what the target already holds (a rerun after a crash
or Ctrl-C continues where it stopped), and print a fidelity report: what each record's import
did, what the target keeps other than exactly, and what reading every record back found.
Exit 0 when every record came back as written, 1 when the archive was refused or a record
differs, 2 on usage errors.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import click

from mnemowire.apps.cli._app import Exit, cli
from mnemowire.apps.cli._progress import show_progress
from mnemowire.errors import ConfigError, MnemowireError
from mnemowire.models import KeptState, MemoryType
from mnemowire.portability._foreign import FOREIGN_FORMATS

T = TypeVar("T")

_IDS = click.Choice(["keep", "new", "remap"])
_CONFLICT = click.Choice(["skip", "overwrite", "fail"])


def _memory(url: str, embedder: str | None, flag: str) -> Any:
    from mnemowire.embedders import load_embedder
    from mnemowire.layers.memory import Memory

    show_progress()
    try:
        loaded = load_embedder(embedder) if embedder else None
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--embedder") from None
    try:
        return Memory.open([url], embedder=loaded)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint=flag) from None
    except MnemowireError as exc:
        raise click.ClickException(str(exc)) from exc


class _Counter:
    """A progress line on stderr, rewritten in place, when stderr is a terminal."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._shown = sys.stderr.isatty()

    def __call__(self, done: int, total: int, stage: str) -> None:
        if not self._shown:
            return
        of = f" of {total}" if total else ""
        # "indexes": the pages are in, and the target builds what it deferred
        building = ", building the target's indexes..." if stage == "indexes" else ""
        click.echo(f"\r{self._what}: {done}{of}{building}", err=True, nl=False)

    def close(self) -> None:
        """End the progress line (once: a second call prints nothing)."""
        if self._shown:
            click.echo("", err=True)
            self._shown = False


def _run(work: Callable[[], Coroutine[Any, Any, T]], counter: _Counter) -> T:
    try:
        return asyncio.run(work())
    except MnemowireError as exc:
        counter.close()  # the progress line ends before the envelope is printed
        click.echo(json.dumps(exc.envelope, ensure_ascii=False))
        raise SystemExit(Exit.REJECTED) from None
    finally:
        counter.close()


def _reported(report: Any) -> None:
    """Print a move's fidelity report; exit 1 when a record did not come back as written."""
    click.echo(json.dumps(report.as_json(), ensure_ascii=False))
    if not report.faithful:
        raise SystemExit(Exit.REJECTED)


def _scope(user_id: str | None, types: tuple[str, ...], states: tuple[str, ...]) -> dict[str, Any]:
    scope: dict[str, Any] = {}
    if user_id is not None:
        scope["user_id"] = user_id
    if types:
        scope["types"] = list(types)
    if states:
        scope["states"] = list(states)
    return scope


def _narrowing(command: Callable[..., Any]) -> Callable[..., Any]:
    for decorator in reversed(
        [
            click.option("--agent", "agents", multiple=True,
                         help="Only this agent (repeat for several). Default: every agent "
                         "the store lists (mnemowire scopes)."),
            click.option("--user", "user_id", help="Only records of this end user."),
            click.option("--type", "types", multiple=True,
                         type=click.Choice([t.value for t in MemoryType]),
                         help="Only this memory type (repeat for several)."),
            click.option("--state", "states", multiple=True,
                         type=click.Choice([s.value for s in KeptState]),
                         help="Only records in this state (repeat). Default: every state."),
            click.option("--embedder", envvar="MNEMOWIRE_EMBEDDER", default=None,
                         help="Embedder for stores that embed (minilm, hash:64, ...)."),
        ]
    ):  # fmt: skip
        command = decorator(command)
    return command


@cli.command("export")
@click.option("--store", "store", envvar="MNEMOWIRE_STORE", required=True,
              help="The store to export (its URL).")  # fmt: skip
@_narrowing
@click.option("--out", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              default=Path("-"), help="Archive file to write (default: stdout).")  # fmt: skip
@click.option("--vectors", type=click.Choice(["base64", "float", "none"]), default="base64",
              show_default=True,
              help="How vectors are written: base64 (their float32 bytes: exact, a third of the "
              "text), float (JSON numbers), none (left out: the target embeds every "
              "record).")  # fmt: skip
@click.option("--history/--no-history", default=None,
              help="Carry each record's versions (what it said before, who changed it). "
              "Default: when the store keeps history.")  # fmt: skip
@click.option("--format", "fmt", type=click.Choice(["memorywire", "mcp-memory"]),
              default="memorywire", show_default=True,
              help="mcp-memory: the MCP memory server's graph file (active records only; "
              "ids, times, users and states have no place in it).")  # fmt: skip
def export_command(
    store: str,
    agents: tuple[str, ...],
    user_id: str | None,
    types: tuple[str, ...],
    states: tuple[str, ...],
    embedder: str | None,
    out: Path,
    vectors: str,
    history: bool | None,
    fmt: str,
) -> None:
    """Write a store's memory as a memorywire archive (JSON Lines), or as another tool's file
    (--format)."""
    from mnemowire.portability import export_archive, export_mcp_memory

    if fmt == "mcp-memory" and states:
        raise click.BadParameter("the graph holds active records only", param_hint="--state")

    memory = _memory(store, embedder, "--store")
    counter = _Counter("exported")
    to_stdout = str(out) == "-"

    async def work() -> dict[str, Any]:
        async with memory:
            if to_stdout:
                return await _export(sys.stdout.buffer)
            with out.open("wb") as sink:
                return await _export(sink)

    async def _export(sink: Any) -> dict[str, Any]:
        if fmt == "mcp-memory":
            return await export_mcp_memory(
                memory, sink, agents=list(agents) or None, scope=_scope(user_id, types, ())
            )
        return await export_archive(
            memory, sink, agents=list(agents) or None, scope=_scope(user_id, types, states),
            vectors=None if vectors == "none" else vectors, progress=counter,
            kind=store.partition("://")[0], history=history,
        )  # fmt: skip

    summary = _run(work, counter)
    click.echo(json.dumps(summary), err=to_stdout)


@cli.command("import")
@click.option("--store", "store", envvar="MNEMOWIRE_STORE", required=True,
              help="The store to write into (its URL).")  # fmt: skip
@click.argument("archive", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--ids", "id_policy", type=_IDS, default="keep", show_default=True,
              help="keep the archive's ids, mint new ones, or remap only those the target "
              "holds or erased.")  # fmt: skip
@click.option("--on-conflict", type=_CONFLICT, default="skip", show_default=True,
              help="A record whose id the target holds: skip it (a rerun continues), "
              "overwrite it, or fail.")  # fmt: skip
@click.option("--no-verify", is_flag=True, help="Do not read the records back.")
@click.option("--embedder", envvar="MNEMOWIRE_EMBEDDER", default=None,
              help="Embedder for stores that embed (minilm, hash:64, ...).")  # fmt: skip
@click.option("--from", "fmt", type=click.Choice(["memorywire", *FOREIGN_FORMATS]),
              default="memorywire", show_default=True,
              help="The file's format: a memorywire archive, the MCP memory server's graph "
              "(mcp-memory), mem0's get_all answer (mem0), OpenMemory's backup lines "
              "(openmemory).")  # fmt: skip
@click.option("--agent", "agent_id", help="Whose memory a file that names no agent becomes.")
@click.option("--user", "user_id", help="The end user of records the file gives none.")
def import_command(
    store: str,
    archive: Path,
    id_policy: str,
    on_conflict: str,
    no_verify: bool,
    embedder: str | None,
    fmt: str,
    agent_id: str | None,
    user_id: str | None,
) -> None:
    """Write a memorywire archive (or another tool's file: --from) into a store, keeping what
    it says."""
    from mnemowire.portability import Archive, import_archive

    counter = _Counter("imported")
    if fmt != "memorywire":
        if id_policy != "keep":
            raise click.BadParameter("another tool's file is imported with its ids (or ids "
                                     "made from its content)", param_hint="--ids")  # fmt: skip
        _import_foreign(store, archive, fmt, (agent_id, user_id), on_conflict, no_verify,
                        embedder, counter)  # fmt: skip
        return
    if agent_id is not None or user_id is not None:
        raise click.BadParameter("an archive names its agents and users: only with --from",
                                 param_hint="--agent/--user")  # fmt: skip

    async def check() -> Archive:
        return await asyncio.to_thread(Archive(archive).verify)

    checked = _run(check, counter)
    memory = _memory(store, embedder, "--store")

    async def work() -> Any:
        async with memory:
            return await import_archive(
                memory, checked, id_policy=id_policy, on_conflict=on_conflict,
                verify=not no_verify, progress=counter,
            )  # fmt: skip

    _reported(_run(work, counter))


def _import_foreign(
    store: str,
    path: Path,
    fmt: str,
    who: tuple[str | None, str | None],
    on_conflict: str,
    no_verify: bool,
    embedder: str | None,
    counter: _Counter,
) -> None:
    from mnemowire.kit import now_ms
    from mnemowire.portability import import_foreign, read_foreign

    agent_id, user_id = who

    async def read() -> Any:
        return await asyncio.to_thread(
            read_foreign, path, fmt, agent_id=agent_id, user_id=user_id, now=now_ms()
        )

    foreign = _run(read, counter)
    memory = _memory(store, embedder, "--store")

    async def work() -> Any:
        async with memory:
            return await import_foreign(
                memory, foreign, f"{path.name} ({fmt})", on_conflict=on_conflict,
                verify=not no_verify, progress=counter,
            )  # fmt: skip

    _reported(_run(work, counter))


@cli.command("migrate")
@click.argument("source")
@click.argument("target")
@_narrowing
@click.option("--ids", "id_policy", type=_IDS, default="keep", show_default=True,
              help="keep the source's ids, mint new ones, or remap only those the target "
              "holds or erased.")  # fmt: skip
@click.option("--on-conflict", type=_CONFLICT, default="skip", show_default=True,
              help="A record whose id the target holds: skip it (a rerun continues), "
              "overwrite it, or fail.")  # fmt: skip
@click.option("--no-verify", is_flag=True, help="Do not read the records back.")
@click.option(
    "--history/--no-history",
    default=None,
    help="Carry each record's versions. Default: when SOURCE keeps history.",
)
def migrate_command(
    source: str,
    target: str,
    agents: tuple[str, ...],
    user_id: str | None,
    types: tuple[str, ...],
    states: tuple[str, ...],
    embedder: str | None,
    id_policy: str,
    on_conflict: str,
    no_verify: bool,
    history: bool | None,
) -> None:
    """Move memory from the SOURCE store into the TARGET store (URLs), without a file."""
    from mnemowire.portability import migrate

    if source == target:
        raise click.BadParameter("SOURCE and TARGET are the same store", param_hint="TARGET")
    counter = _Counter("migrated")
    src = _memory(source, embedder, "SOURCE")
    dst = _memory(target, embedder, "TARGET")

    async def work() -> Any:
        async with src, dst:
            return await migrate(
                src, dst, agents=list(agents) or None, scope=_scope(user_id, types, states),
                id_policy=id_policy, on_conflict=on_conflict, verify=not no_verify,
                progress=counter, history=history,
            )  # fmt: skip

    _reported(_run(work, counter))
