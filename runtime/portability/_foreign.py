"""Memory that other tools' users hold today, as archive record lines (docs/portability.md#foreign),
and one of them written back: the MCP reference memory server's knowledge graph
(``@modelcontextprotocol/server-memory``: JSON Lines of entities and relations, or the one JSON
object its ``read_graph`` tool returns), mem0's ``Memory.get_all`` answer (``{"results":
[...]}``), and OpenMemory's backup lines (``memories.jsonl[.gz]`` of its export zip).

None of them has our fields all: what a format lacks is made here and said so (``lost``), and
ids are derived from the content where the format has none, so importing the same file again
skips what the first import wrote. Reading is in memory (these files are small: a graph file,
one user's memories)."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from mnemowire.errors import RequestError

__all__ = ["FOREIGN_FORMATS", "Foreign", "mcp_memory_lines", "read_foreign"]

#: the formats ``mnemowire import --from`` reads
FOREIGN_FORMATS = ("mcp-memory", "mem0", "openmemory")
#: OpenMemory's states as kept states (paused: hidden from its apps, as archived is from recall)
_OPENMEMORY_STATES = {
    "active": "active",
    "paused": "archived",
    "archived": "archived",
    "deleted": "forgotten",
}
#: what a mem0 item carries beyond the record's fields, kept in metadata under "mem0"
_MEM0_EXTRAS = ("hash", "run_id", "actor_id", "role", "attributed_to")


@dataclass
class Foreign:
    """A foreign file as archive record lines (state and record, no vectors), with what the
    format could not give (field -> why), for the import's report."""

    records: list[dict[str, Any]] = field(default_factory=list)
    lost: dict[str, str] = field(default_factory=dict)

    @property
    def agents(self) -> list[str]:
        return list(dict.fromkeys(line["record"]["agent_id"] for line in self.records))


def _refuse(path: Path, where: str, message: str, rule: str = "format") -> RequestError:
    return RequestError(
        f"{path}: {where}: {message}",
        details=[{"path": where, "rule": rule, "message": message}],
    )


def _derived_id(prefix: str, *parts: str) -> str:
    """An id made from the content, the same for the same content in every run."""
    text = "\x00".join(parts).encode()
    return f"{prefix}-{hashlib.sha256(text).hexdigest()[:32]}"


def _millis(value: Any, path: Path, where: str) -> int:
    """An ISO 8601 time (a date alone: its midnight UTC) as epoch milliseconds."""
    try:
        text = str(value)
        moment = (
            datetime.fromisoformat(text.replace("Z", "+00:00"))
            if "T" in text or " " in text
            else datetime.combine(date.fromisoformat(text), datetime.min.time())
        )
    except ValueError:
        raise _refuse(path, where, f"{value!r} is not an ISO 8601 time", "format") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _object(value: Any, path: Path, where: str) -> dict[str, Any]:
    """An item's metadata: an object, or none."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _refuse(path, where, "is not an object", "type")
    return dict(value)


def _line(record: dict[str, Any], state: str = "active") -> dict[str, Any]:
    return {"kind": "record", "state": state, "record": record}


def _json_lines(path: Path, raw: bytes) -> Iterator[tuple[int, Any]]:
    for number, text in enumerate(raw.splitlines(), start=1):
        if text.strip():
            try:
                yield number, json.loads(text)
            except ValueError as exc:
                raise _refuse(path, f"/line/{number}", f"not JSON ({exc})", "json") from None


def read_foreign(
    path: Path, fmt: str, *, agent_id: str | None, user_id: str | None, now: int
) -> Foreign:
    """``path`` in format ``fmt`` (one of FOREIGN_FORMATS) as record lines. ``agent_id``:
    whose memory it becomes (needed where the file names no agent), ``user_id``: the user
    of records that name none, ``now``: the time given to records the file has no time for."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":  # OpenMemory's export zips its lines with gzip
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise _refuse(path, "/", f"a broken gzip file ({exc})", "format") from None
    if fmt == "mcp-memory":
        if agent_id is None:
            raise _refuse(path, "/", "a knowledge graph names no agent: give --agent", "agent")
        return _mcp_memory(path, raw, agent_id, user_id, now)
    if fmt == "mem0":
        return _mem0(path, raw, agent_id, user_id)
    if fmt == "openmemory":
        if agent_id is None:
            raise _refuse(path, "/", "OpenMemory's lines name no agent: give --agent", "agent")
        return _openmemory(path, raw, agent_id, user_id)
    raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FOREIGN_FORMATS)}")


