"""``python -m mnemowire.apps.tools.letta``'s command line without a server: what it says when
there is nothing to start or nothing running (the `letta` nox session starts and stops the
real server with it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemowire.apps.tools import letta


def test_a_virtualenv_without_letta_is_refused_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert letta.main(["start", "--dir", str(tmp_path / "run"), "--venv", str(tmp_path)]) == 1
    said = capsys.readouterr().err
    assert "no Letta server in" in said
    assert "constraints/letta-server.txt" in said
    assert not (tmp_path / "run").exists()


def test_start_without_a_virtualenv_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stopped:
        letta.main(["start", "--dir", str(tmp_path)])
    assert stopped.value.code == 2


def test_nothing_running_is_status_3_and_stop_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert letta.main(["status", "--dir", str(tmp_path)]) == 3
    assert letta.main(["stop", "--dir", str(tmp_path)]) == 0
    assert "not running" in capsys.readouterr().err
