/**
 * What dist/ was compiled from: the sha256 of tsconfig.json, every other module of src/ and the
 * compiler's version. Compiled, it is dist/sources.js, so `mnemowire codegen --check` (without
 * Node) and `npm pack` (check-dist.mjs) find a dist/ left behind by a regeneration of src/.
 *
 * @module
 */
export declare const SOURCES = "sha256:52311510be67ec7eda357c971f26f1bcf29cdc7dd290b9aceb1fa70044f6d6ba";
