"""``mnemowire run start|fire|get``: a procedure run from the shell, JSON out (the spec's
responses) or readable with ``--pretty``, and the mistakes a person makes name the flag."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mnemowire import spec
from mnemowire.apps.cli import cli

CHECKOUT = {
    "name": "checkout",
    "initial": "cart",
    "states": ["cart", "paid", "shipped"],
    "transitions": [
        {
            "trigger": "pay",
            "source": "cart",
            "dest": "paid",
            "conditions": "card_ok",
            "intents": [{"name": "charge_card", "args": {"currency": "EUR"}}],
        },
        {"trigger": "ship", "source": "paid", "dest": "shipped"},
    ],
}


@pytest.fixture
def store(tmp_path: Path) -> list[str]:
    return ["--store", f"sqlite-vec://{tmp_path / 'cli.db'}?embedder=hash:32"]


def _run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_a_run_from_start_to_finish(store: list[str]) -> None:
    stored = _run("remember", *store, "--agent", "shop", "--type", "procedural",
                  json.dumps(CHECKOUT))  # fmt: skip
    procedure = json.loads(stored.stdout)["id"]
    started = _run("run", "start", *store, "--agent", "shop", "--procedure", procedure,
                   "--id", "order-1", "--step-limit", "5")  # fmt: skip
    assert started.exit_code == 0, started.output
    answer = json.loads(started.stdout)
    assert spec.validate("run_start.response", answer) is None
    assert (answer["run"]["state"], answer["run"]["events"]) == ("cart", ["pay"])
    paid = _run("run", "fire", *store, "--agent", "shop", "order-1", "pay",
                "--fact", "card_ok=TRUE", "--expected-version", "1")  # fmt: skip
    assert paid.exit_code == 0, paid.output
    fired = json.loads(paid.stdout)
    assert spec.validate("run_fire.response", fired) is None
    assert fired["fired"]["intents"] == [{"name": "charge_card", "args": {"currency": "EUR"}}]
    shipped = _run("run", "fire", *store, "--agent", "shop", "order-1", "ship", "--pretty")
    assert "state: shipped [finished], 2/5 steps" in shipped.stdout
    assert "fired: ship: paid -> shipped" in shipped.stdout
    read = _run("run", "get", *store, "--agent", "shop", "order-1", "--pretty")
    assert "last: ship: paid -> shipped" in read.stdout
    steps = _run("history", *store, "--agent", "shop", "order-1", "--pretty")
    assert "metadata.procedure_run.state: cart -> paid" in steps.stdout


def test_mistakes_name_the_flag(store: list[str]) -> None:
    stored = _run("remember", *store, "--agent", "shop", "--type", "procedural",
                  json.dumps(CHECKOUT))  # fmt: skip
    procedure = json.loads(stored.stdout)["id"]
    no_procedure = _run("run", "start", *store, "--agent", "shop")
    assert no_procedure.exit_code == 2
    assert "--procedure is required" in no_procedure.output
    run = json.loads(
        _run("run", "start", *store, "--agent", "shop", "--procedure", procedure).stdout
    )
    run_id = run["run"]["id"]
    bad_fact = _run("run", "fire", *store, "--agent", "shop", run_id, "pay", "--fact", "card_ok")
    assert bad_fact.exit_code == 2
    assert "--fact" in bad_fact.output
    assert "NAME=true or NAME=false" in bad_fact.output
    no_fact = _run("run", "fire", *store, "--agent", "shop", run_id, "pay")
    assert no_fact.exit_code == 2
    assert "--fact card_ok=true|false is not given" in no_fact.output
    wrong_event = _run("run", "fire", *store, "--agent", "shop", run_id, "ship")
    assert wrong_event.exit_code == 2
    assert "EVENT" in wrong_event.output
    assert "['pay']" in wrong_event.output
    dotted = _run("run", "fire", *store, "--agent", "shop", run_id, "os.system")
    assert dotted.exit_code == 2
    assert "EVENT" in dotted.output
    unknown = _run("run", "get", *store, "--agent", "shop", "nope")
    assert unknown.exit_code != 0
    assert "mnemowire run start" in unknown.output
