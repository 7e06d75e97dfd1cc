/**
 * Context windows of the models Claude Code 2.1.332 knows, from the model catalog in its bundle
 * (.test-clis/node_modules/@anthropic-ai/claude-code/bin/claude.exe: the entries
 * `{id:"claude-…",…,context:{window:…}}`, grep `context:{window:`). A model whose catalog entry
 * has `supports_1m_suffix` or a `maximum_window` of 1e6 runs with 1M tokens when named with the
 * CLI's `[1m]` tag (`Ut()` strips it; `fG()` then takes the maximum window). Claude 3.x entries
 * carry no window of their own, so they are left out rather than guessed.
 */
const WINDOWS: Record<string, { window: number; oneMillionTag?: boolean }> = {
  "claude-haiku-4-5": { window: 200_000, oneMillionTag: true },
  "claude-haiku-5-5": { window: 1_000_000 },
  "claude-sonnet-4-0": { window: 200_000, oneMillionTag: true },
  "claude-sonnet-4-5": { window: 200_000, oneMillionTag: true },
  "claude-sonnet-4-6": { window: 200_000, oneMillionTag: true },
  "claude-sonnet-5": { window: 1_000_000 },
  "claude-sonnet-5-5": { window: 1_000_000 },
  "claude-opus-4-0": { window: 200_000, oneMillionTag: true },
  "claude-opus-4-1": { window: 200_000, oneMillionTag: true },
  "claude-opus-4-5": { window: 200_000, oneMillionTag: true },
  "claude-opus-4-6": { window: 200_000, oneMillionTag: true },
  "claude-opus-4-7": { window: 1_000_000 },
  "claude-opus-4-8": { window: 1_000_000 },
  "claude-opus-5": { window: 1_000_000 },
  "claude-opus-5-5": { window: 1_000_000 },
  "claude-fable-5": { window: 1_000_000 },
  "claude-fable-5-1": { window: 1_000_000 },
  "claude-fable-5-2": { window: 1_000_000 },
  "claude-mythos-5": { window: 1_000_000 },
  "claude-mythos-5-1": { window: 1_000_000 },
  "claude-mythos-5-2": { window: 1_000_000 },
};

/**
 * The window of a model id as the stream's init line names it ("claude-opus-5-5",
 * "claude-sonnet-4-5-20250929", "claude-sonnet-4-6[1m]"). Aliases ("opus", "sonnet") resolve by the
 * login's plan at run time, so they get undefined, as does no model (the CLI's default).
 */
export function claudeContextWindow(model?: string): number | undefined {
  if (!model) return undefined;
  const lower = model.trim().toLowerCase();
  const tagged = lower.endsWith("[1m]");
  // Every dated id of a version is that version (the CLI resolves "-20250929" ids the same way).
  const id = lower.replace(/\[1m\]$/, "").replace(/-\d{8}$/, "");
  const entry = WINDOWS[id];
  if (!entry) return undefined;
  return tagged && entry.oneMillionTag ? 1_000_000 : entry.window;
}
