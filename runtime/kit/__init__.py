"""The store kit: what an adapter author builds a memorywire store from.

A store implements ``mnemowire.protocol.MemoryStore``; the kit holds the spec's rules on stored
state, written once so every store keeps them the same way (docs/adapters/guide.md walks
through a whole store built from it):

- ids and time: ``new_id`` (ULIDs, for the router and every store), ``now_ms``, ``elapsed_ms``;
- wire JSON: ``to_wire``, ``digest`` (for audit entries); requests arrive as generated models
  already validated at the boundary (``mnemowire.layers.validating``), so a store never
  validates them again;
- records: ``record_fields``, ``recall_answer``, ``store_result``, ``searchable_text``,
  ``TYPE_FIELDS``, the embedder calls (``embed``: concurrent small calls share one batch;
  ``query_embedding``, ``EmbedderSetup``) and
  ``batch_vectors`` and ``check_vectors`` (a remember_batch's precomputed vectors, checked);
- capabilities: ``needs`` (what a request needs; the router routes by the same table),
  ``refuse_undeclared`` (``unsupported`` for a request needing what the store lacks, or
  carrying a field it cannot keep), ``fidelity_of`` and ``worst_fidelity`` (how a store, or
  a router over several, keeps each field);
- rules: ``replay`` and ``StoredWrite`` ([remember.id]), ``id_taken``, ``forget_states``
  ([forget.scope]), ``MergePlan``, ``require_visible`` and ``require_versions`` ([merge.strategies],
  [merge.ownership]), ``cutoff``, ``search_depth`` (how deep a recall searches), ``Implements``
  (what a store serves, pinned to the spec version it was written against, and what it
  declines) and ``declare`` (its capabilities answer);
- filters: ``matches`` (the reference meaning of a metadata filter, for stores that filter in
  Python) and ``operators_of``; ``rrf`` for stores that fuse their own searches;
- URL options: ``url_options`` with the ``text``, ``integer`` and ``number`` parsers;
- spec v0.1 (get, list, update): ``RecordRows`` and ``record_state`` (records read back
  whole), ``get_answer``, ``list_answer``, ``Cursors`` (list cursors bound to their request),
  ``UpdatePlan`` (optimistic concurrency, what changed, what to embed again),
  ``restore_answer`` and ``batch_answer``; ``ComposedStore`` answers them (and the review
  queue) for a store that holds them as objects of their own (``RecordOps``).

``mnemowire.kit.sql`` writes the scopes as SQL for relational stores (``mnemowire.kit.sql_reviews``
the review queue, as steps ``mnemowire.kit.sql_steps`` runs on a sync or an async driver),
``mnemowire.kit.keywords``
the keyword rules (which words are indexed, searched and how matches rank),
``mnemowire.kit.periods`` a query's named calendar period and the ranking it asks for
([recall.named-period]), ``mnemowire.kit.replies`` the share a recalled question lends its
reply ([recall.replies]), and
``mnemowire.kit.documents`` every operation for a store over a memory library that keeps each
record as one document (``DocumentStore``, with the ``IdMap`` such a library's own ids need),
``mnemowire.kit.audit`` the audit log's hash chain (an entry's digest, ``verify``, the
export with its head digest), ``mnemowire.kit.reviews`` the review queue's rules (spec v0.2:
what a staged write keeps, a review and a decision on the wire; a forget's preview and a
staged forget of a whole scope), ``mnemowire.kit.staging`` an operator's staging policy, and
``mnemowire.kit.history`` a record's history as a store answers for it (spec v0.4), and
``mnemowire.kit.consolidation`` and ``mnemowire.kit.procedures`` two v0.4 operations a store
serves over its own others (consolidate over its export and merges; procedure runs over its
get, remember and update, with ``Conditions``, the registry a host evaluates a run's facts
from).
"""

from mnemowire.filters import matches, operators_of
from mnemowire.fusion import rrf
from mnemowire.kit._basics import (
    digest,
    elapsed_ms,
    json_bytes,
    json_text,
    new_id,
    now_ms,
    to_wire,
)
from mnemowire.kit._browse import (
    UPDATABLE_FIELDS,
    Cursors,
    RecordRows,
    UpdatePlan,
    batch_answer,
    decode_json_columns,
    get_answer,
    list_answer,
    record_state,
    restore_answer,
)
from mnemowire.kit._capabilities import (
    fidelity_of,
    missing_reason,
    needs,
    refuse_undeclared,
    refuse_unkept,
    worst_fidelity,
)
from mnemowire.kit._composed import ComposedStore, RecordOps
from mnemowire.kit._embedding import embed
from mnemowire.kit._implements import Implements
from mnemowire.kit._records import (
    HIT_RECORD_FIELDS,
    TYPE_FIELDS,
    EmbedderSetup,
    batch_vectors,
    check_vectors,
    query_embedding,
    recall_answer,
    record_fields,
    searchable_text,
    store_result,
)
from mnemowire.kit._rules import (
    DAY_MS,
    MIN_SEARCH_DEPTH,
    MergePlan,
    StoredWrite,
    cutoff,
    declare,
    forget_states,
    id_taken,
    in_batch,
    replay,
    require_versions,
    require_visible,
    search_depth,
)
from mnemowire.kit._urls import OptionParser, integer, number, text, url_options

__all__ = [
    "DAY_MS",
    "HIT_RECORD_FIELDS",
    "MIN_SEARCH_DEPTH",
    "TYPE_FIELDS",
    "UPDATABLE_FIELDS",
    "ComposedStore",
    "Cursors",
    "EmbedderSetup",
    "Implements",
    "MergePlan",
    "OptionParser",
    "RecordOps",
    "RecordRows",
    "StoredWrite",
    "UpdatePlan",
    "batch_answer",
    "batch_vectors",
    "check_vectors",
    "cutoff",
    "declare",
    "decode_json_columns",
    "digest",
    "elapsed_ms",
    "embed",
    "fidelity_of",
    "forget_states",
    "get_answer",
    "id_taken",
    "in_batch",
    "integer",
    "json_bytes",
    "json_text",
    "list_answer",
    "matches",
    "missing_reason",
    "needs",
    "new_id",
    "now_ms",
    "number",
    "operators_of",
    "query_embedding",
    "recall_answer",
    "record_fields",
    "record_state",
    "refuse_undeclared",
    "refuse_unkept",
    "replay",
    "require_versions",
    "require_visible",
    "restore_answer",
    "rrf",
    "search_depth",
    "searchable_text",
    "store_result",
    "text",
    "to_wire",
    "url_options",
    "worst_fidelity",
]
