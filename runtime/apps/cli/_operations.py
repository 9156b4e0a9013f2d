"""How a ``mnemowire`` command runs an operation of the spec (the five: ``_five``; get, list,
history, ...: ``_browse``; the review queue: ``_review``): the store options every such command
takes, the request from its flags or ``--json``, the boundary call, the answer printed.

A command builds one spec request from its flags, or reads requests with ``--json FILE|-``:
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
    a whole) for errors a person can act on; ``fixed``: the fields the command says itself.
    The command returns the request its flags build, or that and the fields a flag says
    for every request, --json ones included, even false ones (``consolidate --apply``:
    ``dry_run: false``)."""

    def wrap(command: F) -> F:
        @functools.wraps(command)
        def run(**kwargs: Any) -> None:
            options = {k: kwargs.pop(k) for k in STORE_OPTIONS}
            built = command(**kwargs)
            flags, said = built if isinstance(built, tuple) else (built, {})
            run_operation(name, flags, options, names, {**(fixed or {}), **said})

        command_ = group.command(command_name or name, help=help_text)
        return command_(store_options(run))  # type: ignore[return-value]

    return wrap
