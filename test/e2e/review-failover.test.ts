import fs from "node:fs/promises";
import path from "node:path";
import { responsesProtocol } from "../fake-server/openai-responses.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import type { QuotaHeaders } from "../fake-server/script.js";
import { CODEX_BIN, codexTestEnv, prepareCodexHome } from "../helpers/codex-env.js";
import { git, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// A reviewer whose login hits its usage limit moves to the next login of its CLI, like any agent:
// the real Codex CLI, two logins each behind its own fake model server.

const HOUR = 3600;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const quota = (fiveHour: number): QuotaHeaders => ({
  fiveHourUsedPercent: fiveHour,
  fiveHourResetsAt: nowSeconds() + 2 * HOUR,
  weeklyUsedPercent: 5,
  weeklyResetsAt: nowSeconds() + 72 * HOUR,
});

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
const servers: Record<string, FakeServer> = {};
const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });

beforeAll(async () => {
  box = await makeSandbox("offrun-review-fo-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env, { "README.md": "# demo\n" });
  const defaultHome = path.join(box.home, ".codex");
  await fs.mkdir(defaultHome, { recursive: true });
  env = {
    ...codexTestEnv({ home: box.home, tmp: box.tmp, codexHome: defaultHome }),
    OFFRUN_HOME: box.offrunHome,
    GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
    OFFRUN_CODEX_BIN: CODEX_BIN,
  };
  for (const label of ["work", "personal"]) {
    servers[label] = await startFakeServer([responsesProtocol]);
    servers[label]!.setQuota(quota(label === "work" ? 10 : 30));
    const home = path.join(box.dir, `codex-${label}`);
    await prepareCodexHome({ serverUrl: servers[label]!.url, codexHome: home });
    expect(await offrun("logins", "add", "codex", label, "--home", home, "--no-login")).toSucceed();
  }
  // Each login has run once, so its quota is known (a login with unknown quota ranks last).
  expect(
    (await offrun("start", "--harness", "codex", "--login", "work", "--wait", "--name", "warm", "hi")).exitCode,
  ).toBe(0);
  const worktree = path.join(repo, ".worktrees", "author");
  servers.personal!.script({
    kind: "write_file",
    path: path.join(worktree, "sum.ts"),
    content: "export const sum = 1 - 1;\n",
  });
  const author = await offrun(
    "start",
    "--harness",
    "codex",
    "--login",
    "personal",
    "--wait",
    "--name",
    "author",
    "add sum.ts",
  );
  expect(author).toSucceed();
});

afterAll(async () => {
  await box.cleanup();
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

test("a reviewer whose login hits its usage limit finishes the review on the next login of its CLI", async () => {
  const limitReset = nowSeconds() + 3 * HOUR;
  servers.work!.script({ kind: "usage_limit", resetsAt: limitReset });
  servers.personal!.script({
    kind: "text",
    text: JSON.stringify({
      verdict: "changes_requested",
      summary: "sum is 0.",
      findings: [{ file: "sum.ts", line: 1, severity: "major", message: "1 - 1", suggestion: null }],
    }),
  });
  const personalBefore = servers.personal!.turnRequests().length;
  const result = await offrun("review", "author", "--harness", "codex", "--login", "work", "--wait", "--json");
  expect(result).toSucceed();
  const { review } = JSON.parse(result.stdout) as {
    review: {
      outcome: string;
      verdict?: string;
      reviewer: { harness: string; account: string };
      failedOver?: string[];
      findings: { file: string; onDiff: boolean }[];
      authorWorktree?: { unchanged: boolean };
    };
  };
  expect(review.outcome).toBe("completed");
  expect(review.verdict).toBe("changes_requested");
  expect(review.reviewer).toMatchObject({ harness: "codex", account: "personal" });
  expect(review.failedOver).toEqual(["work"]);
  expect(review.findings).toEqual([expect.objectContaining({ file: "sum.ts", onDiff: true })]);
  expect(review.authorWorktree).toEqual({ unchanged: true, changed: [] });

  // The other login's server got the review, diff included.
  const received = servers.personal!.turnRequests().slice(personalBefore);
  expect(received).toHaveLength(1);
  expect(JSON.stringify(received[0]!.body)).toContain("export const sum = 1 - 1;");

  // The limited login is marked until its reset, and the move is in the review.
  const rows = JSON.parse((await offrun("quota", "--json")).stdout) as {
    harness: string;
    label: string;
    limitedUntil?: string;
  }[];
  const work = rows.find((r) => r.harness === "codex" && r.label === "work");
  expect(Math.abs(Date.parse(work?.limitedUntil ?? "") - limitReset * 1000)).toBeLessThan(60_000);
  const shown = await offrun("show", "author");
  expect(shown.stdout).toContain("moved on after a usage limit on: work");
  expect(await git(repo, box.env, ["worktree", "list"])).not.toContain(".review-");
});

// What broke: a review on a login that was not signed in ended there ("over"), though another
// login of the CLI had room; a turn in the same case went on to the next login.
test("a reviewer whose login is not signed in starts the review again on the next login, and marks it signed out", async () => {
  servers.work!.clearScript();
  // Codex asks again after a 401 before it gives up: every request of that attempt is refused.
  servers.work!.script(...Array.from({ length: 8 }, () => ({ kind: "unauthorized" as const })));
  servers.personal!.script({
    kind: "text",
    text: JSON.stringify({ verdict: "approve", summary: "Fine.", findings: [] }),
  });
  // work is still limited from the test above: --force picks it all the same.
  const result = await offrun(
    "review",
    "author",
    "--harness",
    "codex",
    "--login",
    "work",
    "--force",
    "--wait",
    "--json",
  );
  servers.work!.clearScript();
  expect(result).toSucceed();
  const { review } = JSON.parse(result.stdout) as {
    review: { outcome: string; verdict?: string; reviewer: { account: string }; failedOver?: string[] };
  };
  expect(review).toMatchObject({ outcome: "completed", verdict: "approve", reviewer: { account: "personal" } });
  expect(review.failedOver).toEqual(["work"]);
  const shown = await offrun("show", "author");
  expect(shown.stdout).toContain("⇄ moved on from: work (not signed in)");
  const { accounts: logins } = JSON.parse((await offrun("logins", "--json")).stdout) as {
    accounts: { harness: string; label: string; signIn?: { state: string } }[];
  };
  expect(logins.find((l) => l.harness === "codex" && l.label === "work")).toMatchObject({
    signIn: { state: "signed-out" },
  });
});
