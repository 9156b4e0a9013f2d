"""The walk ``spec diff`` makes: both versions of one message side by side, each difference a
``Change`` under one of the rules of ``_diff_rules`` (``mnemowire.spec.diff`` sums them up
into the report and the bump they require)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urldefrag, urlsplit

from mnemowire.spec._diff_rules import RULES, Direction, Rule
from mnemowire.spec._loader import SpecFiles
from mnemowire.spec._refs import absolute, lookup

__all__ = ["Change", "Walk", "by_id", "direction_of"]

_ANNOTATIONS = ("description", "title", "examples", "$comment")
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_HANDLED = {
    "$ref", "$id", "$schema", "$defs", "type", "enum", "const", "properties", "required",
    "additionalProperties", "items", "anyOf", "oneOf", "allOf", "pattern", "format", "default",
    "deprecated", "uniqueItems", "multipleOf", "if", "then", "else", *_ANNOTATIONS, *_LOWER,
    *_UPPER,
}  # fmt: skip


@dataclass(frozen=True)
class Change:
    """One classified change: the rule, the message, where in the message (a JSON Pointer
    into an instance; ``*`` stands for every array item), and what changed."""

    rule: Rule
    message: str
    path: str
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule.id,
            "level": self.rule.level,
            "bump": self.rule.bump,
            "direction": self.rule.id.split(".", 1)[0],
            "message": self.message,
            "path": self.path,
            "detail": self.detail,
            "why": self.rule.why,
        }


def direction_of(schema: Mapping[str, Any]) -> Direction:
    """Requests are closed objects ([validation.closed]); everything open is what stores send."""
    return "request" if schema.get("additionalProperties") is False else "response"


def by_id(files: SpecFiles) -> dict[str, Any]:
    return {d["$id"]: d for d in files.documents.values() if "$id" in d}


class Walk:
    """Both versions of one message, walked side by side."""

    def __init__(
        self,
        old: SpecFiles,
        new: SpecFiles,
        message: str,
        ids: tuple[dict[str, Any], dict[str, Any]],
    ) -> None:
        self.message = message
        self.old_ids, self.new_ids = ids
        self.old_doc = old.documents[message]
        self.new_doc = new.documents[message]
        self.direction: Direction = direction_of(self.new_doc)
        #: the request messages of NEW by $id: a response that embeds one is held to its fields
        self.requests = {
            d["$id"]: name
            for name, d in new.documents.items()
            if "$id" in d and name != message and direction_of(d) == "request"
        }
        #: the (old, new) definitions being walked, outermost first: a cycle stops there
        self.open: set[tuple[str, str]] = set()
        #: > 0 inside an anyOf / oneOf / allOf branch or a then / else: a property named there
        #: constrains a field rather than declaring one
        self.constraining = 0

    def changes(self) -> list[Change]:
        old_base, new_base = self.old_doc.get("$id", ""), self.new_doc.get("$id", "")
        return list(self._node(self.old_doc, old_base, self.new_doc, new_base, ""))

    def _change(self, kind: str, path: str, detail: str) -> Change:
        return Change(RULES[f"{self.direction}.{kind}"], self.message, path, detail)

    def _resolve(
        self, node: Any, base: str, ids: dict[str, Any]
    ) -> tuple[Any, str, list[tuple[str, str]]]:
        """``node`` with its ``$ref`` chain followed (local keywords win), the base URI it
        now lives in, and the refs followed: each as written, and the base it was written in."""
        refs: list[tuple[str, str]] = []
        while isinstance(node, dict) and "$ref" in node and len(refs) < 32:
            ref = str(node["$ref"])
            target_uri = absolute(base, ref)
            target = lookup(ids, target_uri)
            if not isinstance(target, dict):
                break
            refs.append((ref, base))
            local = {k: v for k, v in node.items() if k != "$ref"}
            merged = {**target, **local}
            if isinstance(target.get("properties"), dict) and isinstance(
                local.get("properties"), dict
            ):  # properties beside a $ref refine the target's, name by name
                merged["properties"] = {**target["properties"], **local["properties"]}
            node, base = merged, target_uri
        return node, base, refs

    def _node(
        self,
        old: Any,
        old_base: str,
        new: Any,
        new_base: str,
        path: str,
        *,
        open_enum: bool = False,
    ) -> Iterator[Change]:
        old, old_base, old_refs = self._resolve(old, old_base, self.old_ids)
        new, new_base, new_refs = self._resolve(new, new_base, self.new_ids)
        if old_refs and new_refs and old_refs[-1][0] != new_refs[-1][0]:
            yield self._change("ref.changed", path, f"{old_refs[-1][0]} -> {new_refs[-1][0]}")
        if not isinstance(old, dict) or not isinstance(new, dict):  # boolean schemas
            if old != new:
                yield self._change("keyword.changed", path, f"schema {old!r} -> {new!r}")
            return
        # a recursive definition: stop where the same pair of definitions is already open
        key = (old_base, new_base) if old_refs or new_refs else None
        if key is not None and key in self.open:
            return
        if key is not None:
            self.open.add(key)
        embeds = self._embedded_request(new_base, new_refs)
        try:
            yield from self._keywords(
                old, old_base, new, new_base, path, open_enum=open_enum, embeds=embeds
            )
        finally:
            if key is not None:
                self.open.discard(key)

    def _embedded_request(self, base: str, refs: list[tuple[str, str]]) -> str | None:
        """Where a response embeds a whole request message by ``$ref`` (a review-request's
        ``request``): ``"<request>, which <file> embeds"``; None anywhere else."""
        if not refs or self.direction != "response":
            return None
        document, pointer = urldefrag(base)
        request = None if pointer else self.requests.get(document)  # the whole request only
        if request is None:
            return None
        file = urlsplit(refs[-1][1]).path.rsplit("/", 1)[-1]
        return f"{request}, which {file} embeds"

    def _keywords(
        self,
        old: dict[str, Any],
        old_base: str,
        new: dict[str, Any],
        new_base: str,
        path: str,
        *,
        open_enum: bool,
        embeds: str | None = None,
    ) -> Iterator[Change]:
        yield from self._annotations(old, new, path)
        yield from self._types(old, new, path)
        yield from self._enum(old, new, path, open_enum)
        yield from self._bounds(old, new, path)
        yield from self._text(old, new, path)
        yield from self._object(old, old_base, new, new_base, path, embeds=embeds)
        yield from self._items(old, old_base, new, new_base, path)
        yield from self._compositions(old, old_base, new, new_base, path)
        yield from self._conditional(old, old_base, new, new_base, path)
        for keyword in sorted((set(old) | set(new)) - _HANDLED):
            if old.get(keyword) != new.get(keyword):
                yield self._change("keyword.changed", path, f"{keyword} changed")

    def _annotations(self, old: dict[str, Any], new: dict[str, Any], path: str) -> Iterator[Change]:
        changed = [k for k in _ANNOTATIONS if old.get(k) != new.get(k)]
        if changed:
            yield self._change("annotation.changed", path, ", ".join(changed))
        if new.get("deprecated") and not old.get("deprecated"):
            yield self._change("deprecated.added", path, "deprecated: true")
        if "default" in old and "default" in new and old["default"] != new["default"]:
            yield self._change(
                "default.changed", path, f"default {old['default']!r} -> {new['default']!r}"
            )

    def _types(self, old: dict[str, Any], new: dict[str, Any], path: str) -> Iterator[Change]:
        before, after = _type_set(old), _type_set(new)
        if before == after:
            return
        if after is None or (before is not None and after > before):
            kind = "widened"
        elif before is None or after < before:
            kind = "narrowed"
        else:
            kind = "changed"
        yield self._change(f"type.{kind}", path, f"type {_show(before)} -> {_show(after)}")

    def _enum(
        self, old: dict[str, Any], new: dict[str, Any], path: str, open_enum: bool
    ) -> Iterator[Change]:
        if ("const" in old or "const" in new) and old.get("const") != new.get("const"):
            detail = f"const {old.get('const')!r} -> {new.get('const')!r}"
            yield self._change("const.changed", path, detail)
        before, after = old.get("enum"), new.get("enum")
        if before is None or after is None:
            if before is not None:  # the enumeration was lifted: any value now
                yield self._bound("loosened", path, "enum removed")
            elif after is not None:
                yield self._bound("tightened", path, "enum added")
            return
        gone = [v for v in before if v not in after]
        added = [v for v in after if v not in before]
        suffix = ".open" if open_enum and self.direction == "response" else ""
        for value in gone:
            yield self._change("enum.removed", path, f"value {value!r} removed")
        if added:
            kept = [v for v in after if v in before]
            kind = "appended" if after[: len(kept)] == kept else "inserted"
            for value in added:
                yield self._change(f"enum.{kind}{suffix}", path, f"value {value!r} {kind}")
        elif not gone and before != after:
            yield self._change("enum.reordered", path, "same values, another order")

    def _bound(self, how: str, path: str, detail: str) -> Change:
        return self._change(f"bound.{how}", path, detail)

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], path: str) -> Iterator[Change]:
        for keyword in (*_LOWER, *_UPPER):
            before, after = old.get(keyword), new.get(keyword)
            if before == after:
                continue
            detail = f"{keyword} {before!r} -> {after!r}"
            if before is None:
                yield self._bound("tightened", path, detail)
            elif after is None:
                yield self._bound("loosened", path, detail)
            elif (after > before) == (keyword in _LOWER):
                yield self._bound("tightened", path, detail)
            else:
                yield self._bound("loosened", path, detail)
        if old.get("multipleOf") != new.get("multipleOf"):
            detail = f"multipleOf {old.get('multipleOf')!r} -> {new.get('multipleOf')!r}"
            loosened = new.get("multipleOf") is None or (
                old.get("multipleOf") is not None and old["multipleOf"] % new["multipleOf"] == 0
            )
            yield self._bound("loosened" if loosened else "tightened", path, detail)
        if bool(old.get("uniqueItems")) != bool(new.get("uniqueItems")):
            how = "tightened" if new.get("uniqueItems") else "loosened"
            yield self._bound(how, path, f"uniqueItems {bool(new.get('uniqueItems'))}")

    def _text(self, old: dict[str, Any], new: dict[str, Any], path: str) -> Iterator[Change]:
        for keyword in ("pattern", "format"):
            before, after = old.get(keyword), new.get(keyword)
            if before == after:
                continue
            kind = "added" if before is None else "removed" if after is None else "changed"
            yield self._change(f"{keyword}.{kind}", path, f"{keyword} {before!r} -> {after!r}")

    def _object(
        self,
        old: dict[str, Any],
        old_base: str,
        new: dict[str, Any],
        new_base: str,
        path: str,
        *,
        embeds: str | None,
    ) -> Iterator[Change]:
        before, after = _present(old), _present(new)
        old_required, new_required = set(old.get("required", ())), set(new.get("required", ()))
        old_closed = old.get("additionalProperties") is False
        for name in sorted(set(before) | set(after)):
            where = f"{path}/{_escape(name)}"
            if name not in before and embeds is not None and old_closed:
                lift = f"lift it out ({json.dumps(name)}: false beside that $ref)"
                detail = f"field {name!r} added to {embeds}: {lift}"
                yield self._change("property.added.embedded-request", where, detail)
            elif name not in before and self.direction == "response" and old_closed:
                yield self._change("property.added.closed", where, f"field {name!r} added")
            elif self.constraining and (name not in after or name not in before):
                kind = "condition.removed" if name not in after else "condition.added"
                yield self._change(kind, where, f"a constraint on {name!r} {kind.split('.')[1]}")
            elif name not in after:
                if self.direction == "request":
                    yield self._change("property.removed", where, f"field {name!r} removed")
                else:
                    kind = "required" if name in old_required else "optional"
                    yield self._change(f"property.removed.{kind}", where, f"field {name!r} removed")
            elif name not in before:
                kind = "required" if name in new_required else "optional"
                yield self._change(f"property.added.{kind}", where, f"field {name!r} added")
            else:
                yield from self._node(before[name], old_base, after[name], new_base, where)
                if name in new_required and name not in old_required:
                    yield self._change("required.added", where, f"{name!r} now required")
                elif name in old_required and name not in new_required:
                    yield self._change("required.removed", where, f"{name!r} now optional")
        for name in sorted((new_required - old_required) - set(after)):  # required, undeclared
            yield self._change("required.added", f"{path}/{_escape(name)}", f"{name!r} required")
        closed_before = old.get("additionalProperties") is False
        closed_after = new.get("additionalProperties") is False
        if closed_before != closed_after:
            kind = "closed" if closed_after else "opened"
            yield self._change(f"additional-properties.{kind}", path, "additionalProperties")
        elif isinstance(old.get("additionalProperties"), dict) and isinstance(
            new.get("additionalProperties"), dict
        ):
            yield from self._node(
                old["additionalProperties"], old_base,
                new["additionalProperties"], new_base, f"{path}/*",
            )  # fmt: skip

    def _items(
        self, old: dict[str, Any], old_base: str, new: dict[str, Any], new_base: str, path: str
    ) -> Iterator[Change]:
        before, after = old.get("items"), new.get("items")
        if isinstance(before, dict) and isinstance(after, dict):
            yield from self._node(before, old_base, after, new_base, f"{path}/*")
        elif before != after:
            how = "loosened" if after is None else "tightened" if before is None else None
            if how is None:
                yield self._change("keyword.changed", path, "items changed")
            else:
                yield self._bound(how, path, f"items {'removed' if after is None else 'added'}")

    def _compositions(
        self, old: dict[str, Any], old_base: str, new: dict[str, Any], new_base: str, path: str
    ) -> Iterator[Change]:
        """anyOf / oneOf / allOf, branch by branch: unchanged branches are matched, an edited
        one is compared with its counterpart, the rest are added or removed. An anyOf branch
        added lets more through (an alternative); an allOf entry, or a whole anyOf / oneOf
        where there was none, lets less through (a condition)."""
        for keyword in ("anyOf", "oneOf", "allOf"):
            before = [_reachable(b, old) for b in old.get(keyword) or ()]
            after = [_reachable(b, new) for b in new.get(keyword) or ()]
            if not before and not after:
                continue
            if keyword not in old or keyword not in new:
                kind = "condition.added" if keyword in new else "condition.removed"
                if (
                    keyword == "allOf"
                    and after
                    and all(_reaches_only_new_fields(branch, old) for branch in after)
                ):
                    kind = "condition.added.new-field"
                yield self._change(
                    kind, path, f"{keyword} {'added' if keyword in new else 'removed'}"
                )
                continue
            # an enumeration beside any string is open: unknown values are kept
            open_enum = keyword == "anyOf" and any(
                self._is_any_string(branch, new_base, self.new_ids) for branch in after
            )
            if len(before) == len(after):
                pairs, gone, added = list(zip(before, after, strict=True)), [], []
            else:  # match the branches written the same; what is left was added or removed
                pairs = [(b, b) for b in before if b in after]
                gone = [b for b in before if b not in after]
                added = [b for b in after if b not in before]
                for edited in list(gone):  # the same rule, edited
                    twin = next((a for a in added if _same_rule(edited, a)), None)
                    if twin is not None:
                        pairs.append((edited, twin))
                        gone.remove(edited)
                        added.remove(twin)
                if len(gone) == len(added):  # edited in place: each with its counterpart
                    pairs += list(zip(gone, added, strict=True))
                    gone, added = [], []
            for old_branch, new_branch in pairs:  # a $ref written the same may point to a change
                yield from self._constraint(
                    old_branch, old_base, new_branch, new_base, path, open_enum=open_enum
                )
            if not gone and not added:
                continue
            if keyword == "oneOf":  # exactly one must match: any new branch may overlap
                count = f"{len(before)} -> {len(after)} alternatives"
                yield self._change("composition.changed", path, f"oneOf: {count}")
                continue
            more, less = ("alternative.added", "alternative.removed")
            if keyword == "allOf":
                more, less = ("condition.added", "condition.removed")
            for branch in added:
                kind = more
                if keyword == "allOf" and _reaches_only_new_fields(branch, old):
                    kind = "condition.added.new-field"
                yield self._change(kind, path, f"{keyword}: {_brief(branch)} added")
            for branch in gone:
                yield self._change(less, path, f"{keyword}: {_brief(branch)} removed")

    def _conditional(
        self, old: dict[str, Any], old_base: str, new: dict[str, Any], new_base: str, path: str
    ) -> Iterator[Change]:
        """if / then / else. Under the same ``if``, ``then`` and ``else`` are constraints on the
        message like any other (compared as such; one added is a condition added). A changed
        ``if`` moves which messages a constraint applies to, both ways at once: not proven,
        so it is flagged for review."""
        if "if" not in old and "if" not in new:
            return
        if old.get("if") != new.get("if"):
            how = "added" if "if" not in old else "removed" if "if" not in new else "changed"
            yield self._change(
                "keyword.changed", path, f"if {how}: review which messages it reaches"
            )
            return
        for keyword in ("then", "else"):
            if keyword in old and keyword in new:
                yield from self._constraint(old[keyword], old_base, new[keyword], new_base, path)
            elif keyword in old or keyword in new:
                kind = "condition.added" if keyword in new else "condition.removed"
                yield self._change(
                    kind, path, f"{keyword} {'added' if keyword in new else 'removed'}"
                )

    def _constraint(
        self,
        old: Any,
        old_base: str,
        new: Any,
        new_base: str,
        path: str,
        *,
        open_enum: bool = False,
    ) -> Iterator[Change]:
        """A branch or a then / else, compared as a constraint on the message."""
        self.constraining += 1
        try:
            yield from self._node(old, old_base, new, new_base, path, open_enum=open_enum)
        finally:
            self.constraining -= 1

    def _is_any_string(self, node: Any, base: str, ids: dict[str, Any]) -> bool:
        """A branch that takes any (non-empty) string: what makes an enumeration open."""
        resolved, _, _ = self._resolve(node, base, ids)
        return (
            isinstance(resolved, dict)
            and resolved.get("type") == "string"
            and not {"enum", "const", "pattern", "format"} & set(resolved)
        )


def _present(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The properties a message may carry: in a closed object a property declared ``false``
    can never be present, the same as one not named."""
    properties = dict(schema.get("properties", {}))
    if schema.get("additionalProperties") is False:
        return {name: s for name, s in properties.items() if s is not False}
    return properties


