/**
 * A validator for every type of memorywire v0.4, generated from the spec as
 * straight-line code. Each reports the same (path, rule) set as the reference validator
 * (`mnemowire.spec`, Python) for every payload: every broken rule at once, each with the JSON
 * Pointer of the offending value, so a client can fix them all in one go.
 *
 * @module
 */
import { type ValidationError } from "./runtime.js";
import type { Action, ActionStatus, AgentId, AgentScope, ArchiveEnd, ArchiveManifest, ArchiveOrigin, ArchiveRecord, ArchiveScope, ArchiveSource, ArchiveTombstone, Arousal, Capabilities, Capability, Confidence, ConsolidateRequest, ConsolidateResponse, Counts, DecideRequest, DecideResponse, DedupeMode, Diff, DuplicateEvidence, DuplicateGroup, EmbedderRef, EpochMillis, ErrorCode, ErrorDetail, ErrorEnvelope, ExpectedVersions, ExpireAction, ExpirePolicy, ExpireRequest, ExpireResponse, ExportRecordsRequest, ExportRecordsResponse, Facts, Fidelity, FieldFidelity, Filter, FilterCondition, FilterOperators, FilterScalar, FiredTransition, ForgetRequest, ForgetResponse, FusionMethod, GetRequest, GetResponse, GroupStatus, Health, HealthStatus, HistoryEntry, HistoryRequest, HistoryResponse, IdList, Identifier, IdentifierList, ImportRecordsRequest, ImportRecordsResponse, Imported, Intent, Kept, KeptState, KeptStates, ListRequest, ListResponse, MemoryId, MemoryRecord, MemoryType, MergeRequest, MergeResponse, MergeStrategy, Metadata, ModifiedRecord, OpenCapability, OpenErrorCode, OpenExpireAction, OpenFusionMethod, OpenHealthStatus, OpenMemoryType, OpenMergeStrategy, OpenRecordState, OpenRunStatus, OpenSentiment, OpenStoreStatus, Participants, PlannedAction, PlannedMerge, ProcedureRun, PromoteRequest, PromoteResponse, PromotionAction, PromotionRules, QueryVector, RecallHit, RecallRequest, RecallResponse, RecordState, RecordStates, RecordVersion, RelatedRecord, RememberBatchRequest, RememberBatchResponse, RememberRequest, RememberResponse, RestoreRequest, RestoreResponse, ReviewDecision, ReviewOutcome, ReviewRequest, ReviewedOperation, ReviewsRequest, ReviewsResponse, RunFireRequest, RunFireResponse, RunGetRequest, RunGetResponse, RunStartRequest, RunStartResponse, RunStatus, ScopeFilter, ScopesRequest, ScopesResponse, Seal, Sentiment, Sha256, ShortTermType, StagedReview, StagingPolicy, StagingRule, StateMachine, StateName, StoreHealth, StoreResult, StoreStatus, TombstoneCounts, Transition, UpdateRequest, UpdateResponse, UserId, UserScope, Valence } from "./types.js";
/**
 * Every rule `value` breaks as a `Action`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateAction(value: unknown): ValidationError[];
/** Whether `value` is a valid Action (no rule broken). */
export declare function isAction(value: unknown): value is Action;
/**
 * Every rule `value` breaks as a `ActionStatus`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateActionStatus(value: unknown): ValidationError[];
/** Whether `value` is a valid ActionStatus (no rule broken). */
export declare function isActionStatus(value: unknown): value is ActionStatus;
/**
 * Every rule `value` breaks as a `AgentId`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateAgentId(value: unknown): ValidationError[];
/** Whether `value` is a valid AgentId (no rule broken). */
export declare function isAgentId(value: unknown): value is AgentId;
/**
 * Every rule `value` breaks as a `AgentScope`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateAgentScope(value: unknown): ValidationError[];
/** Whether `value` is a valid AgentScope (no rule broken). */
export declare function isAgentScope(value: unknown): value is AgentScope;
/**
 * Every rule `value` breaks as message `archive-end`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateArchiveEnd(value: unknown): ValidationError[];
/** Whether `value` is a valid ArchiveEnd (no rule broken). */
export declare function isArchiveEnd(value: unknown): value is ArchiveEnd;
/**
 * Every rule `value` breaks as message `archive-manifest`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateArchiveManifest(value: unknown): ValidationError[];
/** Whether `value` is a valid ArchiveManifest (no rule broken). */
export declare function isArchiveManifest(value: unknown): value is ArchiveManifest;
/**
 * Every rule `value` breaks as a `ArchiveOrigin`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateArchiveOrigin(value: unknown): ValidationError[];
/** Whether `value` is a valid ArchiveOrigin (no rule broken). */
export declare function isArchiveOrigin(value: unknown): value is ArchiveOrigin;
/**
 * Every rule `value` breaks as message `archive-record`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateArchiveRecord(value: unknown): ValidationError[];
/** Whether `value` is a valid ArchiveRecord (no rule broken). */
export declare function isArchiveRecord(value: unknown): value is ArchiveRecord;
/**
 * Every rule `value` breaks as a `ArchiveScope`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateArchiveScope(value: unknown): ValidationError[];
/** Whether `value` is a valid ArchiveScope (no rule broken). */
export declare function isArchiveScope(value: unknown): value is ArchiveScope;
/**
 * Every rule `value` breaks as a `ArchiveSource`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateArchiveSource(value: unknown): ValidationError[];
/** Whether `value` is a valid ArchiveSource (no rule broken). */
export declare function isArchiveSource(value: unknown): value is ArchiveSource;
/**
 * Every rule `value` breaks as message `archive-tombstone`, as `{path, rule, message}` (path: a
 * JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateArchiveTombstone(value: unknown): ValidationError[];
/** Whether `value` is a valid ArchiveTombstone (no rule broken). */
export declare function isArchiveTombstone(value: unknown): value is ArchiveTombstone;
/**
 * Every rule `value` breaks as a `Arousal`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateArousal(value: unknown): ValidationError[];
/** Whether `value` is a valid Arousal (no rule broken). */
export declare function isArousal(value: unknown): value is Arousal;
/**
 * Every rule `value` breaks as message `capabilities`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateCapabilities(value: unknown): ValidationError[];
/** Whether `value` is a valid Capabilities (no rule broken). */
export declare function isCapabilities(value: unknown): value is Capabilities;
/**
 * Every rule `value` breaks as a `Capability`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateCapability(value: unknown): ValidationError[];
/** Whether `value` is a valid Capability (no rule broken). */
export declare function isCapability(value: unknown): value is Capability;
/**
 * Every rule `value` breaks as a `Confidence`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateConfidence(value: unknown): ValidationError[];
/** Whether `value` is a valid Confidence (no rule broken). */
export declare function isConfidence(value: unknown): value is Confidence;
/**
 * Every rule `value` breaks as message `consolidate.request`, as `{path, rule, message}` (path: a
 * JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateConsolidateRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid ConsolidateRequest (no rule broken). */
