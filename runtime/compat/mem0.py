"""mem0's ``Memory`` and ``AsyncMemory`` over any mnemowire store: change the import, keep the
program, and every write goes through the validating boundary, the review queue and the
audit log, into sqlite-vec, PostgreSQL or any store URL.

>>> from mnemowire.compat.mem0 import Memory                           # doctest: +SKIP
>>> m = Memory()                   # the default store; Memory("pgvector://...") for PostgreSQL
>>> m.add("Alice likes tea", user_id="alice", infer=False)
{'results': [{'id': '01J...', 'memory': 'Alice likes tea', 'event': 'ADD', ...}]}
>>> m.search("what does Alice drink?", filters={"user_id": "alice"})["results"][0]["memory"]
'Alice likes tea'

The methods, arguments and answers are mem0 2.2's (``add``, ``search``, ``get``, ``get_all``,
``update``, ``delete``, ``delete_all``, ``history``, ``reset``), for what mem0 does without an
LLM: ``add`` stores each message as it is (mem0's ``infer=False``); asking for mem0's LLM
fact extraction (``infer=True``, mem0's default) is :class:`NeedsAnLLM`, naming ``infer=False``.
The mapping (one mnemowire agent per facade, mem0's scopes as ``user_id`` and metadata) is
in :mod:`mnemowire.compat._mem0_shapes`; docs/integrations.md#mem0 lists every loss.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Final, TypeVar

from mnemowire.compat._hits import hit_score
from mnemowire.compat._mem0_shapes import (
    ENTITY_IDS,
    NO_SCORE,
    entity_id,
    expires_at,
    history_items,
    item,
    scope,
    stripped,
)
from mnemowire.errors import (
    ConflictError,
    NotFoundError,
    RequestError,
    UnsupportedError,
    reworded,
)
from mnemowire.layers.memory import Memory as Boundary
from mnemowire.layers.memory import no_running_loop
from mnemowire.layers.validating import parse_requests
from mnemowire.models import HistoryEntry, MemoryRecord, RecordState, RememberRequest

__all__ = ["AsyncMemory", "Memory", "NeedsAnLLM"]

T = TypeVar("T")
#: the answers mem0 gives, word for word
UPDATED: Final = {"message": "Memory updated successfully!"}
DELETED: Final = {"message": "Memory deleted successfully!"}
DELETED_ALL: Final = {"message": "Memories deleted successfully!"}
#: a request's fields, in the words of the mem0 method that built it
_ARGUMENTS: Final = {
    "content": "messages",
    "query": "query",
    "k": "top_k",
    "min_relevance": "threshold",
    "filter": "filters",
    "metadata": "metadata",
    "user_id": "user_id",
    "agent_id": "the facade's agent",
    "ids": "memory_id",
    "id": "memory_id",
    "expires_at": "expiration_date",
    "": "the request",
}
#: every state a record can be read in: what reset and delete_all reach
_EVERY_STATE: Final = [s.value for s in RecordState]
_UNSET: Final = object()
#: an update that lost a race with another writer is read and sent again, this many times
_ATTEMPTS: Final = 3


class NeedsAnLLM(UnsupportedError, ValueError):
    """A mem0 call that needs an LLM (fact extraction, procedural summaries), which mnemowire
    does not run; a ValueError, as mem0's argument errors are."""


