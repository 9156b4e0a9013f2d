/** One example: a message instance and whether (and how) it must fail validation. */
export interface Example {
    readonly message: string;
    /** The file name without `.json`. */
    readonly name: string;
    /** Whether it sits under `valid/` (it must pass) or `invalid/` (it must fail). */
    readonly valid: boolean;
    readonly instance: unknown;
    /** For an invalid example, the (path, rule) pairs validation must report, exactly. */
    readonly errors: readonly (readonly [path: string, rule: string])[];
    readonly description: string;
}
/** Every example under `root`, sorted by message, then name (valid before invalid on a tie). */
export declare function loadExamples(root: string): Example[];
