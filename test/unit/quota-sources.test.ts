import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import type { Login } from "../../src/core/foundation/login-model.js";
import type { QuotaReading, QuotaSource, QuotaSourceContext } from "../../src/core/foundation/quota-types.js";
import { parseClaudeLimitText } from "../../src/harnesses/shared/claude-limit-text.js";
import { quotaSources as claudeSources } from "../../src/harnesses/claude/quota.js";
import { fastFields, readAssistantLine } from "../../src/harnesses/claude/usage-line.js";
import { quotaSources as codexSources, readAppServerRateLimits } from "../../src/harnesses/codex/quota.js";
import { localRunner } from "../../src/core/foundation/runner.js";
import { CODEX_BIN } from "../helpers/codex-env.js";

/** Recorded by test/fixtures/record-quota-sessions.ts from the pinned CLIs against the fake server. */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures");
const CLAUDE_HOME = path.join(FIXTURES, "claude/2.1.332/quota-home");
const CODEX_HOME = path.join(FIXTURES, "codex/0.171.0/quota-home");
const quotaSchema = z.object({ fiveHourResetsAt: z.number(), weeklyResetsAt: z.number() });
const claudeMeta = z
  .object({ recordedAt: z.string(), tz: z.string(), quota: quotaSchema })
  .parse(JSON.parse(fs.readFileSync(`${CLAUDE_HOME}.meta.json`, "utf8")));
const codexMeta = z
  .object({ recordedAt: z.string(), usageLimitResetsAt: z.number(), turns: z.array(z.object({ quota: quotaSchema })) })
  .parse(JSON.parse(fs.readFileSync(`${CODEX_HOME}.meta.json`, "utf8")));

const iso = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString();
const source = (sources: readonly QuotaSource[], id: string) => sources.find((s) => s.id === id)!;

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "offrun-quota-sources-"));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** A login whose home is a copy of a recorded one (the sources may be pointed at files we then change). */
function login(harness: string, recorded: string): Login {
  const home = path.join(root, `${harness}-home`);
  fs.cpSync(recorded, home, { recursive: true });
  return { harness, label: "work", home, isDefault: false, adopted: false, env: {} };
}

function context(
  login: Login,
  now: Date | string,
  id: string,
  extra: Partial<QuotaSourceContext> = {},
): QuotaSourceContext {
  return {
    login,
    env: {},
    runner: localRunner,
    now: new Date(now),
    cacheDir: path.join(root, "cache", id),
    ...extra,
  };
}

function sessionFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => path.join(dir, f));
}

describe("claude-stream", () => {
  const stream = source(claudeSources, "claude-stream");
  const login = { harness: "claude", label: "work", home: "/nowhere", isDefault: false, adopted: false, env: {} };
  const observed = {
    windows: [{ kind: "five_hour", usedPercent: 42, source: "claude-stream", observedAt: "2030-01-01T00:00:00.000Z" }],
    limitedUntil: "2030-01-01T03:00:00.000Z",
    observedAt: "2030-01-01T00:00:00.000Z",
  };

  test("answers with what Offrun's own runs observed, and nothing without it", async () => {
    expect(await stream.read(context(login, "2030-01-01T01:00:00Z", "s", { observed }))).toEqual({
      windows: observed.windows,
      limitedUntil: observed.limitedUntil,
    });
    expect(await stream.read(context(login, "2030-01-01T01:00:00Z", "s"))).toBeUndefined();
  });

  test("drops a limit whose reset has passed", async () => {
    const reading = await stream.read(context(login, "2030-01-01T04:00:00Z", "s", { observed }));
    expect(reading?.limitedUntil).toBeUndefined();
  });
});

