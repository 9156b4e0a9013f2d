/**
 * What the generated validators share: JSON type tests, JSON equality, code-point lengths,
 * JSON Pointer tokens, the error collector and the anyOf resolution of the reference validator.
 * No dependency and no Node API: it runs wherever JavaScript does.
 *
 * @module
 */
/** One broken rule: where (a JSON Pointer, RFC 6901; `""` is the whole value), which rule, why. */
export interface ValidationError {
    /** JSON Pointer to the offending value; for a missing field, the pointer it would have. */
    readonly path: string;
    /** The JSON Schema keyword that failed (`required`, `type`, `enum`, ...) or a semantic rule. */
    readonly rule: string;
    /** What is wrong, in words. */
    readonly message: string;
}
/** A JSON object, as `JSON.parse` returns one. */
export type JsonObject = {
    [key: string]: unknown;
};
/** Whether `value` is a JSON object (not an array, not null). */
export declare function isObject(value: unknown): value is JsonObject;
/** Whether `value` is an array. */
export declare function isArray(value: unknown): value is unknown[];
/** Whether `object` has `key` as its own member. */
export declare function has(object: JsonObject, key: string): boolean;
/** The JSON type of `value`: a number with no fractional part is an `integer`. */
export declare function jsonTypeOf(value: unknown): string;
/** JSON equality: numbers by value, arrays in order, objects by key set and values. */
export declare function jsonEqual(a: unknown, b: unknown): boolean;
/** Whether no two items of `items` are JSON-equal. */
export declare function allUnique(items: readonly unknown[]): boolean;
/** The length of `text` in Unicode code points (what JSON Schema's length keywords count). */
export declare function codePoints(text: string): number;
/** One key as a JSON Pointer reference token: `~` becomes `~0`, `/` becomes `~1`. */
export declare function pointerToken(key: string): string;
/** A JSON Pointer from keys and indexes (`[]` is the whole document, `""`). */
export declare function pointer(parts: readonly (string | number)[]): string;
/** The result of reading a string as JSON text. */
export type ParsedJson = {
    readonly ok: true;
    readonly value: unknown;
} | {
    readonly ok: false;
    readonly reason: string;
};
/** Read `text` as JSON text (RFC 8259, which `JSON.parse` implements). */
export declare function parseJsonText(text: string): ParsedJson;
/** The message of a `type` error: what was expected, and what came instead. */
export declare function typeMessage(expected: string, value: unknown): string;
/** The message of an `enum` error: the values allowed. */
export declare function oneOf(allowed: Iterable<unknown>): string;
/** The message of an `additionalProperties` error, naming the field probably meant. */
export declare function unknownField(key: string, known: ReadonlySet<string>): string;
/**
 * Report each of `names` that the object `value` holds: a use of a type that forbids some of its
 * members (`{"$ref": X, "properties": {"f": false}}` in the spec).
 */
export declare function forbid(value: unknown, path: string, errors: Errors, ...names: string[]): void;
/**
 * The set of broken rules found so far: one entry per (path, rule), the first message kept.
 * Generated validators add to it; `list()` gives the sorted result.
 */
export declare class Errors {
    #private;
    /** Record that `rule` broke at `path`. */
    add(path: string, rule: string, message: string, typeKeyword?: boolean): void;
    /** Add everything `other` found. */
    merge(other: Errors): void;
    /** How many (path, rule) pairs broke. */
    get size(): number;
    /** Whether the `type` keyword failed at exactly `path`. */
    typeFailedAt(path: string): boolean;
    /** The errors, sorted by path then rule (by code point, as the reference sorts). */
    list(): ValidationError[];
    /** Every error on one line, for a message that wraps them. */
    summary(): string;
}
/** Compare two strings by code point (JavaScript's `<` compares UTF-16 code units). */
export declare function compareCodePoints(a: string, b: string): number;
/** Order errors as the reference does: by path, then rule, then message. */
export declare function compareErrors(a: ValidationError, b: ValidationError): number;
/**
 * anyOf, explained the way the reference explains it. A value valid under some member is valid.
 * Otherwise a member whose `type` keyword rejected the value at `path` itself was evidently not
 * the shape the sender meant, and is set aside: with one member left, its errors are the
 * explanation; with none, the value has the wrong type; with several, no shape matched (`anyOf`).
 */
export declare function anyOf(errors: Errors, path: string, expected: string, members: readonly ((sink: Errors) => void)[]): void;
/**
 * [messages.wellformed]: what the schema takes for granted. A value that is not JSON (NaN, an
 * infinity, `undefined`, a function, a bigint: rule `json`) or nests deeper than `limit` levels
 * of objects and arrays (`maxDepth`) is reported, and the schema is not read against it (the
 * result is `false`); a string or key holding U+0000 or a lone surrogate is reported as `text`.
 */
export declare function wellformed(value: unknown, limit: number, errors: Errors): boolean;
/**
 * Run a generated check on `value` (once it is well formed, nesting at most `maxDepth`
 * levels), then (only if nothing broke) the semantic checks.
 */
export declare function run(value: unknown, check: (value: unknown, path: string, errors: Errors) => void, semantic: readonly ((value: unknown, errors: Errors) => void)[], maxDepth: number): ValidationError[];
