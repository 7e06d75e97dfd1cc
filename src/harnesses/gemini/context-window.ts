/**
 * Gemini CLI 0.61.0's own `tokenLimit(model)` (packages/core/src/core/tokenLimits.ts, bundled in
 * .test-clis/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js): the Gemma 4 models
 * (`gemma-4-31b-it`, `gemma-4-26b-a4b-it`) have 256e3 tokens, and every other model, named or
 * not, DEFAULT_TOKEN_LIMIT = 1048576. The CLI budgets its own compression by these numbers, so
 * they are the window it works in, also for a model it does not list.
 */
const GEMMA_4 = new Set(["gemma-4-31b-it", "gemma-4-26b-a4b-it"]);
const GEMMA_4_TOKEN_LIMIT = 256_000;
const DEFAULT_TOKEN_LIMIT = 1_048_576;

export function geminiContextWindow(model?: string): number | undefined {
  return model && GEMMA_4.has(model.trim().toLowerCase()) ? GEMMA_4_TOKEN_LIMIT : DEFAULT_TOKEN_LIMIT;
}
