/**
 * What dist/ was compiled from: the sha256 of tsconfig.json, every other module of src/ and the
 * compiler's version. Compiled, it is dist/sources.js, so `mnemowire codegen --check` (without
 * Node) and `npm pack` (check-dist.mjs) find a dist/ left behind by a regeneration of src/.
 *
 * @module
 */
export declare const SOURCES = "sha256:0edbc45fe56adf7ed84736c7e7e1d42c2b3c97c7f7bb706a4d4efde46e079f20";
