"""The suite on pytest-xdist's workers (``nox -s tests`` runs two): tests that build in the
repository's own folders (npm in generated/ts, go in generated/go, a wheel from the checkout)
share one group, which runs on one worker, so two builds never write the same folder at once.
Every other test keeps to temporary folders and its own stores (a PostgreSQL per worker)."""

from __future__ import annotations

from pathlib import Path

import pytest

#: folders of tests/ whose tests build in the checkout
_BUILDING = ("codegen", "clients", "packaging")
_HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("xdist"):
        return
    building = [_HERE / folder for folder in _BUILDING]
    for item in items:
        if any(folder in Path(str(item.path)).parents for folder in building):
            item.add_marker(pytest.mark.xdist_group("builds-in-the-checkout"))
