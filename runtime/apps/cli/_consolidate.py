"""``mnemowire consolidate``: spec v0.4's consolidation from the shell
(docs/lifecycle.md#consolidate).

A dry run by default: it prints the plan (the spec's response; ``--pretty``: each group with
its evidence). ``--apply`` applies a new plan at once; ``--apply --plan FILE`` applies exactly
the groups of a plan printed earlier (a reviewed file), leaving any whose records changed
since."""

from __future__ import annotations

import json
from collections.abc import Iterable
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


def planned_entries(
    path: Path | None, key: str, keep: Iterable[str]
) -> list[dict[str, Any]] | None:
    """The entries of a plan file: a dry run's answer as it was printed (its ``key``: a
    consolidation's groups, a promotion's actions), or a JSON list of them; each entry
    narrowed to the fields a sent plan takes (``keep``: a dry run adds evidence and status)."""
    if path is None:
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise click.BadParameter(
            f"cannot read a JSON plan from {path}: {exc}", param_hint="--plan"
        ) from None
    entries = data.get(key) if isinstance(data, dict) else data
    if not isinstance(entries, list) or not entries:
        raise click.BadParameter(
            f"expected the JSON a dry run printed (an object with {key}) or a list of them; "
            f"a plan with no {key} has nothing to apply",
            param_hint="--plan",
        )
    return [{k: e[k] for k in keep if k in e} if isinstance(e, dict) else e for e in entries]


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
        "plan": planned_entries(plan_file, "groups", PlannedMerge.model_fields),
        "strategy": strategy,
        "approval_required": approval_required,
        "limit": limit,
    }
    return flags, ({"dry_run": False} if apply else {})