def _mcp_graph(path: Path, raw: bytes) -> tuple[list[Any], list[Any]]:
    """The graph's entities and relations: from its JSON Lines file (``type`` per line), or
    from the one object ``read_graph`` returns (``entities``, ``relations``)."""
    try:
        whole = json.loads(raw)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and ("entities" in whole or "relations" in whole):
        return list(whole.get("entities") or []), list(whole.get("relations") or [])
    entities: list[Any] = []
    relations: list[Any] = []
    for number, item in _json_lines(path, raw):
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "entity":
            entities.append(item)
        elif kind == "relation":
            relations.append(item)
        else:
            raise _refuse(
                path, f"/line/{number}", "neither an entity nor a relation line: not the MCP "
                "memory server's graph (--from mcp-memory)", "format",
            )  # fmt: skip
    return entities, relations


def _mcp_memory(path: Path, raw: bytes, agent_id: str, user_id: str | None, now: int) -> Foreign:
    entities, relations = _mcp_graph(path, raw)
    out = Foreign(lost={
        "created_at": "the graph has no times: the import's time",
        "confidence": "the graph has none: the spec's default",
    })  # fmt: skip
    base: dict[str, Any] = {"agent_id": agent_id, "type": "semantic", "created_at": now}
    if user_id is not None:
        base["user_id"] = user_id
    for number, entity in enumerate(entities):
        name, kind = entity.get("name"), entity.get("entityType")
        if not isinstance(name, str) or not name or not isinstance(kind, str):
            raise _refuse(path, f"/entities/{number}", "an entity needs a name and an entityType")
        listed = entity.get("observations") or []
        if not isinstance(listed, list):
            raise _refuse(path, f"/entities/{number}/observations", "is not a list", "type")
        observations = [o for o in listed if isinstance(o, str) and o]
        about = {"entity": name, "entity_type": kind}
        if not observations:  # the entity alone, so it is not lost
            out.records.append(_line({**base, "id": _derived_id("mcp", name), "content": name,
                                      "metadata": {**about, "observations": 0}}))  # fmt: skip
        for observation in dict.fromkeys(observations):
            record_id = _derived_id("mcp", name, observation)
            out.records.append(
                _line({**base, "id": record_id, "content": observation, "metadata": about})
            )
    for number, relation in enumerate(relations):
        ends = [relation.get(k) for k in ("from", "relationType", "to")]
        if not all(isinstance(e, str) and e for e in ends):
            raise _refuse(path, f"/relations/{number}", "a relation needs from, relationType, to")
        source, kind, target = ends
        out.records.append(
            _line({**base, "id": _derived_id("mcp-rel", source, kind, target),
                   "content": f"{source} {kind} {target}",
                   "metadata": {"relation": kind, "from": source, "to": target}})
        )  # fmt: skip
    return out


def _dated(
    prefix: str,
    agent_id: str,
    content: str,
    metadata: dict[str, Any],
    item: Mapping[str, Any],
    *,
    at: tuple[Path, str],
) -> dict[str, Any]:
    """A semantic record of a format whose items carry their id (or get one from their
    content) and ISO 8601 ``created_at`` / ``updated_at``; ``at``: the file and the item's
    place, for an error."""
    path, where = at
    record: dict[str, Any] = {
        "id": str(item.get("id") or _derived_id(prefix, agent_id, content)),
        "agent_id": agent_id,
        "type": "semantic",
        "content": content,
        "metadata": metadata,
        "created_at": _millis(item.get("created_at"), path, f"{where}/created_at"),
    }
    if item.get("updated_at"):
        record["updated_at"] = _millis(item["updated_at"], path, f"{where}/updated_at")
    return record


