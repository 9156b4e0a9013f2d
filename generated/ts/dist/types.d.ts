/**
 * Every type of memorywire v0.4: one per message and per definition of the spec.
 * The objects are the JSON on the wire, so field names are the spec's (snake_case). A message a
 * client sends is closed (no index signature); everything a store emits is extensible and keeps
 * the fields a newer store adds under an index signature of `unknown`.
 *
 * @module
 */
/** One action, the facts that decided it and what became of it. Extensible. */
export interface Action {
    /** promote, demote or archive ([promote.rules]); later versions may add actions. */
    action: PromotionAction | (string & {});
    /**
     * promote: the group, the record whose words it keeps first. demote, archive: the one record.
     *
     * Constraints: at least 1 item.
     */
    ids: MemoryId[];
    /**
     * The version each named record must be at for the write to go ahead, by id: a record at another
     * version, or no longer visible, refuses the whole write with conflict and changes nothing
     * (docs/spec/v0.4.md#merge.versions). What a plan read, so a write made from it never clobbers a
     * change made since.
     */
    expected_versions: ExpectedVersions;
    /**
     * promote: the id of the long-term record the group becomes (the same for the same group, so a
     * rerun writes it once).
     */
    into?: MemoryId;
    /** promote: the words the long-term record keeps (absent when a sent plan was applied). */
    content?: string;
    /** The user the records are stored under; absent for records with none. */
    user_id?: UserId;
    /** The short-term records' type. */
    type?: OpenMemoryType;
    /**
     * How old the oldest record is.
     *
     * Constraints: an integer, ≥ 0.
     */
    age_ms?: number;
    /**
     * The highest confidence of the records.
     *
     * Constraints: ≥ 0, ≤ 1.
     */
    confidence?: number;
    /**
     * How many times the records were recalled (their recall_count, summed).
     *
     * Constraints: an integer, ≥ 0.
     */
    recalls?: number;
    /**
     * How many short-term records say the same thing (1: only this one).
     *
     * Constraints: an integer, ≥ 1.
     */
    repetitions?: number;
    /** The rules that decided it, in words ("recalled 4 times, at least 3"). */
    because?: string[];
    /**
     * planned: proposed (a dry run). promoted, demoted, archived: applied. pending_approval: the
     * long-term record waits for a reviewer (review_id); its group is untouched. changed: left alone,
     * because one of its records moved to another version or out of reach since the plan read it.
     */
    status: ActionStatus | (string & {});
    /** When pending_approval: the review the long-term record waits in. */
    review_id?: MemoryId;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/** What became of an action; later versions may add statuses. */
export type ActionStatus = "planned" | "promoted" | "demoted" | "archived" | "pending_approval" | "changed";
/**
 * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
 * exactly one agent.
 *
 * Constraints: at least 1 character, at most 256 characters.
 */
export type AgentId = string;
/** One agent: its records (every kept state), by type and by state; its erased ids; its users. */
export interface AgentScope {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /**
     * Records in every kept state.
     *
     * Constraints: an integer, ≥ 0.
     */
    records: number;
    /** Counts by name. */
    by_type: Counts;
    /** Counts by name. */
    by_state: Counts;
    /**
     * Erased ids (tombstones).
     *
     * Constraints: an integer, ≥ 0.
     */
    erased?: number;
    /**
     * Its users, the most populous first (then by user_id), at most max_users; a record without
     * user_id counts under no user.
     */
    users: UserScope[];
    /** More users than max_users. */
    users_truncated?: boolean;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * The last line of an archive (docs/spec/v0.3.md#archive.digest): the counts, and the SHA-256 of
 * every byte before this line. Extensible.
 *
 * Message `archive-end` (emitted by a store; extensible: keep and ignore fields you do not know).
 */
export interface ArchiveEnd {
    /** end: the closing line. */
    kind: "end";
    /**
     * Record lines.
     *
     * Constraints: an integer, ≥ 0.
     */
    records: number;
    /**
     * Tombstone lines.
     *
     * Constraints: an integer, ≥ 0.
     */
    tombstones: number;
    /** SHA-256 over the archive's bytes from its first byte up to this line's first byte. */
    sha256: Sha256;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * The first line of a memorywire archive (docs/spec/v0.3.md#archive.manifest). Extensible.
 *
 * Message `archive-manifest` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface ArchiveManifest {
    /** manifest: the first line. */
    kind: "manifest";
    /** Always memorywire-archive. */
    format: "memorywire-archive";
    /**
     * The archive format's version (this spec: 1).
     *
     * Constraints: an integer, ≥ 1.
     */
    format_version: number;
    /**
     * The memorywire version the record lines follow.
     *
     * Constraints: at least 1 character.
     */
    spec_version: string;
    /**
     * A point in time as integer milliseconds since the Unix epoch (UTC). Bounded by 2^53-1 so that
     * every language, JavaScript included, represents it exactly.
     */
    created_at: EpochMillis;
    /** The store exported. */
    source: ArchiveSource;
    /** What made the vectors, when records carry them. */
    embedder?: EmbedderRef;
    /** What was exported: the agents, and the filters of the export. */
    scope: ArchiveScope;
    /** The source's audit chain head when the export began. */
    audit_head?: Sha256;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Where the page comes from, for the target's audit log (docs/spec/v0.3.md#import.custody). Closed.
 */
export interface ArchiveOrigin {
    /** The archive's digest (its end line's). */
    sha256?: Sha256;
    /** The source's audit chain head, from the manifest. */
    audit_head?: Sha256;
    /**
     * The source store's name and kind.
     *
     * Constraints: at least 1 character, at most 256 characters.
     */
    source?: string;
}
/**
 * One record as an archive line and an export page carry it (docs/spec/v0.3.md#archive.record): the
 * record as get reports it, its kept state, what recall tracking learned, and optionally its vector
 * and its history. Extensible: a field a target cannot keep is reported, never silently changed
 * (docs/spec/v0.3.md#import.fidelity).
 *
 * Message `archive-record` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface ArchiveRecord {
    /** record: what an archive line says (docs/spec/v0.3.md#archive.format). */
    kind: "record";
    /**
     * The record: id, agent_id, type, content and created_at always; updated_at and version as the
     * source kept them; its state is the line's state, a state field here is ignored.
     */
    record: MemoryRecord;
    /**
     * Where a record stands as an archive keeps it (docs/spec/v0.3.md#archive.state): active, pending
     * (staged for review), archived (hidden, restorable), forgotten (soft-forgotten: hidden,
     * restorable by an operator), merged (folded into merged_into). Expired is not a state of its
     * own: an active record past its expires_at.
     */
    state: KeptState;
    /** A merged record: the id of the record it was merged into. */
    merged_into?: MemoryId;
    /** A pending record: the review it waits for. */
    review?: StagedReview;
    /** When recall last returned it (recall tracking). */
    last_recalled_at?: EpochMillis;
    /**
     * How many times recall tracking recorded a recall of it: at most once a minute, so a burst of
     * recalls counts once (docs/spec/v0.4.md#recall.count).
     *
     * Constraints: an integer, ≥ 0.
     */
    recall_count?: number;
    /**
     * The factor expire's demote action left on its relevance (1: none).
     *
     * Constraints: > 0, ≤ 1.
     */
    demote?: number;
    /**
     * Its embedding, made by the archive's embedder (export's include_vectors), as JSON numbers
     * (vector_encoding float). A line carries vector or vector_base64, not both.
     *
     * Constraints: at least 1 item, at most 65536 items.
     */
    vector?: number[];
    /**
     * Its embedding as the base64 (RFC 4648, padded) of its float32 values, little-endian, 4 bytes a
     * number (export's vector_encoding base64): exact, a third of the text of vector, and read
     * without parsing numbers. A line carries vector or vector_base64, not both
     * (docs/spec/v0.3.md#archive.vector).
     *
     * Constraints: at least 8 characters, at most 349528 characters, matches
     * `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`.
     */
    vector_base64?: string;
    /**
     * The record's versions as history returns them, oldest first, the newest being the record as the
     * line holds it (export's include_history: docs/spec/v0.4.md#archive.history). Revisions run on
     * from history_dropped + 1 without a gap.
     *
     * Constraints: at least 1 item, at most 10000 items.
     */
    history?: HistoryEntry[];
    /**
     * How many of the record's oldest versions the source no longer kept (its bound,
     * docs/spec/v0.4.md#history.bound, or the 10,000 versions a line carries at most); 0 when it kept
     * them all.
     *
     * Constraints: an integer, ≥ 0, ≤ 9007199254740991.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `0`
     */
    history_dropped?: number;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/** What was exported: the agents, and the filters of the export. */
export interface ArchiveScope {
    /**
     * The agents exported, in the order their lines follow.
     *
     * Constraints: no two items equal.
     */
    agent_ids: AgentId[];
    /**
     * Optional end-user scope inside an agent's memory. When a request carries it, the operation only
     * sees records stored under the same user_id.
     */
    user_id?: UserId;
    /** The export's types, when it named them. */
    types?: OpenMemoryType[];
    /** The export's states, when it named them. */
    states?: string[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/** The store exported. */
export interface ArchiveSource {
    /**
     * The store's configured name.
     *
     * Constraints: at least 1 character.
     */
    store: string;
    /**
     * Its adapter (sqlite-vec, pgvector, mem0, ...).
     *
     * Constraints: at least 1 character.
     */
    kind: string;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * An erased id (docs/spec/v0.3.md#archive.tombstone): no content travels, only that the id was
 * taken, so a target never lets it be reused. Extensible.
 *
 * Message `archive-tombstone` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface ArchiveTombstone {
    /** tombstone: what an archive line says. */
    kind: "tombstone";
    /**
     * Stable identifier of one memory record. Minted once (by the client or the first component that
     * stores the record) and kept by every store that holds a copy.
     */
    id: MemoryId;
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Intensity of an emotional memory, from 0 (calm) to 1 (intense).
 *
 * Constraints: ≥ 0, ≤ 1.
 */
export type Arousal = number;
/**
 * What a store declares it supports. A router routes an operation only to stores whose capabilities
 * cover it, and conformance checks that need an undeclared capability are skipped. Extensible.
 *
 * Message `capabilities` (emitted by a store; extensible: keep and ignore fields you do not know).
 */
export interface Capabilities {
    /**
     * Name of the store (adapter name or configured name).
     *
     * Constraints: at least 1 character.
     */
    store: string;
    /**
     * memorywire version the store speaks, e.g. "v0.4".
     *
     * Constraints: at least 1 character.
     */
    spec_version: string;
    /**
     * Declared capabilities.
     *
     * Constraints: no two items equal.
     */
    capabilities: OpenCapability[];
    /**
     * How the store keeps each field a remember carries, for fields it does not keep natively.
     * native: a field of the backend's own. encoded: kept exactly in the backend's metadata sink (or
     * an id map beside it) and read back as written. lossy: kept, but it may come back changed (the
     * store's documentation says how). unsupported: a request carrying the field is refused with
     * unsupported, never stored without it. A field the map does not name is native. Certification
     * writes each field and reads it back: a native or encoded field must come back exactly.
     */
    fidelity?: FieldFidelity;
    /**
     * The operator's staging policy: a write that any rule matches is staged for review as if it said
     * approval_required (docs/spec/v0.2.md#review.policy). Closed.
     */
    staging_policy?: StagingPolicy;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * semantic / episodic / procedural / emotional: stores and recalls that memory type. vector:
 * semantic (embedding) recall. fts: keyword recall. graph: exposes neighbours for the router's hop
 * boost. user_scope: honours user_id. metadata_filter: honours filter. freshness: honours
 * fresher_than_days. expiry: honours expires_at. forget / merge / expire: implements the operation.
 * hard_delete: can erase for good. governance: stages approval_required writes. recall_tracking:
 * records when each memory was last recalled (needed by no_recall_in_days). demote: implements
 * expire's demote action. archive: implements expire's archive action. relevance: reports relevance
 * and honours min_relevance. client_ids: keeps a client- or router-chosen id. v0.1: get / list /
 * restore / update / remember_batch: implements the operation. query_vector: accepts recall's
 * query_vector from a caller using the same embedder. seals: keeps a remember's seal and returns it
 * with the record. v0.2: reviews / decide: lists pending reviews with their diffs / decides one
 * (docs/spec/v0.2.md#review.list). staging_policy: stages writes a configured policy matches, which
 * capabilities.staging_policy reports. v0.3: export_records / import_records: pages a scope out as
 * archive lines / writes them back keeping ids, timestamps, versions and states
 * (docs/spec/v0.3.md#export.page); scopes: lists the agents and their users with counts
 * (docs/spec/v0.3.md#scopes.list). v0.4: history: keeps every version of a record and serves
 * history (docs/spec/v0.4.md#history.versions); consolidate: plans and applies the merges of
 * records that say the same thing (docs/spec/v0.4.md#consolidate.duplicates), and honours merge's
 * expected_versions. run_start / run_fire / run_get: starts a run of a stored procedure / fires an
 * event on it / reads it (docs/spec/v0.4.md#run.start). promote: plans and applies the promotion of
 * short-term memories into long-term ones, with demotions and archivals
 * (docs/spec/v0.4.md#promote.rules), counts recalls (recall_count) and honours expire's records.
 * dedupe: honours remember's dedupe (docs/spec/v0.4.md#remember.dedupe).
 */
export type Capability = "semantic" | "episodic" | "procedural" | "emotional" | "vector" | "fts" | "graph" | "user_scope" | "metadata_filter" | "freshness" | "expiry" | "forget" | "merge" | "expire" | "hard_delete" | "governance" | "recall_tracking" | "demote" | "archive" | "relevance" | "client_ids" | "get" | "list" | "restore" | "update" | "remember_batch" | "query_vector" | "seals" | "reviews" | "decide" | "staging_policy" | "export_records" | "import_records" | "scopes" | "history" | "consolidate" | "run_start" | "run_fire" | "run_get" | "promote" | "dedupe";
/**
 * How much the writer trusts the memory, from 0 (not at all) to 1 (certain).
 *
 * Constraints: ≥ 0, ≤ 1.
 */
export type Confidence = number;
/**
 * Find the records of one agent that say the same thing, within one user and one memory type, and
 * propose each group as a merge with its evidence; with dry_run false, apply the merges
 * (docs/spec/v0.4.md#consolidate.duplicates). Closed.
 *
 * Message `consolidate.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface ConsolidateRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /**
     * Only records stored under this user_id; by default every user's (each user's records are
     * grouped apart, and so are those with no user).
     */
    user_id?: UserId;
    /**
     * Only these memory types; by default all (each type is grouped apart).
     *
     * Constraints: at least 1 item, at most 4 items, no two items equal.
     */
    types?: MemoryType[];
    /**
     * true: answer the plan and change nothing. false: apply it, each group as one merge
     * (docs/spec/v0.4.md#consolidate.apply).
     *
     * @defaultValue `true`
     */
    dry_run?: boolean;
    /**
     * The merges to apply, as a dry run answered them (canonical, duplicates, expected_versions):
     * exactly these, instead of a new plan, each left alone and reported changed when one of its
     * records moved on since (docs/spec/v0.4.md#consolidate.apply). With dry_run true: which of them
     * would still apply.
     *
     * Constraints: at least 1 item, at most 1000 items.
     */
    plan?: PlannedMerge[];
    /**
     * The strategy each merge applies (merge's strategy). keep_canonical keeps the canonical record
     * as it is: the plan picks as canonical the record that carries the most, so nothing the group
     * says is lost.
     *
     * @defaultValue `"keep_canonical"`
     */
    strategy?: MergeStrategy;
    /**
     * Stage each merge for review instead of applying it (merge's approval_required): nothing changes
     * until a reviewer approves it.
     *
     * @defaultValue `false`
     */
    approval_required?: boolean;
    /**
     * The most groups one call plans or applies, largest first. A rerun continues: merged records
     * leave the next plan.
     *
     * Constraints: an integer, ≥ 1, ≤ 1000.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `100`
     */
    limit?: number;
}
/**
 * A consolidation's plan, or what applying it did (docs/spec/v0.4.md#consolidate.duplicates).
 * Extensible: clients ignore fields they do not know.
 *
 * Message `consolidate.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface ConsolidateResponse {
    /** True when nothing was changed. */
    dry_run: boolean;
    /**
     * How many active records were read to make the plan (0 when a plan was sent).
     *
     * Constraints: an integer, ≥ 0.
     */
    scanned: number;
    /** Each group of records that say the same thing, largest first. */
    groups: DuplicateGroup[];
    /**
     * True when more groups were found than limit allowed: call again (after applying) for the rest.
     */
    more?: boolean;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/** Counts by name. */
export interface Counts {
    /** Every key is application-defined; each value must satisfy the schema. */
    [key: string]: number;
}
/**
 * Decide one pending review: approve, reject, or approve as a merge into an existing record.
 * Closed.
 *
 * Message `decide.request` (sent to a store; closed: a field not declared here is rejected).
 *
 * Rule: merge_into approves.
 */
export interface DecideRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** The review decided. */
    review_id: MemoryId;
    /** true applies the staged write; false discards it. */
    approved: boolean;
    /** Approve a staged remember as a merge into this existing record (see review-decision). */
    merge_into?: MemoryId;
    /**
     * The version of the staged write the reviewer saw: a staged remember's record version (the
     * diff's added record); a staged forget or merge never changes while pending, so its version is
     * 1. A decision on a staged write at another version fails with conflict and changes nothing.
     * Without it, a decision applies a staged write only at version 1: once a staged record was
     * updated, a decision must name the version it was reviewed at.
     */
    expected_version?: RecordVersion;
    /**
     * Identity of the reviewer, recorded with the decision and in the audit log.
     *
     * Constraints: at least 1 character, at most 256 characters.
     */
    reviewer: string;
    /**
     * Why, in the reviewer's words; recorded with the decision.
     *
     * Constraints: at most 4096 characters.
     */
    reason?: string;
    /**
     * On rejecting a remember: erase the staged record (true) or keep it hidden as forgotten (false).
     *
     * @defaultValue `true`
     */
    hard?: boolean;
}
/**
 * What a decision did. Extensible.
 *
 * Message `decide.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface DecideResponse {
    /**
     * Stable identifier of one memory record. Minted once (by the client or the first component that
     * stores the record) and kept by every store that holds a copy.
     */
    review_id: MemoryId;
    /**
     * What a decision did: approved (the staged write applied as sent), merged (a staged remember
     * merged into merge_into), rejected (the staged write discarded).
     */
    outcome: ReviewOutcome;
    /** The decision as recorded (reviewed_at set by the store). */
    decision: ReviewDecision;
    /**
     * The records the decision changed: the remembered or merged-into record, the records forgotten,
     * the canonical and its duplicates; for a rejected remember, the staged record.
     */
    changed_ids: MemoryId[];
    /**
     * Time the decision took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/** What a remember that duplicates an existing record does (docs/spec/v0.4.md#remember.dedupe). */
export type DedupeMode = "existing" | "review";
/** The change a write would make to an agent's memory, computed against the current state. */
export interface Diff {
    /** Records the write would create. */
    added: MemoryRecord[];
    /** Records the write would forget. */
    removed: MemoryRecord[];
    /** Records the write would change. */
    modified: ModifiedRecord[];
    /**
     * For a remember: the agent's existing memories closest to the staged one, in the same user
     * scope, closest first, so a reviewer sees a near-duplicate or a contradiction.
     */
    related?: RelatedRecord[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * What the duplicate judge weighed for one duplicate (docs/spec/v0.4.md#consolidate.duplicates).
 * Extensible.
 */
export interface DuplicateEvidence {
    /**
     * Stable identifier of one memory record. Minted once (by the client or the first component that
     * stores the record) and kept by every store that holds a copy.
     */
    id: MemoryId;
    /** The duplicate's content. */
    content?: string;
    /**
     * exact: the same text once case, punctuation and spacing are set aside. same-words: the same
     * words in another order or form. extends: the canonical record keeps every word of it and adds
     * detail. paraphrase: worded differently, very close in meaning.
     *
     * Constraints: at least 1 character, at most 64 characters.
     */
    reason: string;
    /**
     * The cosine similarity of the two records' embeddings.
     *
     * Constraints: ≥ -1, ≤ 1.
     */
    similarity: number;
    /** Words the canonical record has and the duplicate lacks. */
    only_in_canonical?: string[];
    /** Words the duplicate has and the canonical record lacks. */
    only_in_duplicate?: string[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * One merge: the canonical record, its duplicates, the versions read, the evidence for each
 * duplicate and what became of it. Extensible.
 */
export interface DuplicateGroup {
    /**
     * The record that survives: the one that carries the most words of the group, then the most
     * confident, then the oldest.
     */
    canonical: MemoryId;
    /** The canonical record's content: what the group keeps (absent when a sent plan was applied). */
    content?: string;
    /**
     * The records merged into it.
     *
     * Constraints: at least 1 item.
     */
    duplicates: MemoryId[];
    /**
     * The version each named record must be at for the write to go ahead, by id: a record at another
     * version, or no longer visible, refuses the whole write with conflict and changes nothing
     * (docs/spec/v0.4.md#merge.versions). What a plan read, so a write made from it never clobbers a
     * change made since.
     */
    expected_versions: ExpectedVersions;
    /** The user the records are stored under; absent for records with none. */
    user_id?: UserId;
    /**
     * A memory type as it appears in a response: one of the v0 types, or a type added by a newer
     * minor version, which a v0 client preserves rather than rejects.
     */
    type?: OpenMemoryType;
    /**
     * Why each duplicate says what the canonical record says (empty when a sent plan was applied).
     */
    evidence?: DuplicateEvidence[];
    /**
     * planned: proposed (a dry run). merged: applied. pending_approval: staged for a reviewer
     * (review_id). changed: left alone, because one of its records moved to another version or out of
     * reach since the plan read it.
     */
    status: GroupStatus | (string & {});
    /** When pending_approval: the review the merge waits in. */
    review_id?: MemoryId;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * The embedder that made a set of vectors: vectors are reused only by a store embedding with the
 * same name and dimension (docs/spec/v0.3.md#import.vectors). Closed.
 */
export interface EmbedderRef {
    /**
     * The embedder's name, as the store reports it (e.g. minilm).
     *
     * Constraints: at least 1 character, at most 128 characters.
     */
    name: string;
    /**
     * The vectors' length.
     *
     * Constraints: an integer, ≥ 1, ≤ 65536.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     */
    dimension: number;
}
/**
 * A point in time as integer milliseconds since the Unix epoch (UTC). Bounded by 2^53-1 so that
 * every language, JavaScript included, represents it exactly.
 *
 * Constraints: an integer, ≥ 0, ≤ 9007199254740991.
 *
 * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1 (`Number.MAX_SAFE_INTEGER`),
 * so no `bigint` is needed.
 */
export type EpochMillis = number;
/**
 * invalid_request: the request breaks the spec (details say where). not_found: a named record does
 * not exist for this agent. conflict: the request contradicts stored state (an id reused with
 * different content, a merge of a record into itself). unsupported: no store can serve the
 * operation. store_error: every capable store failed. timeout: no store answered in time.
 * unavailable: the store cannot be reached. internal: a bug; please report it. unauthorized: a
 * transport that authenticates its callers got no credentials it knows. forbidden: the credentials
 * may not act as the request's agent, or the operator's staging policy stages what the write would
 * leave and the write cannot wait for review (an update).
 */
export type ErrorCode = "invalid_request" | "not_found" | "conflict" | "unsupported" | "store_error" | "timeout" | "unavailable" | "internal" | "unauthorized" | "forbidden";
/** One broken rule. */
export interface ErrorDetail {
    /** JSON Pointer (RFC 6901) to the offending field; the empty string means the whole request. */
    path: string;
    /**
     * The rule broken: the JSON Schema keyword (required, additionalProperties, minimum, type, enum,
     * ...) or a semantic rule named in the spec prose.
     *
     * Constraints: at least 1 character.
     */
    rule: string;
    /**
     * What is wrong, in words.
     *
     * Constraints: at least 1 character.
     */
    message: string;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * The one shape every failed operation returns. details lists every rule the request broke, each
 * with the JSON Pointer of the offending field, so a client can fix all of them at once.
 * Extensible: clients ignore fields they do not know.
 *
 * Message `error` (emitted by a store; extensible: keep and ignore fields you do not know).
 */
export interface ErrorEnvelope {
    /** Machine-readable class of the failure. */
    code: OpenErrorCode;
    /**
     * Human-readable summary that says what to do next.
     *
     * Constraints: at least 1 character.
     */
    message: string;
    /** One entry per broken rule; empty when the failure is not about the request's shape. */
    details: ErrorDetail[];
    /** Operation that failed (remember, recall, ...), when known. */
    operation?: string;
    /** Per-store outcomes, when every capable store failed. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * The version each named record must be at for the write to go ahead, by id: a record at another
 * version, or no longer visible, refuses the whole write with conflict and changes nothing
 * (docs/spec/v0.4.md#merge.versions). What a plan read, so a write made from it never clobbers a
 * change made since.
 *
 * Constraints: at least 1 member, at most 1001 members, keys of at least 1 character and at most
 * 128 characters and matching `^[A-Za-z0-9][A-Za-z0-9._:-]*$`.
 */
export interface ExpectedVersions {
    /** Every key is application-defined; each value must satisfy the schema. */
    [key: string]: RecordVersion;
}
/** What happens to the memories a policy matches. */
export type ExpireAction = "forget" | "archive" | "demote";
/**
 * Which memories the policy matches. Predicates are ANDed; at least one is required, since an empty
 * policy would match everything.
 *
 * Constraints: at least 1 member.
 */
export interface ExpirePolicy {
    /**
     * Created more than this many days ago.
     *
     * Constraints: ≥ 0.
     */
    older_than_days?: number;
    /** Of this memory type. */
    type?: MemoryType;
    /**
     * With confidence strictly below this value.
     *
     * Constraints: ≥ 0, ≤ 1.
     */
    confidence_below?: number;
    /**
     * Not returned by any recall for this many days (never-recalled records count from their
     * creation).
     *
     * Constraints: ≥ 0.
     */
    no_recall_in_days?: number;
    /**
     * Only these records, each at the version named (a record's version, by id): a record at another
     * version, changed since a plan read it, is not matched (docs/spec/v0.4.md#expire.records).
     */
    records?: ExpectedVersions;
}
/**
 * Apply a retention policy to an agent's memories. Closed: unknown fields are rejected, in the
 * policy too, so a misspelt predicate cannot widen what is matched.
 *
 * Message `expire.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface ExpireRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** Only apply the policy to memories stored under this user. */
    user_id?: UserId;
    /**
     * Which memories the policy matches. Predicates are ANDed; at least one is required, since an
     * empty policy would match everything.
     */
    policy: ExpirePolicy;
    /**
     * forget: soft-delete the matches. archive: hide them, restorable. demote: keep them but multiply
     * their recall score by demote_factor (setting, never compounding).
     *
     * @defaultValue `"forget"`
     */
    action?: ExpireAction;
    /**
     * Score multiplier applied by the demote action.
     *
     * Constraints: > 0, ≤ 1.
     *
     * @defaultValue `0.5`
     */
    demote_factor?: number;
    /**
     * Match and report (matched_count, matched_ids) without changing anything: the preview of what
     * the policy would do (docs/spec/v0.1.md#expire.dry-run).
     *
     * @defaultValue `false`
     */
    dry_run?: boolean;
}
/**
 * Result of an expire. Extensible: clients ignore fields they do not know.
 *
 * Message `expire.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface ExpireResponse {
    /**
     * How many records the policy matched.
     *
     * Constraints: an integer, ≥ 0.
     */
    matched_count: number;
    /** Action applied to the matches. */
    action_taken: OpenExpireAction;
    /** Ids of the matched records. */
    matched_ids?: MemoryId[];
    /** What each store did. */
    stores: StoreResult[];
    /** True when nothing was changed: the request asked for a preview. */
    dry_run?: boolean;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Page out everything an agent's scope holds, as archive lines, in id order
 * (docs/spec/v0.3.md#export.page). Closed.
 *
 * Message `export_records.request` (sent to a store; closed: a field not declared here is
 * rejected).
 */
export interface ExportRecordsRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** Only records stored under this user_id (tombstones are left out: they keep no user). */
    user_id?: UserId;
    /**
     * Only these memory types (tombstones are left out: they keep no type).
     *
     * Constraints: at least 1 item, at most 4 items, no two items equal.
     */
    types?: MemoryType[];
    /** Only records in these kept states; by default every state the store keeps. */
    states?: KeptStates;
    /**
     * Carry each record's vector, and name the embedder that made them.
     *
     * @defaultValue `false`
     */
    include_vectors?: boolean;
    /**
     * How the vectors travel (include_vectors): float, each a JSON array of numbers (vector); base64,
     * each the base64 of its float32 values, little-endian (vector_base64: exact, a third of the
     * text, as embedding APIs' encoding_format base64).
     *
     * @defaultValue `"float"`
     */
    vector_encoding?: "float" | "base64";
    /**
     * Carry each record's versions (history), so an import keeps what it said before and who changed
     * it (docs/spec/v0.4.md#archive.history); needs capability history.
     *
     * @defaultValue `false`
     */
    include_history?: boolean;
    /**
     * Page size: records and tombstones together.
     *
     * Constraints: an integer, ≥ 1, ≤ 1000.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `500`
     */
    limit?: number;
    /**
     * next_cursor of the previous page, with every other field of that request unchanged. Opaque; a
     * cursor made for another request is refused.
     *
     * Constraints: at least 1 character, at most 1024 characters, matches `^[A-Za-z0-9_-]+$`.
     */
    cursor?: string;
}
/**
 * One page of an export: records and tombstones, together in id order, at most limit. Extensible.
 *
 * Message `export_records.response` (emitted by a store; extensible: keep and ignore fields you do
 * not know).
 */
export interface ExportRecordsResponse {
    /** The page's records, in id order. */
    records: ArchiveRecord[];
    /** The page's erased ids, in id order. */
    tombstones: ArchiveTombstone[];
    /**
     * Where the next page starts; absent on the last page.
     *
     * Constraints: at least 1 character.
     */
    next_cursor?: string;
    /** What made the vectors (include_vectors). */
    embedder?: EmbedderRef;
    /**
     * The digest at the head of the store's audit chain when the page was read
     * (docs/governance.md#audit), for the archive's chain of custody.
     */
    audit_head?: Sha256;
    /**
     * Time the operation took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * The truth of the conditions a transition names, by name, as the host's registry evaluated them:
 * the runner reads conditions and unless from these and never resolves a name to code
 * (docs/spec/v0.4.md#run.conditions).
 *
 * Constraints: at most 256 members, keys of at least 1 character and at most 128 characters and
 * matching `^[A-Za-z_][A-Za-z0-9_]*$`.
 */
export interface Facts {
    /** Every key is application-defined; each value must satisfy the schema. */
    [key: string]: boolean;
}
/** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
export type Fidelity = "native" | "encoded" | "lossy" | "unsupported";
/**
 * How a store keeps each field of a record, by field name (a field not named is native). Open: a
 * later version may name more fields.
 */
export interface FieldFidelity {
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    agent_id?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    user_id?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    id?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    type?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    content?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    metadata?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    confidence?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    source?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    expires_at?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    event_time?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    location?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    participants?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    sentiment?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    valence?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    arousal?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    emotion?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    target?: Fidelity;
    /** native / encoded / lossy / unsupported: see Capabilities.fidelity. */
    seal?: Fidelity;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Metadata filter: every key names a top-level metadata key and every condition must hold
 * (conditions are ANDed). A scalar means equality; an object holds operators. At most 64 keys:
 * every store must execute what the schema accepts, and each key is a condition evaluated on every
 * record in scope.
 *
 * Constraints: at most 64 members, keys of at least 1 character and at most 256 characters.
 */
export interface Filter {
    /** Every key is application-defined; each value must satisfy the schema. */
    [key: string]: FilterCondition;
}
/** What one metadata key must satisfy: a scalar (equality) or an object of operators. */
export type FilterCondition = FilterScalar | FilterOperators;
/**
 * Comparison operators for one metadata key. Several operators in one object are ANDed.
 *
 * Constraints: at least 1 member.
 */
export interface FilterOperators {
    /** The value equals this scalar. */
    $eq?: FilterScalar;
    /** The value is absent or differs from this scalar. */
    $ne?: FilterScalar;
    /**
     * The value equals one of these scalars.
     *
     * Constraints: at least 1 item, at most 1000 items.
     */
    $in?: FilterScalar[];
    /**
     * The value is absent or equals none of these scalars.
     *
     * Constraints: at least 1 item, at most 1000 items.
     */
    $nin?: FilterScalar[];
    /**
     * The value is a number (or string) greater than this one.
     *
     * Constraints: ≥ -9007199254740991, ≤ 9007199254740991.
     */
    $gt?: number | string;
    /**
     * The value is a number (or string) greater than or equal to this one.
     *
     * Constraints: ≥ -9007199254740991, ≤ 9007199254740991.
     */
    $gte?: number | string;
    /**
     * The value is a number (or string) less than this one.
     *
     * Constraints: ≥ -9007199254740991, ≤ 9007199254740991.
     */
    $lt?: number | string;
    /**
     * The value is a number (or string) less than or equal to this one.
     *
     * Constraints: ≥ -9007199254740991, ≤ 9007199254740991.
     */
    $lte?: number | string;
    /** true: the key is present; false: the key is absent. */
    $exists?: boolean;
}
/**
 * A JSON scalar a metadata value is compared with. Numbers lie within ±(2^53−1), what every binding
 * and every store represents and compares the same way.
 *
 * Constraints: ≥ -9007199254740991, ≤ 9007199254740991.
 */
export type FilterScalar = string | number | boolean | null;
/**
 * The transition an event fired: from which state to which, and the intents the host is asked to
 * act on. Extensible.
 */
export interface FiredTransition {
    /** The event that fired it (the transition's trigger). */
    event: Identifier;
    /** The state the run left. */
    source: StateName;
    /** The state the run entered. */
    dest: StateName;
    /** The transition's intents, in order; empty when it has none. */
    intents: Intent[];
    /** When it fired. */
    at?: EpochMillis;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Forget memories by id, by metadata filter, or all of a scope (v0.4). Closed: unknown fields are
 * rejected. A forget must name its scope: ids, a non-empty filter, both (then a record must be
 * listed in ids and match the filter), or all.
 *
 * Message `forget.request` (sent to a store; closed: a field not declared here is rejected).
 *
 * Rule: A forget must name its scope: ids, a non-empty filter, both, or all (v0.4); a scope-less
 * forget would delete every record.
 *
 * Rule: review_id stages the write: approval_required may be left out, and false is refused.
 *
 * Rule: all names the whole scope: ids and filter are not sent with it.
 */
export interface ForgetRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** Only forget memories stored under this user. */
    user_id?: UserId;
    /**
     * Ids of the records to forget.
     *
     * Constraints: at least 1 item, at most 10000 items.
     */
    ids?: MemoryId[];
    /** Forget records whose metadata satisfies this filter. */
    filter?: ScopeFilter;
    /**
     * Forget every record of the agent, or with user_id every record of that user: the whole scope,
     * named on purpose (docs/spec/v0.4.md#forget.all). Sent only as true, and never with ids or
     * filter.
     */
    all?: true;
    /**
     * Erase content and embeddings for good (for erasure requests). Default: soft delete, which hides
     * the record but keeps it for audit.
     *
     * @defaultValue `false`
     */
    hard_delete?: boolean;
    /**
     * Why the records are forgotten; kept in the audit log.
     *
     * Constraints: at most 4096 characters.
     */
    reason?: string;
    /**
     * Stage the write for review: nothing changes until a reviewer approves it with a review
     * (docs/spec/v0.2.md#review.staging).
     *
     * @defaultValue `false`
     */
    approval_required?: boolean;
    /**
     * The id the staged write is reviewed under (a router passes its own, so every store stages under
     * one id); sending it stages the write. Minted by the store when absent.
     */
    review_id?: MemoryId;
    /**
     * Report what the forget would reach (forgotten_ids) and whether it would wait for a reviewer,
     * changing nothing: nothing is hidden, erased, staged or audited
     * (docs/spec/v0.4.md#forget.dry-run).
     *
     * @defaultValue `false`
     */
    dry_run?: boolean;
}
/**
 * Result of a forget. Extensible: clients ignore fields they do not know.
 *
 * Message `forget.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface ForgetResponse {
    /** Ids of the records forgotten (or, when pending_approval, that would be). */
    forgotten_ids: MemoryId[];
    /** What each store did. */
    stores: StoreResult[];
    /** Whether the records were erased rather than hidden. */
    hard_delete: boolean;
    /** True when the forget waits for a reviewer. */
    pending_approval?: boolean;
    /** When pending_approval: the review the forget waits in. */
    review_id?: MemoryId;
    /**
     * True when nothing was changed (the request asked for a preview): forgotten_ids are the records
     * the forget would reach, and pending_approval says whether it would wait for a reviewer.
     */
    dry_run?: boolean;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * How a router fuses ranked lists from several stores: rrf (Reciprocal Rank Fusion, k=60,
 * score-independent), max (highest raw score) or weighted (sum of raw scores times per-store
 * weights).
 */
export type FusionMethod = "rrf" | "max" | "weighted";
/**
 * Read records by id, in the caller's agent (and user) scope. Closed.
 *
 * Message `get.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface GetRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** Only records stored under this user_id. */
    user_id?: UserId;
    /** The records to read. */
    ids: IdList;
    /**
     * Which states to show; a record in another state is missing.
     *
     * @defaultValue `["active"]`
     */
    states?: RecordStates;
}
/**
 * The records found, in request order, and the ids that were not. Extensible.
 *
 * Message `get.response` (emitted by a store; extensible: keep and ignore fields you do not know).
 */
export interface GetResponse {
    /** Records found, in the order of the request's ids. */
    records: MemoryRecord[];
    /**
     * Requested ids with no record the request may see: never stored, another agent's or user's, or
     * in a state not asked for. Which of these is not said.
     */
    missing: MemoryId[];
    /**
     * Time the get took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/** What became of a group; later versions may add statuses. */
export type GroupStatus = "planned" | "merged" | "pending_approval" | "changed";
/**
 * Whether a store can serve requests now, and what it runs on. Extensible.
 *
 * Message `health` (emitted by a store; extensible: keep and ignore fields you do not know).
 */
export interface Health {
    /**
     * Name of the store.
     *
     * Constraints: at least 1 character.
     */
    store: string;
    /**
     * ok: serving. degraded: serving with reduced function (details say which). down: not serving.
     */
    status: OpenHealthStatus;
    /**
     * Time the health probe took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms?: number;
    /** Backend facts worth showing an operator: engine versions, embedder, record counts. */
    details?: {
        [key: string]: unknown;
    };
    /** A router's children, one health report each. */
    stores?: StoreHealth[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/** Health of a store. */
export type HealthStatus = "ok" | "degraded" | "down";
/**
 * One version of a record (docs/spec/v0.4.md#history.versions): the record as it stood after a
 * change, with when, how and by whom it changed. Extensible: clients ignore fields they do not
 * know.
 */
export interface HistoryEntry {
    /**
     * The change's place in the record's history: 1 for the write that stored it, one more for each
     * change after (an update, a merge, a decision, a state change), counting the ones a store no
     * longer keeps.
     *
     * Constraints: an integer, ≥ 1, ≤ 9007199254740991.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     */
    revision: number;
    /** When the change was made. */
    at: EpochMillis;
    /**
     * The operation that made the change, as the store's audit log names it (remember, update, merge,
     * forget, expire, restore, approve, import_records, ...), or unrecorded
     * (docs/spec/v0.4.md#history.versions).
     *
     * Constraints: at least 1 character, at most 64 characters, matches `^[a-z][a-z0-9_]*$`.
     */
    operation: string;
    /**
     * The credential a transport let the change through by (a token's name, never the token), when
     * one did.
     *
     * Constraints: at least 1 character, at most 256 characters.
     */
    caller?: string;
    /**
     * Why, in the words of the write that made the change (an update's or a forget's reason), when it
     * gave one.
     *
     * Constraints: at most 4096 characters.
     */
    reason?: string;
    /**
     * The record after the change, its state included: a forgotten record reports forgotten, a merged
     * one merged (docs/spec/v0.4.md#history.states).
     */
    record: MemoryRecord;
    /**
     * A merge's surviving record: the ids folded into it by this change.
     *
     * Constraints: at least 1 item, no two items equal.
     */
    merged_from?: MemoryId[];
    /** A record a merge folded away: the record it was folded into. */
    merged_into?: MemoryId;
    /**
     * The store's audit log entry that made the change (mnemowire audit shows it), when the store
     * keeps one.
     *
     * Constraints: an integer, ≥ 1, ≤ 9007199254740991.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     */
    audit_seq?: number;
    /**
     * A version an import brought with the record from the archive's source store
     * (docs/spec/v0.4.md#import.history): made there, so no audit entry of this store made it
     * (audit_seq is absent; the source's audit log holds its entry).
     */
    imported?: true;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Read every version of one record, oldest first, in the caller's agent (and user) scope
 * (docs/spec/v0.4.md#history.versions). Closed.
 *
 * Message `history.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface HistoryRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** Only a record stored under this user_id. */
    user_id?: UserId;
    /** The record whose history to read. */
    id: MemoryId;
    /**
     * Page size, in versions.
     *
     * Constraints: an integer, ≥ 1, ≤ 1000.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `100`
     */
    limit?: number;
    /**
     * next_cursor of the previous page, with every other field of that request unchanged. Opaque; a
     * cursor made for another request is refused.
     *
     * Constraints: at least 1 character, at most 1024 characters, matches `^[A-Za-z0-9_-]+$`.
     */
    cursor?: string;
}
/**
 * One page of a record's versions, oldest first. Extensible.
 *
 * Message `history.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface HistoryResponse {
    /** The record. */
    id: MemoryId;
    /** The page, oldest first; at most limit. */
    entries: HistoryEntry[];
    /**
     * How many of the record's oldest versions the store no longer keeps, under its operator's bound
     * (docs/spec/v0.4.md#history.bound); 0 when it keeps them all.
     *
     * Constraints: an integer, ≥ 0, ≤ 9007199254740991.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     */
    dropped: number;
    /**
     * Where the next page starts; absent on the last page.
     *
     * Constraints: at least 1 character.
     */
    next_cursor?: string;
    /**
     * Time the read took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Record ids, each at most once.
 *
 * Constraints: at least 1 item, at most 1000 items, no two items equal.
 */
export type IdList = MemoryId[];
/**
 * A bare identifier: letters, digits and underscores, not starting with a digit. No dots, so it can
 * never name a module path.
 *
 * Constraints: at least 1 character, at most 128 characters, matches `^[A-Za-z_][A-Za-z0-9_]*$`.
 */
export type Identifier = string;
/** One bare identifier, or a list of them that must all hold. */
export type IdentifierList = Identifier | Identifier[];
/**
 * Write one page of archive lines into a store, keeping what they say
 * (docs/spec/v0.3.md#import.ids). Closed.
 *
 * Message `import_records.request` (sent to a store; closed: a field not declared here is
 * rejected).
 */
export interface ImportRecordsRequest {
    /**
     * Every agent the whole archive names: a store (and a server's token check) refuses the page
     * unless each record's and tombstone's agent_id is one of them, so an archive is refused whole on
     * its first page (docs/spec/v0.3.md#import.agents).
     *
     * Constraints: at least 1 item, at most 1000 items, no two items equal.
     */
    agents: AgentId[];
    /**
     * Records to write, in any order.
     *
     * Constraints: at most 1000 items.
     */
    records?: ArchiveRecord[];
    /**
     * Erased ids the target must never reuse.
     *
     * Constraints: at most 1000 items.
     */
    tombstones?: ArchiveTombstone[];
    /**
     * keep: the archive's ids. new: a fresh id for every record. remap: the archive's id unless the
     * target holds or erased it, then a fresh one (docs/spec/v0.3.md#import.ids).
     *
     * @defaultValue `"keep"`
     */
    id_policy?: "keep" | "new" | "remap";
    /**
     * With id_policy keep, a record whose id the target already holds: skip it, overwrite it, or fail
     * the page with nothing written (docs/spec/v0.3.md#import.conflict).
     *
     * @defaultValue `"fail"`
     */
    on_conflict?: "skip" | "overwrite" | "fail";
    /**
     * What made the records' vectors: a store reuses them only when it embeds with the same name and
     * dimension, and embeds the content otherwise.
     */
    embedder?: EmbedderRef;
    /**
     * Where the page comes from, for the target's audit log (docs/spec/v0.3.md#import.custody).
     * Closed.
     */
    archive?: ArchiveOrigin;
}
/**
 * What one import page did, record by record, and how the store keeps each field. Extensible.
 *
 * Message `import_records.response` (emitted by a store; extensible: keep and ignore fields you do
 * not know).
 */
export interface ImportRecordsResponse {
    /** One per record sent, in the order sent. */
    results: Imported[];
    /** How many erased ids were new to the target, and how many it knew. */
    tombstones: TombstoneCounts;
    /**
     * How the store keeps each field and state it was sent, by name
     * (docs/spec/v0.3.md#import.fidelity); a name not listed is kept exactly.
     */
    kept?: {
        [key: string]: Kept;
    };
    /**
     * Time the operation took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/** One record's outcome. */
export interface Imported {
    /** The record's id in the archive. */
    id: MemoryId;
    /**
     * imported: written. overwritten: replaced the target's record (on_conflict overwrite). skipped:
     * the target holds the id (on_conflict skip). erased: the target erased the id, which is never
     * reused (docs/spec/v0.3.md#import.erased).
     */
    outcome: "imported" | "overwritten" | "skipped" | "erased";
    /** The id the record was written under, when not its own (id_policy new or remap). */
    new_id?: MemoryId;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Something a transition asks its host to do, as data: a name the host knows and the arguments it
 * takes. The runner never executes an intent; it returns it to the caller that fired the event
 * (docs/spec/v0.4.md#run.intents). Closed.
 */
export interface Intent {
    /** What to do, as a name in the host's own registry of actions. */
    name: Identifier;
    /** Its arguments, as data. */
    args?: Metadata;
}
/**
 * exact: written as sent. transformed: written changed, as how says. dropped: not written, as why
 * says.
 */
export interface Kept {
    /** exact, transformed or dropped. */
    as: "exact" | "transformed" | "dropped";
    /**
     * What changed, or why it was dropped.
     *
     * Constraints: at least 1 character, at most 512 characters.
     */
    how?: string;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Where a record stands as an archive keeps it (docs/spec/v0.3.md#archive.state): active, pending
 * (staged for review), archived (hidden, restorable), forgotten (soft-forgotten: hidden, restorable
 * by an operator), merged (folded into merged_into). Expired is not a state of its own: an active
 * record past its expires_at.
 */
export type KeptState = "active" | "pending" | "archived" | "forgotten" | "merged";
/**
 * The kept states a request reaches.
 *
 * Constraints: at least 1 item, at most 5 items, no two items equal.
 */
export type KeptStates = KeptState[];
/**
 * Page through an agent's records. Closed.
 *
 * Message `list.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface ListRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** Only records stored under this user_id. */
    user_id?: UserId;
    /**
     * Only these memory types.
     *
     * Constraints: at least 1 item, at most 4 items, no two items equal.
     */
    types?: MemoryType[];
    /**
     * Metadata filter: every key names a top-level metadata key and every condition must hold
     * (conditions are ANDed). A scalar means equality; an object holds operators. At most 64 keys:
     * every store must execute what the schema accepts, and each key is a condition evaluated on
     * every record in scope.
     */
    filter?: Filter;
    /**
     * Which states to list.
     *
     * @defaultValue `["active"]`
     */
    states?: RecordStates;
    /**
     * newest: newest first (created_at, then id, descending); id: by id ascending.
     *
     * @defaultValue `"newest"`
     */
    order?: "newest" | "id";
    /**
     * Page size.
     *
     * Constraints: an integer, ≥ 1, ≤ 1000.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `100`
     */
    limit?: number;
    /**
     * next_cursor of the previous page, with every other field of that request unchanged. Opaque; it
     * stays valid while records are added, and a cursor made for another request is refused.
     *
     * Constraints: at least 1 character, at most 1024 characters, matches `^[A-Za-z0-9_-]+$`.
     */
    cursor?: string;
}
/**
 * One page of records. Extensible.
 *
 * Message `list.response` (emitted by a store; extensible: keep and ignore fields you do not know).
 */
export interface ListResponse {
    /** The page, in the requested order; at most limit. */
    records: MemoryRecord[];
    /**
     * Where the next page starts; absent on the last page.
     *
     * Constraints: at least 1 character.
     */
    next_cursor?: string;
    /**
     * Time the list took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Stable identifier of one memory record. Minted once (by the client or the first component that
 * stores the record) and kept by every store that holds a copy.
 *
 * Constraints: at least 1 character, at most 128 characters, matches
 * `^[A-Za-z0-9][A-Za-z0-9._:-]*$`.
 */
export type MemoryId = string;
/**
 * A memory as a store holds it. Used where whole records travel: get, list and governance diffs.
 * Extensible: clients ignore fields they do not know.
 */
export interface MemoryRecord {
    /**
     * Stable identifier of one memory record. Minted once (by the client or the first component that
     * stores the record) and kept by every store that holds a copy.
     */
    id: MemoryId;
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /**
     * Optional end-user scope inside an agent's memory. When a request carries it, the operation only
     * sees records stored under the same user_id.
     */
    user_id?: UserId;
    /**
     * A memory type as it appears in a response: one of the v0 types, or a type added by a newer
     * minor version, which a v0 client preserves rather than rejects.
     */
    type: OpenMemoryType;
    /** The memory's text (for procedural memories, the JSON text of its state machine). */
    content: string;
    /**
     * Free-form JSON object stored with the memory and returned unchanged. Keys are
     * application-defined; recall and forget filters match against them.
     */
    metadata?: Metadata;
    /** How much the writer trusts the memory, from 0 (not at all) to 1 (certain). */
    confidence?: Confidence;
    /** Where the memory came from (a tool, a conversation, a document). */
    source?: string;
    /** When the record was first stored. */
    created_at: EpochMillis;
    /** When the record last changed. */
    updated_at?: EpochMillis;
    /** When the record stops being recalled. */
    expires_at?: EpochMillis;
    /** Episodic: when the event happened. */
    event_time?: EpochMillis;
    /** Episodic: where the event happened. */
    location?: string;
    /** People or agents who took part in an episode. */
    participants?: Participants;
    /**
     * A sentiment as it appears in a response: a v0 value or one added later, preserved by v0
     * clients.
     */
    sentiment?: OpenSentiment;
    /** Pleasantness of an emotional memory, from -1 (very unpleasant) to 1 (very pleasant). */
    valence?: Valence;
    /** Intensity of an emotional memory, from 0 (calm) to 1 (intense). */
    arousal?: Arousal;
    /** Emotional: the emotion, in a word (anxiety, joy, ...). */
    emotion?: string;
    /** Emotional: what or whom the emotion is about. */
    target?: string;
    /** Where the record stands (get and list report it). */
    state?: OpenRecordState;
    /** The record's version, which an update names as expected_version. */
    version?: RecordVersion;
    /** The seal its writer attached, unchanged. */
    seal?: Seal;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * The four memory types of memorywire v0: semantic (facts), episodic (events with time and place),
 * procedural (how-to, as a state machine) and emotional (affective associations).
 */
export type MemoryType = "semantic" | "episodic" | "procedural" | "emotional";
/**
 * Collapse duplicate memories into one canonical record. Closed: unknown fields are rejected.
 *
 * Message `merge.request` (sent to a store; closed: a field not declared here is rejected).
 *
 * Rule: review_id stages the write: approval_required may be left out, and false is refused.
 */
export interface MergeRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** Id of the record that survives. */
    canonical: MemoryId;
    /**
     * Ids of the records merged into the canonical one and then hidden. Must not contain the
     * canonical id.
     *
     * Constraints: at least 1 item, at most 1000 items, no two items equal.
     */
    duplicates: MemoryId[];
    /**
     * keep_canonical: the canonical record is unchanged. merge_content: the contents are joined with
     * newlines (canonical first) and re-embedded. keep_highest_confidence: the surviving record takes
     * the content, confidence and metadata of the most confident record.
     *
     * @defaultValue `"keep_canonical"`
     */
    strategy?: MergeStrategy;
    /**
     * Merge only if each record named here is at this version (docs/spec/v0.4.md#merge.versions); it
     * names only the canonical and duplicates. A consolidation plan sends what it read.
     */
    expected_versions?: ExpectedVersions;
    /**
     * Stage the write for review: nothing changes until a reviewer approves it with a review
     * (docs/spec/v0.2.md#review.staging).
     *
     * @defaultValue `false`
     */
    approval_required?: boolean;
    /**
     * The id the staged write is reviewed under (a router passes its own, so every store stages under
     * one id); sending it stages the write. Minted by the store when absent.
     */
    review_id?: MemoryId;
}
/**
 * Result of a merge. Extensible: clients ignore fields they do not know.
 *
 * Message `merge.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface MergeResponse {
    /** Id of the surviving record. */
    canonical: MemoryId;
    /**
     * How many duplicates were merged into it.
     *
     * Constraints: an integer, ≥ 0.
     */
    merged_count: number;
    /** Strategy that was applied. */
    strategy_used: OpenMergeStrategy;
    /** What each store did. */
    stores: StoreResult[];
    /** True when the merge waits for a reviewer: nothing is merged yet. */
    pending_approval?: boolean;
    /** When pending_approval: the review the merge waits in. */
    review_id?: MemoryId;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/** How merged records combine. */
export type MergeStrategy = "keep_canonical" | "merge_content" | "keep_highest_confidence";
/**
 * Free-form JSON object stored with the memory and returned unchanged. Keys are
 * application-defined; recall and forget filters match against them.
 */
export interface Metadata {
    /** Application-defined members. */
    [key: string]: unknown;
}
/** A record a write would change, before and after. */
export interface ModifiedRecord {
    /**
     * Stable identifier of one memory record. Minted once (by the client or the first component that
     * stores the record) and kept by every store that holds a copy.
     */
    id: MemoryId;
    /**
     * A memory as a store holds it. Used where whole records travel: get, list and governance diffs.
     * Extensible: clients ignore fields they do not know.
     */
    before: MemoryRecord;
    /**
     * A memory as a store holds it. Used where whole records travel: get, list and governance diffs.
     * Extensible: clients ignore fields they do not know.
     */
    after: MemoryRecord;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * A capability as declared; later versions may add capabilities.
 *
 * Any Capability value, or a string a newer spec version added: `(string & {})` keeps the known
 * values suggested by editors.
 */
export type OpenCapability = Capability | (string & {});
/**
 * An error code as received; later versions may add codes.
 *
 * Any ErrorCode value, or a string a newer spec version added: `(string & {})` keeps the known
 * values suggested by editors.
 */
export type OpenErrorCode = ErrorCode | (string & {});
/**
 * An expire action as reported in a response; later versions may add actions.
 *
 * Any ExpireAction value, or a string a newer spec version added: `(string & {})` keeps the known
 * values suggested by editors.
 */
export type OpenExpireAction = ExpireAction | (string & {});
/**
 * A fusion method as reported in a response; later versions may add methods.
 *
 * Any FusionMethod value, or a string a newer spec version added: `(string & {})` keeps the known
 * values suggested by editors.
 */
export type OpenFusionMethod = FusionMethod | (string & {});
/**
 * A health status as received; later versions may add statuses.
 *
 * Any HealthStatus value, or a string a newer spec version added: `(string & {})` keeps the known
 * values suggested by editors.
 */
export type OpenHealthStatus = HealthStatus | (string & {});
/**
 * A memory type as it appears in a response: one of the v0 types, or a type added by a newer minor
 * version, which a v0 client preserves rather than rejects.
 *
 * Any MemoryType value, or a string a newer spec version added: `(string & {})` keeps the known
 * values suggested by editors.
 */
export type OpenMemoryType = MemoryType | (string & {});
/**
 * A merge strategy as reported in a response; later versions may add strategies.
 *
 * Any MergeStrategy value, or a string a newer spec version added: `(string & {})` keeps the known
 * values suggested by editors.
 */
export type OpenMergeStrategy = MergeStrategy | (string & {});
/**
 * A record state as reported in a response; later versions may add states.
 *
 * Any RecordState value, or a string a newer spec version added: `(string & {})` keeps the known
 * values suggested by editors.
 */
export type OpenRecordState = RecordState | (string & {});
/**
 * A run status as reported in a response; later versions may add statuses.
 *
 * Any RunStatus value, or a string a newer spec version added: `(string & {})` keeps the known
 * values suggested by editors.
 */
export type OpenRunStatus = RunStatus | (string & {});
/**
 * A sentiment as it appears in a response: a v0 value or one added later, preserved by v0 clients.
 *
 * Any Sentiment value, or a string a newer spec version added: `(string & {})` keeps the known
 * values suggested by editors.
 */
export type OpenSentiment = Sentiment | (string & {});
/**
 * A store status as reported in a response; later versions may add statuses.
 *
 * Any StoreStatus value, or a string a newer spec version added: `(string & {})` keeps the known
 * values suggested by editors.
 */
export type OpenStoreStatus = StoreStatus | (string & {});
/**
 * People or agents who took part in an episode.
 *
 * Constraints: at most 256 items.
 */
export type Participants = string[];
/** One action of a plan, as a dry run answered it. */
export interface PlannedAction {
    /**
     * promote: write one long-term (semantic) record with the group's words and merge the group into
     * it. demote: set the record's recall score factor (expire's demote). archive: hide it,
     * restorable (expire's archive).
     */
    action: PromotionAction;
    /**
     * promote: the group, the record whose words it keeps first. demote, archive: the one record.
     *
     * Constraints: at least 1 item, at most 1000 items, no two items equal.
     */
    ids: MemoryId[];
    /** The version of each record when the plan read it. */
    expected_versions: ExpectedVersions;
}
/** One merge of a plan, as a dry run answered it. */
export interface PlannedMerge {
    /** The record that survives. */
    canonical: MemoryId;
    /**
     * The records merged into it. Must not contain the canonical id.
     *
     * Constraints: at least 1 item, at most 1000 items, no two items equal.
     */
    duplicates: MemoryId[];
    /** The version of each record when the plan read it. */
    expected_versions: ExpectedVersions;
}
/**
 * One run of a stored procedure: the state it is in, the events it can take there, and its limits.
 * A run is a record of the store (an episodic memory of following the procedure), so get returns
 * it, history shows each step, and its version guards every event (docs/spec/v0.4.md#run.start).
 * Extensible.
 */
export interface ProcedureRun {
    /** The run's id (the id of the record that holds it). */
    id: MemoryId;
    /** The procedural record the run follows. */
    procedure_id: MemoryId;
    /**
     * The version of that record the run copied its machine from: later changes to the procedure do
     * not reach a started run.
     */
    procedure_version: RecordVersion;
    /**
     * The procedure's name.
     *
     * Constraints: at least 1 character.
     */
    name: string;
    /** The state the run is in. */
    state: StateName;
    /** A run status as reported in a response; later versions may add statuses. */
    status: OpenRunStatus;
    /**
     * The events a transition out of this state answers, in the machine's order; empty unless status
     * is running.
     */
    events: Identifier[];
    /**
     * Transitions taken so far.
     *
     * Constraints: an integer, ≥ 0.
     */
    steps: number;
    /**
     * Most transitions the run may take.
     *
     * Constraints: an integer, ≥ 1.
     */
    step_limit: number;
    /** When the run started. */
    started_at: EpochMillis;
    /** When the run expires, if it has a time limit. */
    deadline?: EpochMillis;
    /** The last transition it took, if any. */
    last?: FiredTransition;
    /** The run record's version, which run_fire may name as expected_version. */
    version: RecordVersion;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Move an agent's short-term memories along by rules on age, confidence, recall count and
 * repetition: promote the ones that proved themselves into long-term (semantic) memory, demote the
 * weak and archive the cold, as a plan first (docs/spec/v0.4.md#promote.rules); with dry_run false,
 * apply it (docs/spec/v0.4.md#promote.apply). Closed.
 *
 * Message `promote.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface PromoteRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /**
     * Only records stored under this user_id; by default every user's (each user's records are judged
     * apart, and so are those with no user).
     */
    user_id?: UserId;
    /**
     * What is short-term, and when it moves (docs/spec/v0.4.md#promote.rules). Every rule has a
     * default; a request names only those it changes. Closed, so a misspelt rule cannot pass
     * unnoticed.
     */
    rules?: PromotionRules;
    /**
     * true: answer the plan and change nothing. false: apply it (docs/spec/v0.4.md#promote.apply).
     *
     * @defaultValue `true`
     */
    dry_run?: boolean;
    /**
     * The actions to apply, as a dry run answered them (action, ids, expected_versions): exactly
     * these, instead of a new plan, each left alone and reported changed when one of its records
     * moved on since (docs/spec/v0.4.md#promote.apply). With dry_run true: which of them would still
     * apply.
     *
     * Constraints: at least 1 item, at most 1000 items.
     */
    plan?: PlannedAction[];
    /**
     * Stage each promotion's long-term record for review instead of writing it: its group waits,
     * untouched, until a reviewer approves the record, and is merged into it by the first promote
     * after that. Demotions and archivals are not staged.
     *
     * @defaultValue `false`
     */
    approval_required?: boolean;
    /**
     * The most actions one call plans or applies: promotions first (largest groups first), then
     * archivals, then demotions. A rerun continues: what was applied leaves the next plan.
     *
     * Constraints: an integer, ≥ 1, ≤ 1000.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `100`
     */
    limit?: number;
}
/**
 * A promotion's plan, or what applying it did (docs/spec/v0.4.md#promote.rules). Extensible:
 * clients ignore fields they do not know.
 *
 * Message `promote.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface PromoteResponse {
    /** True when nothing was changed. */
    dry_run: boolean;
    /**
     * How many short-term records were read to make the plan (0 when a plan was sent).
     *
     * Constraints: an integer, ≥ 0.
     */
    scanned: number;
    /** Each action: promotions (largest groups first), then archivals, then demotions. */
    actions: Action[];
    /**
     * True when more actions were found than limit allowed: call again (after applying) for the rest.
     */
    more?: boolean;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * promote: write one long-term (semantic) record with the group's words and merge the group into
 * it. demote: set the record's recall score factor (expire's demote). archive: hide it, restorable
 * (expire's archive).
 */
export type PromotionAction = "promote" | "demote" | "archive";
/**
 * What is short-term, and when it moves (docs/spec/v0.4.md#promote.rules). Every rule has a
 * default; a request names only those it changes. Closed, so a misspelt rule cannot pass unnoticed.
 */
export interface PromotionRules {
    /**
     * The memory types whose records are short-term: events and feelings, never facts or procedures
     * (a promotion writes a fact).
     *
     * Constraints: at least 1 item, at most 2 items, no two items equal.
     *
     * @defaultValue `["episodic"]`
     */
    short_term_types?: ShortTermType[];
    /**
     * Records of any type but procedural that carry an expires_at (working notes) are short-term too.
     *
     * @defaultValue `true`
     */
    expiring?: boolean;
    /**
     * A record younger than this is too new to judge: it is neither promoted, demoted nor archived. A
     * group's age is its oldest record's.
     *
     * Constraints: an integer, ≥ 0.
     *
     * @defaultValue `86400000`
     */
    min_age_ms?: number;
    /**
     * A group is promoted only when its most confident record is at least this confident; a record
     * old enough but less confident than this (and not archived) is demoted.
     *
     * @defaultValue `0.5`
     */
    min_confidence?: Confidence;
    /**
     * Promote a group recalled at least this many times (the recall_count of its records, summed:
     * [promote.rules]).
     *
     * Constraints: an integer, ≥ 1.
     *
     * @defaultValue `3`
     */
    min_recalls?: number;
    /**
     * Promote a group of at least this many short-term records that say the same thing (the duplicate
     * judge's, [consolidate.duplicates]).
     *
     * Constraints: an integer, ≥ 2.
     *
     * @defaultValue `2`
     */
    min_repetitions?: number;
    /**
     * A short-term record not promoted, older than this and not recalled for this long, is archived
     * (hidden, restorable).
     *
     * Constraints: an integer, ≥ 0.
     *
     * @defaultValue `2592000000`
     */
    archive_after_ms?: number;
    /**
     * The factor a demotion sets on a record's recall score (expire's demote_factor).
     *
     * Constraints: > 0, ≤ 1.
     *
     * @defaultValue `0.5`
     */
    demote_factor?: number;
}
/**
 * The query already embedded, and the name of the embedder that made it. A store uses it only when
 * the name is its own embedder's; any other store refuses the request (unsupported) rather than
 * compare unrelated vectors.
 */
export interface QueryVector {
    /**
     * The embedder's name as the store reports it in health details (e.g. onnx:all-MiniLM-L6-v2).
     *
     * Constraints: at least 1 character, at most 256 characters.
     */
    embedder: string;
    /**
     * The embedding of the request's query.
     *
     * Constraints: at least 1 item, at most 4096 items.
     */
    vector: number[];
}
/** One recalled memory with its relevance score. */
export interface RecallHit {
    /**
     * Stable identifier of one memory record. Minted once (by the client or the first component that
     * stores the record) and kept by every store that holds a copy.
     */
    id: MemoryId;
    /**
     * A memory type as it appears in a response: one of the v0 types, or a type added by a newer
     * minor version, which a v0 client preserves rather than rejects.
     */
    type: OpenMemoryType;
    /** The memory's text (for procedural memories, the JSON text of its state machine). */
    content: string;
    /** Relevance; higher is better. Comparable within one response only. */
    score: number;
    /**
     * Cosine similarity of query and memory (-1..1), when the store measures one. Unlike score it is
     * comparable across queries, which is what a relevance floor needs.
     *
     * Constraints: ≥ -1, ≤ 1.
     */
    relevance?: number;
    /**
     * The record's demote factor, when an expire demoted it (absent: 1). score already includes it; a
     * router that fuses by rank multiplies the fused score by it, so a demotion survives rank fusion.
     *
     * Constraints: > 0, ≤ 1.
     */
    demote?: number;
    /**
     * Free-form JSON object stored with the memory and returned unchanged. Keys are
     * application-defined; recall and forget filters match against them.
     */
    metadata: Metadata;
    /** When the record was first stored. */
    created_at: EpochMillis;
    /** Stores that returned this record. */
    supporting: string[];
    /** Store whose copy of the record is returned. */
    source_store: string;
    /**
     * Optional end-user scope inside an agent's memory. When a request carries it, the operation only
     * sees records stored under the same user_id.
     */
    user_id?: UserId;
    /** How much the writer trusts the memory, from 0 (not at all) to 1 (certain). */
    confidence?: Confidence;
    /** Where the memory came from. */
    source?: string;
    /** When the record last changed. */
    updated_at?: EpochMillis;
    /** When the record stops being recalled. */
    expires_at?: EpochMillis;
    /** Episodic: when the event happened. */
    event_time?: EpochMillis;
    /** Episodic: where the event happened. */
    location?: string;
    /** People or agents who took part in an episode. */
    participants?: Participants;
    /**
     * A sentiment as it appears in a response: a v0 value or one added later, preserved by v0
     * clients.
     */
    sentiment?: OpenSentiment;
    /** Pleasantness of an emotional memory, from -1 (very unpleasant) to 1 (very pleasant). */
    valence?: Valence;
    /** Intensity of an emotional memory, from 0 (calm) to 1 (intense). */
    arousal?: Arousal;
    /** Emotional: the emotion, in a word. */
    emotion?: string;
    /** Emotional: what or whom the emotion is about. */
    target?: string;
    /** The record's seal, when its writer attached one. */
    seal?: Seal;
    /** The record's version. */
    version?: RecordVersion;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Find an agent's memories most relevant to a query. Closed: unknown fields are rejected.
 *
 * Message `recall.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface RecallRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** Only recall memories stored under this user. */
    user_id?: UserId;
    /**
     * What to look for, in natural language.
     *
     * Constraints: at least 1 character.
     */
    query: string;
    /**
     * Maximum number of results.
     *
     * Constraints: an integer, ≥ 1, ≤ 1000.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `5`
     */
    k?: number;
    /**
     * Only recall memories of these types. Absent or empty: every type.
     *
     * Constraints: at most 4 items.
     */
    types?: MemoryType[];
    /**
     * Graph hops for the router's neighbour boost (0 = off). Only graph-capable stores use it.
     *
     * Constraints: an integer, ≥ 0, ≤ 3.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `0`
     */
    hops?: number;
    /**
     * How a router fuses the stores' ranked lists.
     *
     * @defaultValue `"rrf"`
     */
    fusion?: FusionMethod;
    /** Only recall memories whose metadata satisfies this filter. An empty object filters nothing. */
    filter?: Filter;
    /**
     * Only recall memories created within this many days.
     *
     * Constraints: ≥ 0.
     */
    fresher_than_days?: number;
    /**
     * Relevance floor: drop results whose relevance (the cosine similarity of query and memory, as
     * the store's embedder measures it) is below this. Absent: no floor, so a query with no true
     * match still gets its k nearest records. Stores that measure no relevance ignore it and do not
     * declare the relevance capability.
     *
     * Constraints: ≥ -1, ≤ 1.
     */
    min_relevance?: number;
    /** The query's embedding, made by a caller (a router) that embeds once for many stores. */
    query_vector?: QueryVector;
}
/**
 * Result of a recall: the best matches, best first. Extensible: clients ignore fields they do not
 * know.
 *
 * Message `recall.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface RecallResponse {
    /** Matches sorted by score, highest first; at most k. */
    results: RecallHit[];
    /**
     * Fusion method that ranked the results (a single store reports rrf for its own hybrid ranking).
     */
    fusion_used: OpenFusionMethod;
    /** Names of the stores that were asked. */
    stores_queried: string[];
    /**
     * Time the recall took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Where a record stands, as a caller may ask for it: active (recalled), pending (staged for
 * review), archived (hidden, restorable), expired (past expires_at). Forgotten and merged records
 * are never shown.
 */
export type RecordState = "active" | "pending" | "archived" | "expired";
/**
 * The states a request reaches: by default active records only.
 *
 * Constraints: at least 1 item, at most 4 items, no two items equal.
 */
export type RecordStates = RecordState[];
/**
 * A record's version: 1 when it is stored, one more after every update. An update names the version
 * it expects (optimistic concurrency).
 *
 * Constraints: an integer, ≥ 1, ≤ 9007199254740991.
 *
 * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1 (`Number.MAX_SAFE_INTEGER`),
 * so no `bigint` is needed.
 */
export type RecordVersion = number;
/** An existing memory near a staged write, and how near. */
export interface RelatedRecord {
    /**
     * A memory as a store holds it. Used where whole records travel: get, list and governance diffs.
     * Extensible: clients ignore fields they do not know.
     */
    record: MemoryRecord;
    /**
     * Cosine similarity mapped to [0, 1] as recall's relevance is: 1 is the same meaning.
     *
     * Constraints: ≥ 0, ≤ 1.
     */
    relevance: number;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Many remembers in one message, all or nothing. Closed.
 *
 * Message `remember_batch.request` (sent to a store; closed: a field not declared here is
 * rejected).
 */
export interface RememberBatchRequest {
    /**
     * The remembers, each a valid remember request without dedupe (a batch is stored whole, so one
     * write cannot be answered by another: docs/spec/v0.4.md#remember.dedupe). They are stored
     * together or not at all.
     *
     * Constraints: at least 1 item, at most 1000 items.
     */
    requests: RememberRequest[];
}
/**
 * One remember response per request, in request order. Extensible.
 *
 * Message `remember_batch.response` (emitted by a store; extensible: keep and ignore fields you do
 * not know).
 */
export interface RememberBatchResponse {
    /**
     * The answer to each request, in order (never a duplicate_of: a batch's requests carry no
     * dedupe).
     */
    results: RememberResponse[];
    /**
     * Time the batch took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Write one memory into an agent's memory. Closed: a field this schema does not name is rejected,
 * so a misspelt option can never be stored silently.
 *
 * Message `remember.request` (sent to a store; closed: a field not declared here is rejected).
 *
 * Rule: A procedural memory's content must be the JSON text of a valid state machine.
 *
 * Rule: event_time, location and participants belong to episodic memories only.
 *
 * Rule: sentiment, valence, arousal, emotion and target belong to emotional memories only.
 */
export interface RememberRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /**
     * Optional end-user scope inside an agent's memory. When a request carries it, the operation only
     * sees records stored under the same user_id.
     */
    user_id?: UserId;
    /**
     * Client-chosen record id. Optional; when absent the store (or router) mints one. Repeating a
     * remember with the same id and agent returns the first write's result and creates nothing new,
     * which makes retries safe.
     */
    id?: MemoryId;
    /**
     * The four memory types of memorywire v0: semantic (facts), episodic (events with time and
     * place), procedural (how-to, as a state machine) and emotional (affective associations).
     */
    type: MemoryType;
    /**
     * The memory's text. For a procedural memory, the JSON text of a StateMachine (see
     * common.json#/$defs/StateMachine).
     *
     * Constraints: at least 1 character.
     */
    content: string;
    /**
     * Free-form JSON object stored with the memory and returned unchanged. Keys are
     * application-defined; recall and forget filters match against them.
     */
    metadata?: Metadata;
    /**
     * How much the writer trusts the memory, from 0 (not at all) to 1 (certain).
     *
     * @defaultValue `1.0`
     */
    confidence?: Confidence;
    /** Where the memory came from (a tool, a conversation, a document). */
    source?: string;
    /**
     * When the memory stops being recalled. A time in the past stores a record that is already
     * expired.
     */
    expires_at?: EpochMillis;
    /**
     * Stage the write for human review: the record stays invisible to recall until a reviewer
     * approves it.
     *
     * @defaultValue `false`
     */
    approval_required?: boolean;
    /**
     * When an active record of the agent already says what this one says (the same user, type and
     * fields of that type, judged as consolidation judges: docs/spec/v0.4.md#remember.dedupe):
     * existing, answer with that record and write nothing; review, stage this write for a reviewer,
     * who may approve it as a merge into that record. Absent: the store's own default, which its
     * operator sets (none: write as asked).
     */
    dedupe?: DedupeMode;
    /** Episodic only: when the event happened. */
    event_time?: EpochMillis;
    /**
     * Episodic only: where the event happened.
     *
     * Constraints: at least 1 character, at most 512 characters.
     */
    location?: string;
    /** Episodic only: who took part. */
    participants?: Participants;
    /** Emotional only: overall polarity. */
    sentiment?: Sentiment;
    /** Emotional only: pleasantness, -1..1. */
    valence?: Valence;
    /** Emotional only: intensity, 0..1. */
    arousal?: Arousal;
    /**
     * Emotional only: the emotion, in a word.
     *
     * Constraints: at least 1 character, at most 64 characters.
     */
    emotion?: string;
    /**
     * Emotional only: what or whom the emotion is about.
     *
     * Constraints: at least 1 character, at most 256 characters.
     */
    target?: string;
    /**
     * A seal over the record (docs/spec/v0.1.md#seals.digest). It covers the record's id, so a writer
     * seals a remember that names its id: a seal over an id the store mints cannot verify. A store
     * declaring seals keeps it and returns it with the record.
     */
    seal?: Seal;
}
/**
 * Result of a remember. Extensible: clients ignore fields they do not know.
 *
 * Message `remember.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface RememberResponse {
    /** Id of the stored (or staged) record. */
    id: MemoryId;
    /** When the record was stored. */
    stored_at: EpochMillis;
    /** What each store did. */
    stores: StoreResult[];
    /** True when the write is staged for review and invisible to recall until approved. */
    pending_approval: boolean;
    /**
     * Where a reviewer can approve or reject the staged write, when a review UI is configured.
     *
     * Constraints: at least 1 character.
     */
    approval_url?: string;
    /**
     * True when a record with the request's client-chosen id already existed, so this response
     * repeats the first write's result and nothing new was stored.
     */
    replayed?: boolean;
    /**
     * The active record this remember says the same as (dedupe, docs/spec/v0.4.md#remember.dedupe):
     * with dedupe existing, id is that record's and nothing was written; with review, the write waits
     * for a reviewer (pending_approval).
     */
    duplicate_of?: MemoryId;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Bring archived records back into recall. Closed.
 *
 * Message `restore.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface RestoreRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** Only records stored under this user_id. */
    user_id?: UserId;
    /** The archived records to restore. */
    ids: IdList;
}
/**
 * What a restore did. Extensible.
 *
 * Message `restore.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface RestoreResponse {
    /**
     * Ids restored, in request order: archived records of the request's scope. Any other id is left
     * as it was and not listed.
     */
    restored: MemoryId[];
    /**
     * Time the restore took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Governance: a reviewer's verdict on a staged write. Sent by the reviewer; closed, so a misspelt
 * field is rejected rather than ignored.
 *
 * Message `review-decision` (sent to a store; closed: a field not declared here is rejected).
 *
 * Rule: merge_into approves.
 */
export interface ReviewDecision {
    /** Review the decision answers. */
    review_id?: MemoryId;
    /** true commits the staged write; false discards it. */
    approved: boolean;
    /**
     * Identity of the reviewer.
     *
     * Constraints: at least 1 character, at most 256 characters.
     */
    reviewer: string;
    /** When the decision was made. */
    reviewed_at: EpochMillis;
    /**
     * Why, in the reviewer's words.
     *
     * Constraints: at most 4096 characters.
     */
    reason?: string;
    /**
     * Approve a staged remember by merging it into this existing record of the agent (co-memorize):
     * the record keeps its id and takes the staged content as merge_content would, and the staged
     * record is merged away.
     */
    merge_into?: MemoryId;
    /**
     * What a decision did: approved (the staged write applied as sent), merged (a staged remember
     * merged into merge_into), rejected (the staged write discarded).
     */
    outcome?: ReviewOutcome;
}
/**
 * What a decision did: approved (the staged write applied as sent), merged (a staged remember
 * merged into merge_into), rejected (the staged write discarded).
 */
export type ReviewOutcome = "approved" | "merged" | "rejected";
/**
 * Governance: a write staged for human review, with the diff it would make against the current
 * state. Emitted by mnemowire to a reviewer. Extensible.
 *
 * Message `review-request` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 *
 * Rule: A remember under review carries a valid remember request, its seal (if any) lifted out to
 * seal, and without dedupe (decided when it was staged).
 *
 * Rule: A forget under review carries a valid forget request, without approval_required and
 * review_id (lifted out: the review says both), without dry_run (a preview is never staged) and
 * without all (a staged forget of a whole scope names the records it reaches), so a v0 reviewer
 * still reads it under its v0 schema.
 *
 * Rule: A merge under review carries a valid merge request, without approval_required and review_id
 * (lifted out: the review says both) and without expected_versions (checked when the merge was
 * staged, and again when it is approved), so a v0 reviewer still reads it under its v0 schema.
 */
export interface ReviewRequest {
    /** Id of the review; the staged record's id for a remember. */
    review_id: MemoryId;
    /** Operation under review. */
    operation: ReviewedOperation;
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /**
     * The original request, exactly as the agent sent it; valid under that operation's request
     * schema.
     */
    request: {
        [key: string]: unknown;
    };
    /** The change a write would make to an agent's memory, computed against the current state. */
    diff: Diff;
    /** Why the agent wants the change, when it said so. */
    reasoning?: string;
    /** When the write was staged. */
    requested_at: EpochMillis;
    /**
     * A staged remember's seal. It travels here, not inside request, so a v0 reviewer still reads
     * request under its v0 schema.
     */
    seal?: Seal;
    /**
     * Who staged the write: caller (the request said approval_required) or policy:<rule> (the store's
     * staging policy, by rule name).
     *
     * Constraints: at least 1 character, at most 256 characters.
     */
    staged_by?: string;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/** The operations that can be staged for review. */
export type ReviewedOperation = "remember" | "forget" | "merge";
/**
 * List an agent's pending reviews, each with its diff against the current state. Closed.
 *
 * Message `reviews.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface ReviewsRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** Only writes staged under this user_id. */
    user_id?: UserId;
    /**
     * Only these reviews (a reviewer opening one, or a client checking on its own writes).
     *
     * Constraints: at least 1 item, at most 200 items, no two items equal.
     */
    ids?: MemoryId[];
    /**
     * Only these operations.
     *
     * Constraints: at least 1 item, at most 3 items, no two items equal.
     */
    operations?: ReviewedOperation[];
    /**
     * Page size.
     *
     * Constraints: an integer, ≥ 1, ≤ 200.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `50`
     */
    limit?: number;
    /**
     * next_cursor of the previous page: the page starts after this review_id. Reviews come in
     * review_id order (ids a store mints are ULIDs, so that is the order they were staged in).
     */
    cursor?: MemoryId;
    /**
     * How many closest existing memories a remember's diff lists (diff.related); 0 for none.
     *
     * Constraints: an integer, ≥ 0, ≤ 20.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `3`
     */
    related?: number;
}
/**
 * One page of pending reviews. Extensible.
 *
 * Message `reviews.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface ReviewsResponse {
    /** The page, in review_id order; at most limit. Each carries its review_id and requested_at. */
    reviews: ReviewRequest[];
    /** Where the next page starts; absent on the last page. */
    next_cursor?: MemoryId;
    /**
     * Time the listing took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Fire one event on a run: the first transition out of its state whose trigger is the event and
 * whose conditions hold (by facts) moves it on, and its intents come back for the host to act on
 * (docs/spec/v0.4.md#run.fire). Closed.
 *
 * Message `run_fire.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface RunFireRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** The user the run belongs to, when it has one. */
    user_id?: UserId;
    /** The run, as run_start answered it. */
    id: MemoryId;
    /** The event to fire (a transition's trigger). */
    event: Identifier;
    /** The truth of every condition the event's transitions name, as the host evaluated them. */
    facts?: Facts;
    /**
     * The run's version the caller read: another current version fails with conflict and changes
     * nothing. Without it, the version the runner reads guards the write, so of two hosts firing at
     * once exactly one moves the run.
     */
    expected_version?: RecordVersion;
    /**
     * Why, in the caller's words; kept in the audit log.
     *
     * Constraints: at most 4096 characters.
     */
    reason?: string;
}
/**
 * The run after the event, and the transition it took. Extensible: clients ignore fields they do
 * not know.
 *
 * Message `run_fire.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface RunFireResponse {
    /**
     * One run of a stored procedure: the state it is in, the events it can take there, and its
     * limits. A run is a record of the store (an episodic memory of following the procedure), so get
     * returns it, history shows each step, and its version guards every event
     * (docs/spec/v0.4.md#run.start). Extensible.
     */
    run: ProcedureRun;
    /**
     * The transition an event fired: from which state to which, and the intents the host is asked to
     * act on. Extensible.
     */
    fired: FiredTransition;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Read a run: its state, status, the events it can take and its last transition
 * (docs/spec/v0.4.md#run.start). Closed.
 *
 * Message `run_get.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface RunGetRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** The user the run belongs to, when it has one. */
    user_id?: UserId;
    /** The run to read. */
    id: MemoryId;
}
/**
 * A run as it stands. Extensible: clients ignore fields they do not know.
 *
 * Message `run_get.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface RunGetResponse {
    /**
     * One run of a stored procedure: the state it is in, the events it can take there, and its
     * limits. A run is a record of the store (an episodic memory of following the procedure), so get
     * returns it, history shows each step, and its version guards every event
     * (docs/spec/v0.4.md#run.start). Extensible.
     */
    run: ProcedureRun;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Start a run of a stored procedure (a procedural record of the caller's scope) in its initial
 * state (docs/spec/v0.4.md#run.start). Closed.
 *
 * Message `run_start.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface RunStartRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** The user the run belongs to, when it has one. */
    user_id?: UserId;
    /** The procedural record to follow: an active record of the caller's agent (and user). */
    procedure_id: MemoryId;
    /**
     * A client-chosen id for the run: a retry with the same id and procedure answers with the run
     * already started instead of starting another.
     */
    id?: MemoryId;
    /**
     * Most transitions the run may take; an event past it is refused with conflict.
     *
     * Constraints: an integer, ≥ 1, ≤ 100000.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `100`
     */
    step_limit?: number;
    /**
     * How long the run may take, from its start; an event after that is refused with conflict. No
     * limit when absent.
     *
     * Constraints: an integer, ≥ 1, ≤ 31536000000.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     */
    time_limit_ms?: number;
    /**
     * Why, in the caller's words; kept in the audit log.
     *
     * Constraints: at most 4096 characters.
     */
    reason?: string;
}
/**
 * The run as started (or, for a retried id, as it stands). Extensible: clients ignore fields they
 * do not know.
 *
 * Message `run_start.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface RunStartResponse {
    /**
     * One run of a stored procedure: the state it is in, the events it can take there, and its
     * limits. A run is a record of the store (an episodic memory of following the procedure), so get
     * returns it, history shows each step, and its version guards every event
     * (docs/spec/v0.4.md#run.start). Extensible.
     */
    run: ProcedureRun;
    /** True when a run with the request's id already existed, so nothing new was started. */
    replayed?: boolean;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Where a procedure run stands. running: events may fire. finished: its state has no transition
 * out. exhausted: it took step_limit steps. expired: its time limit passed
 * (docs/spec/v0.4.md#run.limits).
 */
export type RunStatus = "running" | "finished" | "exhausted" | "expired";
/**
 * A metadata filter that selects records to change. Same shape as Filter (at most 64 keys) but
 * never empty, because an empty filter matches every record.
 *
 * Constraints: at least 1 member, at most 64 members, keys of at least 1 character and at most 256
 * characters.
 */
export interface ScopeFilter {
    /** Every key is application-defined; each value must satisfy the schema. */
    [key: string]: FilterCondition;
}
/**
 * List the agents a store holds memories of, with their users and counts
 * (docs/spec/v0.3.md#scopes.list). Closed.
 *
 * Message `scopes.request` (sent to a store; closed: a field not declared here is rejected).
 */
export interface ScopesRequest {
    /**
     * Only these agents (a server narrows a token's listing to the agents it may act as).
     *
     * Constraints: at least 1 item, at most 1000 items, no two items equal.
     */
    agent_ids?: AgentId[];
    /**
     * At most this many users per agent, the most populous first.
     *
     * Constraints: an integer, ≥ 0, ≤ 1000.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `100`
     */
    max_users?: number;
    /**
     * Page size, in agents.
     *
     * Constraints: an integer, ≥ 1, ≤ 1000.
     *
     * Always exact as a JavaScript `number`: the spec bounds it by 2^53-1
     * (`Number.MAX_SAFE_INTEGER`), so no `bigint` is needed.
     *
     * @defaultValue `100`
     */
    limit?: number;
    /**
     * next_cursor of the previous page, with every other field of that request unchanged. Opaque; a
     * cursor made for another request is refused.
     *
     * Constraints: at least 1 character, at most 1024 characters, matches `^[A-Za-z0-9_-]+$`.
     */
    cursor?: string;
}
/**
 * One page of agents, in agent_id order. Extensible.
 *
 * Message `scopes.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface ScopesResponse {
    /** The page. */
    agents: AgentScope[];
    /**
     * Where the next page starts; absent on the last page.
     *
     * Constraints: at least 1 character.
     */
    next_cursor?: string;
    /**
     * Time the operation took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * A record seal: a keyed digest (HMAC-SHA256) the writer computed over the record's id, agent_id,
 * user_id, type, content and metadata (docs/spec/v0.1.md#seals.digest). A store keeps it with the
 * record and returns it unchanged; only a holder of the key can make or check one.
 */
export interface Seal {
    /** The digest algorithm. */
    alg: "hmac-sha256";
    /**
     * Which of the writer's keys made the seal, so keys can rotate.
     *
     * Constraints: at least 1 character, at most 64 characters, matches
     * `^[A-Za-z0-9][A-Za-z0-9._:-]*$`.
     */
    key_id: string;
    /**
     * The digest, as 64 lowercase hex digits.
     *
     * Constraints: at least 64 characters, at most 64 characters, matches `^[0-9a-f]{64}$`.
     */
    mac: string;
}
/** Overall polarity of an emotional memory. */
export type Sentiment = "positive" | "negative" | "neutral" | "mixed";
/**
 * A SHA-256 digest, as 64 lowercase hex digits.
 *
 * Constraints: at least 64 characters, at most 64 characters, matches `^[0-9a-f]{64}$`.
 */
export type Sha256 = string;
/** A memory type whose records can be short-term. */
export type ShortTermType = "episodic" | "emotional";
/**
 * The review a pending record waits for (docs/spec/v0.2.md#review.staging): its request is rebuilt
 * from the record, so only what the record does not hold travels. Closed.
 */
export interface StagedReview {
    /**
     * Stable identifier of one memory record. Minted once (by the client or the first component that
     * stores the record) and kept by every store that holds a copy.
     */
    review_id: MemoryId;
    /**
     * Who staged it: caller or policy:<name>.
     *
     * Constraints: at least 1 character, at most 256 characters.
     */
    staged_by: string;
    /** When it was staged. */
    requested_at: EpochMillis;
}
/**
 * The operator's staging policy: a write that any rule matches is staged for review as if it said
 * approval_required (docs/spec/v0.2.md#review.policy). Closed.
 */
export interface StagingPolicy {
    /**
     * The rules, any of which stages a write.
     *
     * Constraints: at least 1 item, at most 256 items.
     */
    rules: StagingRule[];
}
/**
 * One rule: it matches a write when every predicate it names holds. types, sources, filter and
 * content_pattern look at a remember's record, so a rule naming one never matches a forget or
 * merge.
 */
export interface StagingRule {
    /** Named in review-request.staged_by as policy:<name>. */
    name: Identifier;
    /**
     * The write is one of these operations (default: any).
     *
     * Constraints: at least 1 item, at most 3 items, no two items equal.
     */
    operations?: ReviewedOperation[];
    /**
     * A remember of one of these memory types.
     *
     * Constraints: at least 1 item, at most 4 items, no two items equal.
     */
    types?: MemoryType[];
    /**
     * A remember whose source is one of these.
     *
     * Constraints: at least 1 item, at most 64 items, no two items equal.
     */
    sources?: string[];
    /**
     * A write whose user_id is one of these.
     *
     * Constraints: at least 1 item, at most 256 items, no two items equal.
     */
    user_ids?: UserId[];
    /** A remember whose metadata matches this filter (recall's filter language). */
    filter?: Filter;
    /**
     * A remember whose content contains a match of this regular expression, matched
     * case-insensitively, in time linear in the content (RE2 semantics: no backreferences or
     * lookaround), so no content an agent writes can make the match run long. Keep to the syntax
     * ECMA-262, Python's re and RE2 share; a store refuses a pattern it cannot run so when the policy
     * is configured.
     *
     * Constraints: at least 1 character, at most 1024 characters.
     */
    content_pattern?: string;
}
/**
 * A procedure as a finite state machine (the pytransitions shape, restricted to data). In v0 it
 * travels as the JSON text of a procedural memory's content.
 */
export interface StateMachine {
    /**
     * Name of the procedure.
     *
     * Constraints: at least 1 character, at most 256 characters.
     */
    name: string;
    /** State the machine starts in; one of states. */
    initial: StateName;
    /**
     * Every state of the machine, each named once.
     *
     * Constraints: at least 1 item, at most 256 items, no two items equal.
     */
    states: StateName[];
    /**
     * Transitions between states.
     *
     * Constraints: at most 1024 items.
     */
    transitions: Transition[];
    /** State the procedure is in now, when it is being executed; one of states. */
    current?: StateName;
    /** Free-form data about the procedure. */
    metadata?: Metadata;
}
/**
 * Name of one state of a procedural state machine.
 *
 * Constraints: at least 1 character, at most 128 characters.
 */
export type StateName = string;
/** Health of one child store of a router. */
export interface StoreHealth {
    /**
     * Name of the store.
     *
     * Constraints: at least 1 character.
     */
    store: string;
    /**
     * ok: serving. degraded: serving with reduced function (details say which). down: not serving.
     */
    status: OpenHealthStatus;
    /**
     * Time the health probe took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms?: number;
    /** Backend facts worth showing an operator: engine versions, embedder, record counts. */
    details?: {
        [key: string]: unknown;
    };
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * What one store did for an operation. A router reports one per child store; a single store reports
 * itself.
 */
export interface StoreResult {
    /**
     * Name of the store (its URL with credentials removed, or a configured name).
     *
     * Constraints: at least 1 character.
     */
    store: string;
    /** Outcome on this store. */
    status: OpenStoreStatus;
    /**
     * Records this store wrote, returned, forgot, merged or matched.
     *
     * Constraints: an integer, ≥ 0.
     */
    count: number;
    /**
     * Time the store took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms?: number;
    /** Why the store failed or was skipped; absent when status is ok. */
    error?: string;
    /**
     * Hits of this store a router dropped because their seal was missing or did not verify
     * (docs/spec/v0.1.md#seals.router).
     *
     * Constraints: an integer, ≥ 0.
     */
    rejected_seals?: number;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Outcome of an operation on one store: ok, error (the store raised or refused), timeout (no answer
 * before the deadline), invalid_response (the answer broke the response schema) or skipped (the
 * store lacks a capability the operation needs).
 */
export type StoreStatus = "ok" | "error" | "timeout" | "invalid_response" | "skipped";
/** How many erased ids were new to the target, and how many it knew. */
export interface TombstoneCounts {
    /**
     * Erased ids the target did not know.
     *
     * Constraints: an integer, ≥ 0.
     */
    added: number;
    /**
     * Erased ids the target knew already.
     *
     * Constraints: an integer, ≥ 0.
     */
    known: number;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * One transition of a procedural state machine. Only these six keys exist: callback keys (before,
 * after, prepare, ...) are rejected because they would name code to run; what a transition asks of
 * its host travels as intents, which are data.
 */
export interface Transition {
    /** Event name that fires the transition. */
    trigger: Identifier;
    /** State(s) the transition leaves from: one state, a list of states, or "*" for any state. */
    source: StateName | StateName[];
    /** State the transition enters. */
    dest: StateName;
    /** Guard predicates that must all be true. */
    conditions?: IdentifierList;
    /** Guard predicates that must all be false. */
    unless?: IdentifierList;
    /**
     * What the host is asked to do when the transition fires, in order (added in v0.4).
     *
     * Constraints: at most 32 items.
     */
    intents?: Intent[];
}
/**
 * Change one record, if it is still at the version the caller read. Closed.
 *
 * Message `update.request` (sent to a store; closed: a field not declared here is rejected).
 *
 * Rule: An update changes something: content, metadata, confidence or expires_at.
 */
export interface UpdateRequest {
    /**
     * Identifier of the agent whose memory an operation reads or writes. Every operation is scoped to
     * exactly one agent.
     */
    agent_id: AgentId;
    /** The record's user_id, when it has one. */
    user_id?: UserId;
    /** The record to change: an active or pending record of the caller's scope. */
    id: MemoryId;
    /**
     * The version the caller read; any other current version fails with conflict and changes nothing.
     */
    expected_version: RecordVersion;
    /**
     * New text; the record is embedded again. For a procedural record, the JSON text of a
     * StateMachine.
     *
     * Constraints: at least 1 character.
     */
    content?: string;
    /** New metadata, replacing the old as a whole. */
    metadata?: Metadata;
    /** How much the writer trusts the memory, from 0 (not at all) to 1 (certain). */
    confidence?: Confidence;
    /** New expiry time. */
    expires_at?: EpochMillis;
    /**
     * A new seal over the changed record (a sealed record whose content or metadata changes needs one
     * to stay verifiable).
     */
    seal?: Seal;
    /**
     * Why, in the caller's words; kept in the audit log.
     *
     * Constraints: at most 4096 characters.
     */
    reason?: string;
}
/**
 * What an update did. Extensible.
 *
 * Message `update.response` (emitted by a store; extensible: keep and ignore fields you do not
 * know).
 */
export interface UpdateResponse {
    /**
     * Stable identifier of one memory record. Minted once (by the client or the first component that
     * stores the record) and kept by every store that holds a copy.
     */
    id: MemoryId;
    /** The record's new version. */
    version: RecordVersion;
    /** The fields that changed value (a field sent with its current value is not listed). */
    updated: string[];
    /** When the update took effect. */
    updated_at: EpochMillis;
    /**
     * Time the update took, in milliseconds.
     *
     * Constraints: ≥ 0.
     */
    latency_ms: number;
    /** What each store did. */
    stores?: StoreResult[];
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Optional end-user scope inside an agent's memory. When a request carries it, the operation only
 * sees records stored under the same user_id.
 *
 * Constraints: at most 256 characters.
 */
export type UserId = string;
/** One user of an agent (user_id absent: the records without one). */
export interface UserScope {
    /**
     * Optional end-user scope inside an agent's memory. When a request carries it, the operation only
     * sees records stored under the same user_id.
     */
    user_id?: UserId;
    /**
     * Records in every kept state.
     *
     * Constraints: an integer, ≥ 0.
     */
    records: number;
    /** Fields this version does not declare (a newer version may add some): kept, not typed. */
    [key: string]: unknown;
}
/**
 * Pleasantness of an emotional memory, from -1 (very unpleasant) to 1 (very pleasant).
 *
 * Constraints: ≥ -1, ≤ 1.
 */
export type Valence = number;
