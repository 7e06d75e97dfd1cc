import fs from "node:fs/promises";
import path from "node:path";
import { claudeWorld, type World } from "../helpers/e2e.js";
import { eventually, git } from "../helpers/offrun.js";

// `offrun review` with the real Claude Code CLI as the reviewer, against the fake model server:
// the reviewer runs read-only in a scratch worktree, answers through Claude's own --json-schema
// (its StructuredOutput tool), and the review lands in the author's chat.

let world: World;
let worktree: string;

const FEATURE = "export function add(a: number, b: number) {\n  return a - b;\n}\n";

interface ReviewJson {
  review: {
    type: string;
    outcome: string;
    verdict?: string;
    raw?: string;
    reason?: string;
    reviewer: { harness: string; account: string };
    findings: { file: string; line?: number; severity: string; onDiff: boolean }[];
    blockedWrites: { tool: string; input: unknown }[];
    authorWorktree?: { unchanged: boolean; changed: string[] };
    tokens?: { input: number; output: number };
    scope: { files: number; commits: number };
  };
  draft?: string;
  warnings: string[];
}

beforeAll(async () => {
  world = await claudeWorld("offrun-e2e-review-", { "README.md": "# demo\n", "src/app.ts": "export {};\n" });
  worktree = path.join(world.repo, ".worktrees", "author");
  world.server.script({ kind: "write_file", path: path.join(worktree, "src", "feature.ts"), content: FEATURE });
  const started = await world.offrun(["start", "--wait", "--name", "author", "add an add() helper"]);
  expect(started).toSucceed();
  // A committed change too, so the review covers commits on the branch as well as uncommitted work.
  await fs.writeFile(path.join(worktree, "notes.txt"), "first\nsecond\n");
  await git(worktree, world.box.env, ["add", "notes.txt"]);
  await git(worktree, world.box.env, ["commit", "-q", "-m", "notes"]);
});

afterAll(async () => {
  await world.close();
});

