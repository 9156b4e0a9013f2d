"""``mnemowire bench reference``: this package's default store beside the preprint's package
(memorywire 0.5.0, the ``reference`` extra), one round with the real models, published as a
report the schema accepts; a missing reference is a clear error naming what to install."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest
from click.testing import CliRunner

from mnemowire.apps.bench import environment
from mnemowire.apps.bench.reference import REFERENCE, run_reference
from mnemowire.apps.bench.report import make_report
from mnemowire.apps.cli import cli
from mnemowire.embedders import OnnxEmbedder
from tests.models import shared_model_cache


async def test_one_round_measures_both_sides_on_the_same_corpus(
    request: pytest.FixtureRequest,
) -> None:
    embedder = OnnxEmbedder(cache_dir=shared_model_cache(request))
    embedder.export()
    results = await run_reference(rounds=1, embedder=embedder)
    report = make_report("reference", environment("pytest"), results)  # held to the schema
    assert [side["name"] for side in results["sides"]] == ["mnemowire", "memorywire 0.5.0"]
    corpus = results["corpus"]
    for side in results["sides"]:
        assert side["remember"]["n"] == corpus["memories"] == 310
        assert side["recall"]["n"] == corpus["questions"]
    ours, theirs = results["sides"]
    assert results["ratio"]["recall_p50"] == round(
        ours["recall"]["p50_ms"] / theirs["recall"]["p50_ms"], 3
    )
    assert report["results"]["per_round"][0]["order"] == ["mnemowire", "memorywire 0.5.0"]


def test_without_the_reference_it_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.metadata.version

    def version(name: str) -> str:
        if name == "memorywire":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    result = CliRunner().invoke(cli, ["bench", "reference", "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert f"pip install '{REFERENCE}'" in result.output
    assert "Traceback" not in result.output
    assert not list(tmp_path.iterdir())
