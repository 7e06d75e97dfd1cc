import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import type { Login } from "../../../../src/core/foundation/login-model.js";
import type { QuotaSourceContext } from "../../../../src/core/foundation/quota-types.js";
import { localRunner } from "../../../../src/core/foundation/runner.js";
import { quotaSources } from "../../../../src/harnesses/gemini/quota.js";

/** Recorded by test/fixtures/record-quota-sessions-pi-gemini.ts from Gemini CLI 0.61.0 against the fake server. */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures/gemini/0.61.0");
const LIMITED_HOME = path.join(FIXTURES, "quota-home");
const ANSWERED_HOME = path.join(FIXTURES, "quota-home-answered");
const meta = z
  .object({ turns: z.array(z.object({ turn: z.string(), at: z.string(), exitCode: z.number() })) })
  .parse(JSON.parse(fs.readFileSync(path.join(FIXTURES, "quota-home.meta.json"), "utf8")));
const at = (turn: string) => meta.turns.find((t) => t.turn === turn)!;
/** The fake server reports 12 input + 5 output tokens for each reply. */
const PER_REPLY = 17;

const usage = quotaSources.find((s) => s.id === "gemini-usage-estimate")!;

let root: string;
const saved = { OFFRUN_HOME: process.env.OFFRUN_HOME, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR };
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "offrun-gemini-quota-"));
  for (const dir of ["offrun", "home", "tmp"]) fs.mkdirSync(path.join(root, dir));
  Object.assign(process.env, {
    OFFRUN_HOME: path.join(root, "offrun"),
    HOME: path.join(root, "home"),
    TMPDIR: path.join(root, "tmp"),
  });
});
afterEach(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  fs.rmSync(root, { recursive: true, force: true });
});

function login(recorded: string): Login {
  const home = path.join(root, "gemini-home");
  fs.cpSync(recorded, home, { recursive: true });
  return { harness: "gemini", label: "work", home, isDefault: false, adopted: false, env: {} };
}

function context(login: Login, now: Date | string): QuotaSourceContext {
  return {
    login,
    env: {},
    runner: localRunner,
    now: new Date(now),
    cacheDir: path.join(root, "cache", usage.id),
  };
}

describe("gemini-usage-estimate", () => {
  test("counts each reply once although 0.61.0 rewrites records on resume", async () => {
    // Three replies in the first session (a tool call, its answer, and the resumed turn's answer).
    const reading = await usage.read(context(login(LIMITED_HOME), at("usage-limit").at));
    expect(reading?.windows).toEqual([
      expect.objectContaining({ kind: "daily", usedTokens: 3 * PER_REPLY, source: "gemini-usage-estimate" }),
    ]);
    expect(reading?.windows[0]?.usedPercent).toBeUndefined();
    expect(reading?.limitedUntil).toBeUndefined();
  });

  test("the day resets at midnight Pacific time, when the Gemini API's daily quotas do", async () => {
    const now = at("usage-limit").at;
    const reading = await usage.read(context(login(LIMITED_HOME), now));
    const resetsAt = Date.parse(reading!.windows[0]!.resetsAt!);
    expect(resetsAt).toBeGreaterThan(Date.parse(now));
    expect(resetsAt - Date.parse(now)).toBeLessThanOrEqual(86_400_000);
    const wall = new Intl.DateTimeFormat("en-US", {
      timeZone: "America/Los_Angeles",
      hourCycle: "h23",
      hour: "2-digit",
      minute: "2-digit",
    }).format(new Date(resetsAt));
    expect(wall).toBe("00:00");
    const nextDay = await usage.read(context(login(LIMITED_HOME), new Date(resetsAt + 60_000)));
    expect(nextDay?.windows[0]?.usedTokens).toBe(0);
  });

  test("0.61.0 leaves no trace of a quota error: the limited run exits 173 and adds no tokens", async () => {
    expect(at("usage-limit").exitCode).toBe(173);
    const reading = await usage.read(context(login(ANSWERED_HOME), at("answered-after").at));
    expect(reading?.windows[0]?.usedTokens).toBe(4 * PER_REPLY);
    // The limited run's own file (in quota-home) holds its prompt and nothing of the error.
    for (const home of [LIMITED_HOME, ANSWERED_HOME]) {
      const files = fs.readdirSync(home, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
      const text = files.map((f) => fs.readFileSync(path.join(home, f), "utf8")).join("\n");
      expect(text).not.toMatch(/usage limit|exhausted|\b429\b/i);
    }
  });

  test("a home without chats has no data", async () => {
    const login: Login = {
      harness: "gemini",
      label: "new",
      home: path.join(root, "none"),
      isDefault: false,
      adopted: false,
      env: {},
    };
    expect(await usage.read(context(login, at("usage-limit").at))).toBeUndefined();
  });
});
