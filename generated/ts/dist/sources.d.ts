/**
 * What dist/ was compiled from: the sha256 of tsconfig.json, every other module of src/ and the
 * compiler's version. Compiled, it is dist/sources.js, so `mnemowire codegen --check` (without
 * Node) and `npm pack` (check-dist.mjs) find a dist/ left behind by a regeneration of src/.
 *
 * @module
 */
export declare const SOURCES = "sha256:c693a76bdbed79d9b57a60244cb39f524eb92f31462f361999d3228da5d54884";
