"""``mnemowire remember|recall|forget|merge|expire``: the five operations from the shell, each a
request built from its flags and run by ``_operations``."""

from __future__ import annotations

from typing import Any

import click

from mnemowire.apps.cli._operations import _choice, _json_object, _operation
from mnemowire.layers.keywords import UNSAID
from mnemowire.models import (
    EXPIRE_REQUEST_DEFAULTS,
    MERGE_REQUEST_DEFAULTS,
    RECALL_REQUEST_DEFAULTS,
    REMEMBER_REQUEST_DEFAULTS,
    DedupeMode,
    ExpireAction,
    FusionMethod,
    MemoryType,
    MergeStrategy,
)


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
@click.option(
    "--dedupe",
    type=_choice(DedupeMode),
    help="When a record already says this: answer with it (existing) or stage this for a "
    "reviewer (review). Default: the store's.",
)
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
        "dedupe": "--dedupe",
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
    dedupe: str | None,
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
        "dedupe": dedupe,
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
