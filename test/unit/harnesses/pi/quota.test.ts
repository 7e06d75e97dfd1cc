import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import type { Login } from "../../../../src/core/foundation/login-model.js";
import type { QuotaReading, QuotaSourceContext } from "../../../../src/core/foundation/quota-types.js";
import { localRunner } from "../../../../src/core/foundation/runner.js";
import { quotaSources } from "../../../../src/harnesses/pi/quota.js";

/** Recorded by test/fixtures/record-quota-sessions-pi-gemini.ts from Pi 0.73.1 against the fake server. */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures/pi/0.73.1");
const LIMITED_HOME = path.join(FIXTURES, "quota-home");
const ANSWERED_HOME = path.join(FIXTURES, "quota-home-answered");
const meta = z
  .object({
    usageLimitResetsAt: z.number(),
    turns: z.array(z.object({ turn: z.string(), at: z.string() })),
  })
  .parse(JSON.parse(fs.readFileSync(path.join(FIXTURES, "quota-home.meta.json"), "utf8")));
const limitTurnAt = meta.turns.find((t) => t.turn === "usage-limit")!.at;
const resetsAt = new Date(meta.usageLimitResetsAt * 1000).toISOString();

const limits = quotaSources.find((s) => s.id === "pi-limit-text")!;
const usage = quotaSources.find((s) => s.id === "pi-usage-estimate")!;

let root: string;
const saved = { OFFRUN_HOME: process.env.OFFRUN_HOME, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR };
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "offrun-pi-quota-"));
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
  const home = path.join(root, "pi-home");
  fs.cpSync(recorded, home, { recursive: true });
  return { harness: "pi", label: "work", home, isDefault: false, adopted: false, env: {} };
}

function context(login: Login, now: Date | string, id: string): QuotaSourceContext {
  return { login, env: {}, runner: localRunner, now: new Date(now), cacheDir: path.join(root, "cache", id) };
}

describe("pi-limit-text", () => {
  test("finds 0.73.1's usage-limit reply in the session files, with the reset the provider named", async () => {
    const reading = await limits.read(context(login(LIMITED_HOME), limitTurnAt, limits.id));
    expect(reading).toEqual<QuotaReading>({
      limitedUntil: resetsAt,
      windows: [
        expect.objectContaining({ kind: "usage_limit", status: "rejected", resetsAt, source: "pi-limit-text" }),
      ],
    });
  });

  test("says nothing once the reset has passed", async () => {
    const after = new Date((meta.usageLimitResetsAt + 60) * 1000);
    expect(await limits.read(context(login(LIMITED_HOME), after, limits.id))).toBeUndefined();
  });

  test("a reply answered after the limit, in another session, ends it before its reset", async () => {
    const answeredAt = meta.turns.find((t) => t.turn === "answered-after")!.at;
    expect(await limits.read(context(login(ANSWERED_HOME), answeredAt, limits.id))).toBeUndefined();
  });

  test("reads the session files again only when they change, from its cache after a restart", async () => {
    const limited = login(LIMITED_HOME);
    const first = await limits.read(context(limited, limitTurnAt, limits.id));
    // A second cache folder that starts from the first's saved state: the same answer.
    fs.cpSync(path.join(root, "cache", limits.id), path.join(root, "cache", "again"), { recursive: true });
    expect(await limits.read(context(limited, limitTurnAt, "again"))).toEqual(first);
  });

  test("a home without sessions has no data", async () => {
    const login: Login = {
      harness: "pi",
      label: "new",
      home: path.join(root, "none"),
      isDefault: false,
      adopted: false,
      env: {},
    };
    expect(await limits.read(context(login, limitTurnAt, limits.id))).toBeUndefined();
  });
});

describe("pi-usage-estimate", () => {
  test("counts each reply's totalTokens once in the current 5-hour block, the error reply adding none", async () => {
    // The fake server reports 100 input + 12 output + 20 cache-read tokens per answer: three answers.
    const reading = await usage.read(context(login(LIMITED_HOME), limitTurnAt, usage.id));
    const blockStart = Math.floor(Date.parse(meta.turns[0]!.at) / 3_600_000) * 3_600_000;
    expect(reading?.windows).toEqual([
      expect.objectContaining({
        kind: "five_hour",
        usedTokens: 3 * 132,
        resetsAt: new Date(blockStart + 5 * 3_600_000).toISOString(),
        source: "pi-usage-estimate",
      }),
    ]);
    expect(reading?.windows[0]?.usedPercent).toBeUndefined();
  });

  test("a copied session (a fork, a failover into this home) is not counted twice", async () => {
    const answered = login(ANSWERED_HOME);
    const files = fs.readdirSync(path.join(answered.home, "sessions"), { recursive: true, encoding: "utf8" });
    const first = path.join(
      answered.home,
      "sessions",
      files.find((f) => f.endsWith(".jsonl"))!,
    );
    fs.mkdirSync(path.join(answered.home, "sessions", "--elsewhere--"));
    fs.copyFileSync(first, path.join(answered.home, "sessions", "--elsewhere--", path.basename(first)));
    const reading = await usage.read(context(answered, limitTurnAt, usage.id));
    expect(reading?.windows[0]?.usedTokens).toBe(4 * 132);
  });

  test("after five quiet hours the block is empty: zero tokens, no reset", async () => {
    const later = new Date(Date.parse(limitTurnAt) + 6 * 3_600_000);
    const reading = await usage.read(context(login(LIMITED_HOME), later, usage.id));
    expect(reading?.windows).toEqual([expect.objectContaining({ kind: "five_hour", usedTokens: 0 })]);
    expect(reading?.windows[0]?.resetsAt).toBeUndefined();
  });
});
