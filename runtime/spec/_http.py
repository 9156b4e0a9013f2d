"""The spec's HTTP binding: which route carries which message, which status carries which error
code, and the OpenAPI 3.1 document that says both (docs/transports.md#http.routes).

One place decides it all, so the server (``mnemowire serve``), the generated OpenAPI file, the
generated TypeScript and Go clients and the Python ``http://`` store cannot disagree:

- ``POST /<version>/<operation>`` for every ``<operation>.request`` of a version, the body the
  request message, a 200 answer the ``<operation>.response`` message;
- ``GET /<version>/capabilities`` and ``GET /<version>/health``;
- every failure the ``error`` envelope, its HTTP status chosen by its code (``ERROR_STATUS``).

The OpenAPI components are the spec's own documents, one per message and version, with each
``$ref`` rewritten to point inside the OpenAPI document: tools that read OpenAPI resolve
references against the document root, not against a component's ``$id`` (schemathesis did,
measured), so ``common.json#/$defs/AgentId`` becomes
``#/components/schemas/v0.1.common/$defs/AgentId``. Nothing else in a schema changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mnemowire.spec._loader import SpecFiles
from mnemowire.spec._refs import absolute

__all__ = [
    "ERROR_STATUS",
    "STATUS_REASON",
    "Route",
    "component_name",
    "openapi_document",
    "routes",
]

#: the HTTP status of an error envelope, by its code; an unknown code (a newer server's) is 500
ERROR_STATUS: dict[str, int] = {
    "invalid_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "conflict": 409,
    "unsupported": 422,
    "internal": 500,
    "store_error": 500,
    "unavailable": 503,
    "timeout": 504,
}
STATUS_REASON: dict[int, str] = {
    400: "The request is not valid: `details` name every broken rule (code `invalid_request`).",
    401: "No bearer token, or one the server does not know (code `unauthorized`).",
    403: "The token may not act as the request's agent, or the staging policy stages what "
    "the write would leave (code `forbidden`); or a browser's Origin is not the server's "
    "(code `invalid_request`, rule `origin`).",
    404: "A named record is not this agent's (code `not_found`), or no such route.",
    405: "The route exists for another method (code `invalid_request`).",
    408: "The request body did not arrive in time (code `invalid_request`).",
    409: "The request contradicts stored state (code `conflict`).",
    413: "The request body is larger than the server accepts (code `invalid_request`).",
    415: "The request body is not declared `application/json` (code `invalid_request`).",
    421: "The Host header names no host this server answers (code `invalid_request`, rule "
    "`host`): a DNS-rebinding guard; the server's operator allows names with --allowed-host.",
    431: "The request line and headers are larger than the server accepts (code "
    "`invalid_request`, rule `maxBytes`).",
    422: "Valid, but the store cannot serve it (code `unsupported`): an operation or capability "
    "it does not declare.",
    500: "The store failed (code `store_error`, or `internal` for a bug).",
    503: "The store cannot be reached, or the server is shutting down (code `unavailable`).",
    504: "The store did not answer in time (code `timeout`).",
}
#: the messages served by GET routes: every version has them
GET_MESSAGES = ("capabilities", "health")
_TITLE = "mnemowire"


@dataclass(frozen=True)
class Route:
    """One route of the binding."""

    version: str
    #: the operation (``recall``), or the message a GET route serves (``capabilities``)
    operation: str
    method: str
    #: the message a POST's body must be; None for GET
    request: str | None
    response: str

    @property
    def path(self) -> str:
        return f"/{self.version}/{self.operation}"

    @property
    def operation_id(self) -> str:
        """Unique across versions: ``recall_v0_1``."""
        return f"{self.operation}_{self.version.replace('.', '_')}"


def routes(files: SpecFiles) -> list[Route]:
    """Every route of one spec version: a POST per operation, then the GET routes; sorted."""
    operations = sorted(
        m.removesuffix(".request") for m in files.messages if m.endswith(".request")
    )
    posts = [
        Route(files.version, op, "POST", f"{op}.request", f"{op}.response") for op in operations
    ]
    gets = [Route(files.version, m, "GET", None, m) for m in GET_MESSAGES if m in files.messages]
    return posts + gets


def component_name(version: str, message: str) -> str:
    """The OpenAPI component holding ``message`` of ``version``: ``v0.1.recall.request``."""
    return f"{version}.{message}"


def openapi_document(versions: Sequence[SpecFiles]) -> dict[str, Any]:
    """The OpenAPI 3.1 document of every route of ``versions`` (oldest first)."""
    if not versions:
        raise ValueError("an OpenAPI document needs at least one spec version")
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for files in versions:
        schemas.update(_components(files))
        for route in routes(files):
            paths[route.path] = {route.method.lower(): _operation(route, files)}
    newest = versions[-1].version
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": _TITLE,
            "version": newest.removeprefix("v"),
            "description": (
                "The memorywire operations over HTTP: one route per operation and spec version ("
                + ", ".join(f.version for f in versions)
                + "). Every body is validated against its spec schema once, at the server; every"
                " failure is the spec's error envelope, its status chosen by its code. Generated"
                " from spec/ by `mnemowire codegen`: do not edit."
            ),
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
            # which contract this document was generated from, as every generated file says
            "x-spec-digests": {f.version: f.digest for f in versions},
        },
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": dict(sorted(schemas.items())),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A token the server was given (--tokens FILE or "
                    "$MNEMOWIRE_SERVER_TOKENS), mapped to the agent ids it may act as. A "
                    "server with no tokens serves loopback only and ignores this header.",
                }
            },
        },
    }


def _operation(route: Route, files: SpecFiles) -> dict[str, Any]:
    version = files.version
    doc = files.documents[route.request or route.response]
    operation: dict[str, Any] = {
        "operationId": route.operation_id,
        "summary": f"{route.operation} (spec {version})",
        "description": str(doc.get("description", "")),
        "tags": [version],
    }
    if route.request is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": _ref(version, route.request)}},
        }
    ok: dict[str, Any] = {
        "description": f"A `{route.response}` message.",
        "content": {"application/json": {"schema": _ref(version, route.response)}},
    }
    links = _links(route, files)
    if links:
        ok["links"] = links
    responses: dict[str, Any] = {"200": ok}
    error = _ref(version, "error")
    for status in sorted(_statuses(route)):
        responses[str(status)] = {
            "description": STATUS_REASON[status],
            "content": {"application/json": {"schema": error}},
        }
    operation["responses"] = responses
    return operation


def _statuses(route: Route) -> set[int]:
    """The error statuses a route can answer with."""
    common = {400, 401, 403, 404, 405, 421, 431, 500, 503, 504}
    if route.request is None:
        return common - {400}
    return common | {408, 409, 413, 415, 422}


def _links(route: Route, files: SpecFiles) -> dict[str, Any]:
    """OpenAPI links where operations chain on a record's id: a remembered record can be
    recalled, read, updated, restored and forgotten, and the first two records of a batch
    merged (stateful API testers follow them)."""
    wanted: dict[str, dict[str, Any]] = {}
    if route.operation == "remember":
        agent = "$request.body#/agent_id"
        record = "$response.body#/id"
        wanted = {
            "recall": {"agent_id": agent, "query": "$request.body#/content"},
            "get": {"agent_id": agent, "ids": [record]},
            "restore": {"agent_id": agent, "ids": [record]},
            "update": {"agent_id": agent, "id": record, "expected_version": 1},
            "forget": {"agent_id": agent, "ids": [record]},
        }
    elif route.operation == "remember_batch":
        wanted = {
            "merge": {
                "agent_id": "$request.body#/requests/0/agent_id",
                "canonical": "$response.body#/results/0/id",
                "duplicates": ["$response.body#/results/1/id"],
            }
        }
    available = {r.operation: r for r in routes(files)}
    return {
        f"{operation.capitalize()}TheRecord": {
            "operationId": available[operation].operation_id,
            "requestBody": body,
            "description": f"{operation} what this {route.operation} stored",
        }
        for operation, body in wanted.items()
        if operation in available
    }


def _ref(version: str, message: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{component_name(version, message)}"}


def _components(files: SpecFiles) -> dict[str, Any]:
    """Every document of ``files`` as a component, references rewritten into the document."""
    by_uri = {doc["$id"]: name for name, doc in files.documents.items()}
    out = {}
    for name, doc in files.documents.items():
        rewritten = _rewrite(doc, doc["$id"], by_uri, files.version)
        rewritten.pop("$id", None)
        rewritten.pop("$schema", None)
        out[component_name(files.version, name)] = rewritten
    return out


def _rewrite(node: Any, base: str, by_uri: dict[str, str], version: str) -> Any:
    if isinstance(node, list):
        return [_rewrite(item, base, by_uri, version) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str):
            uri, _, fragment = absolute(base, value).partition("#")
            if uri not in by_uri:
                raise ValueError(f"{base}: $ref {value!r} leaves the spec version's documents")
            out[key] = f"#/components/schemas/{component_name(version, by_uri[uri])}{fragment}"
        else:
            out[key] = _rewrite(value, base, by_uri, version)
    return out
