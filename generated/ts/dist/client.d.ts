/**
 * The operations of memorywire v0.4 as a typed interface: a transport (HTTP,
 * in-process, ...) implements it; callers program against it.
 *
 * @module
 */
import type { ConsolidateRequest, ConsolidateResponse, DecideRequest, DecideResponse, ErrorEnvelope, ExpireRequest, ExpireResponse, ExportRecordsRequest, ExportRecordsResponse, ForgetRequest, ForgetResponse, GetRequest, GetResponse, HistoryRequest, HistoryResponse, ImportRecordsRequest, ImportRecordsResponse, ListRequest, ListResponse, MergeRequest, MergeResponse, PromoteRequest, PromoteResponse, RecallRequest, RecallResponse, RememberBatchRequest, RememberBatchResponse, RememberRequest, RememberResponse, RestoreRequest, RestoreResponse, ReviewsRequest, ReviewsResponse, RunFireRequest, RunFireResponse, RunGetRequest, RunGetResponse, RunStartRequest, RunStartResponse, ScopesRequest, ScopesResponse, UpdateRequest, UpdateResponse } from "./types.js";
/**
 * A failed operation: the store answered with the spec's error envelope (`error` message), kept
 * whole in `envelope`. Its `details` list every broken rule when the code is `invalid_request`.
 */
export declare class MemoryError extends Error {
    readonly name = "MemoryError";
    /** The envelope exactly as the store sent it. */
    readonly envelope: ErrorEnvelope;
    constructor(envelope: ErrorEnvelope);
    /** The envelope's code, e.g. `invalid_request` or `not_found` (or a newer one). */
    get code(): ErrorEnvelope["code"];
}
/**
 * A memorywire store, or a router over several: every operation takes the request message and
 * resolves with the response message, or rejects with a {@link MemoryError}.
 */
