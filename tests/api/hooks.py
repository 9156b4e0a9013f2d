"""schemathesis hooks for ``nox -s api`` (loaded with SCHEMATHESIS_HOOKS=tests.api.hooks).

schemathesis's own ``positive_data_acceptance`` expects every schema-valid request to be
accepted; the spec refuses some of them by rules JSON Schema cannot state
(tests/api/beyond_schema.py). This check takes its place and is stricter where it counts: a
schema-valid request may be refused only with ``invalid_request`` naming those rules, or with
``unsupported`` for a query vector, so a refusal that names a JSON Schema keyword (the server
and the document disagree) fails the run, as does a 5xx (``not_a_server_error``)."""

from __future__ import annotations

from typing import Any

import schemathesis

from tests.api.beyond_schema import BEYOND_SCHEMA


@schemathesis.check
def schema_valid_is_accepted_or_refused_by_a_prose_rule(ctx: Any, response: Any, case: Any) -> None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    if response.status_code not in (400, 422):
        return  # 2xx, and 401/403/404/409: credentials and state, not the request's shape
    body = response.json()
    rules = {str(detail.get("rule")) for detail in body.get("details", [])}
    unexpected = sorted(rules - BEYOND_SCHEMA)
    if not rules or unexpected:
        raise AssertionError(
            f"a schema-valid request was refused with {response.status_code} for rules the "
            f"OpenAPI document does not state: {unexpected or 'no details'}: {body.get('message')}"
        )