def _reachable(branch: Any, node: Mapping[str, Any]) -> Any:
    """``branch`` of one of ``node``'s compositions without the ``anyOf`` alternatives that
    require a field the closed ``node`` cannot carry (declared ``false``, as a response that
    embeds a request lifts a field out, or never named): they admit no message, so adding or
    removing one changes nothing there."""
    if not isinstance(branch, dict) or node.get("additionalProperties") is not False:
        return branch
    alternatives = branch.get("anyOf")
    if not isinstance(alternatives, list):
        return branch
    present = _present(node)
    kept = [
        alt
        for alt in alternatives
        if not (isinstance(alt, dict) and any(n not in present for n in alt.get("required", ())))
    ]
    return branch if len(kept) == len(alternatives) else {**branch, "anyOf": kept}


def _same_rule(old: Any, new: Any) -> bool:
    """Whether ``new`` is ``old`` edited: the same rule, by its ``description``, or, reworded,
    an ``anyOf`` that keeps every alternative it had (and may add more)."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return False
    if old.get("description") is not None and old.get("description") == new.get("description"):
        return True
    before, after = old.get("anyOf"), new.get("anyOf")
    return (
        isinstance(before, list)
        and isinstance(after, list)
        and set(old) == set(new)
        and all(alternative in after for alternative in before)
    )


def _reaches_only_new_fields(branch: Any, old: Mapping[str, Any]) -> bool:
    """An if / then whose ``if`` requires a field the old, closed object did not allow (or,
    written ``anyOf: [{required: [...]}, ...]``, whose every alternative does): it applies
    only to messages no older peer can send."""
    if not isinstance(branch, dict) or not isinstance(branch.get("if"), dict):
        return False
    if old.get("additionalProperties") is not False:
        return False
    test = branch["if"]
    alternatives = test.get("anyOf") if set(test) == {"anyOf"} else [test]
    present = _present(old)
    return isinstance(alternatives, list) and all(
        isinstance(alt, dict) and any(name not in present for name in alt.get("required", ()))
        for alt in alternatives
    )


def _brief(schema: Any) -> str:
    """A schema in a few words, for a change's detail."""
    if isinstance(schema, dict) and "description" in schema:
        return repr(str(schema["description"])[:60])
    text = json.dumps(schema, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_set(schema: Mapping[str, Any]) -> frozenset[str] | None:
    """The JSON types a schema allows by its ``type`` keyword; None means any type. An
    integer is a number, so ``number`` includes ``integer``."""
    declared = schema.get("type")
    if declared is None:
        return None
    types = {declared} if isinstance(declared, str) else set(declared)
    if "number" in types:
        types.add("integer")
    return frozenset(types)


def _show(types: frozenset[str] | None) -> str:
    if types is None:
        return "any"
    shown = sorted(types - {"integer"} if "number" in types else types)
    return "|".join(shown)


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")
