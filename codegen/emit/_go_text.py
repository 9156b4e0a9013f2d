"""Go spelling for the Go emitter (``go.py``): names (PascalCase with Go's initialisms,
string and value literals, pointers) and layout (doc comments, wrapped lists, indentation)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from mnemowire.codegen.ir import Conditional
from mnemowire.codegen.load import CodegenError

#: the line length of generated Go
_WIDTH = 100

#: Go's common initialisms (as golint spells them): ``agent_id`` is ``AgentID``.
_INITIALISMS = frozenset(
    "ACL API ASCII CPU CSS DNS EOF GUID HTML HTTP HTTPS ID IP JSON LHS QPS RAM RHS RPC SLA SMTP "  # noqa: SIM905
    "SQL SSH TCP TLS TTL UDP UI UID UUID URI URL UTF8 VM XML XMPP XSRF XSS".split()
)

# --- names --------------------------------------------------------------------------------------


def _words(name: str) -> list[str]:
    """``agent_id`` -> [agent, id]; ``AgentId`` -> [Agent, Id]; ``$eq`` -> [eq]."""
    return re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z0-9]+", name)


def go_name(name: str) -> str:
    """The exported Go spelling of a spec name: PascalCase with Go's initialisms."""
    words = _words(name)
    if not words or words[0][0].isdigit():
        raise CodegenError(f"{name!r} has no Go name (it must start with a letter)")
    return "".join(_go_word(w) for w in words)


def _go_word(word: str) -> str:
    """A word of a Go name: an initialism in capitals (``id`` -> ``ID``, ``ids`` -> ``IDs``)."""
    if word.upper() in _INITIALISMS:
        return word.upper()
    if len(word) > 2 and word[-1] in "sS" and word[:-1].upper() in _INITIALISMS:
        return word[:-1].upper() + "s"
    return word[0].upper() + word[1:]


def _unexported(exported: str) -> str:
    """``RememberRequest`` -> ``rememberRequest``; ``IDList`` -> ``idList``."""
    first = _words(exported)[0]
    return first.lower() + exported[len(first) :]


def _a(word: str) -> str:
    """``word`` with its indefinite article: "an ErrorDetail", "a Diff"."""
    return f"an {word}" if word[:1].lower() in "aeio" else f"a {word}"


def _go_string(value: str) -> str:
    """A Go interpreted string literal (JSON's escapes are Go's; non-ASCII stays UTF-8)."""
    return json.dumps(value, ensure_ascii=False)


def _json_tag_name_ok(name: str) -> bool:
    """encoding/json ignores a tag name it deems invalid (and falls back to the field name)."""
    return bool(name) and all(
        c.isalpha() or c.isdigit() or c in "!#$%&()*+-./:;<=>?@[]^_{|}~ " for c in name
    )


def _go_value(value: Any) -> str:
    """A Go expression for a JSON value as the validators see it (numbers are json.Number)."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _go_string(value)
    if isinstance(value, int | float):
        return f"json.Number({_go_string(json.dumps(value))})"
    if isinstance(value, list):
        return "[]any{" + ", ".join(_go_value(v) for v in value) + "}"
    if isinstance(value, dict):
        members = (f"{_go_string(k)}: {_go_value(v)}" for k, v in sorted(value.items()))
        return "map[string]any{" + ", ".join(members) + "}"
    raise CodegenError(f"{value!r} is not a JSON value")


def _pointer(base: str, name: str, *, argument: bool = False) -> str:
    """Go expression for the JSON Pointer of member ``name`` of the value at ``base``; as an
    argument of a call with several, gofmt writes it without spaces."""
    escaped = _go_string("/" + name.replace("~", "~0").replace("/", "~1"))
    return f"{base}+{escaped}" if argument else f"{base} + {escaped}"


def _condition(cond: Conditional) -> str:
    if cond.const_property is not None:
        prop = _go_string(cond.const_property)
        return f"constHolds(obj, {prop}, {_go_value(cond.const_value)})"
    return "anyPresent(obj, " + ", ".join(_go_string(n) for n in cond.present) + ")"


class _Names:
    """Hands out package-level identifiers: unique, and the same on every run."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = set(taken)

    def new(self, wanted: str) -> str:
        name, n = wanted, 2
        while name in self.taken:
            name, n = f"{wanted}{n}", n + 1
        self.taken.add(name)
        return name


# --- layout: doc comments, wrapped lists, indentation ------------------------------------------

#: a word gofmt would read as a list marker at the start of a doc comment line
_LIST_MARKER = re.compile(r"^([-*+•]|\d+[.)])$")


def _sentence(text: str) -> str:
    """Whitespace collapsed, closed with a full stop so gofmt never takes it for a heading."""
    text = " ".join(text.split())
    return text if not text or text[-1] in ".!?:)" else text + "."


def comment(paragraphs: Sequence[str], indent: int = 0) -> list[str]:
    """``//`` lines wrapped to the line length, a blank ``//`` line between paragraphs."""
    width = _WIDTH - 4 * indent - 3
    lines: list[str] = []
    for text in (_sentence(p) for p in paragraphs):
        if not text:
            continue
        if lines:
            lines.append("//")
        current: list[str] = []
        for word in text.split(" "):
            piece = word
            if current and len(" ".join([*current, piece])) > width:
                if _LIST_MARKER.match(piece):  # keep it off the start of a line
                    piece = f"{current.pop()} {piece}"
                if current:
                    lines.append("// " + " ".join(current))
                current = []
            current.append(piece)
        lines.append("// " + " ".join(current))
    return lines


def _fill(items: Sequence[str], width: int) -> list[str]:
    """Items separated by single spaces, in lines of at most ``width`` characters."""
    lines: list[str] = []
    current = ""
    for item in items:
        if current and len(current) + 1 + len(item) > width:
            lines.append(current)
            current = item
        else:
            current = f"{current} {item}" if current else item
    if current:
        lines.append(current)
    return lines


def _literal_lines(values: Sequence[str], indent: int = 1) -> list[str]:
    """The element lines of a multi-line composite literal: every element ends with a comma."""
    return _fill([f"{v}," for v in values], _WIDTH - 4 * indent)


def _indent(lines: Sequence[str]) -> list[str]:
    return ["\t" + line if line else line for line in lines]
