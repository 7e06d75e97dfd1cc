import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * A Planner that keeps memory, for Gemini CLI 0.61.0. Plan mode cannot do it: write_file and
 * replace check in the tools themselves (planUtils.ts resolveAndValidatePlanPath) that the path
 * lies in the plans directory, whatever the policy says, and a custom plans directory must lie
 * inside the project root (the worktree). So such a Planner runs in `default` approval mode,
 * where headless runs (non-interactive) deny every write, shell, skill and unknown tool by the
 * built-in policies (write.toml, the engine's non-interactive default), and this policy file,
 * loaded with `--policy` at the user tier (above every built-in rule), allows write_file and
 * replace for files directly in the memory folders and nowhere else.
 */
export function plannerPolicyToml(dirs: readonly string[]): string {
  const rules = dirs.map((dir) =>
    [
      "[[rule]]",
      'toolName = ["write_file", "replace"]',
      'decision = "allow"',
      "priority = 100",
      `argsPattern = ${JSON.stringify(memoryFilePattern(dir))}`,
    ].join("\n"),
  );
  return `# Written by Offrun for Planner turns: writes to the agent's memory folder only.\n\n${rules.join("\n\n")}\n`;
}

/**
 * The policy engine matches argsPattern against the arguments as stableStringify writes them
 * (sorted keys, each top-level pair between \0 characters, values as JSON.stringify). The file
 * must be directly in the folder: no further "/" (so no "../" climbing out) and not "." or "..".
 * A relative path does not match, so it is denied.
 */
function memoryFilePattern(dir: string): string {
  const folder = JSON.stringify(dir.replace(/\/+$/, "")).slice(1, -1);
  return `\\x00"file_path":"${escapeRegExp(folder)}/(?!\\.\\.?")[^"\\\\/]+"\\x00`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Writes the policy where only this login reads it, `<home>/.gemini/offrun/` (not
 * `.gemini/policies`, which 0.61.0 would load on every run), named by its content, so a turn
 * rewrites the same file and nothing piles up. Returns its path.
 */
export function writePlannerPolicy(home: string, dirs: readonly string[]): string {
  const text = plannerPolicyToml(dirs);
  const name = `planner-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.toml`;
  const dir = path.join(home, ".gemini", "offrun");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, name);
  fs.writeFileSync(file, text, { mode: 0o600 });
  return file;
}
