"""``--pretty`` output: the same messages as the JSON output, laid out for people.

Everything printed comes from stored memories, which anyone who can write to the store chose:
a memory holding an escape sequence (OSC 52 writes the operator's clipboard, others retitle the
window or hide text) or a bidirectional override (text that reads other than it is) must not
reach the terminal as it is. Every string is shown with those characters escaped (``\x1b``,
``\u202e``); the JSON output escapes them by being JSON.

A recall hit shows its ``relevance`` (cosine, comparable across queries), not its ``score``
(under rrf a rank fusion of about 0.016 to 0.033 that means nothing outside its answer); a
review shows its diff whole, content wrapped to the terminal, a change's words marked.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from collections.abc import Iterator
from typing import Any

from mnemowire.apps._times import when
from mnemowire.apps._words import word_diff

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
    if "reviews" in payload:
        return _reviews(payload)
    if "entries" in payload and "dropped" in payload:
        return _history(payload)
    if "groups" in payload and "scanned" in payload:
        return _consolidation(payload)
    if "actions" in payload and "scanned" in payload:
        return _promotion(payload)
    if isinstance(payload.get("run"), dict):
        return _run(payload)
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
    if payload.get("duplicate_of"):
        lines.append(
            "  (a record already says this: staged for a reviewer beside it)"
            if payload.get("pending_approval")
            else "  (a record already says this: answered with it, nothing written)"
        )
    lines += _stores(payload.get("stores", []))
    return "\n".join(lines)


def _width() -> int:
    return max(40, shutil.get_terminal_size((100, 20)).columns)


def _recall(payload: dict[str, Any]) -> str:
    width = _width()
    header = f"{'relevance':>12}  {'type':<10} {'id':<26}  content"
    lines = [header, "-" * min(len(header) + 40, width)]
    for hit in payload["results"]:
        room = max(20, width - 54)
        content = printable(" ".join(str(hit["content"]).split()))
        if len(content) > room:
            content = content[: room - 1] + "…"
        kind, ident = printable(hit["type"]), printable(hit["id"])
        # relevance is optional in the spec: without it the score is all there is
        near = (
            f"{hit['relevance']:.2f}"
            if hit.get("relevance") is not None
            else f"score {hit['score']:.4f}"
        )
        lines.append(f"{near:>12}  {kind:<10} {ident:<26}  {content}")
    if not payload["results"]:
        lines.append("(no memories matched)")
    fusion = printable(payload["fusion_used"])
    lines.append(
        f"{len(payload['results'])} result(s) in {payload['latency_ms']:.1f} ms, fusion {fusion}"
    )
    if any(hit.get("relevance") is None for hit in payload["results"]):
        lines.append(
            f"score: the {fusion} ranking, comparable only within this answer "
            "(shown where the store reports no relevance)"
        )
    lines += _stores(payload.get("stores", []))
    return "\n".join(lines)


def _reviews(payload: dict[str, Any]) -> str:
    width, lines = _width(), []
    for review in payload["reviews"]:
        lines += [*_review(review, width), ""]
    if not payload["reviews"]:
        lines.append("(no pending reviews)")
    lines.append(f"{len(payload['reviews'])} pending review(s) in {payload['latency_ms']:.1f} ms")
    if any(review["diff"]["modified"] for review in payload["reviews"]):
        lines.append("[-…-] words the change removes, {+…+} words it adds")
    if payload.get("next_cursor"):
        lines.append(f"more: --cursor {printable(payload['next_cursor'])}")
    return "\n".join([*lines, *_stores(payload.get("stores", []))])


def _review(review: dict[str, Any], width: int) -> list[str]:
    """One review: who staged what and when, the request's gist, then its diff."""
    request, diff = review["request"], review["diff"]
    who = f"agent {review['agent_id']}"
    if request.get("user_id"):
        who += f", user {request['user_id']}"
    by = f" by {review['staged_by']}" if review.get("staged_by") else ""
    lines = _wrap(f"review {review['review_id']}  {review['operation']}  {who}", width, "", 4)
    lines += _wrap(f"staged{by} at {when(review['requested_at'])}", width, "  ", 4)
    gist = printable(f"  request: {_gist(request)}")
    lines.append(gist if len(gist) <= width else gist[: width - 1] + "…")
    if review.get("reasoning"):
        lines += _wrap(f"reasoning: {review['reasoning']}", width, "  ", 4)
    for change in diff["modified"]:
        lines += _modified(change, width)
    for record in diff["added"]:  # its version is what a decision names (--expected-version)
        version = f" version {record['version']}" if record.get("version") else ""
        lines += _record("+ added", record, width, version)
    for record in diff["removed"]:
        lines += _record("- removed", record, width)
    for near in diff.get("related", []):
        lines += _record("~ related", near["record"], width, f" relevance {near['relevance']:.2f}")
    if not (diff["modified"] or diff["added"] or diff["removed"]):
        lines.append("  (nothing would change now)")
    return lines