export declare function isConsolidateRequest(value: unknown): value is ConsolidateRequest;
/**
 * Every rule `value` breaks as message `consolidate.response`, as `{path, rule, message}` (path: a
 * JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateConsolidateResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid ConsolidateResponse (no rule broken). */
export declare function isConsolidateResponse(value: unknown): value is ConsolidateResponse;
/**
 * Every rule `value` breaks as a `Counts`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateCounts(value: unknown): ValidationError[];
/** Whether `value` is a valid Counts (no rule broken). */
export declare function isCounts(value: unknown): value is Counts;
/**
 * Every rule `value` breaks as message `decide.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateDecideRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid DecideRequest (no rule broken). */
export declare function isDecideRequest(value: unknown): value is DecideRequest;
/**
 * Every rule `value` breaks as message `decide.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateDecideResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid DecideResponse (no rule broken). */
export declare function isDecideResponse(value: unknown): value is DecideResponse;
/**
 * Every rule `value` breaks as a `DedupeMode`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateDedupeMode(value: unknown): ValidationError[];
/** Whether `value` is a valid DedupeMode (no rule broken). */
export declare function isDedupeMode(value: unknown): value is DedupeMode;
/**
 * Every rule `value` breaks as a `Diff`, as `{path, rule, message}` (path: a JSON Pointer), sorted
 * by path and rule; empty when it is valid.
 */
export declare function validateDiff(value: unknown): ValidationError[];
/** Whether `value` is a valid Diff (no rule broken). */
export declare function isDiff(value: unknown): value is Diff;
/**
 * Every rule `value` breaks as a `DuplicateEvidence`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateDuplicateEvidence(value: unknown): ValidationError[];
/** Whether `value` is a valid DuplicateEvidence (no rule broken). */
export declare function isDuplicateEvidence(value: unknown): value is DuplicateEvidence;
/**
 * Every rule `value` breaks as a `DuplicateGroup`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateDuplicateGroup(value: unknown): ValidationError[];
/** Whether `value` is a valid DuplicateGroup (no rule broken). */
export declare function isDuplicateGroup(value: unknown): value is DuplicateGroup;
/**
 * Every rule `value` breaks as a `EmbedderRef`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateEmbedderRef(value: unknown): ValidationError[];
/** Whether `value` is a valid EmbedderRef (no rule broken). */
export declare function isEmbedderRef(value: unknown): value is EmbedderRef;
/**
 * Every rule `value` breaks as a `EpochMillis`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateEpochMillis(value: unknown): ValidationError[];
/** Whether `value` is a valid EpochMillis (no rule broken). */
export declare function isEpochMillis(value: unknown): value is EpochMillis;
/**
 * Every rule `value` breaks as a `ErrorCode`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateErrorCode(value: unknown): ValidationError[];
/** Whether `value` is a valid ErrorCode (no rule broken). */
export declare function isErrorCode(value: unknown): value is ErrorCode;
/**
 * Every rule `value` breaks as a `ErrorDetail`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateErrorDetail(value: unknown): ValidationError[];
/** Whether `value` is a valid ErrorDetail (no rule broken). */
export declare function isErrorDetail(value: unknown): value is ErrorDetail;
/**
 * Every rule `value` breaks as message `error`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateErrorEnvelope(value: unknown): ValidationError[];
/** Whether `value` is a valid ErrorEnvelope (no rule broken). */
export declare function isErrorEnvelope(value: unknown): value is ErrorEnvelope;
/**
 * Every rule `value` breaks as a `ExpectedVersions`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateExpectedVersions(value: unknown): ValidationError[];
/** Whether `value` is a valid ExpectedVersions (no rule broken). */
export declare function isExpectedVersions(value: unknown): value is ExpectedVersions;
/**
 * Every rule `value` breaks as a `ExpireAction`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateExpireAction(value: unknown): ValidationError[];
/** Whether `value` is a valid ExpireAction (no rule broken). */
export declare function isExpireAction(value: unknown): value is ExpireAction;
/**
 * Every rule `value` breaks as a `ExpirePolicy`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateExpirePolicy(value: unknown): ValidationError[];
/** Whether `value` is a valid ExpirePolicy (no rule broken). */
export declare function isExpirePolicy(value: unknown): value is ExpirePolicy;
/**
 * Every rule `value` breaks as message `expire.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateExpireRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid ExpireRequest (no rule broken). */
