/**
 * memorywire v0.4 for TypeScript: the spec's types (`types.ts`), validators that
 * report exactly what the reference validator reports (`validators.ts`), the client interface
 * (`client.ts`) and its HTTP client (`http.ts`, on the platform's `fetch`). No runtime
 * dependency; no Node API outside the vectors runner.
 *
 * @module
 */
export * from "./client.js";
export * from "./http.js";
export { allUnique, codePoints, compareErrors, jsonEqual, jsonTypeOf, pointer, pointerToken, type JsonObject, type ValidationError, } from "./runtime.js";
export { stateMachineProblems } from "./semantic.js";
export type * from "./types.js";
export * from "./validators.js";
/** The spec version these bindings were generated from. */
export declare const SPEC_VERSION = "v0.4";
/** sha256 over the spec's schema files: changes whenever the contract does. */
export declare const SPEC_DIGEST = "sha256:c2d1e87aa85e1b226e843a06b863dbc46ff284d267731932a493338522009edd";
