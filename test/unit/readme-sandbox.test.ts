import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { agyHarness } from "../../src/harnesses/agy/index.js";
import { claudeHarness } from "../../src/harnesses/claude/index.js";
import { grokHarness } from "../../src/harnesses/grok/index.js";
import { codexHarness } from "../../src/harnesses/codex/index.js";
import { geminiHarness } from "../../src/harnesses/gemini/index.js";
import { opencodeHarness } from "../../src/harnesses/opencode/index.js";
import { piHarness } from "../../src/harnesses/pi/index.js";
import type { Harness } from "../../src/harnesses/types.js";
import { COMMON_VARIABLES } from "../../src/core/sandbox/environment.js";
import { gitDenies, gitWrites, PROTECTED_IN_HOME } from "../../src/core/sandbox/policy.js";

// The README's Sandbox section is what a user reads before trusting `--sandbox`: each list in it is
// read back here and compared with what the policy code does, so neither changes without the other.

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../README.md");
let section: string;

beforeAll(async () => {
  const text = await fs.readFile(README, "utf8");
  section = text.slice(text.indexOf("## Sandbox"), text.indexOf("\n## ", text.indexOf("## Sandbox") + 3));
});

/** The whole paragraph of a top-level bullet (`- **Read**: ...`), up to the next one. */
function bulletOf(label: string): string {
  const start = section.indexOf(`- **${label}**`);
  if (start < 0) throw new Error(`The README's Sandbox section has no bullet **${label}**`);
  const end = section.indexOf("\n- **", start + 1);
  return section.slice(start, end < 0 ? undefined : end);
}

const spans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

test.each([
  ["Claude Code", claudeHarness],
  ["Codex", codexHarness],
  ["Gemini CLI", geminiHarness],
  ["Pi", piHarness],
  ["Antigravity `agy`", agyHarness],
  ["Grok Build", grokHarness],
] as [string, Harness][])("the read-only files the README lists for %s are the policy's", (label, harness) => {
  const home = "/home/ada/login";
  const config = harness.sandbox.executable!(home, { HOME: "/home/ada" });
  const base =
    { gemini: path.join(home, ".gemini"), agy: path.join(home, ".gemini", "antigravity-cli") }[harness.id] ?? home;
  const fromCode = [
    ...[...config.files, ...(config.blankFiles ?? []), ...(config.placeholderFiles ?? [])].map((file) =>
      path.relative(base, file),
    ),
    ...config.folders.map((folder) => `${path.relative(base, folder)}/`),
  ];
  const listed = section
    .slice(section.indexOf("**Read-only in the login's state**"))
    .split("\n")
    .find((line) => line.trimStart().startsWith(`- ${label}:`));
  expect(listed).toBeDefined();
  expect(spans(listed!.slice(listed!.indexOf(": "))).sort()).toEqual(fromCode.sort());
});

test("OpenCode writes only its own folder of the data home, so its config stays outside", () => {
  const state = opencodeHarness.sandbox.state!("/home/ada/.local/share", { HOME: "/home/ada" });
  expect(state.folders).toEqual([
    "/home/ada/.local/share/opencode",
    "/home/ada/.cache/opencode",
    "/home/ada/.local/state/opencode",
  ]);
  // Inside what it writes, what the README names: its cache's bin/ and models.json (and the other
  // worktrees' snapshot repositories, of which this home has none).
  const held = opencodeHarness.sandbox.executable!("/home/ada/.local/share", { HOME: "/home/ada" });
  expect(held).toEqual({
    files: ["/home/ada/.cache/opencode/models.json"],
    folders: ["/home/ada/.cache/opencode/bin"],
  });
  const listed = section.slice(
    section.indexOf("  - OpenCode:"),
    section.indexOf("\n\n", section.indexOf("  - OpenCode:")),
  );
  for (const entry of ["bin/", "models.json"]) expect(spans(listed)).toContain(entry);
});

test("the protected files the README lists are the ones no read reaches", () => {
  const listed = spans(bulletOf("Read")).filter((entry) => entry.startsWith("~/") && entry !== "~/.offrun");
  expect(listed.map((entry) => entry.slice(2)).sort()).toEqual([...PROTECTED_IN_HOME].sort());
});

test("the environment the README lists is the policy's common list", () => {
  const listed = spans(bulletOf("Environment"));
  for (const variable of COMMON_VARIABLES) expect(listed).toContain(variable);
  const others = listed.filter((entry) => !(COMMON_VARIABLES as readonly string[]).includes(entry));
  // The rest are examples of the CLI's own, of config-named and of the companion's kept-out variables.
  expect(others).toEqual(
    expect.arrayContaining(["ANTHROPIC_*", "CLAUDE_*", "CODEX_*", "OPENAI_*", "GITHUB_TOKEN", "SSH_AUTH_SOCK"]),
  );
});

test("the keys of .claude.json the README says are put back are the policy's", () => {
  const [guarded] = claudeHarness.sandbox.guardedKeys!("/home/ada/.claude", { HOME: "/home/ada" });
  const paragraph = section.slice(section.indexOf("Claude Code rewrites `.claude.json`"));
  const listed = spans(paragraph.slice(0, paragraph.indexOf("\n\n"))).filter((entry) => entry !== ".claude.json");
  expect([...new Set(guarded!.keys.map((keys) => keys.at(-1)))].sort()).toEqual([...new Set(listed)].sort());
});

test("the git folder's writable and read-only parts the README lists are the policy's", () => {
  const common = "/work/app/.git";
  const git = {
    commonDir: common,
    gitDir: `${common}/worktrees/parser`,
    branchRef: `${common}/refs/heads/offrun/parser`,
    otherRefs: [],
  };
  const write = spans(bulletOf("Write"));
  expect(gitWrites(git).map((entry) => path.relative(common, entry))).toEqual([
    "refs/heads/offrun",
    "logs/refs/heads/offrun",
    "worktrees/parser",
  ]);
  for (const named of ["refs/heads/", "logs/refs/heads/", "worktrees/<agent>/", "worktrees/<agent>/offrun-objects/"])
    expect(write).toContain(named);
  // The shared object store is named as read-only, never as written.
  expect(bulletOf("Write")).toMatch(/`objects\/` is read-only/);
  const denied = gitDenies(git).map((entry) => path.basename(entry));
  expect(denied).toEqual(["commondir", "gitdir", "config.worktree"]);
  for (const named of denied) expect(write.join(" ")).toContain(named);
  expect(write).toContain(".git");
});