export declare function isExpireRequest(value: unknown): value is ExpireRequest;
/**
 * Every rule `value` breaks as message `expire.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateExpireResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid ExpireResponse (no rule broken). */
export declare function isExpireResponse(value: unknown): value is ExpireResponse;
/**
 * Every rule `value` breaks as message `export_records.request`, as `{path, rule, message}` (path:
 * a JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateExportRecordsRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid ExportRecordsRequest (no rule broken). */
export declare function isExportRecordsRequest(value: unknown): value is ExportRecordsRequest;
/**
 * Every rule `value` breaks as message `export_records.response`, as `{path, rule, message}` (path:
 * a JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateExportRecordsResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid ExportRecordsResponse (no rule broken). */
export declare function isExportRecordsResponse(value: unknown): value is ExportRecordsResponse;
/**
 * Every rule `value` breaks as a `Facts`, as `{path, rule, message}` (path: a JSON Pointer), sorted
 * by path and rule; empty when it is valid.
 */
export declare function validateFacts(value: unknown): ValidationError[];
/** Whether `value` is a valid Facts (no rule broken). */
export declare function isFacts(value: unknown): value is Facts;
/**
 * Every rule `value` breaks as a `Fidelity`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateFidelity(value: unknown): ValidationError[];
/** Whether `value` is a valid Fidelity (no rule broken). */
export declare function isFidelity(value: unknown): value is Fidelity;
/**
 * Every rule `value` breaks as a `FieldFidelity`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateFieldFidelity(value: unknown): ValidationError[];
/** Whether `value` is a valid FieldFidelity (no rule broken). */
export declare function isFieldFidelity(value: unknown): value is FieldFidelity;
/**
 * Every rule `value` breaks as a `Filter`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateFilter(value: unknown): ValidationError[];
/** Whether `value` is a valid Filter (no rule broken). */
export declare function isFilter(value: unknown): value is Filter;
/**
 * Every rule `value` breaks as a `FilterCondition`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateFilterCondition(value: unknown): ValidationError[];
/** Whether `value` is a valid FilterCondition (no rule broken). */
export declare function isFilterCondition(value: unknown): value is FilterCondition;
/**
 * Every rule `value` breaks as a `FilterOperators`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateFilterOperators(value: unknown): ValidationError[];
/** Whether `value` is a valid FilterOperators (no rule broken). */
export declare function isFilterOperators(value: unknown): value is FilterOperators;
/**
 * Every rule `value` breaks as a `FilterScalar`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateFilterScalar(value: unknown): ValidationError[];
/** Whether `value` is a valid FilterScalar (no rule broken). */
export declare function isFilterScalar(value: unknown): value is FilterScalar;
/**
 * Every rule `value` breaks as a `FiredTransition`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateFiredTransition(value: unknown): ValidationError[];
/** Whether `value` is a valid FiredTransition (no rule broken). */
export declare function isFiredTransition(value: unknown): value is FiredTransition;
/**
 * Every rule `value` breaks as message `forget.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateForgetRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid ForgetRequest (no rule broken). */
export declare function isForgetRequest(value: unknown): value is ForgetRequest;
/**
 * Every rule `value` breaks as message `forget.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateForgetResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid ForgetResponse (no rule broken). */
export declare function isForgetResponse(value: unknown): value is ForgetResponse;
/**
 * Every rule `value` breaks as a `FusionMethod`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateFusionMethod(value: unknown): ValidationError[];
/** Whether `value` is a valid FusionMethod (no rule broken). */
export declare function isFusionMethod(value: unknown): value is FusionMethod;
/**
 * Every rule `value` breaks as message `get.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateGetRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid GetRequest (no rule broken). */
export declare function isGetRequest(value: unknown): value is GetRequest;
/**
 * Every rule `value` breaks as message `get.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateGetResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid GetResponse (no rule broken). */
export declare function isGetResponse(value: unknown): value is GetResponse;
/**
 * Every rule `value` breaks as a `GroupStatus`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateGroupStatus(value: unknown): ValidationError[];
/** Whether `value` is a valid GroupStatus (no rule broken). */
export declare function isGroupStatus(value: unknown): value is GroupStatus;
/**
 * Every rule `value` breaks as message `health`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateHealth(value: unknown): ValidationError[];
/** Whether `value` is a valid Health (no rule broken). */
export declare function isHealth(value: unknown): value is Health;
/**
 * Every rule `value` breaks as a `HealthStatus`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateHealthStatus(value: unknown): ValidationError[];
/** Whether `value` is a valid HealthStatus (no rule broken). */
export declare function isHealthStatus(value: unknown): value is HealthStatus;
/**
 * Every rule `value` breaks as a `HistoryEntry`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateHistoryEntry(value: unknown): ValidationError[];
/** Whether `value` is a valid HistoryEntry (no rule broken). */
export declare function isHistoryEntry(value: unknown): value is HistoryEntry;
/**
 * Every rule `value` breaks as message `history.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateHistoryRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid HistoryRequest (no rule broken). */