describe("claude-limit-text", () => {
  const limits = source(claudeSources, "claude-limit-text");

  test("finds 2.1.332's usage-limit message and its reset while the reset is ahead", async () => {
    const reading = await limits.read(context(login("claude", CLAUDE_HOME), claudeMeta.recordedAt, limits.id));
    const resetsAt = iso(claudeMeta.quota.fiveHourResetsAt);
    expect(reading).toEqual<QuotaReading>({
      limitedUntil: resetsAt,
      windows: [expect.objectContaining({ kind: "five_hour", usedPercent: 100, resetsAt, status: "rejected" })],
    });
  });

  test("says nothing once the reset has passed", async () => {
    const after = new Date((claudeMeta.quota.fiveHourResetsAt + 60) * 1000);
    expect(await limits.read(context(login("claude", CLAUDE_HOME), after, limits.id))).toBeUndefined();
  });

  test("the text alone gives the same reset in any local time zone (2.1.332 names the zone)", () => {
    const line = sessionFiles(CLAUDE_HOME)
      .flatMap((file) => fs.readFileSync(file, "utf8").split("\n"))
      .find((l) => l.includes('"<synthetic>"'))!;
    const text = z
      .object({ message: z.object({ content: z.array(z.object({ text: z.string() })) }) })
      .parse(JSON.parse(line)).message.content[0]!.text;
    expect(text).toContain(`(${claudeMeta.tz})`);
    const writtenAt = new Date(z.object({ timestamp: z.string() }).parse(JSON.parse(line)).timestamp);
    const saved = process.env.TZ;
    try {
      for (const zone of ["UTC", "America/Los_Angeles", "Asia/Tokyo"]) {
        process.env.TZ = zone;
        expect(parseClaudeLimitText(text, writtenAt)?.resetsAt).toBe(iso(claudeMeta.quota.fiveHourResetsAt));
      }
    } finally {
      process.env.TZ = saved;
    }
  });
});

describe("claude-usage-estimate", () => {
  const usage = source(claudeSources, "claude-usage-estimate");
  /**
   * The fake server reports 12 input + 5 output tokens per answer and the sub-agent tool call
   * 30 + 9: seven answers, one of them written as two lines, plus the call. ccusage 20.0.24 counts
   * the same 158 on these files (`ccusage blocks --json`).
   */
  const RECORDED_TOKENS = 7 * 17 + 39;

  test("counts the current 5-hour block like ccusage: sub-agents in, streamed repeats once", async () => {
    const reading = await usage.read(context(login("claude", CLAUDE_HOME), claudeMeta.recordedAt, usage.id));
    const blockStart = Math.floor(Date.parse(claudeMeta.recordedAt) / 3_600_000) * 3_600_000;
    expect(reading?.windows).toEqual([
      expect.objectContaining({
        kind: "five_hour",
        usedTokens: RECORDED_TOKENS,
        resetsAt: new Date(blockStart + 5 * 3_600_000).toISOString(),
        source: "claude-usage-estimate",
      }),
    ]);
  });

  test("a forked copy of a session counts once, and an appended answer is added", async () => {
    const claude = login("claude", CLAUDE_HOME);
    const files = sessionFiles(path.join(claude.home, "projects"));
    const largest = files.reduce((a, b) => (fs.statSync(b).size > fs.statSync(a).size ? b : a));
    fs.copyFileSync(largest, largest.replace(/\.jsonl$/, "-fork.jsonl"));
    const now = claudeMeta.recordedAt;
    expect((await usage.read(context(claude, now, usage.id)))?.windows[0]?.usedTokens).toBe(RECORDED_TOKENS);
    // A new answer: the recorded last one with another message id.
    const answers = fs
      .readFileSync(largest, "utf8")
      .split("\n")
      .filter((l) => l.includes('"type":"assistant"'));
    fs.appendFileSync(largest, `${answers.at(-1)!.replace(/"id":"msg_[0-9a-f]+"/, '"id":"msg_appended"')}\n`);
    expect((await usage.read(context(claude, now, usage.id)))?.windows[0]?.usedTokens).toBe(RECORDED_TOKENS + 17);
  });

  test("no block is active five hours after the last answer", async () => {
    const later = new Date(Date.parse(claudeMeta.recordedAt) + 6 * 3_600_000);
    const reading = await usage.read(context(login("claude", CLAUDE_HOME), later, usage.id));
    expect(reading?.windows).toEqual([expect.objectContaining({ kind: "five_hour", usedTokens: 0 })]);
    expect(reading?.windows[0]?.resetsAt).toBeUndefined();
  });

  test("a login with no session files has nothing to say", async () => {
    const empty = { ...login("claude", CLAUDE_HOME), home: path.join(root, "empty") };
    expect(await usage.read(context(empty, claudeMeta.recordedAt, usage.id))).toBeUndefined();
  });

  test("the fast line reader agrees with JSON.parse on every recorded assistant line", () => {
    const answers = sessionFiles(CLAUDE_HOME)
      .flatMap((file) => fs.readFileSync(file, "utf8").split("\n"))
      .filter((l) => l.includes('"type":"assistant"'));
    expect(answers.length).toBeGreaterThan(5);
    for (const line of answers) {
      const fast = readAssistantLine(Buffer.from(line));
      const full = readAssistantLine(Buffer.from(` ${line}`.replace('"message":{', '"message" :{'))); // defeats the fast path
      expect(fast).toEqual(full);
    }
    // Only the synthetic limit message (usage before content) needs the full parse.
    expect(answers.filter((l) => fastFields(Buffer.from(l)) === undefined)).toHaveLength(1);
  });
});

