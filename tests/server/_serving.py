"""A real ``mnemowire serve`` server (uvicorn, a real socket) in a thread of the test process,
so a test can hold the store behind it (its clock, its file) while talking HTTP to it."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import uvicorn

from mnemowire.apps.server import Hosts, MemoryServer, create_app
from mnemowire.apps.transport import Binding, bind, uvicorn_config

__all__ = ["serving"]


@contextlib.contextmanager
def serving(
    server: MemoryServer, *, grace_s: int = 5, ui: bool = False, hosts: Hosts | None = None
) -> Iterator[str]:
    """Serve ``server`` on a free loopback port; yields its base URL. On exit the server
    stops as on SIGTERM (in-flight requests finish, the store is closed). ``ui``: the
    reviewer UI too; ``hosts``: the names it answers to (default: loopback's)."""
    binding = Binding(port=0, grace_s=grace_s)
    sock = bind(binding)
    port = sock.getsockname()[1]
    app = create_app(server, ui=ui, hosts=hosts)
    header_timeout_s = server.limits.header_timeout_s
    running = uvicorn.Server(
        uvicorn_config(app, binding, header_timeout_s=header_timeout_s, log_level="warning")
    )
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not running.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        running.should_exit = True
        thread.join(timeout=grace_s + 10)
        sock.close()