export declare function isHistoryRequest(value: unknown): value is HistoryRequest;
/**
 * Every rule `value` breaks as message `history.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateHistoryResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid HistoryResponse (no rule broken). */
export declare function isHistoryResponse(value: unknown): value is HistoryResponse;
/**
 * Every rule `value` breaks as a `IdList`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateIdList(value: unknown): ValidationError[];
/** Whether `value` is a valid IdList (no rule broken). */
export declare function isIdList(value: unknown): value is IdList;
/**
 * Every rule `value` breaks as a `Identifier`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateIdentifier(value: unknown): ValidationError[];
/** Whether `value` is a valid Identifier (no rule broken). */
export declare function isIdentifier(value: unknown): value is Identifier;
/**
 * Every rule `value` breaks as a `IdentifierList`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateIdentifierList(value: unknown): ValidationError[];
/** Whether `value` is a valid IdentifierList (no rule broken). */
export declare function isIdentifierList(value: unknown): value is IdentifierList;
/**
 * Every rule `value` breaks as message `import_records.request`, as `{path, rule, message}` (path:
 * a JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateImportRecordsRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid ImportRecordsRequest (no rule broken). */
export declare function isImportRecordsRequest(value: unknown): value is ImportRecordsRequest;
/**
 * Every rule `value` breaks as message `import_records.response`, as `{path, rule, message}` (path:
 * a JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateImportRecordsResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid ImportRecordsResponse (no rule broken). */
export declare function isImportRecordsResponse(value: unknown): value is ImportRecordsResponse;
/**
 * Every rule `value` breaks as a `Imported`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateImported(value: unknown): ValidationError[];
/** Whether `value` is a valid Imported (no rule broken). */
export declare function isImported(value: unknown): value is Imported;
/**
 * Every rule `value` breaks as a `Intent`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateIntent(value: unknown): ValidationError[];
/** Whether `value` is a valid Intent (no rule broken). */
export declare function isIntent(value: unknown): value is Intent;
/**
 * Every rule `value` breaks as a `Kept`, as `{path, rule, message}` (path: a JSON Pointer), sorted
 * by path and rule; empty when it is valid.
 */
export declare function validateKept(value: unknown): ValidationError[];
/** Whether `value` is a valid Kept (no rule broken). */
export declare function isKept(value: unknown): value is Kept;
/**
 * Every rule `value` breaks as a `KeptState`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateKeptState(value: unknown): ValidationError[];
/** Whether `value` is a valid KeptState (no rule broken). */
export declare function isKeptState(value: unknown): value is KeptState;
/**
 * Every rule `value` breaks as a `KeptStates`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateKeptStates(value: unknown): ValidationError[];
/** Whether `value` is a valid KeptStates (no rule broken). */
export declare function isKeptStates(value: unknown): value is KeptStates;
/**
 * Every rule `value` breaks as message `list.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateListRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid ListRequest (no rule broken). */
export declare function isListRequest(value: unknown): value is ListRequest;
/**
 * Every rule `value` breaks as message `list.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateListResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid ListResponse (no rule broken). */
export declare function isListResponse(value: unknown): value is ListResponse;
/**
 * Every rule `value` breaks as a `MemoryId`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateMemoryId(value: unknown): ValidationError[];
/** Whether `value` is a valid MemoryId (no rule broken). */
export declare function isMemoryId(value: unknown): value is MemoryId;
/**
 * Every rule `value` breaks as a `MemoryRecord`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateMemoryRecord(value: unknown): ValidationError[];
/** Whether `value` is a valid MemoryRecord (no rule broken). */
export declare function isMemoryRecord(value: unknown): value is MemoryRecord;
/**
 * Every rule `value` breaks as a `MemoryType`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateMemoryType(value: unknown): ValidationError[];
/** Whether `value` is a valid MemoryType (no rule broken). */
export declare function isMemoryType(value: unknown): value is MemoryType;
/**
 * Every rule `value` breaks as message `merge.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateMergeRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid MergeRequest (no rule broken). */
export declare function isMergeRequest(value: unknown): value is MergeRequest;
/**
 * Every rule `value` breaks as message `merge.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateMergeResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid MergeResponse (no rule broken). */