def _history(payload: dict[str, Any]) -> str:
    """A record's versions, oldest first: each with when, how and by whom, the first whole and
    every later one as its change from the one before (content words marked, other fields
    as ``old -> new``)."""
    width, lines, marked = _width(), [], False
    if payload["dropped"]:
        lines.append(f"({payload['dropped']} older version(s) no longer kept)")
    previous: dict[str, Any] | None = None
    for entry in payload["entries"]:
        record = entry["record"]
        head = f"r{entry['revision']}  {entry['operation']}  {when(entry['at'])}"
        if entry.get("caller"):
            head += f"  by {entry['caller']}"
        head += f"  {record.get('state', '')}"
        if record.get("version"):
            head += f" v{record['version']}"
        if entry.get("merged_from"):
            head += f"  merged from {', '.join(entry['merged_from'])}"
        if entry.get("merged_into"):
            head += f"  merged into {entry['merged_into']}"
        if entry.get("imported"):
            head += "  (made at the archive's source)"
        lines += _wrap(head, width, "", 4)
        if entry.get("reason"):
            lines += _wrap(f"reason: {entry['reason']}", width, "    ", 8)
        if previous is None:
            lines += _text(str(record["content"]), width, "    ", 4)
        else:
            lines += _changes(previous, record, width)
            marked = marked or previous.get("content") != record.get("content")
        previous = record
    if not payload["entries"]:
        lines.append("(no versions)")
    if marked:
        lines.append("[-…-] words the change removed, {+…+} words it added")
    if payload.get("next_cursor"):
        lines.append(f"more: --cursor {printable(payload['next_cursor'])}")
    return "\n".join([*lines, *_stores(payload.get("stores", []))])


def _changes(before: dict[str, Any], after: dict[str, Any], width: int) -> list[str]:
    """What a version changed: the content's words marked, then each other field that
    differs (its time, version and state are in the version's heading)."""
    skip = ("updated_at", "version", "state")
    lines = _change_lines(before, after, width, "    ", skip=skip)
    if lines or before.get("state") != after.get("state"):
        return lines  # a state change alone is in the heading
    return ["    (no field changed)"]


def _gist(request: dict[str, Any]) -> str:
    """The staged request on one line, its content last (the diff shows that whole)."""
    fields = [(k, v) for k, v in request.items() if k not in ("agent_id", "approval_required")]
    fields.sort(key=lambda field: field[0] == "content")
    return " ".join(f"{k}={_token(v)}" for k, v in fields)


def _token(value: Any) -> str:
    if isinstance(value, str) and value and not re.search(r'[\s"]', value):
        return value
    return json.dumps(value, ensure_ascii=False)


def _record(label: str, record: dict[str, Any], width: int, extra: str = "") -> list[str]:
    user = f", user {record['user_id']}" if record.get("user_id") else ""
    head = f"{label} {record['id']} ({record['type']}{user}){extra}"
    return [*_wrap(head, width, "  ", 8), *_text(str(record["content"]), width, "      ")]


