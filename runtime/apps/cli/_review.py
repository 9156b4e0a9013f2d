"""``mnemowire review list|show|approve|reject``: the review queue of spec v0.2 from the shell
(docs/governance.md#review).

``list`` prints one page of the agent's pending reviews, each with its diff (``--cursor``
continues where a page's ``next_cursor`` left off); ``show`` prints the reviews named;
``approve`` and ``reject`` decide one. Each prints the spec's response like every operation,
and a decision names its reviewer: ``--reviewer`` or ``MNEMOWIRE_REVIEWER``.
"""

from __future__ import annotations

from typing import Any

import click

from mnemowire.apps.cli._app import cli
from mnemowire.apps.cli._operations import _choice, _operation
from mnemowire.models import REVIEWS_REQUEST_DEFAULTS, ReviewedOperation

_DECISION = {
    "agent_id": "--agent",
    "review_id": "REVIEW_ID",
    "reviewer": "--reviewer (or MNEMOWIRE_REVIEWER)",
    "reason": "--reason",
    "expected_version": "--expected-version",
    "": "the decision",
}


@cli.group("review")
def review_group() -> None:
    """Governance: staged writes with their diffs; approve or reject one."""


def _reviewer_option(command: Any) -> Any:
    return click.option(
        "--reviewer",
        envvar="MNEMOWIRE_REVIEWER",
        help="Who decides, recorded with the decision and in the audit log.",
    )(command)


def _version_option(command: Any) -> Any:
    return click.option(
        "--expected-version",
        type=int,
        help="The version of the staged write you reviewed (a remember's: `version` as "
        "`review show` prints it); any other fails with conflict. Without it, only the write "
        "as first staged (version 1) is decided.",
    )(command)


@click.option("--agent", "agent_id", help="Agent whose queue to list (agent_id).")
@click.option("--user", "user_id", help="Only writes staged under this end user (user_id).")
@click.option(
    "--operation",
    "operations",
    multiple=True,
    type=_choice(ReviewedOperation),
    help="Only staged writes of this operation (repeat).",
)
@click.option("--limit", type=int, help=f"Page size (default {REVIEWS_REQUEST_DEFAULTS['limit']}).")
@click.option("--cursor", help="The next_cursor of the previous page.")
@click.option(
    "--related",
    type=int,
    help=f"Closest existing memories shown beside a remember "
    f"(default {REVIEWS_REQUEST_DEFAULTS['related']}; 0 for none).",
)
@_operation(
    "reviews",
    "List pending reviews with their diffs, oldest first, one page.",
    {
        "agent_id": "--agent",
        "user_id": "--user",
        "operations": "--operation",
        "limit": "--limit",
        "cursor": "--cursor",
        "related": "--related",
        "": "the request",
    },
    group=review_group,
    command_name="list",
)
def list_command(
    agent_id: str | None,
    user_id: str | None,
    operations: tuple[str, ...],
    limit: int | None,
    cursor: str | None,
    related: int | None,
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "user_id": user_id,
        "operations": list(operations) or None,
        "limit": limit,
        "cursor": cursor,
        "related": related,
    }


@click.option("--agent", "agent_id", help="Agent whose reviews to show (agent_id).")
@click.option("--related", type=int, help="Closest existing memories shown beside a remember.")
@click.argument("review_ids", nargs=-1)
@_operation(
    "reviews",
    "Show pending reviews (REVIEW_IDS) with their diffs.",
    {"agent_id": "--agent", "ids": "REVIEW_IDS", "related": "--related", "": "the request"},
    group=review_group,
    command_name="show",
)
def show_command(
    agent_id: str | None, related: int | None, review_ids: tuple[str, ...]
) -> dict[str, Any]:
    return {"agent_id": agent_id, "ids": list(review_ids) or None, "related": related}


@_reviewer_option
@_version_option
@click.option("--agent", "agent_id", help="Agent whose review to decide (agent_id).")
@click.option("--reason", help="Why, recorded with the decision.")
@click.option(
    "--merge-into",
    help="Approve a staged remember by merging it into this existing record (co-memorize).",
)
@click.argument("review_id", required=False)
@_operation(
    "decide",
    "Approve a pending review (REVIEW_ID): apply the staged write.",
    {**_DECISION, "merge_into": "--merge-into"},
    group=review_group,
    command_name="approve",
    fixed={"approved": True},
)
def approve_command(
    reviewer: str | None,
    expected_version: int | None,
    agent_id: str | None,
    reason: str | None,
    merge_into: str | None,
    review_id: str | None,
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "review_id": review_id,
        "reviewer": reviewer,
        "reason": reason,
        "merge_into": merge_into,
        "expected_version": expected_version,
    }


@_reviewer_option
@_version_option
@click.option("--agent", "agent_id", help="Agent whose review to decide (agent_id).")
@click.option("--reason", help="Why, recorded with the decision.")
@click.option(
    "--keep",
    is_flag=True,
    help="Keep a rejected remember's record, forgotten, instead of erasing it.",
)
@click.argument("review_id", required=False)
@_operation(
    "decide",
    "Reject a pending review (REVIEW_ID): discard the staged write.",
    {**_DECISION, "hard": "--keep"},
    group=review_group,
    command_name="reject",
    fixed={"approved": False},
)
def reject_command(
    reviewer: str | None,
    expected_version: int | None,
    agent_id: str | None,
    reason: str | None,
    keep: bool,
    review_id: str | None,
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "review_id": review_id,
        "reviewer": reviewer,
        "reason": reason,
        "hard": False if keep else None,
        "expected_version": expected_version,
    }