export declare function isMergeResponse(value: unknown): value is MergeResponse;
/**
 * Every rule `value` breaks as a `MergeStrategy`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateMergeStrategy(value: unknown): ValidationError[];
/** Whether `value` is a valid MergeStrategy (no rule broken). */
export declare function isMergeStrategy(value: unknown): value is MergeStrategy;
/**
 * Every rule `value` breaks as a `Metadata`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateMetadata(value: unknown): ValidationError[];
/** Whether `value` is a valid Metadata (no rule broken). */
export declare function isMetadata(value: unknown): value is Metadata;
/**
 * Every rule `value` breaks as a `ModifiedRecord`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateModifiedRecord(value: unknown): ValidationError[];
/** Whether `value` is a valid ModifiedRecord (no rule broken). */
export declare function isModifiedRecord(value: unknown): value is ModifiedRecord;
/**
 * Every rule `value` breaks as a `OpenCapability`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateOpenCapability(value: unknown): ValidationError[];
/** Whether `value` is a valid OpenCapability (no rule broken). */
export declare function isOpenCapability(value: unknown): value is OpenCapability;
/**
 * Every rule `value` breaks as a `OpenErrorCode`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateOpenErrorCode(value: unknown): ValidationError[];
/** Whether `value` is a valid OpenErrorCode (no rule broken). */
export declare function isOpenErrorCode(value: unknown): value is OpenErrorCode;
/**
 * Every rule `value` breaks as a `OpenExpireAction`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateOpenExpireAction(value: unknown): ValidationError[];
/** Whether `value` is a valid OpenExpireAction (no rule broken). */
export declare function isOpenExpireAction(value: unknown): value is OpenExpireAction;
/**
 * Every rule `value` breaks as a `OpenFusionMethod`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateOpenFusionMethod(value: unknown): ValidationError[];
/** Whether `value` is a valid OpenFusionMethod (no rule broken). */
export declare function isOpenFusionMethod(value: unknown): value is OpenFusionMethod;
/**
 * Every rule `value` breaks as a `OpenHealthStatus`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateOpenHealthStatus(value: unknown): ValidationError[];
/** Whether `value` is a valid OpenHealthStatus (no rule broken). */
export declare function isOpenHealthStatus(value: unknown): value is OpenHealthStatus;
/**
 * Every rule `value` breaks as a `OpenMemoryType`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateOpenMemoryType(value: unknown): ValidationError[];
/** Whether `value` is a valid OpenMemoryType (no rule broken). */
export declare function isOpenMemoryType(value: unknown): value is OpenMemoryType;
/**
 * Every rule `value` breaks as a `OpenMergeStrategy`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateOpenMergeStrategy(value: unknown): ValidationError[];
/** Whether `value` is a valid OpenMergeStrategy (no rule broken). */
export declare function isOpenMergeStrategy(value: unknown): value is OpenMergeStrategy;
/**
 * Every rule `value` breaks as a `OpenRecordState`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateOpenRecordState(value: unknown): ValidationError[];
/** Whether `value` is a valid OpenRecordState (no rule broken). */
export declare function isOpenRecordState(value: unknown): value is OpenRecordState;
/**
 * Every rule `value` breaks as a `OpenRunStatus`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateOpenRunStatus(value: unknown): ValidationError[];
/** Whether `value` is a valid OpenRunStatus (no rule broken). */
export declare function isOpenRunStatus(value: unknown): value is OpenRunStatus;
/**
 * Every rule `value` breaks as a `OpenSentiment`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateOpenSentiment(value: unknown): ValidationError[];
/** Whether `value` is a valid OpenSentiment (no rule broken). */
export declare function isOpenSentiment(value: unknown): value is OpenSentiment;
/**
 * Every rule `value` breaks as a `OpenStoreStatus`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateOpenStoreStatus(value: unknown): ValidationError[];
/** Whether `value` is a valid OpenStoreStatus (no rule broken). */
export declare function isOpenStoreStatus(value: unknown): value is OpenStoreStatus;
/**
 * Every rule `value` breaks as a `Participants`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateParticipants(value: unknown): ValidationError[];
/** Whether `value` is a valid Participants (no rule broken). */
export declare function isParticipants(value: unknown): value is Participants;
/**
 * Every rule `value` breaks as a `PlannedAction`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validatePlannedAction(value: unknown): ValidationError[];
/** Whether `value` is a valid PlannedAction (no rule broken). */
export declare function isPlannedAction(value: unknown): value is PlannedAction;
/**
 * Every rule `value` breaks as a `PlannedMerge`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validatePlannedMerge(value: unknown): ValidationError[];
/** Whether `value` is a valid PlannedMerge (no rule broken). */
export declare function isPlannedMerge(value: unknown): value is PlannedMerge;
/**
 * Every rule `value` breaks as a `ProcedureRun`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateProcedureRun(value: unknown): ValidationError[];
/** Whether `value` is a valid ProcedureRun (no rule broken). */
export declare function isProcedureRun(value: unknown): value is ProcedureRun;
/**
 * Every rule `value` breaks as message `promote.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validatePromoteRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid PromoteRequest (no rule broken). */
export declare function isPromoteRequest(value: unknown): value is PromoteRequest;
/**
 * Every rule `value` breaks as message `promote.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validatePromoteResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid PromoteResponse (no rule broken). */
export declare function isPromoteResponse(value: unknown): value is PromoteResponse;
/**
 * Every rule `value` breaks as a `PromotionAction`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validatePromotionAction(value: unknown): ValidationError[];
/** Whether `value` is a valid PromotionAction (no rule broken). */
export declare function isPromotionAction(value: unknown): value is PromotionAction;
/**
 * Every rule `value` breaks as a `PromotionRules`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validatePromotionRules(value: unknown): ValidationError[];
/** Whether `value` is a valid PromotionRules (no rule broken). */
export declare function isPromotionRules(value: unknown): value is PromotionRules;
/**
 * Every rule `value` breaks as a `QueryVector`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateQueryVector(value: unknown): ValidationError[];
/** Whether `value` is a valid QueryVector (no rule broken). */
export declare function isQueryVector(value: unknown): value is QueryVector;
/**
 * Every rule `value` breaks as a `RecallHit`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateRecallHit(value: unknown): ValidationError[];
/** Whether `value` is a valid RecallHit (no rule broken). */
export declare function isRecallHit(value: unknown): value is RecallHit;
/**
 * Every rule `value` breaks as message `recall.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRecallRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid RecallRequest (no rule broken). */
