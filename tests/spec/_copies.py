"""Copies of a real spec version, to edit into a newer version in a test."""

from __future__ import annotations

from pathlib import Path

SPEC = Path(__file__).parents[2] / "spec"
V0 = SPEC / "v0"


def copies_of(source: str, root: Path, *versions: str) -> list[Path]:
    """The schema files of spec ``source`` under ``root/<version>`` for each version, ids
    renamed."""
    folders = []
    for version in versions:
        folder = root / version
        folder.mkdir(parents=True)
        for path in (SPEC / source).glob("*.json"):
            text = path.read_text(encoding="utf-8").replace(f"/spec/{source}/", f"/spec/{version}/")
            (folder / path.name).write_text(text, encoding="utf-8")
        folders.append(folder)
    return folders


def copies_of_v0(root: Path, *versions: str) -> list[Path]:
    """The schema files of v0 under ``root/<version>`` for each version, ids renamed."""
    return copies_of("v0", root, *versions)
