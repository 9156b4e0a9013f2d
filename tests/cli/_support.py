"""What several CLI test modules do the same way."""

from __future__ import annotations

import json

from click.testing import CliRunner

from mnemowire.apps.cli import cli


def remember_all(
    store: list[str], *contents: str, agent: str = "a", kind: str = "semantic"
) -> list[str]:
    """Store each of ``contents`` as a memory of ``agent`` (of type ``kind``) in one
    ``remember --json`` run; their ids, in order."""
    requests = "\n".join(
        json.dumps({"agent_id": agent, "type": kind, "content": c}) for c in contents
    )
    result = CliRunner().invoke(cli, ["remember", *store, "--json", "-"], input=requests)
    return [json.loads(line)["id"] for line in result.stdout.splitlines()]