export declare function isRecallRequest(value: unknown): value is RecallRequest;
/**
 * Every rule `value` breaks as message `recall.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRecallResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid RecallResponse (no rule broken). */
export declare function isRecallResponse(value: unknown): value is RecallResponse;
/**
 * Every rule `value` breaks as a `RecordState`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateRecordState(value: unknown): ValidationError[];
/** Whether `value` is a valid RecordState (no rule broken). */
export declare function isRecordState(value: unknown): value is RecordState;
/**
 * Every rule `value` breaks as a `RecordStates`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateRecordStates(value: unknown): ValidationError[];
/** Whether `value` is a valid RecordStates (no rule broken). */
export declare function isRecordStates(value: unknown): value is RecordStates;
/**
 * Every rule `value` breaks as a `RecordVersion`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRecordVersion(value: unknown): ValidationError[];
/** Whether `value` is a valid RecordVersion (no rule broken). */
export declare function isRecordVersion(value: unknown): value is RecordVersion;
/**
 * Every rule `value` breaks as a `RelatedRecord`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRelatedRecord(value: unknown): ValidationError[];
/** Whether `value` is a valid RelatedRecord (no rule broken). */
export declare function isRelatedRecord(value: unknown): value is RelatedRecord;
/**
 * Every rule `value` breaks as message `remember_batch.request`, as `{path, rule, message}` (path:
 * a JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRememberBatchRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid RememberBatchRequest (no rule broken). */
export declare function isRememberBatchRequest(value: unknown): value is RememberBatchRequest;
/**
 * Every rule `value` breaks as message `remember_batch.response`, as `{path, rule, message}` (path:
 * a JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRememberBatchResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid RememberBatchResponse (no rule broken). */
export declare function isRememberBatchResponse(value: unknown): value is RememberBatchResponse;
/**
 * Every rule `value` breaks as message `remember.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 *
 * The spec's semantic rules (`stateReference`) are checked once the schema holds.
 */
export declare function validateRememberRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid RememberRequest (no rule broken). */
export declare function isRememberRequest(value: unknown): value is RememberRequest;
/**
 * Every rule `value` breaks as message `remember.response`, as `{path, rule, message}` (path: a
 * JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRememberResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid RememberResponse (no rule broken). */
export declare function isRememberResponse(value: unknown): value is RememberResponse;
/**
 * Every rule `value` breaks as message `restore.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRestoreRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid RestoreRequest (no rule broken). */
export declare function isRestoreRequest(value: unknown): value is RestoreRequest;
/**
 * Every rule `value` breaks as message `restore.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRestoreResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid RestoreResponse (no rule broken). */
export declare function isRestoreResponse(value: unknown): value is RestoreResponse;
/**
 * Every rule `value` breaks as message `review-decision`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateReviewDecision(value: unknown): ValidationError[];
/** Whether `value` is a valid ReviewDecision (no rule broken). */
export declare function isReviewDecision(value: unknown): value is ReviewDecision;
/**
 * Every rule `value` breaks as a `ReviewOutcome`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateReviewOutcome(value: unknown): ValidationError[];
/** Whether `value` is a valid ReviewOutcome (no rule broken). */
export declare function isReviewOutcome(value: unknown): value is ReviewOutcome;
/**
 * Every rule `value` breaks as message `review-request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 *
 * The spec's semantic rules (`stateReference`) are checked once the schema holds.
 */
export declare function validateReviewRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid ReviewRequest (no rule broken). */
export declare function isReviewRequest(value: unknown): value is ReviewRequest;
/**
 * Every rule `value` breaks as a `ReviewedOperation`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateReviewedOperation(value: unknown): ValidationError[];
/** Whether `value` is a valid ReviewedOperation (no rule broken). */
export declare function isReviewedOperation(value: unknown): value is ReviewedOperation;
/**
 * Every rule `value` breaks as message `reviews.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateReviewsRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid ReviewsRequest (no rule broken). */
export declare function isReviewsRequest(value: unknown): value is ReviewsRequest;
/**
 * Every rule `value` breaks as message `reviews.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateReviewsResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid ReviewsResponse (no rule broken). */
export declare function isReviewsResponse(value: unknown): value is ReviewsResponse;
/**
 * Every rule `value` breaks as message `run_fire.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRunFireRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid RunFireRequest (no rule broken). */
export declare function isRunFireRequest(value: unknown): value is RunFireRequest;
/**
 * Every rule `value` breaks as message `run_fire.response`, as `{path, rule, message}` (path: a
 * JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRunFireResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid RunFireResponse (no rule broken). */
export declare function isRunFireResponse(value: unknown): value is RunFireResponse;
/**
 * Every rule `value` breaks as message `run_get.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRunGetRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid RunGetRequest (no rule broken). */
export declare function isRunGetRequest(value: unknown): value is RunGetRequest;
/**
 * Every rule `value` breaks as message `run_get.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRunGetResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid RunGetResponse (no rule broken). */
