/**
 * What dist/ was compiled from: the sha256 of tsconfig.json, every other module of src/ and the
 * compiler's version. Compiled, it is dist/sources.js, so `mnemowire codegen --check` (without
 * Node) and `npm pack` (check-dist.mjs) find a dist/ left behind by a regeneration of src/.
 *
 * @module
 */
export declare const SOURCES = "sha256:e52c0cd8fd5d060fa43cd38894fad9b1e3264e71b55c9134117e9acee2ef55d5";
