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

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import re2

from mnemowire import spec
from mnemowire.errors import ConfigError, ForbiddenError
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
    pattern: Any  # a compiled re2 pattern: linear in the content, whatever the pattern
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
                where = f"{source}: /rules/{number}/content_pattern"
                pattern = _linear_pattern(rule["content_pattern"], where)
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
            document = spec.loads_strict(Path(path).read_bytes())
        except (OSError, ValueError) as exc:  # nested past the parser's depth included
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

    def refuse_update(self, record: Mapping[str, Any], changes: Mapping[str, Any]) -> None:
        """An update writes the record it leaves ([review.policy]): asked as that record's
        remember, it is refused (``forbidden``) when a rule would stage it, since spec v0.2
        cannot stage an update; otherwise an agent could write what no rule matches and then
        update it into what one stages. A pending record's update is the exception: it still
        waits for its review, which shows it (and a decision names the version it saw)."""
        if not changes or record.get("state") == "pending":
            return
        after = {**record, **changes}
        written = {
            key: after.get(key)
            for key in ("agent_id", "user_id", "type", "content", "metadata", "source")
        }
        rule = self.staged_by("remember", written)
        if rule is None:
            return
        raise ForbiddenError(
            f"the staging policy's rule {rule.removeprefix('policy:')!r} stages writes like "
            "the record this update would leave, and an update cannot wait for review: forget "
            "the record and remember the new content instead (the policy stages it for a "
            "reviewer)",
            details=[{"path": "", "rule": "policy", "message": f"matched by {rule}"}],
        )


def _linear_pattern(pattern: str, where: str) -> Any:
    """``pattern`` compiled for RE2, whose matching time grows linearly with the content
    whatever the pattern: a backtracking engine (Python's ``re``) spent seconds on the event
    loop for ``(a+)+$`` and 27 characters an agent chose, stalling every other caller. RE2
    refuses what it cannot run so (backreferences, lookaround), and so does the policy."""
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        why = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ConfigError(
            f"{where} is refused: {why}. Patterns run on a linear-time engine (RE2), which "
            "has no backreferences or lookaround: rewrite the pattern without them"
        ) from None


def _set(values: Any) -> frozenset[str] | None:
    return None if values is None else frozenset(values)