/** Everything in the author's worktree, file by file, bytes as base64: "byte for byte" made checkable. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, full)] = (await fs.readFile(full)).toString("base64");
  }
  return files;
}

function structured(input: Record<string, unknown>) {
  return { kind: "tool" as const, name: "StructuredOutput", input };
}

test("a reviewer that tries to write is blocked, and the author's worktree stays byte-for-byte the same", async () => {
  const before = await snapshot(worktree);
  world.server.script(
    // A new file: Claude refuses to overwrite a file it has not read before any permission check.
    { kind: "write_file", path: path.join(worktree, "src", "evil.ts"), content: "hacked\n" },
    structured({ verdict: "comment", summary: "Looked at the helper.", findings: [] }),
  );
  const requestsBefore = world.server.turnRequests().length;
  const result = await world.offrun(["review", "author", "--harness", "claude", "--wait", "--json"]);
  expect(result.stderr).toBe("");
  expect(result).toSucceed();
  const { review } = JSON.parse(result.stdout) as ReviewJson;
  expect(review.outcome).toBe("completed");
  expect(review.verdict).toBe("comment");
  expect(review.blockedWrites).toEqual([
    expect.objectContaining({ tool: "Write", input: expect.objectContaining({ content: "hacked\n" }) }),
  ]);
  expect(review.authorWorktree).toEqual({ unchanged: true, changed: [] });
  expect(review.scope).toEqual(expect.objectContaining({ files: 2, commits: 1 }));
  expect(review.tokens?.input).toBeGreaterThan(0);
  expect(await snapshot(worktree)).toEqual(before);

  // Claude's own structured output was used, and the reviewer saw the diff, not the author's folder.
  const reviewRequest = world.server.turnRequests()[requestsBefore]!.body as { tools: { name: string }[] };
  expect(reviewRequest.tools.map((t) => t.name)).toContain("StructuredOutput");
  expect(JSON.stringify(reviewRequest)).toContain("return a - b;");
  // The scratch worktree is gone.
  expect(await git(world.repo, world.box.env, ["worktree", "list"])).not.toContain(".review-");
  expect(await fs.readdir(path.join(world.repo, ".worktrees"))).toEqual(["author"]);

  const shown = await world.offrun(["show", "author"]);
  expect(shown.stdout).toContain("the reviewer tried to write");
  expect(shown.stdout).toContain("its read-only mode blocked it");
  expect(shown.stdout).toContain("byte-for-byte what it was before the review");
});

test("findings are validated, checked against the diff and shown; --request-fixes drafts a message and sends nothing", async () => {
  world.server.script(
    structured({
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
        { file: "README.md", line: 1, severity: "minor", message: "mention add()", suggestion: null },
        { file: "src/feature.ts", line: 40, severity: "nit", message: "no such line in the change", suggestion: null },
      ],
    }),
  );
  const authorTurns = (
    JSON.parse((await world.offrun(["show", "author", "--json"])).stdout) as { agent: { turns: number } }
  ).agent.turns;
  const result = await world.offrun(["review", "author", "--harness", "claude", "--request-fixes", "--json"]);
  expect(result).toSucceed();
  const { review, draft } = JSON.parse(result.stdout) as ReviewJson;
  expect(review.verdict).toBe("changes_requested");
  expect(review.findings).toEqual([
    expect.objectContaining({ file: "src/feature.ts", line: 2, severity: "major", onDiff: true }),
    expect.objectContaining({ file: "README.md", line: 1, onDiff: false }),
    expect.objectContaining({ file: "src/feature.ts", line: 40, onDiff: false }),
  ]);
  const requestsAfterReview = world.server.turnRequests().length;

  const shown = await world.offrun(["show", "author"]);
  expect(shown.stdout).toContain("changes requested");
  expect(shown.stdout).toContain("major src/feature.ts:2: add returns a - b");
  expect(shown.stdout).toContain("README.md:1 [not in the diff]");

  const drafted = await world.offrun(["draft", "author"]);
  expect(drafted).toSucceed();
  expect(drafted.stdout).toContain("[major] src/feature.ts:2: add returns a - b");
  expect(drafted.stdout).toContain("Suggested fix: return a + b;");
  expect(draft).toBe(path.join(world.repo, ".offrun", "agents", "drafts", "author.md"));
  // The draft is in a folder git never sees.
  expect(await git(world.repo, world.box.env, ["status", "--porcelain", "--untracked-files=all"])).not.toContain(
    "drafts",
  );

  // Nothing was sent: no request reached the model, and the author has no new turn.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(world.server.turnRequests().length).toBe(requestsAfterReview);
  const after = JSON.parse((await world.offrun(["show", "author", "--json"])).stdout) as { agent: { turns: number } };
  expect(after.agent.turns).toBe(authorTurns);
});

test("a reviewer that answers with something other than the review JSON gets no verdict, and its text is kept", async () => {
  // Claude asks its model again for the StructuredOutput call; the fake model answers text twice.
  world.server.script({ kind: "text", text: "Looks fine to me." }, { kind: "text", text: "LGTM, approve" });
  // No --harness: this project has no review setting and no other CLI is set up, so the author's own login reviews.
  const result = await world.offrun(["review", "author", "--wait", "--json"]);
  expect(result.exitCode).toBe(1);
  const { review, warnings } = JSON.parse(result.stdout) as ReviewJson;
  expect(review.reviewer).toEqual({ harness: "claude", account: "default" });
  expect(warnings.join(" ")).toContain("author's own login");
  expect(review.outcome).toBe("malformed");
  expect(review.verdict).toBeUndefined();
  expect(review.findings).toEqual([]);
  expect(review.raw).toBe("LGTM, approve");
  expect(review.reason).toContain("not JSON");

  const shown = await world.offrun(["show", "author"]);
  expect(shown.stdout).toContain("NO VERDICT");
  expect(shown.stdout).toContain("LGTM, approve");
});

test("a review whose only login hits its usage limit is reported as failed, never as an approval", async () => {
  world.server.script({ kind: "usage_limit", resetsAt: Math.floor(Date.now() / 1000) + 3600 });
  const result = await world.offrun(["review", "author", "--harness", "claude", "--wait", "--json"]);
  expect(result.exitCode).toBe(1);
  const { review } = JSON.parse(result.stdout) as ReviewJson;
  expect(review.outcome).toBe("failed");
  expect(review.verdict).toBeUndefined();
  expect(review.reason).toContain("The review did not finish");
  expect(review.authorWorktree).toEqual({ unchanged: true, changed: [] });
  // The scratch worktree is removed after a failure too.
  expect(await git(world.repo, world.box.env, ["worktree", "list"])).not.toContain(".review-");

  const shown = await world.offrun(["show", "author"]);
  expect(shown.stdout).toContain("FAILED (no review; this is not an approval)");
});

test("a companion killed during a review leaves no scratch worktree: the next companion removes it", async () => {
  world.server.script({ kind: "hang" });
  const started = await world.offrun(["review", "author", "--harness", "claude"]);
  expect(started).toSucceed();
  const worktrees = path.join(world.repo, ".worktrees");
  const scratch = await eventually(
    async () => (await fs.readdir(worktrees)).find((name) => name.startsWith(".review-")),
    30_000,
    "the review's scratch worktree",
  );
  await eventually(
    async () => (world.server.requests.some((r) => r.answeredWith === "hang") ? true : undefined),
    30_000,
    "the reviewer's request",
  );
  // A second scratch whose folder is already gone, as a crash in the middle of removing one leaves it.
  const gone = path.join(worktrees, ".review-half-removed");
  await git(world.repo, world.box.env, ["worktree", "add", "--detach", "--", gone, "HEAD"]);
  await fs.rm(gone, { recursive: true, force: true });

  const pid = Number((await fs.readFile(path.join(world.box.offrunHome, "run", "companion.pid"), "utf8")).trim());
  process.kill(pid, "SIGKILL");
  // `companion start` pings the new companion, which answers only once its recovery is over.
  expect(await world.offrun(["companion", "start"])).toSucceed();

  expect(await fs.readdir(worktrees)).toEqual(["author"]);
  const listed = await git(world.repo, world.box.env, ["worktree", "list", "--porcelain"]);
  expect(listed).not.toContain(scratch);
  expect(listed).not.toContain(".review-");
  expect(listed).toContain(path.join(worktrees, "author"));
});
