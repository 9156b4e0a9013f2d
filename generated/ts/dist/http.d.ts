/**
 * `HttpClient`: a {@link MemoryClient} over HTTP, for a `mnemowire serve` server (or any server
 * of the memorywire HTTP binding: one route per operation and spec version, the error envelope
 * on failure). Uses the platform's `fetch` (Node.js 20+, browsers, Deno, Bun): no dependency.
 *
 * ```ts
 * const memory = new HttpClient("http://127.0.0.1:8765", { token: process.env.MNEMOWIRE_TOKEN });
 * await memory.remember({ agent_id: "a", type: "semantic", content: "Alice likes tea" });
 * const found = await memory.recall({ agent_id: "a", query: "what does Alice drink?" });
 * ```
 *
 * Requests are checked against the spec before they are sent and answers when they arrive (the
 * same validators as `validate()`), so a mistake never costs a round trip and a broken server
 * never hands the caller a wrong object; `validate: false` turns both off.
 *
 * @module
 */
import { type MemoryClient } from "./client.js";
import type { Capabilities, ConsolidateRequest, ConsolidateResponse, DecideRequest, DecideResponse, ExpireRequest, ExpireResponse, ExportRecordsRequest, ExportRecordsResponse, ForgetRequest, ForgetResponse, GetRequest, GetResponse, Health, HistoryRequest, HistoryResponse, ImportRecordsRequest, ImportRecordsResponse, ListRequest, ListResponse, MergeRequest, MergeResponse, PromoteRequest, PromoteResponse, RecallRequest, RecallResponse, RememberBatchRequest, RememberBatchResponse, RememberRequest, RememberResponse, RestoreRequest, RestoreResponse, ReviewsRequest, ReviewsResponse, RunFireRequest, RunFireResponse, RunGetRequest, RunGetResponse, RunStartRequest, RunStartResponse, ScopesRequest, ScopesResponse, UpdateRequest, UpdateResponse } from "./types.js";
/** How an {@link HttpClient} talks to its server. */
export interface HttpClientOptions {
    /** The bearer token the server was given for this caller (`Authorization: Bearer ...`). */
    readonly token?: string;
    /** Milliseconds before a call fails with code `timeout` (default 30000). */
    readonly timeoutMs?: number;
    /** Check requests before sending, and answers on arrival, against the spec (default true). */
    readonly validate?: boolean;
    /** The `fetch` to use (default: the global one). */
    readonly fetch?: typeof fetch;
}
/** The spec version whose routes this client calls. */
export declare const HTTP_SPEC_VERSION = "v0.4";
/**
 * A memorywire server over HTTP. Every operation resolves with the response message or rejects
 * with a {@link MemoryError} carrying the spec's error envelope: the server's own (its code,
 * message and details unchanged), or one this client makes for what never reached the server
 * (`invalid_request` for a request the spec refuses, `unavailable` when the server cannot be
 * reached, `timeout`, `store_error` for an answer that is not the spec's).
 */
export declare class HttpClient implements MemoryClient {
    #private;
    readonly baseUrl: string;
    constructor(baseUrl: string, options?: HttpClientOptions);
    /**
     * `POST /v0.4/consolidate`: sends a `consolidate.request`, resolves with a
     * `consolidate.response`.
     */
    consolidate(request: ConsolidateRequest): Promise<ConsolidateResponse>;
    /**
     * `POST /v0.4/decide`: sends a `decide.request`, resolves with a
     * `decide.response`.
     */
    decide(request: DecideRequest): Promise<DecideResponse>;
    /**
     * `POST /v0.4/expire`: sends a `expire.request`, resolves with a
     * `expire.response`.
     */
    expire(request: ExpireRequest): Promise<ExpireResponse>;
    /**
     * `POST /v0.4/export_records`: sends a `export_records.request`, resolves with a
     * `export_records.response`.
     */
    export_records(request: ExportRecordsRequest): Promise<ExportRecordsResponse>;
    /**
     * `POST /v0.4/forget`: sends a `forget.request`, resolves with a
     * `forget.response`.
     */
    forget(request: ForgetRequest): Promise<ForgetResponse>;
    /**
     * `POST /v0.4/get`: sends a `get.request`, resolves with a
     * `get.response`.
     */
    get(request: GetRequest): Promise<GetResponse>;
    /**
     * `POST /v0.4/history`: sends a `history.request`, resolves with a
     * `history.response`.
     */
    history(request: HistoryRequest): Promise<HistoryResponse>;
    /**
     * `POST /v0.4/import_records`: sends a `import_records.request`, resolves with a
     * `import_records.response`.
     */
    import_records(request: ImportRecordsRequest): Promise<ImportRecordsResponse>;
    /**
     * `POST /v0.4/list`: sends a `list.request`, resolves with a
     * `list.response`.
     */
    list(request: ListRequest): Promise<ListResponse>;
    /**
     * `POST /v0.4/merge`: sends a `merge.request`, resolves with a
     * `merge.response`.
     */
    merge(request: MergeRequest): Promise<MergeResponse>;
    /**
     * `POST /v0.4/promote`: sends a `promote.request`, resolves with a
     * `promote.response`.
     */
    promote(request: PromoteRequest): Promise<PromoteResponse>;
    /**
     * `POST /v0.4/recall`: sends a `recall.request`, resolves with a
     * `recall.response`.
     */
    recall(request: RecallRequest): Promise<RecallResponse>;
    /**
     * `POST /v0.4/remember`: sends a `remember.request`, resolves with a
     * `remember.response`.
     */
    remember(request: RememberRequest): Promise<RememberResponse>;
    /**
     * `POST /v0.4/remember_batch`: sends a `remember_batch.request`, resolves with a
     * `remember_batch.response`.
     */
    remember_batch(request: RememberBatchRequest): Promise<RememberBatchResponse>;
    /**
     * `POST /v0.4/restore`: sends a `restore.request`, resolves with a
     * `restore.response`.
     */
    restore(request: RestoreRequest): Promise<RestoreResponse>;
    /**
     * `POST /v0.4/reviews`: sends a `reviews.request`, resolves with a
     * `reviews.response`.
     */
    reviews(request: ReviewsRequest): Promise<ReviewsResponse>;
    /**
     * `POST /v0.4/run_fire`: sends a `run_fire.request`, resolves with a
     * `run_fire.response`.
     */
    run_fire(request: RunFireRequest): Promise<RunFireResponse>;
    /**
     * `POST /v0.4/run_get`: sends a `run_get.request`, resolves with a
     * `run_get.response`.
     */
    run_get(request: RunGetRequest): Promise<RunGetResponse>;
    /**
     * `POST /v0.4/run_start`: sends a `run_start.request`, resolves with a
     * `run_start.response`.
     */
    run_start(request: RunStartRequest): Promise<RunStartResponse>;
    /**
     * `POST /v0.4/scopes`: sends a `scopes.request`, resolves with a
     * `scopes.response`.
     */
    scopes(request: ScopesRequest): Promise<ScopesResponse>;
    /**
     * `POST /v0.4/update`: sends a `update.request`, resolves with a
     * `update.response`.
     */
    update(request: UpdateRequest): Promise<UpdateResponse>;
    /**
     * `GET /v0.4/capabilities`: resolves with the `capabilities` message.
     */
    capabilities(): Promise<Capabilities>;
    /**
     * `GET /v0.4/health`: resolves with the `health` message.
     */
    health(): Promise<Health>;
}
