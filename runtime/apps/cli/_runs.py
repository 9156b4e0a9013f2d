"""``mnemowire run start|fire|get``: spec v0.4's procedure runs from the shell
(docs/lifecycle.md#procedures).

Each prints the spec's response (``--pretty``: the run's state, the events it takes there and
the intents the last transition handed back). The host's conditions arrive as ``--fact
NAME=true|false``: the runner reads them and never runs anything itself."""

from __future__ import annotations

from typing import Any

import click

from mnemowire.apps.cli._app import cli
from mnemowire.apps.cli._operations import _operation
from mnemowire.models import RUN_START_REQUEST_DEFAULTS

_SCOPE = {"agent_id": "--agent", "user_id": "--user"}


@cli.group("run")
def run_group() -> None:
    """Procedure runs: start one from a stored procedure, fire its events, read where it is."""


def _facts(given: tuple[str, ...]) -> dict[str, bool] | None:
    """``--fact NAME=true|false`` pairs as run_fire's facts."""
    if not given:
        return None
    facts: dict[str, bool] = {}
    for pair in given:
        name, sep, value = pair.partition("=")
        truth = {"true": True, "false": False}.get(value.strip().lower())
        if not sep or truth is None:
            raise click.BadParameter(
                f"{pair!r}: expected NAME=true or NAME=false", param_hint="--fact"
            )
        facts[name.strip()] = truth
    return facts


@click.option("--agent", "agent_id", help="Agent whose procedure to run (agent_id).")
@click.option("--user", "user_id", help="The end user the run is for (user_id).")
@click.option("--procedure", "procedure_id", help="The procedural record to follow (its id).")
@click.option("--id", "run_id", help="An id of your choosing for the run (a retry answers it).")
@click.option(
    "--step-limit",
    type=int,
    help=f"Most transitions the run may take (default {RUN_START_REQUEST_DEFAULTS['step_limit']}).",
)
@click.option("--time-limit-ms", type=int, help="How long the run may take (default: no limit).")
@click.option("--reason", help="Why, kept in the audit log.")
@_operation(
    "run_start",
    "Start a run of a stored procedure (--procedure) in its initial state.",
    {
        **_SCOPE,
        "procedure_id": "--procedure",
        "id": "--id",
        "step_limit": "--step-limit",
        "time_limit_ms": "--time-limit-ms",
        "reason": "--reason",
        "": "the request",
    },
    group=run_group,
    command_name="start",
)
def start_command(
    agent_id: str | None,
    user_id: str | None,
    procedure_id: str | None,
    run_id: str | None,
    step_limit: int | None,
    time_limit_ms: int | None,
    reason: str | None,
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "user_id": user_id,
        "procedure_id": procedure_id,
        "id": run_id,
        "step_limit": step_limit,
        "time_limit_ms": time_limit_ms,
        "reason": reason,
    }


@click.option("--agent", "agent_id", help="Agent whose run it is (agent_id).")
@click.option("--user", "user_id", help="The run's end user (user_id), when it has one.")
@click.option(
    "--fact",
    "facts",
    multiple=True,
    metavar="NAME=true|false",
    help="A condition's truth, as your host evaluated it (repeat).",
)
@click.option(
    "--expected-version",
    type=int,
    help="The run's version you read; any other fails with conflict.",
)
@click.option("--reason", help="Why, kept in the audit log and the run's history.")
@click.argument("event", required=False)
@click.argument("run_id", required=False, metavar="RUN")
@_operation(
    "run_fire",
    "Fire EVENT on RUN: the first transition out of its state on EVENT whose conditions hold "
    "moves it, and its intents are printed for you to act on.",
    {
        **_SCOPE,
        "id": "RUN",
        "event": "EVENT",
        "facts": "--fact",
        "expected_version": "--expected-version",
        "reason": "--reason",
        "": "the request",
    },
    group=run_group,
    command_name="fire",
)
def fire_command(
    agent_id: str | None,
    user_id: str | None,
    facts: tuple[str, ...],
    expected_version: int | None,
    reason: str | None,
    run_id: str | None,
    event: str | None,
) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "user_id": user_id,
        "id": run_id,
        "event": event,
        "facts": _facts(facts),
        "expected_version": expected_version,
        "reason": reason,
    }


@click.option("--agent", "agent_id", help="Agent whose run it is (agent_id).")
@click.option("--user", "user_id", help="The run's end user (user_id), when it has one.")
@click.argument("run_id", required=False, metavar="RUN")
@_operation(
    "run_get",
    "Read RUN: its state, status, the events it takes there and its last transition "
    "(`mnemowire history RUN` shows every step).",
    {**_SCOPE, "id": "RUN", "": "the request"},
    group=run_group,
    command_name="get",
)
def get_command(agent_id: str | None, user_id: str | None, run_id: str | None) -> dict[str, Any]:
    return {"agent_id": agent_id, "user_id": user_id, "id": run_id}
