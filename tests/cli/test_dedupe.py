"""``mnemowire remember --dedupe``: a repeat is answered by the record it repeats, and the
answer says so in words; a mode that does not exist is a usage error naming the flag."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mnemowire.apps.cli import cli


def test_a_repeat_is_answered_by_the_record_it_repeats(tmp_path: Path) -> None:
    store = ["--store", f"sqlite-vec://{tmp_path / 'cli.db'}?embedder=hash:32"]
    base = ["remember", *store, "--agent", "a", "--user", "alice"]
    first = json.loads(CliRunner().invoke(cli, [*base, "Alice is allergic to penicillin."]).stdout)
    again = CliRunner().invoke(
        cli, [*base, "--dedupe", "existing", "alice is allergic to penicillin"]
    )
    assert again.exit_code == 0, again.output
    answer = json.loads(again.stdout)
    assert (answer["id"], answer["duplicate_of"]) == (first["id"], first["id"])
    pretty = CliRunner().invoke(
        cli, [*base, "--dedupe", "existing", "--pretty", "ALICE is allergic to penicillin!"]
    )
    assert "answered with it, nothing written" in pretty.stdout
    staged = CliRunner().invoke(
        cli, [*base, "--dedupe", "review", "--pretty", "Alice is allergic to penicillin"]
    )
    assert "staged for a reviewer beside it" in staged.stdout
    wrong = CliRunner().invoke(cli, [*base, "--dedupe", "merge", "x"])
    assert wrong.exit_code == 2
    assert "--dedupe" in wrong.output