export interface MemoryClient {
    /**
     * Find the records of one agent that say the same thing, within one user and one memory type, and
     * propose each group as a merge with its evidence; with dry_run false, apply the merges
     * (docs/spec/v0.4.md#consolidate.duplicates). Closed.
     *
     * Resolves with `ConsolidateResponse` (message `consolidate.response`). A consolidation's plan,
     * or what applying it did (docs/spec/v0.4.md#consolidate.duplicates). Extensible: clients ignore
     * fields they do not know.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `consolidate.request`).
     *
     * Optional: added in v0.4; a store that has it declares the capability `consolidate`.
     */
    consolidate?(request: ConsolidateRequest): Promise<ConsolidateResponse>;
    /**
     * Decide one pending review: approve, reject, or approve as a merge into an existing record.
     * Closed.
     *
     * Resolves with `DecideResponse` (message `decide.response`). What a decision did. Extensible.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `decide.request`).
     *
     * Optional: added in v0.2; a store that has it declares the capability `decide`.
     */
    decide?(request: DecideRequest): Promise<DecideResponse>;
    /**
     * Apply a retention policy to an agent's memories. Closed: unknown fields are rejected, in the
     * policy too, so a misspelt predicate cannot widen what is matched.
     *
     * Resolves with `ExpireResponse` (message `expire.response`). Result of an expire. Extensible:
     * clients ignore fields they do not know.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `expire.request`).
     */
    expire(request: ExpireRequest): Promise<ExpireResponse>;
    /**
     * Page out everything an agent's scope holds, as archive lines, in id order
     * (docs/spec/v0.3.md#export.page). Closed.
     *
     * Resolves with `ExportRecordsResponse` (message `export_records.response`). One page of an
     * export: records and tombstones, together in id order, at most limit. Extensible.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `export_records.request`).
     *
     * Optional: added in v0.3; a store that has it declares the capability `export_records`.
     */
    export_records?(request: ExportRecordsRequest): Promise<ExportRecordsResponse>;
    /**
     * Forget memories by id, by metadata filter, or all of a scope (v0.4). Closed: unknown fields are
     * rejected. A forget must name its scope: ids, a non-empty filter, both (then a record must be
     * listed in ids and match the filter), or all.
     *
     * Resolves with `ForgetResponse` (message `forget.response`). Result of a forget. Extensible:
     * clients ignore fields they do not know.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `forget.request`).
     */
    forget(request: ForgetRequest): Promise<ForgetResponse>;
    /**
     * Read records by id, in the caller's agent (and user) scope. Closed.
     *
     * Resolves with `GetResponse` (message `get.response`). The records found, in request order, and
     * the ids that were not. Extensible.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `get.request`).
     *
     * Optional: added in v0.1; a store that has it declares the capability `get`.
     */
    get?(request: GetRequest): Promise<GetResponse>;
    /**
     * Read every version of one record, oldest first, in the caller's agent (and user) scope
     * (docs/spec/v0.4.md#history.versions). Closed.
     *
     * Resolves with `HistoryResponse` (message `history.response`). One page of a record's versions,
     * oldest first. Extensible.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `history.request`).
     *
     * Optional: added in v0.4; a store that has it declares the capability `history`.
     */
    history?(request: HistoryRequest): Promise<HistoryResponse>;
    /**
     * Write one page of archive lines into a store, keeping what they say
     * (docs/spec/v0.3.md#import.ids). Closed.
     *
     * Resolves with `ImportRecordsResponse` (message `import_records.response`). What one import page
     * did, record by record, and how the store keeps each field. Extensible.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `import_records.request`).
     *
     * Optional: added in v0.3; a store that has it declares the capability `import_records`.
     */
    import_records?(request: ImportRecordsRequest): Promise<ImportRecordsResponse>;
    /**
     * Page through an agent's records. Closed.
     *
     * Resolves with `ListResponse` (message `list.response`). One page of records. Extensible.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `list.request`).
     *
     * Optional: added in v0.1; a store that has it declares the capability `list`.
     */
    list?(request: ListRequest): Promise<ListResponse>;
    /**
     * Collapse duplicate memories into one canonical record. Closed: unknown fields are rejected.
     *
     * Resolves with `MergeResponse` (message `merge.response`). Result of a merge. Extensible:
     * clients ignore fields they do not know.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `merge.request`).
     */
    merge(request: MergeRequest): Promise<MergeResponse>;
    /**
     * Move an agent's short-term memories along by rules on age, confidence, recall count and
     * repetition: promote the ones that proved themselves into long-term (semantic) memory, demote
     * the weak and archive the cold, as a plan first (docs/spec/v0.4.md#promote.rules); with dry_run
     * false, apply it (docs/spec/v0.4.md#promote.apply). Closed.
     *
     * Resolves with `PromoteResponse` (message `promote.response`). A promotion's plan, or what
     * applying it did (docs/spec/v0.4.md#promote.rules). Extensible: clients ignore fields they do
     * not know.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `promote.request`).
     *
     * Optional: added in v0.4; a store that has it declares the capability `promote`.
     */
    promote?(request: PromoteRequest): Promise<PromoteResponse>;
    /**
     * Find an agent's memories most relevant to a query. Closed: unknown fields are rejected.
     *
     * Resolves with `RecallResponse` (message `recall.response`). Result of a recall: the best
     * matches, best first. Extensible: clients ignore fields they do not know.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `recall.request`).
     */
    recall(request: RecallRequest): Promise<RecallResponse>;
    /**
     * Write one memory into an agent's memory. Closed: a field this schema does not name is rejected,
     * so a misspelt option can never be stored silently.
     *
     * Resolves with `RememberResponse` (message `remember.response`). Result of a remember.
     * Extensible: clients ignore fields they do not know.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `remember.request`).
     */
    remember(request: RememberRequest): Promise<RememberResponse>;
    /**
     * Many remembers in one message, all or nothing. Closed.
     *
     * Resolves with `RememberBatchResponse` (message `remember_batch.response`). One remember
     * response per request, in request order. Extensible.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `remember_batch.request`).
     *
     * Optional: added in v0.1; a store that has it declares the capability `remember_batch`.
     */
    remember_batch?(request: RememberBatchRequest): Promise<RememberBatchResponse>;
    /**
     * Bring archived records back into recall. Closed.
     *
     * Resolves with `RestoreResponse` (message `restore.response`). What a restore did. Extensible.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `restore.request`).
     *
     * Optional: added in v0.1; a store that has it declares the capability `restore`.
     */
    restore?(request: RestoreRequest): Promise<RestoreResponse>;
    /**
     * List an agent's pending reviews, each with its diff against the current state. Closed.
     *
     * Resolves with `ReviewsResponse` (message `reviews.response`). One page of pending reviews.
     * Extensible.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `reviews.request`).
     *
     * Optional: added in v0.2; a store that has it declares the capability `reviews`.
     */
    reviews?(request: ReviewsRequest): Promise<ReviewsResponse>;
    /**
     * Fire one event on a run: the first transition out of its state whose trigger is the event and
     * whose conditions hold (by facts) moves it on, and its intents come back for the host to act on
     * (docs/spec/v0.4.md#run.fire). Closed.
     *
     * Resolves with `RunFireResponse` (message `run_fire.response`). The run after the event, and the
     * transition it took. Extensible: clients ignore fields they do not know.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `run_fire.request`).
     *
     * Optional: added in v0.4; a store that has it declares the capability `run_fire`.
     */
    run_fire?(request: RunFireRequest): Promise<RunFireResponse>;
    /**
     * Read a run: its state, status, the events it can take and its last transition
     * (docs/spec/v0.4.md#run.start). Closed.
     *
     * Resolves with `RunGetResponse` (message `run_get.response`). A run as it stands. Extensible:
     * clients ignore fields they do not know.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `run_get.request`).
     *
     * Optional: added in v0.4; a store that has it declares the capability `run_get`.
     */
    run_get?(request: RunGetRequest): Promise<RunGetResponse>;
    /**
     * Start a run of a stored procedure (a procedural record of the caller's scope) in its initial
     * state (docs/spec/v0.4.md#run.start). Closed.
     *
     * Resolves with `RunStartResponse` (message `run_start.response`). The run as started (or, for a
     * retried id, as it stands). Extensible: clients ignore fields they do not know.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `run_start.request`).
     *
     * Optional: added in v0.4; a store that has it declares the capability `run_start`.
     */
    run_start?(request: RunStartRequest): Promise<RunStartResponse>;
    /**
     * List the agents a store holds memories of, with their users and counts
     * (docs/spec/v0.3.md#scopes.list). Closed.
     *
     * Resolves with `ScopesResponse` (message `scopes.response`). One page of agents, in agent_id
     * order. Extensible.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `scopes.request`).
     *
     * Optional: added in v0.3; a store that has it declares the capability `scopes`.
     */
    scopes?(request: ScopesRequest): Promise<ScopesResponse>;
    /**
     * Change one record, if it is still at the version the caller read. Closed.
     *
     * Resolves with `UpdateResponse` (message `update.response`). What an update did. Extensible.
     *
     * @throws {MemoryError} carrying the spec's `ErrorEnvelope` when the operation fails (code
     * `invalid_request` with one detail per broken rule when the request is not a valid
     * `update.request`).
     *
     * Optional: added in v0.1; a store that has it declares the capability `update`.
     */
    update?(request: UpdateRequest): Promise<UpdateResponse>;
}
