"""The OpenAPI document (generated/openapi/openapi.json): current, complete, and its components
the spec's own schemas (the same contract once references are followed), not copies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mnemowire import codegen, spec

ROOT = Path(__file__).parents[2]
DOCUMENT = ROOT / "generated" / "openapi" / "openapi.json"
VERSIONS = spec.available_versions()


def _document() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    return loaded


def test_the_committed_document_is_current() -> None:
    assert codegen.diff(codegen.generate(["openapi"]), ROOT / "generated") == ""


def test_it_is_what_the_server_serves() -> None:
    assert _document() == spec.openapi_document([spec.read_spec(v) for v in VERSIONS])


def test_every_route_of_every_version_is_there_with_its_messages() -> None:
    paths = _document()["paths"]
    for version in VERSIONS:
        for route in spec.routes(spec.read_spec(version)):
            operation = paths[route.path][route.method.lower()]
            assert operation["operationId"] == route.operation_id
            ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
            assert ok == {"$ref": f"#/components/schemas/{version}.{route.response}"}
            if route.request is not None:
                body = operation["requestBody"]["content"]["application/json"]["schema"]
                assert body == {"$ref": f"#/components/schemas/{version}.{route.request}"}
            for status, answer in operation["responses"].items():
                if status != "200":
                    schema = answer["content"]["application/json"]["schema"]
                    assert schema == {"$ref": f"#/components/schemas/{version}.error"}
    assert len(paths) == sum(len(spec.routes(spec.read_spec(v))) for v in VERSIONS)


def _resolve(document: dict[str, Any], node: Any) -> Any:
    """``node`` with every ``$ref`` into ``document`` replaced by its target (the inlined
    form ``mnemowire.spec.inline`` gives a spec message)."""
    if isinstance(node, list):
        return [_resolve(document, item) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        resolved = dict(_resolve(document, target))
        for key, value in node.items():
            if key == "properties":  # the target without some fields: both hold, so merged
                merged = {**resolved.get(key, {}), **value}
                if resolved.get("additionalProperties") is False:  # absent is refused anyway
                    merged = {name: sub for name, sub in merged.items() if sub is not False}
                resolved[key] = merged
            elif key != "$ref":
                resolved[key] = _resolve(document, value)
        return resolved
    return {k: _resolve(document, v) for k, v in node.items() if k != "$defs"}


@pytest.mark.parametrize("version", VERSIONS)
def test_each_component_is_its_spec_schema(version: str) -> None:
    document = _document()
    files = spec.read_spec(version)
    for message in files.messages:
        component = document["components"]["schemas"][f"{version}.{message}"]
        inlined = spec.inline(files, message)
        inlined.pop("$schema")
        assert _resolve(document, component) == inlined, message


def test_remember_links_to_the_operations_that_use_its_record() -> None:
    links = _document()["paths"]["/v0.1/remember"]["post"]["responses"]["200"]["links"]
    assert {link["operationId"] for link in links.values()} == {
        "recall_v0_1", "get_v0_1", "restore_v0_1", "update_v0_1", "forget_v0_1"
    }  # fmt: skip
    forget = links["ForgetTheRecord"]["requestBody"]
    assert forget == {"agent_id": "$request.body#/agent_id", "ids": ["$response.body#/id"]}
