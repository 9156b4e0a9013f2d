"""The memorywire operations as an MCP server (docs/transports.md#mcp), on the official SDK.

The preprint's first way to compose with MCP: memory as MCP tools. One tool per operation the
store serves, named after it (``remember``, ``recall``, ...), whose ``inputSchema`` is the
spec's request schema for the store's version (inlined: an MCP host cannot follow references
across files; without the prose a prompt need not carry, ``_schemas``) and whose
``outputSchema`` is the response schema. Arguments go through the same validating boundary as
every other caller's request (the SDK's low-level server does not check them); an answer is the
response message, as structured content and as JSON text; a failure is the spec's error
envelope in a result marked ``isError``, so a model reads what to fix.

The second way: recall as a resource template, ``memory://{agent_id}/recall{?query,k,user_id}``,
for hosts that attach context as resources rather than call tools.

Who may act as which agent: over streamable HTTP, the same bearer tokens as ``mnemowire serve``
(each call is authenticated from its HTTP request); over stdio, the process's user, limited to
``--agent`` ids when given, which the model is told where it reads each argument.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.shared.uri_template import UriTemplate

from mnemowire import spec
from mnemowire._version import __version__
from mnemowire.apps.mcp._schemas import agents_phrase, tool_input_schema
from mnemowire.apps.transport import ANYONE, Caller, InFlight, Tokens, admitted, caller_of
from mnemowire.errors import ForbiddenError, MnemowireError, UnauthorizedError
from mnemowire.layers.validating import ValidatingStore
from mnemowire.models.operations import BY_NAME
from mnemowire.protocol import BY_CAPABILITY, MemoryStore

__all__ = ["RECALL_TEMPLATE", "MemoryTools", "build_server"]

log = logging.getLogger("mnemowire.mcp")
RECALL_TEMPLATE = UriTemplate.parse("memory://{agent_id}/recall{?query,k,user_id}")
#: MCP's JSON-RPC code for a resource that does not exist (the SDK names none)
RESOURCE_NOT_FOUND = -32002


#: operations an MCP host, which is the agent, is not given: deciding a review is the
#: reviewer's (an agent approving its own staged writes would make staging pointless); moving
#: whole archives is an operator's (the CLI or HTTP: docs/portability.md), and pages of
#: records and vectors have no place in a model's context; consolidating a whole scope is a
#: sweep an operator runs and reviews (the CLI or HTTP: docs/lifecycle.md#consolidate), its
#: plan as long as the scope's duplicates, and an agent merges what it knows with merge; so is
#: promoting short-term memories by rules an operator sets (docs/lifecycle.md#promotion)
NOT_FOR_AGENTS = ("decide", "export_records", "import_records", "consolidate", "promote")


class MemoryTools:
    """The store behind the boundary, as MCP tools: which exist, and how a call runs."""

    def __init__(
        self,
        store: MemoryStore,
        *,
        tokens: Tokens | None = None,
        agents: frozenset[str] | None = None,
    ) -> None:
        self.store = store
        self.boundary = ValidatingStore(store)
        #: calls run to their end even when the client hangs up mid-call; drained on close
        self.inflight = InFlight()
        self.version = self.boundary.version
        self.tokens = tokens
        #: over stdio, the agents this process may act as (None: any)
        self.agents = agents
        self.local = ANYONE if agents is None else Caller("--agent", agents)
        files = spec.read_spec(self.version)
        declared = set(store.capabilities().capabilities)
        self.operations = [
            op
            for op in BY_NAME
            if f"{op}.request" in files.messages
            and (op not in BY_CAPABILITY or op in declared)
            and op not in NOT_FOR_AGENTS
        ]
        self.schemas = {
            op: tool_input_schema(op, version=self.version, agents=agents) for op in self.operations
        }

    @property
    def acting_as(self) -> str:
        """The sentence that tells a model which agent ids to send ("" when any will do)."""
        if not self.agents:
            return ""
        agents = agents_phrase(self.agents)
        return f"This server acts only as agent {agents}: send agent_id {agents} with every call."

    def tools(self) -> list[types.Tool]:
        """The tools as ``tools/list`` shows them: nothing in them names where the store is."""
        out = []
        for operation in self.operations:
            request = spec.read_spec(self.version).documents[f"{operation}.request"]
            response = spec.inlined_schema(f"{operation}.response", version=self.version)
            out.append(
                types.Tool(
                    name=operation,
                    title=request.get("title"),
                    description=(
                        f"{request.get('description', '')} The arguments are a memorywire "
                        f"{self.version} `{operation}.request` message."
                    ).strip(),
                    input_schema=self.schemas[operation],
                    output_schema=response,
                )
            )
        return out

    def input_schema(self, name: str) -> dict[str, Any] | None:
        return self.schemas.get(name)

    def caller(self, http_request: Any) -> Caller:
        """Who calls: the bearer token of the HTTP request, or the local user (stdio)."""
        if http_request is None:
            return self.local
        authorization = getattr(http_request, "headers", {}).get("authorization")
        return caller_of(self.tokens, authorization, otherwise=self.local)

    async def answer(self, operation: str, request: Any, http_request: Any) -> dict[str, Any]:
        """The store's answer to ``request``, validated and admitted as every transport does; an
        agent outside ``--agent`` is told the ids to send (not, as a token's holder is, to ask
        for another token)."""
        caller = self.caller(http_request)
        try:
            return await self.inflight.finish(admitted(self.boundary, caller, operation, request))
        except ForbiddenError as exc:
            if caller is not self.local or not self.agents:
                raise
            raise ForbiddenError(
                "this server acts only as the agents it was started with (mnemowire mcp "
                f"--agent): send agent_id {agents_phrase(self.agents)}",
                details=[
                    {**detail, "message": "is not an agent of this server"}
                    for detail in exc.details
                ],
            ) from None

    async def call(
        self, name: str, arguments: dict[str, Any], http_request: Any
    ) -> types.CallToolResult:
        if name not in self.operations:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"unknown tool {name!r}; this server has {', '.join(self.operations)}",
            )
        try:
            answer = await self.answer(name, arguments, http_request)
        except MnemowireError as exc:
            envelope = {**exc.envelope, "operation": name}
            return types.CallToolResult(
                content=[types.TextContent(text=json.dumps(envelope, ensure_ascii=False))],
                is_error=True,
            )
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(answer, ensure_ascii=False))],
            structured_content=answer,
        )

    async def read(self, uri: str, http_request: Any) -> types.ReadResourceResult:
        found = RECALL_TEMPLATE.match(uri)
        if found is None:
            raise MCPError(
                code=RESOURCE_NOT_FOUND,
                message=f"no resource {uri}; read {RECALL_TEMPLATE.template}",
                data={"uri": uri},
            )
        request: dict[str, Any] = {name: value for name, value in found.items() if value}
        k = request.get("k")
        if isinstance(k, str) and k.isdigit():  # a URI carries text; the schema wants a number
            request["k"] = int(k)
        try:
            answer = await self.answer("recall", request, http_request)
        except MnemowireError as exc:
            code = -32001 if isinstance(exc, UnauthorizedError) else types.INVALID_PARAMS
            raise MCPError(code=code, message=str(exc), data=exc.envelope) from None
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(
                    uri=uri,
                    mime_type="application/json",
                    text=json.dumps(answer, ensure_ascii=False),
                )
            ]
        )


def build_server(tools: MemoryTools) -> Server[Any]:
    """The SDK's low-level server over ``tools`` (closing the store is the transport's:
    ``serve_stdio``, ``http_app``, once ``tools.inflight`` is drained)."""

    async def list_tools(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools.tools())

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return await tools.call(params.name, dict(params.arguments or {}), ctx.request)

    async def list_resources(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        # no fixed resources: every read is a recall, which needs a query (the template)
        return types.ListResourcesResult(resources=[])

    async def list_templates(
        _ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            name="recall",
            title="Recall",
            uri_template=RECALL_TEMPLATE.template,
            description=(
                f"An agent's memories most relevant to `query` (a recall.response). "
                f"{tools.acting_as}"
            ).strip(),
            mime_type="application/json",
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await tools.read(str(params.uri), ctx.request)

    return Server(
        "mnemowire",
        version=__version__,
        instructions=(
            "Long-term memory in the memorywire format: remember facts, episodes, procedures and "
            "feelings of an agent's users, recall the relevant ones, forget on request. Every "
            "tool's arguments are the spec's request message; errors say which field to fix. "
            f"{tools.acting_as}"
        ).strip(),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        get_tool_input_schema=tools.input_schema,
    )