class AsyncMemory:
    """mem0's ``AsyncMemory`` over a mnemowire store.

    ``store``: a store URL (or several, fanned out through the router); by default the
    CLI's default store. ``agent``: the mnemowire agent whose memory this is (mem0 keeps one
    collection; its own ``agent_id`` becomes metadata). ``approval_required``: every add and
    delete waits for a reviewer (``mnemowire review list``). ``hard_delete``: delete, delete_all
    and reset erase for good instead of hiding (mem0 keeps a deleted memory's text in its
    history; a soft forget keeps it for the audit too)."""

    def __init__(
        self,
        store: str | Sequence[str] | None = None,
        *,
        agent: str = "mem0",
        approval_required: bool = False,
        hard_delete: bool = False,
        memory: Boundary | None = None,
    ) -> None:
        self.memory = memory if memory is not None else Boundary.open(store)
        self.agent = agent
        self.approval_required = approval_required
        self.hard_delete = hard_delete

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any]) -> AsyncMemory:
        """mem0's constructor from a dict: ``{"store": URL, "agent": ..., ...}`` (the keyword
        arguments of the class). mem0's own backend blocks (``vector_store``, ``llm``,
        ``embedder``, ...) are refused by name: a store URL picks the backend here."""
        return cls(**_options(config_dict))

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self.memory.aclose()

    # -- writes ---------------------------------------------------------------------------

    async def add(
        self,
        messages: str | Mapping[str, Any] | Sequence[Mapping[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        timestamp: Any = None,
        expiration_date: Any = None,
        infer: bool = True,
        memory_type: str | None = None,
        prompt: str | None = None,
    ) -> dict[str, Any]:
        """Store each message (but system ones) as a memory, as mem0's ``infer=False`` does:
        one write for all of them, all or nothing."""
        if timestamp is not None:
            raise ValueError("add(timestamp=...) is a mem0 platform feature, not in mem0's OSS SDK")
        if infer or memory_type is not None or prompt is not None:
            asked = "infer=True" if infer else "memory_type" if memory_type else "prompt"
            raise NeedsAnLLM(
                f"add({asked}) asks an LLM to extract or summarise memories; mnemowire stores "
                "what it is given: pass infer=False to store each message as a memory (mem0 "
                "does the same with infer=False)"
            )
        ids = _entity_ids(user_id, agent_id, run_id)
        if not any(ids.values()):
            raise ValueError("At least one of 'user_id', 'agent_id', or 'run_id' must be provided.")
        base = stripped(metadata)
        base.update({k: v for k, v in ids.items() if v and k != "user_id"})
        expiry = expires_at(expiration_date)
        requests, results, positions = [], [], []
        for position, message in enumerate(_messages(messages)):
            if message["role"] == "system":
                continue
            meta = {**base, "role": message["role"]}
            if message.get("name"):
                meta["actor_id"] = message["name"]
            request: dict[str, Any] = {
                "agent_id": self.agent,
                "type": "semantic",
                "content": message["content"],
                "metadata": meta,
            }
            if ids["user_id"]:
                request["user_id"] = ids["user_id"]
            if expiry is not None:
                request["expires_at"] = expiry
            if self.approval_required:
                request["approval_required"] = True
            requests.append(request)
            positions.append(position)
            results.append(
                {
                    "memory": message["content"],
                    "event": "ADD",
                    "actor_id": message.get("name") or None,
                    "role": message["role"],
                }
            )
        try:
            stored = await self._remember(requests)
        except RequestError as exc:  # in mem0's words: which message, which argument
            said = {str(i): f"messages[{p}]" for i, p in enumerate(positions)}
            if len(positions) == 1:
                said["content"] = f"messages[{positions[0]}]"
            envelope = reworded(exc.envelope, {**_ARGUMENTS, **said}, key="argument")
            raise RequestError(envelope) from None
        for result, answer in zip(results, stored, strict=True):
            result["id"] = answer.id
            if answer.pending_approval:
                result["pending_approval"] = True
        return {"results": [{"id": r.pop("id"), **r} for r in results]}

    async def _remember(self, requests: list[dict[str, Any]]) -> list[Any]:
        if not requests:
            return []
        if len(requests) == 1:
            return [await self.memory.remember(requests[0])]
        if "remember_batch" in self._capabilities():
            return await self.memory.remember_many(requests)  # all checked, then one write
        parse_requests(RememberRequest, requests, version=self.memory.version)  # all checked
        return [await self.memory.remember(r) for r in requests]

    def _capabilities(self) -> list[str]:
        return [str(c) for c in self.memory.capabilities().capabilities]

    async def update(
        self,
        memory_id: str,
        text: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expiration_date: Any = _UNSET,
        data: str | None = None,
    ) -> dict[str, str]:
        """Change a memory's text, metadata or expiry (metadata merged into what it has; its
        scope ids never change), at the version read: a write in between is read again."""
        text = data if text is None else text
        if text is None and metadata is None and expiration_date is _UNSET:
            raise ValueError("At least one of text, metadata, or expiration_date must be provided.")
        if expiration_date is None:
            raise UnsupportedError(
                "update(expiration_date=None): the spec's update sets an expiry but cannot "
                "clear one; give a later date instead"
            )
        changes: dict[str, Any] = {} if text is None else {"content": text}
        if expiration_date is not _UNSET:
            changes["expires_at"] = expires_at(expiration_date)
        merged = None
        if metadata is not None:
            merged = {k: v for k, v in metadata.items() if k not in (*ENTITY_IDS, "actor_id")}
        attempts = _ATTEMPTS
        while True:
            attempts -= 1
            try:
                await self._update_once(memory_id, changes, merged)
            except ConflictError:
                if attempts:
                    continue
                raise
            return dict(UPDATED)

    async def _update_once(
        self, memory_id: str, changes: dict[str, Any], merged: dict[str, Any] | None
    ) -> None:
        """The changes, at the version read now (metadata merged into what it has)."""
        record = await self._record(memory_id)
        if record is None:
            raise ValueError(
                f"Memory with id {memory_id} not found. Please provide a valid 'memory_id'"
            )
        request = {
            "agent_id": self.agent,
            "id": memory_id,
            "expected_version": record.version or 1,
            **changes,
        }
        if merged is not None:
            request["metadata"] = {**(record.metadata or {}), **merged}
        await self._spoken(self.memory.update(request))

    async def delete(self, memory_id: str) -> dict[str, str]:
        """Forget one memory (hidden, or erased with ``hard_delete``)."""
        if await self._record(memory_id) is None:
            raise ValueError(f"Memory with id {memory_id} not found")
        await self._forget([memory_id])
        return dict(DELETED)

    async def delete_all(
        self, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> dict[str, str]:
        """Forget every memory of a scope (at least one id; ``reset`` forgets everything)."""
        given = _entity_ids(user_id, agent_id, run_id)
        filters = {k: v for k, v in given.items() if v}
        if not filters:
            raise ValueError(
                "At least one filter is required to delete all memories. If you want to "
                "delete all memories, use the `reset()` method."
            )
        user, condition = scope(filters, "delete_all")
        await self._forget(await self._ids(user, condition))
        return dict(DELETED_ALL)

    async def reset(self) -> None:
        """Forget every memory of the facade's agent, whoever it is about."""
        await self._forget(await self._ids(None, {}))

    async def _forget(self, ids: list[str]) -> None:
        request: dict[str, Any] = {"agent_id": self.agent, "hard_delete": self.hard_delete}
        if self.approval_required:
            request["approval_required"] = True
        await self._spoken(self.memory.forget_many(ids, request))

    async def _ids(self, user: str | None, condition: dict[str, Any]) -> list[str]:
        return [r.id for r in await self._list(user, condition, None, _EVERY_STATE)]

    # -- reads ----------------------------------------------------------------------------

    async def get(self, memory_id: str) -> dict[str, Any] | None:
        """One memory by id, or None."""
        record = await self._record(memory_id)
        return None if record is None else item(record)

    async def get_all(
        self,
        *,
        filters: Mapping[str, Any] | None = None,
        top_k: int = 20,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> dict[str, list[dict[str, Any]]]:
        """The memories of a scope, newest first, at most ``top_k``."""
        _no_top_level_ids(kwargs, "get_all")
        _check_top_k(top_k)
        user, condition = scope(filters, "get_all")
        states = ["active", "expired"] if show_expired else ["active"]
        found = await self._list(user, condition, top_k, states) if top_k else []
        return {"results": [item(r, NO_SCORE) for r in found]}

    async def search(
        self,
        query: str,
        *,
        top_k: int = 20,
        filters: Mapping[str, Any] | None = None,
        threshold: float = 0.1,
        rerank: bool = False,
        explain: bool = False,
        reference_date: Any = None,
        show_expired: bool = False,
        **kwargs: Any,
    ) -> dict[str, list[dict[str, Any]]]:
        """The ``top_k`` memories of a scope that best answer ``query`` (the store's recall
        picks them), listed by score as mem0 lists them: the relevance (cosine similarity)
        where the store measures it, which ``threshold`` is the floor of."""
        if reference_date is not None:
            raise ValueError("search(reference_date=...) is a mem0 platform feature")
        _no_top_level_ids(kwargs, "search")
        if threshold is not None and not (
            isinstance(threshold, int | float) and 0 <= threshold <= 1
        ):
            raise ValueError(
                f"Invalid threshold: {threshold}. Must be between 0 and 1 (inclusive)."
            )
        _check_top_k(top_k)
        if not isinstance(query, str) or not query.strip():
            raise ValueError("Invalid query: cannot be empty or whitespace-only.")
        if show_expired:
            raise UnsupportedError(
                "search(show_expired=True): a recall never returns expired memories; "
                "get_all(filters=..., show_expired=True) lists them"
            )
        user, condition = scope(filters, "search")
        if not top_k:
            return {"results": []}
        request: dict[str, Any] = {"agent_id": self.agent, "query": query.strip(), "k": top_k}
        if user is not None:
            request["user_id"] = user
        if condition:
            request["filter"] = condition
        if threshold:
            request["min_relevance"] = threshold
        found = await self._spoken(self.memory.recall(request))
        # the top_k are the store's (hybrid recall picks them); mem0 lists them by score
        results = [item(hit, hit_score(hit)) for hit in found.results]
        return {"results": sorted(results, key=lambda r: -r["score"])}

    async def history(self, memory_id: str) -> list[dict[str, Any]]:
        """The memory's changes, oldest first, as mem0's history rows (``ADD``, ``UPDATE``,
        ``DELETE``), read from the store's versions of the record (spec v0.4's history); []
        for an id the facade's agent never held or one erased (``hard_delete``)."""
        request: dict[str, Any] = {"agent_id": self.agent, "id": memory_id, "limit": 1000}
        entries: list[HistoryEntry] = []
        while True:
            try:
                page = await self._spoken(self.memory.history(request))
            except NotFoundError:
                return []
            entries += page.entries
            if page.next_cursor is None:
                return history_items(entries)
            request = {**request, "cursor": page.next_cursor}

    async def _record(self, memory_id: str) -> MemoryRecord | None:
        request = {"agent_id": self.agent, "ids": [memory_id]}
        found = await self._spoken(self.memory.get(request))
        return found.records[0] if found.records else None

    async def _list(
        self, user: str | None, condition: dict[str, Any], most: int | None, states: list[str]
    ) -> list[MemoryRecord]:
        """Records of a scope, newest first, every page up to ``most`` (None: all)."""
        request: dict[str, Any] = {"agent_id": self.agent, "states": states}
        if user is not None:
            request["user_id"] = user
        if condition:
            request["filter"] = condition
        return await self._spoken(self.memory.list_all(request, most=most))

    async def _spoken(self, pending: Awaitable[T]) -> T:
        """A refused request, reworded in mem0's argument names (``top_k``, not ``/k``)."""
        try:
            return await pending
        except RequestError as exc:
            raise RequestError(reworded(exc.envelope, _ARGUMENTS, key="argument")) from None


class Memory:
    """mem0's ``Memory``: :class:`AsyncMemory`'s methods, blocking, on a private event loop
    (inside a running loop, use :class:`AsyncMemory` with ``await``)."""

    def __init__(
        self,
        store: str | Sequence[str] | None = None,
        *,
        agent: str = "mem0",
        approval_required: bool = False,
        hard_delete: bool = False,
    ) -> None:
        no_running_loop("mnemowire.compat.mem0.Memory", "AsyncMemory, with await")  # before opening
        self._runner = asyncio.Runner()
        self._async = AsyncMemory(
            store, agent=agent, approval_required=approval_required, hard_delete=hard_delete
        )

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any]) -> Memory:
        """As :meth:`AsyncMemory.from_config`."""
        return cls(**_options(config_dict))

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._runner.run(self._async.close())
        self._runner.close()

    def add(self, messages: Any, **kwargs: Any) -> dict[str, Any]:
        """:meth:`AsyncMemory.add`, blocking."""
        return self._runner.run(self._async.add(messages, **kwargs))

    def get(self, memory_id: str) -> dict[str, Any] | None:
        return self._runner.run(self._async.get(memory_id))

    def get_all(self, **kwargs: Any) -> dict[str, list[dict[str, Any]]]:
        return self._runner.run(self._async.get_all(**kwargs))

    def search(self, query: str, **kwargs: Any) -> dict[str, list[dict[str, Any]]]:
        return self._runner.run(self._async.search(query, **kwargs))

    def update(self, memory_id: str, *args: Any, **kwargs: Any) -> dict[str, str]:
        return self._runner.run(self._async.update(memory_id, *args, **kwargs))

    def delete(self, memory_id: str) -> dict[str, str]:
        return self._runner.run(self._async.delete(memory_id))

    def delete_all(self, **kwargs: Any) -> dict[str, str]:
        return self._runner.run(self._async.delete_all(**kwargs))

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        return self._runner.run(self._async.history(memory_id))

    def reset(self) -> None:
        self._runner.run(self._async.reset())


def _options(config: Mapping[str, Any]) -> dict[str, Any]:
    """A ``from_config`` dict as the facade's keyword arguments; mem0's backend blocks are
    refused by name."""
    foreign = sorted(set(config) - {"store", "agent", "approval_required", "hard_delete"})
    if foreign:
        raise ValueError(
            f"config keys {foreign} configure mem0's own backends; mnemowire picks one by "
            "store URL: from_config({'store': 'pgvector://...', 'agent': 'assistant'})"
        )
    return dict(config)


def _messages(messages: Any) -> list[dict[str, Any]]:
    """mem0's message forms (a string, a message, a list of them) as a list of messages;
    a message without role or content is refused (mem0 skips it with a warning: a write
    that drops part of what it was given should say so)."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if isinstance(messages, Mapping):
        messages = [messages]
    if not isinstance(messages, list | tuple):
        raise ValueError("messages must be str, dict, or list[dict]")
    listed = []
    for index, message in enumerate(messages):
        if (
            not isinstance(message, Mapping)
            or message.get("role") is None
            or (message.get("content") is None)
        ):
            raise ValueError(
                f"messages[{index}] is not a message: give a dict with 'role' and 'content'"
            )
        listed.append(dict(message))
    return listed


def _entity_ids(user_id: Any, agent_id: Any, run_id: Any) -> dict[str, str | None]:
    values = (user_id, agent_id, run_id)
    return {name: entity_id(v, name) for name, v in zip(ENTITY_IDS, values, strict=True)}


def _no_top_level_ids(kwargs: Mapping[str, Any], method: str) -> None:
    """mem0 scopes reads by ``filters`` only; anything else unknown is a TypeError."""
    named = sorted(set(ENTITY_IDS) & set(kwargs))
    if named:
        raise ValueError(
            f"Top-level entity parameters {frozenset(named)} are not supported in {method}(). "
            "Use filters={'user_id': '...'} instead."
        )
    if kwargs:
        raise TypeError(f"{method}() got unexpected keyword arguments {sorted(kwargs)}")


def _check_top_k(top_k: Any) -> None:
    if not isinstance(top_k, int) or isinstance(top_k, bool):
        raise ValueError("top_k must be a valid integer")
    if top_k < 0:
        raise ValueError(f"Invalid top_k: {top_k}. Must be a non-negative integer.")
