"""``mnemowire remember|recall|forget|merge|expire``: the five operations from the shell.

Each command builds one spec request from its flags, or reads requests with ``--json FILE|-``:
one JSON object, or JSON Lines (one request per line, one response line each, all in one
process; blank lines are skipped, and a line that is not UTF-8 or not JSON gets its own error
envelope, so every request line gets exactly one answer line). Output is the spec's response (or
error envelope) as JSON, or a table with ``--pretty``. Exit 0 when every request succeeded, 1
when any was rejected, 2 on usage errors: a request built from flags that the spec refuses is
one (its envelope is printed, and the message names the flags), as is a store URL or embedder
that cannot be opened.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import sys
from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import IO, Any, TypeVar

import click
from pydantic import BaseModel

from mnemowire.apps.cli._app import Exit, cli
from mnemowire.apps.cli._progress import show_progress
from mnemowire.apps.cli._render import render_pretty
from mnemowire.errors import ConfigError, MnemowireError, RequestError, reworded
from mnemowire.kit import to_wire
from mnemowire.layers.keywords import UNSAID
from mnemowire.models import (
    EXPIRE_REQUEST_DEFAULTS,
    MERGE_REQUEST_DEFAULTS,
    RECALL_REQUEST_DEFAULTS,
    REMEMBER_REQUEST_DEFAULTS,
    ExpireAction,
    FusionMethod,
    MemoryType,
    MergeStrategy,
)
from mnemowire.spec import loads_strict

F = TypeVar("F", bound=Callable[..., Any])


def _choice(values: type[StrEnum]) -> click.Choice[str]:
    """The spec's enumeration as a flag's choices."""
    return click.Choice([member.value for member in values])


#: the options store_options adds, which a command hands to _open rather than to its request
STORE_OPTIONS = ("stores", "embedder", "weights", "quorum", "policy", "json_source", "pretty")


def store_options(command: F) -> F:
    """The options every operation shares: which stores, how to fuse, how to print."""
    decorators = [
        click.option(
            "--store",
            "stores",
            multiple=True,
            help="Store URL (repeat for a router over several). Default: "
            "$MNEMOWIRE_STORE (one URL) or a sqlite-vec file in your data directory.",
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
            "--policy",
            type=click.Path(dir_okay=False),
            default=None,
            help="Staging policy (JSON file): writes it matches wait for review "
            "(docs/governance.md#policy).",
        ),
        click.option(
            "--json",
            "json_source",
            type=click.File("rb"),
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


def _requests(source: IO[bytes]) -> Iterator[Any]:
    """Requests from a JSON document or a JSON Lines stream (streamed line by line).

    The first non-blank line decides: if it is JSON, every line is a request; if not, the whole
    input is tried as one (pretty-printed) document, and failing that every line is answered
    on its own. A line that is not UTF-8 or not JSON yields a :class:`_NotJson` in its place.
    """
    lines = enumerate(source, start=1)
    first: tuple[int, bytes] | None = next(((n, b) for n, b in lines if b.strip()), None)
    if first is None:
        return
    number, line = first
    line = line.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte order mark
    try:
        yield loads_strict(line)
    except ValueError:
        rest = [(n, b) for n, b in lines]
        try:
            yield loads_strict(line + b"".join(b for _, b in rest))  # one JSON document
            return
        except ValueError:
            yield _parsed(number, line)
            yield from (_parsed(n, b) for n, b in rest if b.strip())
            return
    for number, line in lines:
        if line.strip():
            yield _parsed(number, line)


def _parsed(number: int, line: bytes) -> Any:
    try:
        return loads_strict(line)
    except ValueError as exc:
        return _NotJson(number, str(exc))


class _NotJson:
    """A line of --json input that holds no request: its number and why."""

    def __init__(self, line: int, reason: str) -> None:
        self.line = line
        self.reason = reason

    @property
    def envelope(self) -> dict[str, Any]:
        return {
            "code": "invalid_request",
            "message": f"line {self.line} is not a JSON request: {self.reason}; "
            "send one JSON object per line",
            "details": [{"path": "", "rule": "json", "message": self.reason}],
        }


def _unset(value: Any) -> bool:
    """A flag left at its default (identity checks: 0 and 0.0 are real values)."""
    return value is None or value is False or (isinstance(value, tuple | dict | list) and not value)


def run_operation(
    operation: str,
    flags: dict[str, Any],
    options: dict[str, Any],
    names: dict[str, str],
    fixed: dict[str, Any] | None = None,
) -> None:
    """Run one operation for a request built from flags, or for each request in --json.
    ``names`` maps the request's top-level fields to the flags that set them; ``fixed`` holds
    the fields the command itself says (``review reject``: ``approved: false``), set on every
    request, --json ones included. Flags leave to the short path's defaults what a person
    would rather not say (``UNSAID``: a remember is semantic); a --json request is sent as it
    is."""
    source: IO[bytes] | None = options["json_source"]
    given = {k: v for k, v in flags.items() if not _unset(v)}
    fixed = fixed or {}
    if source is not None and given:
        raise click.UsageError(f"--json replaces the request flags; drop {sorted(given)}")
    if source is None:
        sys.exit(
            asyncio.run(
                _run(
                    operation,
                    iter([{**UNSAID.get(operation, {}), **given, **fixed}]),
                    options,
                    names,
                )
            )
        )
    requests = ({**r, **fixed} if fixed and isinstance(r, dict) else r for r in _requests(source))
    first = next(requests, _NOTHING)
    if first is _NOTHING:
        raise click.UsageError("--json read no request: give one JSON object, or one per line")
    sys.exit(asyncio.run(_run(operation, itertools.chain([first], requests), options, None)))


_NOTHING = object()


async def _run(
    operation: str,
    requests: Iterator[Any],
    options: dict[str, Any],
    names: dict[str, str] | None,
) -> int:
    """Answer every request; ``names`` (flag mode) turns a refused request into a usage error."""
    memory = _open(options)
    status = Exit.OK
    try:
        for request in requests:
            if isinstance(request, _NotJson):
                _emit(request.envelope, options, error=True)
                status = Exit.REJECTED
                continue
            try:
                response = await memory.call(operation, request)
            except RequestError as exc:
                if names is None:
                    _emit(exc.envelope, options, error=True)
                    status = Exit.REJECTED
                    continue
                envelope = flag_envelope(exc.envelope, names)
                _emit(envelope, options, error=True)
                raise click.UsageError(envelope["message"]) from None
            except MnemowireError as exc:
                _emit(exc.envelope, options, error=True)
                status = Exit.REJECTED
            else:
                _emit(response, options)
    finally:
        await memory.aclose()
    return status


def flag_envelope(envelope: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """An invalid-request envelope for a request built from flags: each detail names the flag
    (``flag``, an extension field) and the message speaks of flags, not wire paths."""
    return reworded(envelope, names, key="flag")


def _open(options: dict[str, Any]) -> Any:
    from mnemowire.embedders import load_embedder
    from mnemowire.layers.memory import Memory
    from mnemowire.registry import default_store_url

    show_progress()
    urls = list(options["stores"]) or [default_store_url()]
    router: dict[str, Any] = {}
    if options["weights"]:
        router["weights"] = _weights(options["weights"])
    if options["quorum"]:
        router["quorum"] = options["quorum"]
    if options["policy"]:
        from mnemowire.kit.staging import StagingRules

        try:
            router["policy"] = StagingRules.load(options["policy"])
        except ConfigError as exc:
            raise click.BadParameter(str(exc), param_hint="--policy") from None
    try:
        embedder = load_embedder(options["embedder"]) if options["embedder"] else None
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--embedder") from None
    try:
        return Memory.open(urls, embedder=embedder, **router)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--store") from None
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


def _operation(
    name: str,
    help_text: str,
    names: dict[str, str],
    *,
    group: click.Group = cli,
    command_name: str | None = None,
    fixed: dict[str, Any] | None = None,
) -> Callable[[F], F]:
    """A command for operation ``name`` (``command_name`` under ``group``: by default ``name``
    under ``mnemowire``); ``names`` maps request fields to their flags (``""``: the request as
    a whole) for errors a person can act on; ``fixed``: the fields the command says itself."""

    def wrap(command: F) -> F:
        @functools.wraps(command)
        def run(**kwargs: Any) -> None:
            options = {k: kwargs.pop(k) for k in STORE_OPTIONS}
            run_operation(name, command(**kwargs), options, names, fixed)

        command_ = group.command(command_name or name, help=help_text)
        return command_(store_options(run))  # type: ignore[return-value]

    return wrap


@click.option("--agent", "agent_id", help="Agent whose memory to write (agent_id).")
@click.option("--user", "user_id", help="End user the memory is about (user_id).")
@click.option(
    "--type",
    "type_",
    type=_choice(MemoryType),
    help=f"Memory type (default {UNSAID['remember']['type']}).",
)
@click.option("--metadata", help="Metadata as a JSON object.")
@click.option(
    "--confidence", type=float, help=f"0..1 (default {REMEMBER_REQUEST_DEFAULTS['confidence']})."
)
@click.option("--source", help="Where the memory came from.")
@click.option("--expires-at", type=int, help="Epoch milliseconds after which it is not recalled.")
@click.option("--approval-required", is_flag=True, help="Stage the write for human review.")
@click.option("--id", "id_", help="Client-chosen record id (makes retries idempotent).")
@click.argument("content", required=False)
@_operation(
    "remember",
    "Store one memory (CONTENT is its text).",
    {
        "agent_id": "--agent",
        "user_id": "--user",
        "id": "--id",
        "type": "--type",
        "content": "CONTENT",
        "metadata": "--metadata",
        "confidence": "--confidence",
        "source": "--source",
        "expires_at": "--expires-at",
        "approval_required": "--approval-required",
        "": "the request",
        "event_time": "--json (event_time)",
        "location": "--json (location)",
        "participants": "--json (participants)",
    },
)
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
@click.option(
    "-k", "k", type=int, help=f"Maximum number of results (default {RECALL_REQUEST_DEFAULTS['k']})."
)
@click.option(
    "--type",
    "types",
    multiple=True,
    type=_choice(MemoryType),
    help="Only these types (repeatable).",
)
@click.option("--filter", "filter_", help='Metadata filter as JSON, e.g. \'{"topic": "travel"}\'.')
@click.option("--fresher-than-days", type=float, help="Only memories created this recently.")
@click.option(
    "--fusion",
    type=_choice(FusionMethod),
    help=f"Router fusion (default {RECALL_REQUEST_DEFAULTS['fusion']}).",
)
@click.option("--hops", type=int, help="Graph hops for the router's neighbour boost (0-3).")
@click.argument("query", required=False)
@_operation(
    "recall",
    "Find the memories most relevant to QUERY.",
    {
        "agent_id": "--agent",
        "user_id": "--user",
        "query": "QUERY",
        "k": "-k",
        "types": "--type",
        "filter": "--filter",
        "fresher_than_days": "--fresher-than-days",
        "fusion": "--fusion",
        "hops": "--hops",
        "": "the request",
    },
)
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
@click.option("--approval-required", is_flag=True, help="Stage the forget for review (spec v0.2).")
@click.option(
    "--all",
    "all_",
    is_flag=True,
    help="Every memory of the agent, or of --user (spec v0.4); preview it with --dry-run.",
)
@click.option(
    "--dry-run", is_flag=True, help="List what would be forgotten and change nothing (spec v0.4)."
)
@click.argument("ids", nargs=-1)
@_operation(
    "forget",
    "Forget memories by IDS and/or --filter, or --all of an agent or a --user (--dry-run: "
    "only list them).",
    {
        "agent_id": "--agent",
        "user_id": "--user",
        "ids": "IDS",
        "filter": "--filter",
        "all": "--all",
        "dry_run": "--dry-run",
        "hard_delete": "--hard",
        "reason": "--reason",
        "approval_required": "--approval-required",
        "": "IDS, --filter or --all",
    },
)
def forget_command(
    agent_id: str | None,
    user_id: str | None,
    filter_: str | None,
    hard_delete: bool,
    reason: str | None,
    approval_required: bool,
    all_: bool,
    dry_run: bool,
    ids: tuple[str, ...],
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "user_id": user_id,
        "ids": list(ids) or None,
        "filter": _json_object(filter_, "--filter"),
        "all": all_ or None,
        "dry_run": dry_run or None,
        "hard_delete": hard_delete or None,
        "reason": reason,
        "approval_required": approval_required or None,
    }


@click.option("--agent", "agent_id", help="Agent whose memory to change (agent_id).")
@click.option(
    "--strategy",
    type=_choice(MergeStrategy),
    help=f"How the records combine (default {MERGE_REQUEST_DEFAULTS['strategy']}).",
)
@click.option("--approval-required", is_flag=True, help="Stage the merge for review (spec v0.2).")
@click.argument("ids", nargs=-1)
@_operation(
    "merge",
    "Merge records: IDS is CANONICAL DUPLICATE [DUPLICATE ...].",
    {
        "agent_id": "--agent",
        "canonical": "CANONICAL (the first of IDS)",
        "duplicates": "DUPLICATE (the second and later IDS)",
        "strategy": "--strategy",
        "approval_required": "--approval-required",
        "": "the request",
    },
)
def merge_command(
    agent_id: str | None, strategy: str | None, approval_required: bool, ids: tuple[str, ...]
) -> dict[str, Any]:
    canonical, *duplicates = ids or (None,)
    return {
        "agent_id": agent_id,
        "canonical": canonical,
        "duplicates": duplicates or None,
        "strategy": strategy,
        "approval_required": approval_required or None,
    }


@click.option("--agent", "agent_id", help="Agent whose memory to change (agent_id).")
@click.option("--user", "user_id", help="Only memories of this end user.")
@click.option("--older-than-days", type=float, help="Policy: created more than N days ago.")
@click.option(
    "--policy-type",
    type=_choice(MemoryType),
    help="Policy: of this type.",
)
@click.option("--confidence-below", type=float, help="Policy: confidence below X.")
@click.option("--no-recall-in-days", type=float, help="Policy: not recalled for N days.")
@click.option(
    "--action",
    type=_choice(ExpireAction),
    help=f"What to do with matches (default {EXPIRE_REQUEST_DEFAULTS['action']}).",
)
@click.option(
    "--demote-factor",
    type=float,
    help=f"Score multiplier for demote (default {EXPIRE_REQUEST_DEFAULTS['demote_factor']}).",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Only list what the policy matches (matched_ids); change nothing.",
)
@_operation(
    "expire",
    "Apply a retention policy (predicates are ANDed; at least one).",
    {
        "agent_id": "--agent",
        "user_id": "--user",
        "policy": "--older-than-days, --policy-type, --confidence-below or --no-recall-in-days",
        "action": "--action",
        "demote_factor": "--demote-factor",
        "dry_run": "--dry-run",
        "": "the request",
    },
)
def expire_command(
    agent_id: str | None,
    user_id: str | None,
    older_than_days: float | None,
    policy_type: str | None,
    confidence_below: float | None,
    no_recall_in_days: float | None,
    action: str | None,
    demote_factor: float | None,
    dry_run: bool,
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
        "dry_run": dry_run or None,
    }
