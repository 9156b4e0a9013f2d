"""Copies of the real spec v0, to edit into a newer version in a test."""

from __future__ import annotations

from pathlib import Path

V0 = Path(__file__).parents[2] / "spec" / "v0"


def copies_of_v0(root: Path, *versions: str) -> list[Path]:
    """The schema files of v0 under ``root/<version>`` for each version, ids renamed."""
    folders = []
    for version in versions:
        folder = root / version
        folder.mkdir(parents=True)
        for source in V0.glob("*.json"):
            text = source.read_text(encoding="utf-8").replace("/spec/v0/", f"/spec/{version}/")
            (folder / source.name).write_text(text, encoding="utf-8")
        folders.append(folder)
    return folders
