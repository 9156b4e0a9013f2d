"""An operator's staging policy (docs/spec/v0.2.md#review.policy): rules that stage writes for
review without the caller asking, the preprint's ``privacy_intent`` made a store setting.

A store holding a policy asks it about every remember, forget and merge it is sent
(``staged_by``); a write any rule matches is staged as if it said ``approval_required``, and
its review says which rule did it (``policy:<name>``). The policy is JSON, validated against
the spec's ``StagingPolicy`` (in ``capabilities.json``, where a store reports it):

>>> policy = StagingRules.of({"rules": [{"name": "health", "filter": {"topic": "health"}}]})
>>> policy.staged_by("remember", {"type": "semantic", "metadata": {"topic": "health"}})
'policy:health'
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mnemowire import spec
from mnemowire.errors import ConfigError
from mnemowire.filters import matches

__all__ = ["StagingRules"]

#: the fields of a rule that describe a remember's record: a rule naming one never matches a
#: forget or a merge
_RECORD_PREDICATES = ("types", "sources", "filter", "content_pattern")


@dataclass(frozen=True)
class _Rule:
    name: str
    operations: frozenset[str] | None
    types: frozenset[str] | None
    sources: frozenset[str] | None
    user_ids: frozenset[str] | None
    filter: Mapping[str, Any] | None
    pattern: re.Pattern[str] | None
    about_records: bool

    def holds(self, operation: str, payload: Mapping[str, Any]) -> bool:
        if self.operations is not None and operation not in self.operations:
            return False
        if self.user_ids is not None and payload.get("user_id") not in self.user_ids:
            return False
        if not self.about_records:
            return True
        if operation != "remember":
            return False
        return (
            (self.types is None or payload.get("type") in self.types)
            and (self.sources is None or payload.get("source") in self.sources)
            and (self.filter is None or matches(payload.get("metadata") or {}, self.filter))
            and (
                self.pattern is None or self.pattern.search(str(payload.get("content"))) is not None
            )
        )


class StagingRules:
    """The rules, in order; the first that matches a write names it."""

    def __init__(self, document: Mapping[str, Any], rules: tuple[_Rule, ...]) -> None:
        #: the policy as configured, what ``capabilities.staging_policy`` reports
        self.document = dict(document)
        self._rules = rules

    @classmethod
    def of(cls, document: Any, *, source: str = "the staging policy") -> StagingRules:
        """A policy from its JSON, once it is a valid ``StagingPolicy`` and every
        ``content_pattern`` compiles; ConfigError naming the field and the rule otherwise."""
        wrapped = {"store": "policy", "spec_version": spec.LATEST, "capabilities": []}
        envelope = spec.validate("capabilities", {**wrapped, "staging_policy": document})
        if envelope is not None:
            problems = "; ".join(
                f"{d['path'].removeprefix('/staging_policy') or '/'} {d['message']}"
                for d in envelope["details"]
            )
            raise ConfigError(f"{source} is not a valid staging policy: {problems}")
        rules = []
        for number, rule in enumerate(document["rules"]):
            pattern = None
            if "content_pattern" in rule:
                try:
                    pattern = re.compile(rule["content_pattern"], re.IGNORECASE)
                except re.error as exc:
                    raise ConfigError(
                        f"{source}: /rules/{number}/content_pattern does not compile: {exc}"
                    ) from None
            rules.append(
                _Rule(
                    name=rule["name"],
                    operations=_set(rule.get("operations")),
                    types=_set(rule.get("types")),
                    sources=_set(rule.get("sources")),
                    user_ids=_set(rule.get("user_ids")),
                    filter=rule.get("filter"),
                    pattern=pattern,
                    about_records=any(name in rule for name in _RECORD_PREDICATES),
                )
            )
        return cls(document, tuple(rules))

    @classmethod
    def load(cls, path: str | Path) -> StagingRules:
        """A policy from a JSON file (a store URL's ``policy=PATH``)."""
        try:
            document = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read the staging policy {str(path)!r}: {exc}") from None
        return cls.of(document, source=f"staging policy {str(path)!r}")

    @classmethod
    def named_by(cls, options: Mapping[str, Any]) -> StagingRules | None:
        """The policy a store URL's ``policy=PATH`` option names (every store takes it the
        same way); None when the URL names none."""
        return None if "policy" not in options else cls.load(options["policy"])

    def staged_by(self, operation: str, payload: Mapping[str, Any]) -> str | None:
        """``policy:<rule>`` for the first rule matching the write (``payload``: its request
        as wire JSON), None when no rule does."""
        for rule in self._rules:
            if rule.holds(operation, payload):
                return f"policy:{rule.name}"
        return None


def _set(values: Any) -> frozenset[str] | None:
    return None if values is None else frozenset(values)
