import * as z from "zod";

/**
 * Planner for OpenCode. `--agent plan` alone is not read-only in 1.18.33: its rules deny `edit`
 * except `.opencode/plans/*.md` (inside the worktree), and leave `bash` allowed, so a shell
 * command can write anything (checked: `echo x > file` ran). Offrun therefore gives the plan
 * agent an allow-list through OPENCODE_CONFIG_CONTENT (the highest-precedence config layer):
 * every permission is denied except reading and searching. A denied tool is not even offered
 * to the model; `task` (sub-agents, which could edit), MCP tools and `bash` fall under "*".
 */
const PLANNER_PERMISSION = {
  "*": "deny",
  read: "allow",
  glob: "allow",
  grep: "allow",
  list: "allow",
  lsp: "allow",
  todoread: "allow",
  todowrite: "allow",
  webfetch: "allow",
  websearch: "allow",
  codesearch: "allow",
  skill: "allow",
  // Reading outside the worktree (memory folders) is fine once every write is denied.
  external_directory: "allow",
} as const;

const configObject = z.record(z.string(), z.unknown());

function objectOf(value: unknown): Record<string, unknown> {
  const parsed = configObject.safeParse(value);
  return parsed.success ? parsed.data : {};
}

/**
 * The OPENCODE_CONFIG_CONTENT for a turn: the user's own (when it is a JSON object) with Offrun's
 * rules on top. Build turns get `external_directory` allowed for the extra folders the agent may
 * write (memory), which `opencode run` would otherwise auto-reject; Planner turns get the
 * allow-list above. Returns undefined when nothing needs to change.
 */
export function opencodeConfigContent(
  existing: string | undefined,
  mode: "build" | "plan",
  addDirs: readonly string[],
): string | undefined {
  if (mode === "build" && addDirs.length === 0) return undefined;
  let base: Record<string, unknown> = {};
  if (existing) {
    try {
      base = objectOf(JSON.parse(existing));
    } catch {
      base = {}; // OpenCode would refuse the broken value anyway; ours replaces it
    }
  }
  if (mode === "plan") {
    const agents = objectOf(base.agent);
    const plan = objectOf(agents.plan);
    return JSON.stringify({ ...base, agent: { ...agents, plan: { ...plan, permission: PLANNER_PERMISSION } } });
  }
  const permission = objectOf(base.permission);
  const external = { ...objectOf(permission.external_directory) };
  for (const dir of addDirs) external[`${dir.replace(/\/+$/, "")}/*`] = "allow";
  return JSON.stringify({ ...base, permission: { ...permission, external_directory: external } });
}
