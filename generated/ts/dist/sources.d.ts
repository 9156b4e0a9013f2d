/**
 * What dist/ was compiled from: the sha256 of tsconfig.json, every other module of src/ and the
 * compiler's version. Compiled, it is dist/sources.js, so `mnemowire codegen --check` (without
 * Node) and `npm pack` (check-dist.mjs) find a dist/ left behind by a regeneration of src/.
 *
 * @module
 */
export declare const SOURCES = "sha256:663f3c4381b60102ec32138a90b54b49528534ff2061dab7b45239aacf0c8da4";
