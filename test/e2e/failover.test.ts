import fs from "node:fs/promises";
import path from "node:path";
import { anthropicProtocol } from "../fake-server/anthropic.js";
import { responsesProtocol } from "../fake-server/openai-responses.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import type { QuotaHeaders } from "../fake-server/script.js";
import { CLAUDE_BIN, claudeTestEnv } from "../helpers/claude-env.js";
import { CODEX_BIN, codexTestEnv, prepareCodexHome } from "../helpers/codex-env.js";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// Two logins per CLI, each behind its own fake model server (a login may carry its own base
// URL, as a gateway would): quota per login, pre-dispatch to the emptier one, and a usage limit
// mid-task that moves the conversation to the other login, where the task finishes.

const HOUR = 3600;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const quota = (fiveHour: number, weekly: number): QuotaHeaders => ({
  fiveHourUsedPercent: fiveHour,
  fiveHourResetsAt: nowSeconds() + 2 * HOUR,
  weeklyUsedPercent: weekly,
  weeklyResetsAt: nowSeconds() + 72 * HOUR,
});

interface QuotaRow {
  harness: string;
  label: string;
  windows: { kind: string; usedPercent?: number; resetsAt?: string }[];
  limitedUntil?: string;
}

function usedPercent(rows: QuotaRow[], harness: string, label: string, kind: string): number | undefined {
  const row = rows.find((r) => r.harness === harness && r.label === label);
  return row?.windows.find((w) => w.kind === kind)?.usedPercent;
}

/** How far a window's reported reset is from the instant the server announced (ms). */
function resetSkew(rows: QuotaRow[], harness: string, label: string, kind: string, epochSeconds: number): number {
  const row = rows.find((r) => r.harness === harness && r.label === label);
  const resetsAt = row?.windows.find((w) => w.kind === kind)?.resetsAt;
  return resetsAt === undefined ? Infinity : Math.abs(Date.parse(resetsAt) - epochSeconds * 1000);
}

describe("Claude Code with two subscriber logins", () => {
  let box: Sandbox;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const servers: Record<string, FakeServer> = {};

  beforeAll(async () => {
    box = await makeSandbox("offrun-fo-claude-");
    repo = await makeRepo(path.join(box.dir, "repo"), box.env);
    servers.work = await startFakeServer([anthropicProtocol]);
    servers.personal = await startFakeServer([anthropicProtocol]);
    const base = claudeTestEnv({
      serverUrl: "http://127.0.0.1:9",
      home: box.home,
      tmp: box.tmp,
      configDir: "",
      subscriber: true,
    });
    delete base.CLAUDE_CONFIG_DIR; // the Default login keeps the CLI's own home
    delete base.ANTHROPIC_BASE_URL; // each login names its own server
    env = {
      ...base,
      OFFRUN_HOME: box.offrunHome,
      GIT_CONFIG_GLOBAL: box.env.GIT_CONFIG_GLOBAL,
      OFFRUN_CLAUDE_BIN: CLAUDE_BIN,
    };
    for (const [label, server] of Object.entries(servers)) {
      // The subscriber token stands in for each login's sign-in; it is the user's environment,
      // never something Offrun stores (accounts add refuses secrets in --env).
      const added = await offrun(
        "logins",
        "add",
        "claude",
        label,
        "--no-login",
        "--env",
        `ANTHROPIC_BASE_URL=${server.url}`,
      );
      expect(added).toSucceed();
    }
  });

  afterAll(async () => {
    await box.cleanup();
    await Promise.all(Object.values(servers).map((s) => s.close()));
  });

  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });

  test("quota reports each login's windows from its own runs, and start picks the emptier login", async () => {
    const workQuota = quota(80, 30);
    servers.work!.setQuota(workQuota);
    servers.personal!.setQuota(quota(20, 10));
    for (const label of ["work", "personal"]) {
      const warm = await offrun("start", "--wait", "--login", label, "--name", `warm-${label}`, "say hi");
      expect(warm).toSucceed();
    }
    const rows = JSON.parse((await offrun("quota", "--json")).stdout) as QuotaRow[];
    expect(usedPercent(rows, "claude", "work", "five_hour")).toBeCloseTo(80, 0);
    expect(usedPercent(rows, "claude", "personal", "five_hour")).toBeCloseTo(20, 0);
    expect(usedPercent(rows, "claude", "personal", "seven_day")).toBeCloseTo(10, 0);
    expect(resetSkew(rows, "claude", "work", "five_hour", workQuota.fiveHourResetsAt)).toBeLessThan(1000);
    expect(resetSkew(rows, "claude", "work", "seven_day", workQuota.weeklyResetsAt)).toBeLessThan(1000);

    const picked = JSON.parse((await offrun("start", "--json", "--name", "picked", "a small task")).stdout) as {
      account: string;
    };
    expect(picked.account).toBe("personal");
    await offrun("stop", "picked");
  });

  test("a usage limit mid-task moves the session to the other login, which gets the history and finishes", async () => {
    const worktree = path.join(repo, ".worktrees", "migrate");
    const limitReset = nowSeconds() + 3 * HOUR;
    servers.personal!.script(
      { kind: "write_file", path: path.join(worktree, "step1.txt"), content: "done on personal\n" },
      { kind: "usage_limit", resetsAt: limitReset },
    );
    servers.work!.script({ kind: "text", text: "Finished on the work login." });
    const before = servers.work!.turnRequests().length;

    const result = await offrun("start", "--wait", "--name", "migrate", "write step1.txt then finish");
    expect(result).toSucceed();
    expect(result.stdout).toContain("Finished on the work login.");
    expect(await fs.readFile(path.join(worktree, "step1.txt"), "utf8")).toBe("done on personal\n");

    const received = servers.work!.turnRequests().slice(before);
    const body = JSON.stringify(received[0]!.body);
    expect(body).toContain("write step1.txt then finish");
    expect(body).toContain("step1.txt"); // the Write tool call made on the other login
    const shown = JSON.parse((await offrun("show", "migrate", "--json")).stdout) as {
      agent: { account: string; status: string; worktree: string };
      events: { type: string; from?: string; to?: string }[];
    };
    expect(shown.agent).toMatchObject({ account: "work", status: "idle", worktree });
    expect(shown.events.find((e) => e.type === "account_switch")).toMatchObject({ from: "personal", to: "work" });

    const rows = JSON.parse((await offrun("quota", "--json")).stdout) as QuotaRow[];
    const personal = rows.find((r) => r.harness === "claude" && r.label === "personal")!;
    expect(Math.abs(Date.parse(personal.limitedUntil!) - limitReset * 1000)).toBeLessThan(60_000);
  });
});

