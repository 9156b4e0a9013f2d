"""``--pretty`` output: the same messages as the JSON output, laid out for people."""

from __future__ import annotations

import json
import shutil
from typing import Any

__all__ = ["render_pretty"]


def render_pretty(payload: dict[str, Any], *, error: bool = False) -> str:
    """A readable rendering of a spec response or error envelope."""
    if error:
        lines = [f"error ({payload.get('code')}): {payload.get('message')}"]
        lines += [
            f"  {d.get('path') or '(request)'}  [{d.get('rule')}]  {d.get('message')}"
            for d in payload.get("details", [])
        ]
        return "\n".join(lines)
    if "results" in payload:
        return _recall(payload)
    lines = [f"{key}: {_short(value)}" for key, value in payload.items() if key != "stores"]
    lines += _stores(payload.get("stores", []))
    return "\n".join(lines)


def _recall(payload: dict[str, Any]) -> str:
    width = shutil.get_terminal_size((100, 20)).columns
    header = f"{'score':>8}  {'type':<10} {'id':<26}  content"
    lines = [header, "-" * min(len(header) + 40, width)]
    for hit in payload["results"]:
        room = max(20, width - 50)
        content = " ".join(str(hit["content"]).split())
        if len(content) > room:
            content = content[: room - 1] + "…"
        lines.append(f"{hit['score']:>8.4f}  {hit['type']:<10} {hit['id']:<26}  {content}")
    if not payload["results"]:
        lines.append("(no memories matched)")
    lines.append(
        f"{len(payload['results'])} result(s) in {payload['latency_ms']:.1f} ms, "
        f"fusion {payload['fusion_used']}"
    )
    lines += _stores(payload.get("stores", []))
    return "\n".join(lines)


def _stores(stores: list[dict[str, Any]]) -> list[str]:
    out = []
    for store in stores:
        latency = store.get("latency_ms")
        timing = "" if latency is None else f" {latency:.1f} ms"
        problem = f" - {store['error']}" if store.get("error") else ""
        out.append(f"  [{store['status']}] {store['store']} ({store['count']}){timing}{problem}")
    return out


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) < 200 else text[:199] + "…"
