"""``mnemowire promote``: spec v0.4's promotion of short-term memories from the shell
(docs/lifecycle.md#promotion).

A dry run by default: it prints the plan (the spec's response; ``--pretty``: each action with
the rules that decided it). ``--apply`` applies a new plan at once; ``--apply --plan FILE``
applies exactly the actions of a plan printed earlier (a reviewed file), leaving any whose
records changed since. Ages are given in days here and travel as milliseconds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from mnemowire.apps.cli._consolidate import planned_entries
from mnemowire.apps.cli._operations import _choice, _operation
from mnemowire.models import PlannedAction, PromotionRules, ShortTermType

_DAY_MS = 86_400_000
_FLAGS = {
    "agent_id": "--agent",
    "user_id": "--user",
    "rules": "the rules",
    "rules/short_term_types": "--short-term",
    "rules/expiring": "--no-expiring",
    "rules/min_age_ms": "--min-age-days",
    "rules/min_confidence": "--min-confidence",
    "rules/min_recalls": "--min-recalls",
    "rules/min_repetitions": "--min-repetitions",
    "rules/archive_after_ms": "--archive-after-days",
    "rules/demote_factor": "--demote-factor",
    "dry_run": "--apply",
    "plan": "--plan",
    "approval_required": "--approval-required",
    "limit": "--limit",
    "": "the request",
}


#: an age in days (the unit this command speaks, sent as milliseconds)
_DAYS = click.FloatRange(min=0)


def _default(rule: str, *, days: bool = False) -> str:
    """A rule's default as the spec sets it, in the flag's unit."""
    value = PromotionRules.model_fields[rule].default
    if isinstance(value, list):
        return ", ".join(value)
    return f"{value / _DAY_MS:g}" if days else str(value)


def _ms(days: float | None) -> int | None:
    return None if days is None else round(days * _DAY_MS)


@click.option("--agent", "agent_id", help="Agent whose short-term memories to move (agent_id).")
@click.option("--user", "user_id", help="Only this end user's records (user_id).")
@click.option(
    "--short-term",
    "short_term",
    multiple=True,
    type=_choice(ShortTermType),
    help=f"A type whose records are short-term (repeat; {_default('short_term_types')}).",
)
@click.option(
    "--no-expiring",
    "no_expiring",
    is_flag=True,
    default=None,
    help="Records with an expiry (working notes) are not short-term for it.",
)
@click.option(
    "--min-age-days",
    type=_DAYS,
    help=f"Too new to judge below this age ({_default('min_age_ms', days=True)}).",
)
@click.option(
    "--min-confidence",
    type=float,
    help=f"Promote only at this confidence ({_default('min_confidence')}).",
)
@click.option(
    "--min-recalls",
    type=int,
    help=f"Promote what was recalled this often ({_default('min_recalls')}).",
)
@click.option(
    "--min-repetitions",
    type=int,
    help=f"Promote what was said this often ({_default('min_repetitions')}).",
)
@click.option(
    "--archive-after-days",
    type=_DAYS,
    help=f"Archive what is this old and unused ({_default('archive_after_ms', days=True)}).",
)
@click.option(
    "--demote-factor",
    type=float,
    help=f"The recall factor a demotion sets ({_default('demote_factor')}).",
)
@click.option("--apply", "apply", is_flag=True, help="Apply the plan (default: a dry run).")
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Apply (or, without --apply, check) exactly the actions of this plan, as a dry run "
    "printed it.",
)
@click.option(
    "--approval-required",
    is_flag=True,
    default=None,
    help="Stage each long-term record for a reviewer (its group waits).",
)
@click.option("--limit", type=int, help="Most actions in one call (default 100, at most 1000).")
@_operation(
    "promote",
    "Promote short-term memories (recent events, working notes) that proved themselves by "
    "recalls or repetition into long-term facts; archive the cold, demote the weak. A plan "
    "first; --apply writes it.",
    _FLAGS,
)
def promote_command(
    agent_id: str | None,
    user_id: str | None,
    short_term: tuple[str, ...],
    no_expiring: bool | None,
    min_age_days: float | None,
    min_confidence: float | None,
    min_recalls: int | None,
    min_repetitions: int | None,
    archive_after_days: float | None,
    demote_factor: float | None,
    apply: bool,
    plan_file: Path | None,
    approval_required: bool | None,
    limit: int | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    rules = {
        "short_term_types": list(short_term) or None,
        "expiring": False if no_expiring else None,
        "min_age_ms": _ms(min_age_days),
        "min_confidence": min_confidence,
        "min_recalls": min_recalls,
        "min_repetitions": min_repetitions,
        "archive_after_ms": _ms(archive_after_days),
        "demote_factor": demote_factor,
    }
    flags = {
        "agent_id": agent_id,
        "user_id": user_id,
        "rules": {k: v for k, v in rules.items() if v is not None} or None,
        "plan": planned_entries(plan_file, "actions", PlannedAction.model_fields),
        "approval_required": approval_required,
        "limit": limit,
    }
    return flags, ({"dry_run": False} if apply else {})