def _modified(change: dict[str, Any], width: int) -> list[str]:
    """A changed record: its content before and after, the words that differ marked, and
    each other field that changes."""
    before, after = change["before"], change["after"]
    lines = _wrap(f"* modified {change['id']} ({after['type']})", width, "  ", 8)
    return lines + _change_lines(before, after, width, "      ", content=True)


def _change_lines(
    before: dict[str, Any],
    after: dict[str, Any],
    width: int,
    indent: str,
    *,
    content: bool = False,
    skip: tuple[str, ...] = (),
) -> list[str]:
    """A record's change: its content before and after, the words that differ marked (always
    with ``content``, else only when it changed), then each other field that differs but
    ``skip``'s, as ``old -> new``."""
    lines: list[str] = []
    if content or before.get("content") != after.get("content"):
        old, new = _marked(str(before["content"]), str(after["content"]))
        lines += _text(old, width, f"{indent}before: ", len(indent) + 8)
        lines += _text(new, width, f"{indent}after:  ", len(indent) + 8)
    for name in dict.fromkeys([*before, *after]):
        if name != "content" and name not in skip:
            for path, then, now in _differing(name, before.get(name), after.get(name)):
                old, new = ("(absent)" if v is _ABSENT else _short(v) for v in (then, now))
                lines += _wrap(f"{path}: {old} -> {new}", width, indent, 8)
    return lines


#: a key one side of a change lacks
_ABSENT = object()


def _differing(path: str, before: Any, after: Any) -> Iterator[tuple[str, Any, Any]]:
    """Where two values differ, as ``(dotted path, old, new)``: two objects that both hold
    something by the keys that changed (a run's step is ``metadata.procedure_run.state: a ->
    b``, not the whole metadata twice), anything else whole."""
    if before == after:
        return
    if isinstance(before, dict) and isinstance(after, dict) and before and after:
        for key in dict.fromkeys([*before, *after]):
            then, now = before.get(key, _ABSENT), after.get(key, _ABSENT)
            yield from _differing(f"{path}.{key}", then, now)
        return
    yield path, before, after


def _marked(before: str, after: str) -> tuple[str, str]:
    """Both contents, the words only ``before`` has as ``[-…-]``, only ``after`` as ``{+…+}``
    (the bounded diff of ``apps._words``)."""
    left, right = word_diff(before, after)
    return (
        "".join(_mark(text, changed, "[-", "-]") for text, changed in left),
        "".join(_mark(text, changed, "{+", "+}") for text, changed in right),
    )


def _mark(text: str, changed: bool, start: str, end: str) -> str:
    """``text`` marked, its surrounding whitespace (a line break included) left outside, unless
    the change is only whitespace."""
    core = text.strip()
    if not changed or not text:
        return text
    if not core:
        return f"{start}{text}{end}"
    lead = text[: len(text) - len(text.lstrip())]
    return f"{lead}{start}{core}{end}{text[len(text.rstrip()) :]}"


def _text(text: str, width: int, indent: str, hang: int = 6) -> list[str]:
    """Content as written: its own lines kept, each wrapped; the first starts after
    ``indent``, every other ``hang`` spaces in."""
    first, *rest = text.split("\n")
    lines = _wrap(first, width, indent, hang)
    return lines + [line for part in rest for line in _wrap(part, width, " " * hang, hang)]


def _wrap(text: str, width: int, indent: str, hang: int) -> list[str]:
    """``text`` escaped and wrapped to ``width``, later lines indented ``hang`` spaces."""
    wrapped = textwrap.wrap(
        printable(text),
        width,
        initial_indent=indent,
        subsequent_indent=" " * hang,
        break_on_hyphens=False,
        replace_whitespace=False,
    )
    return wrapped or [indent.rstrip()]


def record_lines(records: list[dict[str, Any]], *, header: bool) -> list[str]:
    """Whole records (get, list) as table rows: id, type, state, version, content."""
    width = _width()
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