export declare function isRunGetResponse(value: unknown): value is RunGetResponse;
/**
 * Every rule `value` breaks as message `run_start.request`, as `{path, rule, message}` (path: a
 * JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRunStartRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid RunStartRequest (no rule broken). */
export declare function isRunStartRequest(value: unknown): value is RunStartRequest;
/**
 * Every rule `value` breaks as message `run_start.response`, as `{path, rule, message}` (path: a
 * JSON Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateRunStartResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid RunStartResponse (no rule broken). */
export declare function isRunStartResponse(value: unknown): value is RunStartResponse;
/**
 * Every rule `value` breaks as a `RunStatus`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateRunStatus(value: unknown): ValidationError[];
/** Whether `value` is a valid RunStatus (no rule broken). */
export declare function isRunStatus(value: unknown): value is RunStatus;
/**
 * Every rule `value` breaks as a `ScopeFilter`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateScopeFilter(value: unknown): ValidationError[];
/** Whether `value` is a valid ScopeFilter (no rule broken). */
export declare function isScopeFilter(value: unknown): value is ScopeFilter;
/**
 * Every rule `value` breaks as message `scopes.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateScopesRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid ScopesRequest (no rule broken). */
export declare function isScopesRequest(value: unknown): value is ScopesRequest;
/**
 * Every rule `value` breaks as message `scopes.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateScopesResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid ScopesResponse (no rule broken). */
export declare function isScopesResponse(value: unknown): value is ScopesResponse;
/**
 * Every rule `value` breaks as a `Seal`, as `{path, rule, message}` (path: a JSON Pointer), sorted
 * by path and rule; empty when it is valid.
 */
export declare function validateSeal(value: unknown): ValidationError[];
/** Whether `value` is a valid Seal (no rule broken). */
export declare function isSeal(value: unknown): value is Seal;
/**
 * Every rule `value` breaks as a `Sentiment`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateSentiment(value: unknown): ValidationError[];
/** Whether `value` is a valid Sentiment (no rule broken). */
export declare function isSentiment(value: unknown): value is Sentiment;
/**
 * Every rule `value` breaks as a `Sha256`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateSha256(value: unknown): ValidationError[];
/** Whether `value` is a valid Sha256 (no rule broken). */
export declare function isSha256(value: unknown): value is Sha256;
/**
 * Every rule `value` breaks as a `ShortTermType`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateShortTermType(value: unknown): ValidationError[];
/** Whether `value` is a valid ShortTermType (no rule broken). */
export declare function isShortTermType(value: unknown): value is ShortTermType;
/**
 * Every rule `value` breaks as a `StagedReview`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateStagedReview(value: unknown): ValidationError[];
/** Whether `value` is a valid StagedReview (no rule broken). */
export declare function isStagedReview(value: unknown): value is StagedReview;
/**
 * Every rule `value` breaks as a `StagingPolicy`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateStagingPolicy(value: unknown): ValidationError[];
/** Whether `value` is a valid StagingPolicy (no rule broken). */
export declare function isStagingPolicy(value: unknown): value is StagingPolicy;
/**
 * Every rule `value` breaks as a `StagingRule`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateStagingRule(value: unknown): ValidationError[];
/** Whether `value` is a valid StagingRule (no rule broken). */
export declare function isStagingRule(value: unknown): value is StagingRule;
/**
 * Every rule `value` breaks as a `StateMachine`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateStateMachine(value: unknown): ValidationError[];
/** Whether `value` is a valid StateMachine (no rule broken). */
export declare function isStateMachine(value: unknown): value is StateMachine;
/**
 * Every rule `value` breaks as a `StateName`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateStateName(value: unknown): ValidationError[];
/** Whether `value` is a valid StateName (no rule broken). */
export declare function isStateName(value: unknown): value is StateName;
/**
 * Every rule `value` breaks as a `StoreHealth`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateStoreHealth(value: unknown): ValidationError[];
/** Whether `value` is a valid StoreHealth (no rule broken). */
export declare function isStoreHealth(value: unknown): value is StoreHealth;
/**
 * Every rule `value` breaks as a `StoreResult`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateStoreResult(value: unknown): ValidationError[];
/** Whether `value` is a valid StoreResult (no rule broken). */
export declare function isStoreResult(value: unknown): value is StoreResult;
/**
 * Every rule `value` breaks as a `StoreStatus`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateStoreStatus(value: unknown): ValidationError[];
/** Whether `value` is a valid StoreStatus (no rule broken). */
export declare function isStoreStatus(value: unknown): value is StoreStatus;
/**
 * Every rule `value` breaks as a `TombstoneCounts`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateTombstoneCounts(value: unknown): ValidationError[];
/** Whether `value` is a valid TombstoneCounts (no rule broken). */
export declare function isTombstoneCounts(value: unknown): value is TombstoneCounts;
/**
 * Every rule `value` breaks as a `Transition`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateTransition(value: unknown): ValidationError[];
/** Whether `value` is a valid Transition (no rule broken). */
export declare function isTransition(value: unknown): value is Transition;
/**
 * Every rule `value` breaks as message `update.request`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateUpdateRequest(value: unknown): ValidationError[];
/** Whether `value` is a valid UpdateRequest (no rule broken). */
export declare function isUpdateRequest(value: unknown): value is UpdateRequest;
/**
 * Every rule `value` breaks as message `update.response`, as `{path, rule, message}` (path: a JSON
 * Pointer), sorted by path and rule; empty when it is valid.
 */