def _mem0(path: Path, raw: bytes, agent_id: str | None, user_id: str | None) -> Foreign:
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise _refuse(path, "/", f"not JSON ({exc}): mem0's get_all answer is one object") from None
    items = data.get("results") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise _refuse(path, "/", 'not mem0\'s get_all answer ({"results": [...]})')
    out = Foreign(lost={
        "version": "mem0 keeps no version: 1",
        "vector": "mem0's get_all gives none: the target embeds the content",
    })  # fmt: skip
    for number, item in enumerate(items):
        where = f"/results/{number}"
        if not isinstance(item, dict) or not isinstance(item.get("memory"), str):
            raise _refuse(path, where, "an item needs its memory text (mem0's get_all form)")
        agent = item.get("agent_id") or agent_id
        if not agent:
            raise _refuse(path, where, "the item names no agent_id: give --agent", "agent")
        metadata = _object(item.get("metadata"), path, f"{where}/metadata")
        extras = {k: item[k] for k in _MEM0_EXTRAS if item.get(k) is not None}
        if extras:
            metadata["mem0"] = extras
        record = _dated("mem0", agent, item["memory"], metadata, item, at=(path, where))
        user = item.get("user_id") or user_id
        if user:
            record["user_id"] = user
        if item.get("expiration_date"):
            record["expires_at"] = _millis(item["expiration_date"], path, f"{where}/expiration")
        out.records.append(_line(record))
    return out


def _openmemory(path: Path, raw: bytes, agent_id: str, user_id: str | None) -> Foreign:
    out = Foreign(lost={
        "version": "OpenMemory keeps no version: 1",
        "vector": "OpenMemory's backup has none: the target embeds the content",
    })  # fmt: skip
    for number, item in _json_lines(path, raw):
        where = f"/line/{number}"
        if not isinstance(item, dict) or not isinstance(item.get("content"), str):
            raise _refuse(path, where, "a line needs its content (OpenMemory's backup lines)")
        state = _OPENMEMORY_STATES.get(str(item.get("state", "active")))
        if state is None:
            raise _refuse(path, f"{where}/state", f"unknown state {item.get('state')!r}", "enum")
        metadata = _object(item.get("metadata"), path, f"{where}/metadata")
        if item.get("app"):
            metadata["app"] = item["app"]
        if item.get("categories"):
            if not isinstance(item["categories"], list):
                raise _refuse(path, f"{where}/categories", "is not a list", "type")
            metadata["categories"] = list(item["categories"])
        record = _dated("openmemory", agent_id, item["content"], metadata, item, at=(path, where))
        if user_id is not None:
            record["user_id"] = user_id
        out.records.append(_line(record, state))
    return out


def mcp_memory_lines(records: Iterable[Mapping[str, Any]]) -> Iterator[bytes]:
    """Records (wire JSON) as the MCP memory server's graph file: entities first, then
    relations, one JSON object per line. A record imported from such a graph goes back to its
    entity (or relation); any other record becomes an entity of its own, named by its id, of
    its memory type, its content the one observation. Everything else a record holds (times,
    user, metadata, state) has no place in the graph and is left out."""
    entities: dict[str, dict[str, Any]] = {}
    relations: dict[tuple[str, str, str], None] = {}
    for record in records:
        about = record.get("metadata") or {}
        if {"relation", "from", "to"} <= about.keys():
            relations[(str(about["from"]), str(about["relation"]), str(about["to"]))] = None
            continue
        name = str(about.get("entity") or record["id"])
        kind = str(about.get("entity_type") or record["type"])
        entity = entities.setdefault(
            name, {"type": "entity", "name": name, "entityType": kind, "observations": []}
        )
        if about.get("observations") != 0:  # an entity imported without observations
            entity["observations"].append(record["content"])
    for entity in entities.values():
        yield json.dumps(entity, ensure_ascii=False).encode() + b"\n"
    for source, kind, target in relations:
        relation = {"type": "relation", "from": source, "to": target, "relationType": kind}
        yield json.dumps(relation, ensure_ascii=False).encode() + b"\n"
