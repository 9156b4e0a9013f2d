"""Who may call the server, and as which agents (docs/transports.md#http.auth).

The spec scopes every request by ``agent_id``, but scoping is not authentication
([recall.visibility]): anyone who can reach a store can name any agent. A server that others
can reach therefore knows its callers by bearer token, and each token names the agent ids it
may act as (``"*"``: every agent, for an operator). Tokens come from a JSON file (``--tokens``)
or the same JSON in ``$MNEMOWIRE_SERVER_TOKENS``::

    {"tokens": [{"name": "alice-laptop", "token": "...", "agents": ["assistant-alice"]},
                {"name": "dana", "token": "...", "agents": ["*"], "reviewer": true},
                {"name": "ops", "token": "...", "agents": ["*"]}]}

Only a token marked ``reviewer`` may ``decide`` a review (an agent holding its own token must
not approve its own staged writes), and it decides as itself: the decision's ``reviewer`` is
the token's name.

A presented token is compared with every configured one in constant time (``hmac.compare_
digest`` over SHA-256 digests, all of them, no early exit), so the time taken says nothing about
how much of a token was right. Logs and errors name a token by its ``name``, never its value.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
from collections.abc import Awaitable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from mnemowire.errors import ConfigError, ForbiddenError, UnauthorizedError
from mnemowire.kit.audit import as_caller
from mnemowire.layers.validating import ValidatingStore
from mnemowire.models import ImportRecordsRequest, RememberBatchRequest, ScopesRequest

__all__ = [
    "ANYONE",
    "ENV_TOKENS",
    "MIN_TOKEN_LENGTH",
    "Caller",
    "Tokens",
    "admitted",
    "agents_named",
    "caller_of",
    "readable_by_others",
]

#: the environment variable holding the tokens' JSON when no --tokens file is given
ENV_TOKENS = "MNEMOWIRE_SERVER_TOKENS"
#: shorter tokens are refused at start: a guessable token is no authentication
MIN_TOKEN_LENGTH = 16
ALL_AGENTS = "*"


@dataclass(frozen=True)
class Caller:
    """An authenticated caller: the token's name and the agents it may act as."""

    name: str
    agents: frozenset[str]
    #: may decide reviews (docs/governance.md#review), as ``name``
    reviewer: bool = False

    def admit(self, named: Mapping[str, str]) -> None:
        """Raise ``forbidden`` unless this caller may act as every agent of ``named`` (JSON
        Pointer -> agent id, from :func:`agents_named`); the details name each refused one."""
        if ALL_AGENTS in self.agents:
            return
        refused = {path: agent for path, agent in named.items() if agent not in self.agents}
        if refused:
            agents = ", ".join(repr(a) for a in sorted(set(refused.values())))
            raise ForbiddenError(
                f"this token ({self.name}) may not act as agent {agents}; ask the server's "
                "operator for a token of that agent",
                details=[
                    {"path": path, "rule": "forbidden",
                     "message": "is an agent this token may not act as"}
                    for path in sorted(refused)
                ],
            )  # fmt: skip

    def narrow(self, request: ScopesRequest) -> ScopesRequest:
        """A scope listing of a token that may act as some agents only: of those agents
        (docs/spec/v0.3.md#scopes.list), unless the request names agents itself (then each is
        admitted as any request's)."""
        if ALL_AGENTS in self.agents or request.agent_ids:
            return request
        return request.model_copy(update={"agent_ids": sorted(self.agents)[:1000]})

    def admit_decision(self, request: BaseModel) -> None:
        """Raise ``forbidden`` unless this caller may decide reviews, and as the reviewer the
        request names (a token decides as its own name; without tokens, anyone decides)."""
        if self is ANYONE:
            return
        if not self.reviewer:
            raise ForbiddenError(
                f"this token ({self.name}) may not decide reviews: an agent must not approve "
                'its own writes; ask the operator for a token marked "reviewer": true',
                details=[{"path": "/reviewer", "rule": "forbidden", "message": "not a reviewer"}],
            )
        if getattr(request, "reviewer", None) != self.name:
            raise ForbiddenError(
                f"this token decides as {self.name!r}: send reviewer {self.name!r}",
                details=[
                    {"path": "/reviewer", "rule": "forbidden", "message": "is not this token's"}
                ],
            )


#: the caller of a server without tokens (loopback only): any agent
ANYONE = Caller("anyone (no tokens configured)", frozenset({ALL_AGENTS}))


@dataclass(frozen=True)
class _Entry:
    digest: bytes
    caller: Caller