def _run(payload: dict[str, Any]) -> str:
    """A procedure run: where it is, what it can take there, and what the transition just
    taken (or the last one) asks of the host."""
    run = payload["run"]
    limit = f"{run['steps']}/{run['step_limit']} steps"
    if run.get("deadline") is not None:
        limit += f", until {when(run['deadline'])}"
    lines = [
        f"run {printable(run['id'])} of {printable(run['name'])} "
        f"({printable(run['procedure_id'])} v{run['procedure_version']}), version {run['version']}",
        f"  state: {printable(run['state'])} [{printable(run['status'])}], {limit}",
    ]
    if run["events"]:
        lines.append("  events: " + ", ".join(printable(e) for e in run["events"]))
    fired = payload.get("fired") or run.get("last")
    if fired:
        took = "fired" if payload.get("fired") else "last"
        lines.append(
            f"  {took}: {printable(fired['event'])}: {printable(fired['source'])} -> "
            f"{printable(fired['dest'])}"
        )
        for intent in fired["intents"]:
            args = json.dumps(intent.get("args"), ensure_ascii=False) if "args" in intent else ""
            lines.append(f"    intent {printable(intent['name'])} {printable(args)}".rstrip())
    if payload.get("replayed"):
        lines.append("  (already started with this id: nothing new)")
    return "\n".join(lines)


def _consolidation(payload: dict[str, Any]) -> str:
    """A consolidation: each group's canonical record, then each duplicate with the judge's
    reason, similarity and the words only one side has."""
    width = _width()
    applied = "a plan (dry run)" if payload["dry_run"] else "applied"
    lines = [f"{applied}: {len(payload['groups'])} group(s), {payload['scanned']} record(s) read"]
    for group in payload["groups"]:
        where = " ".join(
            printable(part)
            for part in (group.get("type"), group.get("user_id") and f"user {group['user_id']}")
            if part
        )
        review = f" review {printable(group['review_id'])}" if group.get("review_id") else ""
        lines.append(
            f"[{printable(group['status'])}]{review} keep {printable(group['canonical'])}"
            + (f" ({where})" if where else "")
        )
        if "content" in group:
            lines += _text(group["content"], width, "      ")
        evidence = {e["id"]: e for e in group.get("evidence", [])}
        for duplicate in group["duplicates"]:
            found = evidence.get(duplicate)
            if found is None:
                lines.append(f"  merge {printable(duplicate)}")
                continue
            words = [
                *(f"+{printable(w)}" for w in found.get("only_in_canonical", [])),
                *(f"-{printable(w)}" for w in found.get("only_in_duplicate", [])),
            ]
            lines.append(
                f"  merge {printable(duplicate)}: {printable(found['reason'])}, "
                f"similarity {found['similarity']:.2f}" + (f"; {' '.join(words)}" if words else "")
            )
            if "content" in found:
                lines += _text(found["content"], width, "      ")
    if payload.get("more"):
        lines.append("more groups: apply these, then run it again")
    if not payload["groups"]:
        lines.append("(no duplicates)")
    return "\n".join(lines)


def _promotion(payload: dict[str, Any]) -> str:
    """A promotion: each action with its records, the rules that decided it and, for a
    promotion, the long-term record it writes and its words."""
    width = _width()
    applied = "a plan (dry run)" if payload["dry_run"] else "applied"
    actions = payload["actions"]
    lines = [f"{applied}: {len(actions)} action(s), {payload['scanned']} record(s) read"]
    for action in actions:
        review = f" review {printable(action['review_id'])}" if action.get("review_id") else ""
        where = f" (user {printable(action['user_id'])})" if "user_id" in action else ""
        ids = ", ".join(printable(i) for i in action["ids"])
        lines.append(
            f"[{printable(action['status'])}]{review} {printable(action['action'])} {ids}{where}"
        )
        if "into" in action:
            lines.append(f"  into {printable(action['into'])}")
        if "content" in action:
            lines += _text(action["content"], width, "      ")
        lines += [f"  because {printable(reason)}" for reason in action.get("because", [])]
    if payload.get("more"):
        lines.append("more actions: apply these, then run it again")
    if not actions:
        lines.append("(nothing to move)")
    return "\n".join(lines)


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
