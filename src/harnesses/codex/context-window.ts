/**
 * `context_window` of each model in the models.json that Codex 0.171.0 ships inside its binary
 * (.test-clis/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex,
 * the JSON that starts `{"models": [{"slug": "gpt-6.2-sol"` at byte 4942559). That is the window
 * Codex runs with; `max_context_window` (872000 for most) needs a config opt-in, so it is not used.
 */
const WINDOWS: Record<string, number> = {
  "gpt-6.2-sol": 500_000,
  "gpt-6.2-astra": 272_000,
  "gpt-6.1-sol": 500_000,
  "gpt-6.1-terra": 500_000,
  "gpt-6-astra": 272_000,
  "gpt-6-sol": 272_000,
  "gpt-6-luna": 272_000,
  "gpt-5.6-sol": 272_000,
  "gpt-5.6-terra": 272_000,
  "gpt-5.6-luna": 272_000,
  "gpt-daybreak-blue-latest": 272_000,
  "gpt-daybreak-red-latest": 372_000,
  "gpt-5.5": 272_000,
  "codex-auto-review": 272_000,
};

/**
 * The window of a model slug. Without a model Codex takes the default from the model list its
 * server sends at run time, and `codex exec --json` does not name it, so that is undefined.
 */
export function codexContextWindow(model?: string): number | undefined {
  return model ? WINDOWS[model.trim().toLowerCase()] : undefined;
}
