import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { RequestError } from "@agentclientprotocol/sdk";
import * as z from "zod";
import { acpLimitText, failureEvents, type AcpAgentDefinition } from "../../../../src/harnesses/acp/index.js";

/**
 * ACP has no usage-limit signal: a limit reaches the ledger only as the `limit_hit` that
 * failureEvents makes of a prompt's error text (the supervisor records it with its reset).
 * The texts are the ones the pinned CLIs wrote against the fake server's usage_limit step.
 */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures");
const replySchema = z.object({ message: z.object({ errorMessage: z.string().optional() }).optional() });

/** The error text Pi 0.73.1 recorded for the fake server's usage-limit 429 (OpenAI-compatible provider). */
function recordedProviderText(): string {
  const dir = path.join(FIXTURES, "pi/0.73.1/quota-home/sessions");
  const files = fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
  for (const file of files) {
    for (const line of fs.readFileSync(path.join(dir, file), "utf8").split("\n")) {
      if (!line.includes("errorMessage")) continue;
      const text = replySchema.parse(JSON.parse(line)).message?.errorMessage;
      if (text) return text;
    }
  }
  throw new Error("no recorded limit text");
}

const definition: AcpAgentDefinition = {
  id: "my-agent",
  displayName: "My Agent",
  command: "my-agent",
  args: ["--acp"],
  env: {},
  homeVariable: "MY_AGENT_HOME",
  modes: {},
  installHint: "install my-agent",
  initializeTimeoutMs: 30_000,
  authMethodIds: [],
};

let root: string;
const saved = { OFFRUN_HOME: process.env.OFFRUN_HOME, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR };
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "offrun-acp-limits-"));
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

describe("limits from a custom ACP agent's messages", () => {
  test("a provider's usage-limit text in a prompt error is a limit hit with the reset it names", () => {
    const text = recordedProviderText();
    const resetsAt = /resets at (\S+?)\.?$/.exec(text)?.[1];
    expect(resetsAt).toBeDefined();
    const events = failureEvents(definition, new RequestError(-32603, text), "", new Date("2026-12-01T11:00:00Z"));
    expect(events).toEqual([
      expect.objectContaining({ type: "limit_hit", resetsAt: new Date(resetsAt!).toISOString() }),
      expect.objectContaining({ type: "turn_end", outcome: "limited" }),
    ]);
  });

  test("OpenAI's insufficient_quota text is a limit without a reset (the supervisor then waits an hour)", () => {
    expect(
      acpLimitText("429 You exceeded your current quota, please check your plan and billing details.", new Date()),
    ).toEqual({});
  });

  test("Gemini CLI 0.61.0's ACP word for every 429 stays a transient rate limit", () => {
    const events = failureEvents(
      definition,
      new RequestError(429, "Rate limit exceeded. Try again later."),
      "",
      new Date(),
    );
    expect(events[0]).toEqual(expect.objectContaining({ type: "error", kind: "rate_limited" }));
  });

  test("Codex's own text keeps its clock-time reset", () => {
    const now = new Date("2026-12-01T01:00:00");
    const limit = acpLimitText("You’ve hit your usage limit. Try again at 2:49 AM.", now);
    expect(limit?.resetsAt).toBe(new Date("2026-12-01T02:49:00").toISOString());
  });
});