describe("Codex with two logins", () => {
  let box: Sandbox;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  const servers: Record<string, FakeServer> = {};

  beforeAll(async () => {
    box = await makeSandbox("offrun-fo-codex-");
    repo = await makeRepo(path.join(box.dir, "repo"), box.env);
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
      const home = path.join(box.dir, `codex-${label}`);
      await prepareCodexHome({ serverUrl: servers[label]!.url, codexHome: home });
      expect(await offrun("logins", "add", "codex", label, "--home", home, "--no-login")).toSucceed();
    }
  });

  afterAll(async () => {
    await box.cleanup();
    await Promise.all(Object.values(servers).map((s) => s.close()));
  });

  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });

  test("rollout rate limits give each login's quota, start picks the emptier, a usage limit moves the thread", async () => {
    const personalQuota = quota(70, 40);
    servers.work!.setQuota(quota(15, 5));
    servers.personal!.setQuota(personalQuota);
    for (const label of ["work", "personal"]) {
      expect(
        (await offrun("start", "--harness", "codex", "--wait", "--login", label, "--name", `warm-${label}`, "hi"))
          .exitCode,
      ).toBe(0);
    }
    const rows = JSON.parse((await offrun("quota", "--refresh", "--json")).stdout) as QuotaRow[];
    expect(usedPercent(rows, "codex", "work", "five_hour")).toBeCloseTo(15, 0);
    expect(usedPercent(rows, "codex", "personal", "seven_day")).toBeCloseTo(40, 0);
    expect(resetSkew(rows, "codex", "personal", "five_hour", personalQuota.fiveHourResetsAt)).toBeLessThan(1000);
    expect(resetSkew(rows, "codex", "personal", "seven_day", personalQuota.weeklyResetsAt)).toBeLessThan(1000);

    const worktree = path.join(repo, ".worktrees", "thread");
    servers.work!.script(
      { kind: "write_file", path: path.join(worktree, "part1.md"), content: "from work" },
      { kind: "usage_limit", resetsAt: nowSeconds() + 2 * HOUR },
    );
    servers.personal!.script({ kind: "text", text: "Wrapped up on personal." });
    const before = servers.personal!.turnRequests().length;
    const result = await offrun(
      "start",
      "--harness",
      "codex",
      "--wait",
      "--name",
      "thread",
      "write part1.md and wrap up",
    );
    expect(result).toSucceed();
    expect(result.stdout).toContain("Wrapped up on personal.");
    expect(await fs.readFile(path.join(worktree, "part1.md"), "utf8")).toContain("from work");
    const body = JSON.stringify(servers.personal!.turnRequests().slice(before)[0]!.body);
    expect(body).toContain("write part1.md and wrap up");
    expect(body).toContain("part1.md");
    const shown = JSON.parse((await offrun("show", "thread", "--json")).stdout) as { agent: { account: string } };
    expect(shown.agent.account).toBe("personal");
  });
});
