"""Every store, and the router, claims what it implements against a pinned spec version.

Regenerating the bindings for a new spec version must not make a store claim capabilities no
line of its code serves: each names its capabilities and spec version, and this test fails
as soon as the newest spec has a capability a store has neither opted into nor declined.
"""

from __future__ import annotations

import importlib

import pytest

from mnemowire import kit, models, spec
from mnemowire.kit import Implements
from mnemowire.layers.router import ROUTES

STORES = ("sqlite_vec", "pgvector", "mem0", "cognee", "letta")


def implements_of(store: str) -> Implements:
    claim = importlib.import_module(f"mnemowire.adapters.{store}.store").IMPLEMENTS
    assert isinstance(claim, Implements)
    return claim


@pytest.mark.parametrize("store", STORES)
def test_each_store_decides_on_every_capability_of_the_newest_spec(store: str) -> None:
    undecided = implements_of(store).undecided(spec.LATEST)
    assert undecided == (), (
        f"spec {spec.LATEST} has capabilities the {store} store neither serves nor declines: "
        f"{list(undecided)}; implement them and pin the store to {spec.LATEST}, or add each to "
        "its IMPLEMENTS' declined with the reason"
    )


def test_the_router_decides_on_every_capability_of_the_newest_spec() -> None:
    assert ROUTES.undecided(spec.LATEST) == ()


@pytest.mark.parametrize("store", STORES)
def test_a_store_declares_exactly_its_claim(store: str) -> None:
    claim = implements_of(store)
    declared = claim.declaration("s")
    assert declared.spec_version == claim.spec_version
    assert set(declared.capabilities) == claim.capabilities - {"staging_policy"}
    with_policy = claim.declaration("s", staging_policy={"rules": [{"name": "all"}]})
    assert "staging_policy" in with_policy.capabilities


def test_a_capability_the_newest_spec_gains_is_undecided_until_a_store_opts_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    claim = implements_of("sqlite_vec")
    newest = (*spec.capability_names(spec.LATEST), "summarise")
    monkeypatch.setattr(
        "mnemowire.kit._implements.capability_names",
        lambda version: newest if version == "v9" else spec.capability_names(version),
    )
    assert claim.undecided("v9") == ("summarise",)


def test_a_claim_names_only_capabilities_of_its_pinned_version() -> None:
    with pytest.raises(ValueError, match=r"not capabilities of spec v0\.1: \['reviews'\]"):
        Implements("v0.1", ["semantic", "reviews"], declined={})
    with pytest.raises(ValueError, match="both served and declined"):
        Implements("v0.2", ["graph"], declined={"graph": "no neighbours"})
    with pytest.raises(ValueError, match="needs its reason"):
        Implements("v0.2", ["semantic"], declined={"graph": " "})
    with pytest.raises(ValueError, match="no spec defines"):
        Implements("v0.2", ["semantic"], declined={"telepathy": "not yet"})
    with pytest.raises(ValueError, match="does not implement a staging policy"):
        Implements("v0.2", ["semantic"], declined={}).declaration("s", staging_policy={})


def test_a_declaration_refuses_what_its_spec_version_lacks() -> None:
    with pytest.raises(ValueError, match=r"not capabilities of spec v0: \['get'\]"):
        kit.declare("s", "v0", ["semantic", "get"])


def test_newest_is_the_newest_shipped_folder_and_what_the_bindings_export() -> None:
    assert spec.LATEST == spec.available_versions()[-1] == models.SPEC_VERSION
