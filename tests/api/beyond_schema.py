"""The rules a request can break while valid under its JSON Schema: the spec states them in
prose, the server enforces them, and a schema-driven generator (schemathesis) cannot know them.
A schema-valid request the server refuses must name one of these; any other rule in a refusal
means the OpenAPI document and the server disagree. tests/api/test_beyond_schema.py keeps this
list equal to the rules the runtime reports."""

from __future__ import annotations

BEYOND_SCHEMA = frozenset(
    {
        # [messages.wellformed]: JSON text, nesting depth, strings a store can keep
        "json",
        "maxDepth",
        "text",
        # procedural content is the JSON text of a state machine whose states exist
        # (contentMediaType / contentSchema are annotations JSON Schema does not assert)
        "contentMediaType",
        "contentSchema",
        "stateReference",
        # [list.cursor-binding]: a cursor is minted by the store for one request
        "cursor",
        # [recall.query-vector]: a query vector of another embedder than the store's
        "unsupported",
        # v0.3 imports: every line's agent among the page's agents ([import.agents]), each id
        # once in a page, a vector of the store's dimension when its embedder is the store's
        "agents",
        "uniqueIds",
        "dimension",
        # [archive.vector]: one of a line's two vector forms, and base64 of whole float32s
        "oneVector",
        "float32",
        # [consolidate.apply]: a sent plan's merges are ones a dry run could have answered (no
        # record merged into itself, in two merges, or versioned without being merged)
        "consolidate.apply",
        # [promote.apply]: likewise a sent promotion plan's actions (versions of its own
        # records only, one record a demotion or archival, no record in two actions)
        "promote.apply",
    }
)
