"""``mnemowire remember|recall|forget|merge|expire``: the five operations from the shell.

Each command builds one spec request from its flags, or reads requests with ``--json FILE|-``:
one JSON object, or JSON Lines (one request per line, one response line each, all in one
process). Output is the spec's response (or error envelope) as JSON, or a table with
``--pretty``. Exit 0 when every request succeeded, 1 when any was rejected, 2 on usage errors.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any, TypeVar

import click
from pydantic import BaseModel

from mnemowire._wire import to_wire
from mnemowire.cli._app import Exit, cli
from mnemowire.cli._render import render_pretty
from mnemowire.errors import MnemowireError
from mnemowire.spec import loads_strict

F = TypeVar("F", bound=Callable[..., Any])


def store_options(command: F) -> F:
    """The options every operation shares: which stores, how to fuse, how to print."""
    decorators = [
        click.option(
            "--store",
            "stores",
            multiple=True,
            envvar="MNEMOWIRE_STORE",
            help="Store URL (repeat for a router over several). Default: "
            "$MNEMOWIRE_STORE or a sqlite-vec file in your data directory.",
        ),
        click.option(
            "--embedder",
            envvar="MNEMOWIRE_EMBEDDER",
            default=None,
            help="Embedder for stores that embed (minilm, minilm-onnx, hash:64, ...).",
        ),
        click.option(
            "--weights",
            default=None,
            help="Router: per-store weights for weighted fusion, URL=W,URL=W.",
        ),
        click.option(
            "--quorum",
            type=click.IntRange(min=1),
            default=None,
            help="Router: keep only items returned by at least this many stores.",
        ),
        click.option(
            "--json",
            "json_source",
            type=click.File("r", encoding="utf-8"),
            default=None,
            help="Read the request(s) from FILE or - (JSON or JSON Lines).",
        ),
        click.option("--pretty", is_flag=True, help="Print a readable table instead of JSON."),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def _json_object(text: str | None, what: str) -> Any:
    if text is None:
        return None
    try:
        return loads_strict(text)
    except ValueError as exc:
        raise click.BadParameter(f"{what} must be JSON: {exc}") from exc


def _requests(source: IO[str]) -> Iterator[Any]:
    """Requests from a JSON document or a JSON Lines stream (streamed line by line)."""
    first = ""
    for line in source:
        if line.strip():
            first = line
            break
    try:
        yield loads_strict(first)
    except ValueError:
        yield loads_strict(first + source.read())  # one pretty-printed JSON document
        return
    for line in source:
        if line.strip():
            try:
                yield loads_strict(line)
            except ValueError as exc:
                yield _NotJson(str(exc))


class _NotJson:
    def __init__(self, reason: str) -> None:
        self.reason = reason


def _unset(value: Any) -> bool:
    """A flag left at its default (identity checks: 0 and 0.0 are real values)."""
    return value is None or value is False or (isinstance(value, tuple | dict) and not value)


def run_operation(operation: str, flags: dict[str, Any], options: dict[str, Any]) -> None:
    """Run one operation for a request built from flags, or for each request in --json."""
    source: IO[str] | None = options["json_source"]
    given = {k: v for k, v in flags.items() if not _unset(v)}
    if source is not None and given:
        raise click.UsageError(f"--json replaces the request flags; drop {sorted(given)}")
    requests: Any = _requests(source) if source is not None else iter([given])
    sys.exit(asyncio.run(_run(operation, requests, options)))


async def _run(operation: str, requests: Iterator[Any], options: dict[str, Any]) -> int:
    memory = _open(options)
    status = Exit.OK
    try:
        for request in requests:
            if isinstance(request, _NotJson):
                envelope = {
                    "code": "invalid_request",
                    "message": f"line is not JSON: {request.reason}",
                    "details": [{"path": "", "rule": "json", "message": request.reason}],
                }
                _emit(envelope, options, error=True)
                status = Exit.REJECTED
                continue
            try:
                response = await memory.call(operation, request)
            except MnemowireError as exc:
                _emit(exc.envelope, options, error=True)
                status = Exit.REJECTED
            else:
                _emit(response, options)
    finally:
        await memory.aclose()
    return status


def _open(options: dict[str, Any]) -> Any:
    from mnemowire.embedders import load_embedder
    from mnemowire.memory import Memory
    from mnemowire.registry import default_store_url

    urls = list(options["stores"]) or [default_store_url()]
    router: dict[str, Any] = {}
    if options["weights"]:
        router["weights"] = _weights(options["weights"])
    if options["quorum"]:
        router["quorum"] = options["quorum"]
    embedder = load_embedder(options["embedder"]) if options["embedder"] else None
    try:
        return Memory.open(urls, embedder=embedder, **router)
    except MnemowireError as exc:
        raise click.ClickException(str(exc)) from exc


def _weights(text: str) -> dict[str, float]:
    weights = {}
    for part in text.split(","):
        url, sep, value = part.rpartition("=")
        try:
            weights[url] = float(value)
        except ValueError:
            sep = ""
        if not sep:
            raise click.BadParameter(f"--weights wants URL=WEIGHT pairs, got {part!r}")
    return weights


def _emit(
    message: BaseModel | dict[str, Any], options: dict[str, Any], error: bool = False
) -> None:
    payload = to_wire(message) if isinstance(message, BaseModel) else message
    if options["pretty"]:
        click.echo(render_pretty(payload, error=error))
    else:
        click.echo(json.dumps(payload, ensure_ascii=False))


def _operation(name: str, help_text: str) -> Callable[[F], F]:
    def wrap(command: F) -> F:
        @functools.wraps(command)
        def run(**kwargs: Any) -> None:
            options = {
                k: kwargs.pop(k)
                for k in ("stores", "embedder", "weights", "quorum", "json_source", "pretty")
            }
            run_operation(name, command(**kwargs), options)

        return cli.command(name, help=help_text)(store_options(run))  # type: ignore[return-value]

    return wrap


@click.option("--agent", "agent_id", help="Agent whose memory to write (agent_id).")
@click.option("--user", "user_id", help="End user the memory is about (user_id).")
@click.option(
    "--type",
    "type_",
    type=click.Choice(["semantic", "episodic", "procedural", "emotional"]),
    help="Memory type.",
)
@click.option("--metadata", help="Metadata as a JSON object.")
@click.option("--confidence", type=float, help="0..1 (default 1.0).")
@click.option("--source", help="Where the memory came from.")
@click.option("--expires-at", type=int, help="Epoch milliseconds after which it is not recalled.")
@click.option("--approval-required", is_flag=True, help="Stage the write for human review.")
@click.option("--id", "id_", help="Client-chosen record id (makes retries idempotent).")
@click.argument("content", required=False)
@_operation("remember", "Store one memory (CONTENT is its text).")
def remember_command(
    agent_id: str | None,
    user_id: str | None,
    type_: str | None,
    metadata: str | None,
    confidence: float | None,
    source: str | None,
    expires_at: int | None,
    approval_required: bool,
    id_: str | None,
    content: str | None,
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "user_id": user_id,
        "id": id_,
        "type": type_,
        "content": content,
        "metadata": _json_object(metadata, "--metadata"),
        "confidence": confidence,
        "source": source,
        "expires_at": expires_at,
        "approval_required": approval_required or None,
    }


@click.option("--agent", "agent_id", help="Agent whose memory to search (agent_id).")
@click.option("--user", "user_id", help="Only memories of this end user.")
@click.option("-k", "k", type=int, help="Maximum number of results (default 5).")
@click.option(
    "--type",
    "types",
    multiple=True,
    type=click.Choice(["semantic", "episodic", "procedural", "emotional"]),
    help="Only these types (repeatable).",
)
@click.option("--filter", "filter_", help='Metadata filter as JSON, e.g. \'{"topic": "travel"}\'.')
@click.option("--fresher-than-days", type=float, help="Only memories created this recently.")
@click.option(
    "--fusion", type=click.Choice(["rrf", "max", "weighted"]), help="Router fusion (default rrf)."
)
@click.option("--hops", type=int, help="Graph hops for the router's neighbour boost (0-3).")
@click.argument("query", required=False)
@_operation("recall", "Find the memories most relevant to QUERY.")
def recall_command(
    agent_id: str | None,
    user_id: str | None,
    k: int | None,
    types: tuple[str, ...],
    filter_: str | None,
    fresher_than_days: float | None,
    fusion: str | None,
    hops: int | None,
    query: str | None,
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "user_id": user_id,
        "query": query,
        "k": k,
        "types": list(types) or None,
        "filter": _json_object(filter_, "--filter"),
        "fresher_than_days": fresher_than_days,
        "fusion": fusion,
        "hops": hops,
    }


@click.option("--agent", "agent_id", help="Agent whose memory to change (agent_id).")
@click.option("--user", "user_id", help="Only memories of this end user.")
@click.option("--filter", "filter_", help="Forget records whose metadata matches (JSON).")
@click.option("--hard", "hard_delete", is_flag=True, help="Erase for good instead of hiding.")
@click.option("--reason", help="Why (kept in the audit log).")
@click.argument("ids", nargs=-1)
@_operation("forget", "Forget memories by IDS and/or --filter.")
def forget_command(
    agent_id: str | None,
    user_id: str | None,
    filter_: str | None,
    hard_delete: bool,
    reason: str | None,
    ids: tuple[str, ...],
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "user_id": user_id,
        "ids": list(ids) or None,
        "filter": _json_object(filter_, "--filter"),
        "hard_delete": hard_delete or None,
        "reason": reason,
    }


@click.option("--agent", "agent_id", help="Agent whose memory to change (agent_id).")
@click.option(
    "--strategy",
    type=click.Choice(["keep_canonical", "merge_content", "keep_highest_confidence"]),
    help="How the records combine (default keep_canonical).",
)
@click.argument("ids", nargs=-1)
@_operation("merge", "Merge records: IDS is CANONICAL DUPLICATE [DUPLICATE ...].")
def merge_command(
    agent_id: str | None, strategy: str | None, ids: tuple[str, ...]
) -> dict[str, Any]:
    canonical, *duplicates = ids or (None,)
    return {
        "agent_id": agent_id,
        "canonical": canonical,
        "duplicates": duplicates or None,
        "strategy": strategy,
    }


@click.option("--agent", "agent_id", help="Agent whose memory to change (agent_id).")
@click.option("--user", "user_id", help="Only memories of this end user.")
@click.option("--older-than-days", type=float, help="Policy: created more than N days ago.")
@click.option(
    "--policy-type",
    type=click.Choice(["semantic", "episodic", "procedural", "emotional"]),
    help="Policy: of this type.",
)
@click.option("--confidence-below", type=float, help="Policy: confidence below X.")
@click.option("--no-recall-in-days", type=float, help="Policy: not recalled for N days.")
@click.option(
    "--action",
    type=click.Choice(["forget", "archive", "demote"]),
    help="What to do with matches (default forget).",
)
@click.option("--demote-factor", type=float, help="Score multiplier for demote (default 0.5).")
@_operation("expire", "Apply a retention policy (predicates are ANDed; at least one).")
def expire_command(
    agent_id: str | None,
    user_id: str | None,
    older_than_days: float | None,
    policy_type: str | None,
    confidence_below: float | None,
    no_recall_in_days: float | None,
    action: str | None,
    demote_factor: float | None,
) -> dict[str, Any]:
    policy = {
        "older_than_days": older_than_days,
        "type": policy_type,
        "confidence_below": confidence_below,
        "no_recall_in_days": no_recall_in_days,
    }
    return {
        "agent_id": agent_id,
        "user_id": user_id,
        "policy": {k: v for k, v in policy.items() if v is not None},
        "action": action,
        "demote_factor": demote_factor,
    }