export declare function validateUpdateResponse(value: unknown): ValidationError[];
/** Whether `value` is a valid UpdateResponse (no rule broken). */
export declare function isUpdateResponse(value: unknown): value is UpdateResponse;
/**
 * Every rule `value` breaks as a `UserId`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateUserId(value: unknown): ValidationError[];
/** Whether `value` is a valid UserId (no rule broken). */
export declare function isUserId(value: unknown): value is UserId;
/**
 * Every rule `value` breaks as a `UserScope`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateUserScope(value: unknown): ValidationError[];
/** Whether `value` is a valid UserScope (no rule broken). */
export declare function isUserScope(value: unknown): value is UserScope;
/**
 * Every rule `value` breaks as a `Valence`, as `{path, rule, message}` (path: a JSON Pointer),
 * sorted by path and rule; empty when it is valid.
 */
export declare function validateValence(value: unknown): ValidationError[];
/** Whether `value` is a valid Valence (no rule broken). */
export declare function isValence(value: unknown): value is Valence;
/** Every message name of the spec, sorted. */
export declare const MESSAGES: readonly ["archive-end", "archive-manifest", "archive-record", "archive-tombstone", "capabilities", "consolidate.request", "consolidate.response", "decide.request", "decide.response", "error", "expire.request", "expire.response", "export_records.request", "export_records.response", "forget.request", "forget.response", "get.request", "get.response", "health", "history.request", "history.response", "import_records.request", "import_records.response", "list.request", "list.response", "merge.request", "merge.response", "promote.request", "promote.response", "recall.request", "recall.response", "remember.request", "remember.response", "remember_batch.request", "remember_batch.response", "restore.request", "restore.response", "review-decision", "review-request", "reviews.request", "reviews.response", "run_fire.request", "run_fire.response", "run_get.request", "run_get.response", "run_start.request", "run_start.response", "scopes.request", "scopes.response", "update.request", "update.response"];
/** A message name of the spec (`"remember.request"`, ...). */
export type MessageName = (typeof MESSAGES)[number];
/** The type each message carries. */
export interface MessageTypes {
    "archive-end": ArchiveEnd;
    "archive-manifest": ArchiveManifest;
    "archive-record": ArchiveRecord;
    "archive-tombstone": ArchiveTombstone;
    "capabilities": Capabilities;
    "consolidate.request": ConsolidateRequest;
    "consolidate.response": ConsolidateResponse;
    "decide.request": DecideRequest;
    "decide.response": DecideResponse;
    "error": ErrorEnvelope;
    "expire.request": ExpireRequest;
    "expire.response": ExpireResponse;
    "export_records.request": ExportRecordsRequest;
    "export_records.response": ExportRecordsResponse;
    "forget.request": ForgetRequest;
    "forget.response": ForgetResponse;
    "get.request": GetRequest;
    "get.response": GetResponse;
    "health": Health;
    "history.request": HistoryRequest;
    "history.response": HistoryResponse;
    "import_records.request": ImportRecordsRequest;
    "import_records.response": ImportRecordsResponse;
    "list.request": ListRequest;
    "list.response": ListResponse;
    "merge.request": MergeRequest;
    "merge.response": MergeResponse;
    "promote.request": PromoteRequest;
    "promote.response": PromoteResponse;
    "recall.request": RecallRequest;
    "recall.response": RecallResponse;
    "remember.request": RememberRequest;
    "remember.response": RememberResponse;
    "remember_batch.request": RememberBatchRequest;
    "remember_batch.response": RememberBatchResponse;
    "restore.request": RestoreRequest;
    "restore.response": RestoreResponse;
    "review-decision": ReviewDecision;
    "review-request": ReviewRequest;
    "reviews.request": ReviewsRequest;
    "reviews.response": ReviewsResponse;
    "run_fire.request": RunFireRequest;
    "run_fire.response": RunFireResponse;
    "run_get.request": RunGetRequest;
    "run_get.response": RunGetResponse;
    "run_start.request": RunStartRequest;
    "run_start.response": RunStartResponse;
    "scopes.request": ScopesRequest;
    "scopes.response": ScopesResponse;
    "update.request": UpdateRequest;
    "update.response": UpdateResponse;
}
/**
 * Which way each message travels: `in`, sent to a store (closed: an unknown field is an error);
 * `out`, emitted by a store (extensible: unknown fields and enum values are kept).
 */
export declare const DIRECTIONS: {
    readonly [M in MessageName]: "in" | "out";
};
/** Whether `name` is a message name of the spec. */
export declare function isMessageName(name: string): name is MessageName;
/**
 * Every rule `value` breaks as `message`, semantic rules included, sorted by path and rule;
 * empty when it is valid. Throws a TypeError for a name that is not a message of the spec.
 */
export declare function validate(message: MessageName, value: unknown): ValidationError[];
/** Whether `value` is a valid `message`, narrowing it to that message's type. */
export declare function is<M extends MessageName>(message: M, value: unknown): value is MessageTypes[M];
/**
 * The spec's error envelope for an invalid `value` (code `invalid_request`, one detail per broken
 * rule), or `null` when it is a valid `message`: what a store answers an invalid request with.
 */
export declare function envelope(message: MessageName, value: unknown): ErrorEnvelope | null;
