import fs from "node:fs/promises";
import path from "node:path";
import { codexWorld, type World } from "../helpers/e2e.js";
import { git } from "../helpers/offrun.js";

// `offrun review` with the real Codex CLI as the reviewer, against the fake model server: Codex runs
// `exec -s read-only --output-schema` in a scratch worktree; writes its sandbox refuses are listed.

let world: World;
let worktree: string;

const FEATURE = "export function add(a: number, b: number) {\n  return a - b;\n}\n";

interface ReviewJson {
  review: {
    outcome: string;
    verdict?: string;
    reason?: string;
    reviewer: { harness: string; account: string };
    findings: { file: string; line?: number; severity: string; onDiff: boolean; suggestion?: string }[];
    blockedWrites: { tool: string; input: unknown }[];
    authorWorktree?: { unchanged: boolean; changed: string[] };
    tokens?: { input: number; output: number };
  };
}

beforeAll(async () => {
  world = await codexWorld("offrun-e2e-review-codex-", { "README.md": "# demo\n", "src/app.ts": "export {};\n" });
  worktree = path.join(world.repo, ".worktrees", "author");
  world.server.script({ kind: "write_file", path: path.join(worktree, "src", "feature.ts"), content: FEATURE });
  const started = await world.offrun(["start", "--harness", "codex", "--wait", "--name", "author", "add add()"]);
  expect(started).toSucceed();
  expect(await fs.readFile(path.join(worktree, "src", "feature.ts"), "utf8")).toBe(FEATURE);
});

afterAll(async () => {
  await world.close();
});

/** Everything in the author's worktree, file by file, bytes as base64. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, full)] = (await fs.readFile(full)).toString("base64");
  }
  return files;
}

const answer = (review: Record<string, unknown>) => ({ kind: "text" as const, text: JSON.stringify(review) });

test("a Codex reviewer's patch and shell write are refused by its sandbox and listed as blocked attempts", async () => {
  const before = await snapshot(worktree);
  const evil = path.join(worktree, "src", "evil.ts");
  const evilShell = path.join(worktree, "src", "evil-shell.ts");
  world.server.script(
    { kind: "write_file", path: evil, content: "hacked\n" },
    { kind: "shell", command: `echo hacked > ${evilShell}` },
    answer({ verdict: "comment", summary: "Looked at the helper.", findings: [] }),
  );
  const result = await world.offrun(["review", "author", "--harness", "codex", "--wait", "--json"]);
  expect(result).toSucceed();
  const { review } = JSON.parse(result.stdout) as ReviewJson;
  expect(review.reviewer.harness).toBe("codex");
  expect(review.outcome).toBe("completed");
  expect(review.verdict).toBe("comment");
  expect(review.blockedWrites).toEqual([
    { tool: "apply_patch", input: expect.objectContaining({ path: evil }) },
    { tool: "exec_command", input: { command: `echo hacked > ${evilShell}` } },
  ]);
  expect(review.authorWorktree).toEqual({ unchanged: true, changed: [] });
  expect(await snapshot(worktree)).toEqual(before);
  expect(await git(world.repo, world.box.env, ["worktree", "list"])).not.toContain(".review-");

  const shown = await world.offrun(["show", "author"]);
  expect(shown.stdout).toContain(`the reviewer tried to write (apply_patch ${evil}); its read-only mode blocked it`);
  expect(shown.stdout).toContain(`the reviewer tried to write (exec_command echo hacked > ${evilShell})`);
  expect(shown.stdout).toContain("byte-for-byte what it was before the review");
});

test("a Codex review answers through --output-schema; its findings are validated and checked against the diff", async () => {
  world.server.script(
    answer({
      verdict: "changes_requested",
      summary: "add() subtracts.",
      findings: [
        {
          file: "src/feature.ts",
          line: 2,
          severity: "major",
          message: "add returns a - b",
          suggestion: "return a + b;",
        },
        { file: "src/app.ts", line: 1, severity: "nit", message: "untouched file", suggestion: null },
      ],
    }),
  );
  const requestsBefore = world.server.turnRequests().length;
  const result = await world.offrun(["review", "author", "--harness", "codex", "--wait", "--json"]);
  expect(result).toSucceed();
  const { review } = JSON.parse(result.stdout) as ReviewJson;
  expect(review.outcome).toBe("completed");
  expect(review.verdict).toBe("changes_requested");
  expect(review.findings).toEqual([
    expect.objectContaining({ file: "src/feature.ts", line: 2, severity: "major", onDiff: true }),
    expect.objectContaining({ file: "src/app.ts", line: 1, onDiff: false }),
  ]);
  expect(review.blockedWrites).toEqual([]);
  expect(review.tokens?.input).toBeGreaterThan(0);

  // Codex sent the review schema as the response format, and the diff in the prompt.
  const body = world.server.turnRequests()[requestsBefore]!.body as { text?: { format?: Record<string, unknown> } };
  expect(body.text?.format).toEqual(
    expect.objectContaining({
      type: "json_schema",
      schema: expect.objectContaining({ required: ["verdict", "summary", "findings"] }),
    }),
  );
  expect(JSON.stringify(body)).toContain("return a - b;");
});
