/**
 * The spec's semantic rules: what JSON Schema cannot say, checked once a message is schema-valid
 * (docs/spec/v0.md). Written by hand, like `mnemowire.spec._semantic` which they mirror; the
 * emitter refuses to generate bindings for a rule this module does not implement.
 *
 * @module
 */
import { type Errors } from "./runtime.js";
import type { StateMachine } from "./types.js";
/**
 * [types.procedural-references]: every state a machine names (`initial`, `current`, each
 * transition's `dest` and `source`, `"*"` aside) must be one of its `states`. One line per
 * offending name; empty when the machine is consistent.
 */
export declare function stateMachineProblems(machine: StateMachine): string[];
/** `stateReference` on a remember request: its own procedural content. */
export declare function stateReferenceInRemember(value: unknown, errors: Errors): void;
/** `stateReference` on a review request: the content of the remember request under review. */
export declare function stateReferenceInReview(value: unknown, errors: Errors): void;
