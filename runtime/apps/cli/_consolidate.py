"""``mnemowire consolidate``: spec v0.4's consolidation from the shell
(docs/lifecycle.md#consolidate).

A dry run by default: it prints the plan (the spec's response; ``--pretty``: each group with
its evidence). ``--apply`` applies a new plan at once; ``--apply --plan FILE`` applies exactly
the groups of a plan printed earlier (a reviewed file), leaving any whose records changed
since."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from mnemowire.apps.cli._operations import _choice, _operation
from mnemowire.models import MemoryType, MergeStrategy, PlannedMerge

_FLAGS = {
    "agent_id": "--agent",
    "user_id": "--user",
    "types": "--type",
    "dry_run": "--apply",
    "plan": "--plan",
    "strategy": "--strategy",
    "approval_required": "--approval-required",
    "limit": "--limit",
    "": "the request",
}


def _planned(path: Path | None) -> list[dict[str, Any]] | None:
    """The merges of a plan file: a dry run's answer as ``mnemowire consolidate`` printed it
    (its groups), or a JSON list of merges."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise click.BadParameter(
            f"cannot read a JSON plan from {path}: {exc}", param_hint="--plan"
        ) from None
    groups = data.get("groups") if isinstance(data, dict) else data
    if not isinstance(groups, list) or not groups:
        raise click.BadParameter(
            "expected the JSON a dry run printed (an object with groups) or a list of merges; "
            "a plan with no groups has nothing to apply",
            param_hint="--plan",
        )
    keep = PlannedMerge.model_fields  # a group carries evidence and status besides
    return [{k: g[k] for k in keep if k in g} if isinstance(g, dict) else g for g in groups]


@click.option("--agent", "agent_id", help="Agent whose records to consolidate (agent_id).")
@click.option("--user", "user_id", help="Only this end user's records (user_id).")
@click.option(
    "--type", "types", multiple=True, type=_choice(MemoryType), help="Only this type (repeat)."
)
@click.option(
    "--apply", "apply", is_flag=True, help="Merge the groups (default: a dry run, the plan)."
)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Apply (or, without --apply, check) exactly the groups of this plan, as a dry run "
    "printed it.",
)
@click.option(
    "--strategy", type=_choice(MergeStrategy), help="Each merge's strategy (keep_canonical)."
)
@click.option(
    "--approval-required", is_flag=True, default=None, help="Stage each merge for a reviewer."
)
@click.option("--limit", type=int, help="Most groups in one call (default 100, at most 1000).")
@_operation(
    "consolidate",
    "Find records that say the same thing (within one user and type) and propose each group "
    "as a merge with its evidence; --apply merges them.",
    _FLAGS,
)
def consolidate_command(
    agent_id: str | None,
    user_id: str | None,
    types: tuple[str, ...],
    apply: bool,
    plan_file: Path | None,
    strategy: str | None,
    approval_required: bool | None,
    limit: int | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    flags = {
        "agent_id": agent_id,
        "user_id": user_id,
        "types": list(types) or None,
        "plan": _planned(plan_file),
        "strategy": strategy,
        "approval_required": approval_required,
        "limit": limit,
    }
    return flags, ({"dry_run": False} if apply else {})