describe("codex-rollout", () => {
  const rollouts = source(codexSources, "codex-rollout");
  const weekly = codexMeta.turns[0]!.quota.weeklyResetsAt;

  test("the newest token_count wins: the 429's rate limits say the login is out until the reset", async () => {
    const reading = await rollouts.read(context(login("codex", CODEX_HOME), codexMeta.recordedAt, rollouts.id));
    expect(reading).toEqual<QuotaReading>({
      limitedUntil: iso(codexMeta.usageLimitResetsAt),
      windows: [
        expect.objectContaining({ kind: "five_hour", usedPercent: 100, resetsAt: iso(codexMeta.usageLimitResetsAt) }),
        expect.objectContaining({ kind: "seven_day", usedPercent: 17, resetsAt: iso(weekly), status: "allowed" }),
      ],
    });
  });

  test("a passed 5-hour reset leaves the weekly window, and nothing once both passed", async () => {
    const codex = login("codex", CODEX_HOME);
    const afterFiveHour = new Date((codexMeta.usageLimitResetsAt + 60) * 1000);
    const reading = await rollouts.read(context(codex, afterFiveHour, rollouts.id));
    expect(reading).toEqual({ windows: [expect.objectContaining({ kind: "seven_day", usedPercent: 17 })] });
    expect(await rollouts.read(context(codex, new Date((weekly + 60) * 1000), rollouts.id))).toBeUndefined();
  });

  test("reads only rollout files under sessions/", async () => {
    const codex = login("codex", CODEX_HOME);
    for (const file of sessionFiles(codex.home)) fs.renameSync(file, file.replace("rollout-", "notes-"));
    expect(await rollouts.read(context(codex, codexMeta.recordedAt, rollouts.id))).toBeUndefined();
  });
});

describe("codex-app-server", () => {
  const appServer = source(codexSources, "codex-app-server");

  test("is skipped without a binary", async () => {
    expect(await appServer.read(context(login("codex", CODEX_HOME), new Date(), appServer.id))).toBeUndefined();
  });

  // 0.171.0 answers account/rateLimits/read only for a ChatGPT login; it makes the call itself.
  // The test setup installs the pinned CLI (scripts/install-test-clis.mjs): no skip when it is missing.
  test("has no data for an API-key login (checked with the real 0.171.0)", async () => {
    const codexHome = path.join(root, "codex-home");
    fs.mkdirSync(codexHome);
    const env = { PATH: process.env.PATH, HOME: root, CODEX_HOME: codexHome };
    execFileSync(CODEX_BIN, ["login", "--with-api-key"], {
      env,
      input: "sk-offrun-test-not-a-key",
      stdio: ["pipe", "ignore", "ignore"],
    });
    expect(await readAppServerRateLimits(localRunner, CODEX_BIN, env, new Date())).toBeUndefined();
    fs.rmSync(codexHome, { recursive: true });
    fs.mkdirSync(codexHome); // and none at all
    expect(await readAppServerRateLimits(localRunner, CODEX_BIN, env, new Date())).toBeUndefined();
  });

  test("fails with timed_out when the app-server does not answer in time", async () => {
    const stub = path.join(root, "silent-codex");
    fs.writeFileSync(stub, "#!/bin/sh\nexec sleep 30\n", { mode: 0o755 });
    await expect(
      readAppServerRateLimits(localRunner, stub, { PATH: process.env.PATH }, new Date(), 300),
    ).rejects.toMatchObject({
      kind: "timed_out",
    });
  });
});
