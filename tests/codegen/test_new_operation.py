"""An operation added to the spec reaches every boundary, client and transport by regenerating
alone: a scratch copy of the spec gains a toy operation (``ping``: request, response and a
capability), the Python bindings are generated from it, and a store that implements ``ping``
(the only code written for it) is called through ``ValidatingStore``, ``SyncMemory``, the
conformance harness's parser, ``mnemowire serve`` with an ``HttpStore`` client, and MCP.

The scratch package is the repository's own sources, with ``mnemowire.models`` and
``mnemowire.schemas`` swapped for the regenerated bindings and the scratch spec, run in a
child process (the installed package is never touched)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mnemowire import codegen, spec

ROOT = Path(__file__).parents[2]
#: the version the toy operation is added to: the newest shipped
NEWEST = spec.LATEST

PING_REQUEST = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": f"https://mnemowire.dev/spec/{NEWEST}/ping.request.json",
    "title": "PingRequest",
    "description": "Echo a text back. Closed.",
    "type": "object",
    "properties": {
        "agent_id": {"$ref": "common.json#/$defs/AgentId"},
        "text": {"description": "What to echo.", "type": "string", "minLength": 1},
    },
    "required": ["agent_id", "text"],
    "additionalProperties": False,
}
PING_RESPONSE = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": f"https://mnemowire.dev/spec/{NEWEST}/ping.response.json",
    "title": "PingResponse",
    "description": "The echo. Extensible.",
    "type": "object",
    "properties": {"echo": {"description": "The text sent.", "type": "string"}},
    "required": ["echo"],
}

#: run in the scratch package: the only code written for ping is PingStore's method
SCRIPT = r"""
import asyncio, json, sys, threading, typing

from mnemowire.adapters.http import HttpStore
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.mcp import MemoryTools
from mnemowire.apps.server import Hosts, MemoryServer, create_app
from mnemowire.apps.transport import Binding, bind, uvicorn_config
from mnemowire.conformance._harness import Parsed
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import RequestError, UnsupportedError
from mnemowire.layers.memory import Memory, SyncMemory
from mnemowire.layers.validating import ValidatingStore
from mnemowire.models import PingRequest, PingResponse
from mnemowire.models.operations import BY_NAME, PROTOCOLS


class PingStore(SqliteVecStore):
    def capabilities(self):
        declared = super().capabilities()
        return declared.model_copy(update={"capabilities": [*declared.capabilities, "ping"]})

    async def ping(self, request: PingRequest) -> PingResponse:
        return PingResponse(echo=request.text)


def store():
    return PingStore(":memory:", embedder=HashEmbedder())


async def main():
    seen = {}
    op = BY_NAME["ping"]
    seen["table"] = [op.since, op.optional, str(op.capability), op.request.__name__]
    seen["protocol"] = isinstance(store(), PROTOCOLS["ping"])
    hints = typing.get_type_hints(ValidatingStore.ping)
    seen["typed"] = [hints["return"].__name__, str(hints["request"])]
    boundary = ValidatingStore(store())
    seen["boundary"] = (await boundary.ping({"agent_id": "a", "text": "hi"})).echo
    try:
        await boundary.ping({"agent_id": "a", "text": ""})
    except RequestError as exc:
        seen["refused"] = [exc.details[0]["path"], exc.details[0]["rule"]]
    try:
        await ValidatingStore(SqliteVecStore(":memory:", embedder=HashEmbedder())).ping(
            {"agent_id": "a", "text": "hi"})
    except UnsupportedError as exc:
        seen["unsupported"] = exc.code
    seen["harness"] = (await Parsed(store()).ping({"agent_id": "a", "text": "ho"})).echo
    seen["mcp"] = "ping" in MemoryTools(store()).operations
    seen["call"] = (await Memory(store()).call("ping", {"agent_id": "a", "text": "jsonl"})).echo

    server = MemoryServer(store())
    binding = Binding(host="127.0.0.1", port=0)
    sock = bind(binding)
    port = sock.getsockname()[1]
    import uvicorn
    app = create_app(server, hosts=Hosts.of("127.0.0.1", ()))
    running = uvicorn.Server(uvicorn_config(app, binding, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not running.started:
        await asyncio.sleep(0.05)
    client = HttpStore.from_url(f"http://127.0.0.1:{port}")
    try:
        seen["http"] = (await client.ping(PingRequest(agent_id="a", text="wire"))).echo
    finally:
        await client.aclose()
        running.should_exit = True
        thread.join(10)
    return seen


seen = asyncio.run(main())
with SyncMemory(Memory(store())) as memory:
    seen["sync"] = memory.ping({"agent_id": "a", "text": "blocking"}).echo
print(json.dumps(seen))
"""


def scratch_package(tmp_path: Path) -> Path:
    """The repository's sources as a package, with the scratch spec and its bindings."""
    spec_root = tmp_path / "spec"
    shutil.copytree(ROOT / "spec", spec_root)
    newest = spec_root / NEWEST
    (newest / "ping.request.json").write_text(json.dumps(PING_REQUEST, indent=2))
    (newest / "ping.response.json").write_text(json.dumps(PING_RESPONSE, indent=2))
    capabilities = json.loads((newest / "capabilities.json").read_text())
    capabilities["$defs"]["Capability"]["enum"].append("ping")
    (newest / "capabilities.json").write_text(json.dumps(capabilities, indent=2))
    files = codegen.generate(["python"], codegen.spec_versions(spec_root))
    codegen.write(files, tmp_path / "generated")

    package = tmp_path / "pkg" / "mnemowire"
    package.mkdir(parents=True)
    for entry in (ROOT / "runtime").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name, folder in (("adapters", ROOT / "adapters"), ("codegen", ROOT / "codegen"),
                         ("conformance", ROOT / "conformance"),
                         ("models", tmp_path / "generated" / "python"),
                         ("schemas", spec_root)):  # fmt: skip
        (package / name).symlink_to(folder)
    return package.parent


def test_an_operation_added_to_the_spec_reaches_every_boundary_by_regenerating(
    tmp_path: Path,
) -> None:
    pkg = scratch_package(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(pkg), "PYTHONDONTWRITEBYTECODE": "1"}
    ran = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        check=False,
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr
    seen = json.loads(ran.stdout.strip().splitlines()[-1])
    assert seen == {
        "table": [NEWEST, True, "ping", "PingRequest"],
        "protocol": True,
        "typed": [
            "PingResponse",
            f"mnemowire.models.{NEWEST.replace('.', '_')}.PingRequest"
            " | collections.abc.Mapping[str, typing.Any]",
        ],
        "boundary": "hi",
        "refused": ["/text", "minLength"],
        "unsupported": "unsupported",
        "harness": "ho",
        "mcp": True,
        "call": "jsonl",
        "http": "wire",
        "sync": "blocking",
    }
