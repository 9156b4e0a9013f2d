"""``--pretty`` output: the same messages as the JSON output, laid out for people.

Everything printed comes from stored memories, which anyone who can write to the store chose:
a memory holding an escape sequence (OSC 52 writes the operator's clipboard, others retitle the
window or hide text) or a bidirectional override (text that reads other than it is) must not
reach the terminal as it is. Every string is shown with those characters escaped (``\x1b``,
``\u202e``); the JSON output escapes them by being JSON.
"""

from __future__ import annotations

import json
import re
import shutil
from typing import Any

__all__ = ["printable", "record_lines", "render_pretty"]

#: C0 and C1 controls (ESC, BEL, CR, ...), DEL, line and paragraph separators, and the
#: bidirectional embeddings, overrides and isolates
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(value: Any) -> str:
    """``value`` as text a terminal shows as it is: unsafe characters escaped."""
    text = value if isinstance(value, str) else str(value)
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def render_pretty(payload: dict[str, Any], *, error: bool = False) -> str:
    """A readable rendering of a spec response or error envelope."""
    if error:
        lines = [f"error ({printable(payload.get('code'))}): {printable(payload.get('message'))}"]
        lines += [
            f"  {printable(d.get('path') or '(request)')}  [{printable(d.get('rule'))}]  "
            f"{printable(d.get('message'))}"
            for d in payload.get("details", [])
        ]
        return "\n".join(lines)
    if "fusion_used" in payload:
        return _recall(payload)
    if "records" in payload:
        lines = record_lines(payload["records"], header=True)
        if not payload["records"]:
            lines.append("(no records)")
        if payload.get("missing"):
            lines.append(f"missing: {', '.join(printable(i) for i in payload['missing'])}")
        if payload.get("next_cursor"):
            lines.append(f"more: --cursor {printable(payload['next_cursor'])}")
        return "\n".join([*lines, *_stores(payload.get("stores", []))])
    lines = [
        f"{printable(key)}: {_short(value)}" for key, value in payload.items() if key != "stores"
    ]
    lines += _stores(payload.get("stores", []))
    return "\n".join(lines)


def _recall(payload: dict[str, Any]) -> str:
    width = shutil.get_terminal_size((100, 20)).columns
    header = f"{'score':>8}  {'type':<10} {'id':<26}  content"
    lines = [header, "-" * min(len(header) + 40, width)]
    for hit in payload["results"]:
        room = max(20, width - 50)
        content = printable(" ".join(str(hit["content"]).split()))
        if len(content) > room:
            content = content[: room - 1] + "…"
        kind, ident = printable(hit["type"]), printable(hit["id"])
        lines.append(f"{hit['score']:>8.4f}  {kind:<10} {ident:<26}  {content}")
    if not payload["results"]:
        lines.append("(no memories matched)")
    lines.append(
        f"{len(payload['results'])} result(s) in {payload['latency_ms']:.1f} ms, "
        f"fusion {payload['fusion_used']}"
    )
    lines += _stores(payload.get("stores", []))
    return "\n".join(lines)


def record_lines(records: list[dict[str, Any]], *, header: bool) -> list[str]:
    """Whole records (get, list) as table rows: id, type, state, version, content."""
    width = shutil.get_terminal_size((100, 20)).columns
    lines = []
    if header:
        title = f"{'id':<26}  {'type':<10} {'state':<8} {'v':>3}  content"
        lines += [title, "-" * min(len(title) + 40, width)]
    room = max(20, width - 54)
    for record in records:
        content = printable(" ".join(str(record["content"]).split()))
        if len(content) > room:
            content = content[: room - 1] + "…"
        ident, kind = printable(record["id"]), printable(record["type"])
        state, version = printable(record.get("state", "")), record.get("version", "")
        lines.append(f"{ident:<26}  {kind:<10} {state:<8} {version:>3}  {content}")
    return lines


def _stores(stores: list[dict[str, Any]]) -> list[str]:
    out = []
    for store in stores:
        latency = store.get("latency_ms")
        timing = "" if latency is None else f" {latency:.1f} ms"
        problem = f" - {printable(store['error'])}" if store.get("error") else ""
        out.append(
            f"  [{printable(store['status'])}] {printable(store['store'])} ({store['count']})"
            f"{timing}{problem}"
        )
    return out


def _short(value: Any) -> str:
    text = printable(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return text if len(text) < 200 else text[:199] + "…"