class Tokens:
    """The configured tokens; :meth:`authenticate` turns an Authorization header into a Caller."""

    def __init__(
        self,
        entries: Iterable[tuple[str, str, Iterable[str]] | tuple[str, str, Iterable[str], bool]],
    ) -> None:
        """``entries``: (name, token, agents) triples, or (name, token, agents, reviewer)."""
        self._entries: list[_Entry] = []
        names: set[str] = set()
        for name, token, agents, *marked in entries:
            reviewer = bool(marked and marked[0])
            if len(token) < MIN_TOKEN_LENGTH:
                raise ConfigError(
                    f"token {name!r} is {len(token)} characters; use at least "
                    f"{MIN_TOKEN_LENGTH} (e.g. `python -c 'import secrets; "
                    "print(secrets.token_urlsafe(32))'`)"
                )
            if name in names:
                raise ConfigError(f"two tokens are named {name!r}; names must be unique")
            allowed = frozenset(agents)
            if not allowed:
                raise ConfigError(f'token {name!r} lists no agents; give agent ids, or "*"')
            names.add(name)
            self._entries.append(_Entry(_digest(token), Caller(name, allowed, reviewer)))
        if not self._entries:
            raise ConfigError("the token list is empty")
        digests = [e.digest for e in self._entries]
        if len(set(digests)) != len(digests):
            raise ConfigError("the same token is listed twice; each caller needs its own")

    @classmethod
    def parse(cls, text: str, source: str) -> Tokens:
        """Tokens from their JSON text; ``source`` names where it came from in errors."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"{source} is not JSON: {exc}") from None
        listed = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(listed, list):
            raise ConfigError(
                f'{source} must be {{"tokens": [{{"name": ..., "token": ..., "agents": [...]}}]}}'
            )
        entries = []
        for index, item in enumerate(listed):
            entries.append(_entry(item, f"{source}: tokens[{index}]"))
        return cls(entries)

    @classmethod
    def load(cls, path: Path | None, environ: Mapping[str, str] = os.environ) -> Tokens | None:
        """The tokens of ``path``, else of ``$MNEMOWIRE_SERVER_TOKENS``; None when neither is
        given (the server then serves loopback only)."""
        if path is not None:
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise ConfigError(f"cannot read --tokens {path}: {exc.strerror}") from None
            return cls.parse(text, f"--tokens {path}")
        configured = environ.get(ENV_TOKENS)
        return cls.parse(configured, f"${ENV_TOKENS}") if configured else None

    @property
    def names(self) -> list[str]:
        return [e.caller.name for e in self._entries]

    def authenticate(self, authorization: str | None) -> Caller:
        """The caller an ``Authorization: Bearer <token>`` header names; ``unauthorized``
        when there is none or the token is unknown."""
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise UnauthorizedError(
                "this server needs a bearer token: send `Authorization: Bearer <token>` (the "
                "CLI and the clients read $MNEMOWIRE_TOKEN)"
            )
        presented = _digest(token.strip())
        found: Caller | None = None
        for entry in self._entries:  # every entry, no early exit: constant time
            if hmac.compare_digest(presented, entry.digest):
                found = entry.caller
        if found is None:
            raise UnauthorizedError("the bearer token is not one this server knows")
        return found


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def _entry(item: Any, where: str) -> tuple[str, str, list[str], bool]:
    if not isinstance(item, dict):
        raise ConfigError(f"{where} must be an object with name, token and agents")
    unknown = sorted(set(item) - {"name", "token", "agents", "reviewer"})
    if unknown:
        raise ConfigError(
            f"{where} has unknown fields {unknown}; known: name, token, agents, reviewer"
        )
    reviewer = item.get("reviewer", False)
    if not isinstance(reviewer, bool):
        raise ConfigError(f"{where}.reviewer must be true or false")
    name, token, agents = item.get("name"), item.get("token"), item.get("agents")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{where}.name must be a non-empty string")
    if not isinstance(token, str):
        raise ConfigError(f"{where}.token must be a string")
    if not isinstance(agents, list) or not all(isinstance(a, str) and a for a in agents):
        raise ConfigError(f'{where}.agents must be a list of agent ids (or ["*"])')
    return name, token, agents, reviewer


def readable_by_others(path: Path) -> bool:
    """Whether a tokens file can be read by users other than its owner (worth a warning)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return bool(mode & (stat.S_IRGRP | stat.S_IROTH))


def caller_of(tokens: Tokens | None, authorization: str | None, *, otherwise: Caller) -> Caller:
    """Who sends a request: with tokens, the one its ``Authorization`` header names
    (``unauthorized`` if none); without, ``otherwise`` (a server on loopback: anyone)."""
    if tokens is None:
        return otherwise
    return tokens.authenticate(authorization)


def admitted(
    boundary: ValidatingStore, caller: Caller, operation: str, payload: Any
) -> Awaitable[dict[str, Any]]:
    """What every transport does with a request: validate ``payload`` as ``operation``'s
    request (once, at ``boundary``), admit ``caller`` for every agent it names, and hand back
    the store's answer to come, as wire JSON."""
    parsed = boundary.parse(operation, payload)
    if isinstance(parsed, ScopesRequest):
        parsed = caller.narrow(parsed)
    caller.admit(agents_named(parsed))
    if operation == "decide":
        caller.admit_decision(parsed)
    answer = boundary.answer_wire(operation, parsed)
    if caller is ANYONE:  # no credential to name: a server without tokens
        return answer
    return as_caller(caller.name, answer)  # the audit log names the token each write came by


def agents_named(request: BaseModel) -> dict[str, str]:
    """Every agent id a parsed request acts as, by its JSON Pointer (each item's, for a
    batch)."""
    if isinstance(request, RememberBatchRequest):
        return {f"/requests/{i}/agent_id": item.agent_id for i, item in enumerate(request.requests)}
    if isinstance(request, ImportRecordsRequest):  # every record's agent is one of these
        return {f"/agents/{i}": agent for i, agent in enumerate(request.agents)}
    if isinstance(request, ScopesRequest):
        return {f"/agent_ids/{i}": agent for i, agent in enumerate(request.agent_ids or [])}
    agent: object = getattr(request, "agent_id", None)
    if not isinstance(agent, str):
        raise TypeError(f"{type(request).__name__} names no agent_id")
    return {"/agent_id": agent}
