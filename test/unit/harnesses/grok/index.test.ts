import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isOffrunError } from "../../../../src/core/foundation/errors.js";
import type { ParsedEvent } from "../../../../src/core/foundation/events.js";
import { localRunner } from "../../../../src/core/foundation/runner.js";
import {
  assertGrokBuild,
  createGrokParser,
  grokHarness,
  identifyGrokBinary,
} from "../../../../src/harnesses/grok/index.js";
import { usageLimitMessage } from "../../../fake-server/chat-completions.js";
import { ofType, turnEnd } from "../../../helpers/events.js";

/**
 * Grok Build does not install here and needs an xAI login, so no real CLI runs. These stream
 * lines are the user guide's own (xai-org/grok-build 1.0.6,
 * crates/codegen/xai-grok-pager/docs/user-guide/14-headless-mode.md:217-222), with their ids and
 * counts changed; `cancelled` is one of the `end.stopReason` values it lists (:239-243).
 */
const documented = {
  thought: { type: "thought", data: "Let me look." },
  text1: { type: "text", data: "Hello" },
  text2: { type: "text", data: ", world" },
  toolCall: {
    type: "tool_call",
    toolCallId: "call_1",
    title: "write",
    kind: "edit",
    status: "in_progress",
    toolName: "write",
    rawInput: { file_path: "x.txt" },
    content: [],
    locations: [],
  },
  usageLine: {
    type: "usage",
    messageId: "resp_1",
    stopReason: "end_turn",
    usage: { input_tokens: 812, output_tokens: 45, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  },
  end: {
    type: "end",
    sessionId: "019f470d-3e02-7601-b726-1133cc72ef76",
    stopReason: "end_turn",
    requestId: "xyz789",
    usage: { input_tokens: 120, output_tokens: 7 },
    num_turns: 1,
  },
  cancelled: { type: "end", stopReason: "cancelled", sessionId: "s-2", requestId: "r-2" },
};

function run(lines: unknown[], stderrTail = "", exitCode: number | undefined = 0) {
  const parser = createGrokParser();
  const events = lines.flatMap((line) => parser.push(JSON.stringify(line)));
  return [...events, ...parser.finish({ exitCode, stderrTail })];
}

describe("the streaming-json parser (on documented shapes)", () => {
  test("text deltas become one message; the end gives the session, the usage and a completed turn", () => {
    const events = run([documented.thought, documented.text1, documented.text2, documented.end]);
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Hello, world"]);
    expect(ofType(events, "session")).toEqual([{ type: "session", sessionId: documented.end.sessionId }]);
    expect(ofType(events, "usage")).toEqual([{ type: "usage", inputTokens: 120, outputTokens: 7 }]);
    expect(turnEnd(events).outcome).toBe("completed");
  });

  test("a tool call splits the text around it", () => {
    const events = run([documented.text1, documented.toolCall, documented.text2, documented.usageLine, documented.end]);
    expect(events.map((e) => e.type)).toEqual(["text", "tool_call", "text", "session", "usage", "turn_end"]);
    expect(ofType(events, "tool_call")[0]).toMatchObject({
      id: "call_1",
      name: "write",
      input: { file_path: "x.txt" },
    });
  });

  test("a cancelled end is the permission prompt headless Grok cancelled: a denial, not a stop by the user", async () => {
    // headless.rs answers every permission request Cancelled unless always-approve.
    const events = run([documented.text1, documented.usageLine, documented.cancelled]);
    expect(ofType(events, "denial")).toHaveLength(1);
    expect(turnEnd(events)).toMatchObject({ outcome: "failed", reason: expect.stringMatching(/grok agent stdio/) });
  });

  test("headless 'Not signed in' on stderr is a sign-in failure", () => {
    // headless.rs auth_required_message (non-interactive).
    const events = run(
      [],
      "Not signed in. To authenticate without a browser, run:\n  grok login --device-code\n\nAlternatively, set the XAI_API_KEY environment variable or run `grok login` on a machine with a browser.",
      1,
    );
    expect(ofType(events, "error")[0]).toMatchObject({ kind: "not_logged_in" });
  });

  test("a stream without an end fails the turn with the end of stderr; a 429 is a rate limit", () => {
    const events = run([documented.text1, "not json"], "Error: 429 Too Many Requests", 1);
    expect(ofType(events, "text")).toHaveLength(1);
    expect(ofType(events, "error")[0]).toMatchObject({ kind: "rate_limited" });
    expect(turnEnd(events)).toMatchObject({ outcome: "failed", exitCode: 1 });
  });

  test("a provider's usage-limit text is a limit hit with its reset, so the ledger holds the login out", () => {
    // Grok Build's own limit wording is not known; the fake server's provider wording stands in.
    const resetsAt = Math.floor(Date.now() / 1000) + 3600;
    const events = run([documented.text1], `Error: 429 ${usageLimitMessage(resetsAt)}`, 1);
    expect(ofType(events, "limit_hit")).toEqual([
      expect.objectContaining({ resetsAt: new Date(resetsAt * 1000).toISOString() }),
    ]);
    expect(turnEnd(events)).toMatchObject({ outcome: "limited", exitCode: 1 });
  });
});

describe("grok argv (flags from documentation only)", () => {
  const base = { mode: "build" as const, cwd: "/w", binary: "/bin/grok", env: {} };
  test("a Build turn, resumed, with a model", () => {
    const command = grokHarness.turnCommand({
      ...base,
      prompt: "fix it",
      resumeSessionId: "s1",
      model: "grok-4.6",
      loginHome: "/h",
    });
    expect(command.args).toEqual([
      "-p",
      "fix it",
      "--output-format",
      "streaming-json",
      "--permission-mode",
      "acceptEdits",
      "-r",
      "s1",
      "-m",
      "grok-4.6",
    ]);
    expect(command.env?.GROK_HOME).toBe("/h");
  });
  test("a prompt that starts with a dash goes in on stdin", () => {
    const command = grokHarness.turnCommand({ ...base, mode: "plan", prompt: "-v is broken" });
    expect(command.args.slice(0, 2)).toEqual(["--prompt-file", "/dev/stdin"]);
    expect(command.args).toContain("plan");
    expect(command.input).toBe("-v is broken");
  });
});

describe("telling Grok Build from the community grok", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "offrun-grok-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function stub(file: string, script: string): Promise<string> {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, script, { mode: 0o755 });
    await chmod(file, 0o755);
    return file;
  }

  test("the npm package @vibe-kit/grok-cli is named from its install path", async () => {
    const bin = await stub(
      path.join(dir, "node_modules", "@vibe-kit", "grok-cli", "dist", "index.js"),
      "#!/usr/bin/env node\n",
    );
    const kind = await identifyGrokBinary(bin, localRunner);
    expect(kind).toMatchObject({ isGrokBuild: false, what: expect.stringContaining("@vibe-kit/grok-cli") });
  });

  test("a script that prints a bare version is the community CLI, and the error says how to fix it", async () => {
    // What @vibe-kit/grok-cli 0.0.34 (commander) prints for --version, installed through a symlink.
    const bin = await stub(path.join(dir, "bin", "grok"), "#!/bin/sh\n# node\necho 0.0.34\n");
    const error = await assertGrokBuild(bin, localRunner).catch((e: unknown) => e);
    expect(isOffrunError(error, "not_installed")).toBe(true);
    expect((error as Error).message).toMatch(
      /^The `grok` on your PATH is the community Grok CLI \(@vibe-kit\/grok-cli, version 0\.0\.34; .*\), not xAI's Grok Build\. Install Grok Build from https:\/\/x\.ai\/cli or point OFFRUN_GROK_BIN at it\.$/,
    );
  });

  test("what prints Grok Build's version line is Grok Build, a wrapper script too; an old one is refused", async () => {
    const bin = await stub(path.join(dir, "wrapper", "grok"), "#!/bin/sh\necho 'grok 1.0.6 (7d67dea) [stable]'\n");
    expect(await identifyGrokBinary(bin, localRunner)).toEqual({ isGrokBuild: true, version: "1.0.6" });
    await expect(assertGrokBuild(bin, localRunner, "1.0.0")).resolves.toBeUndefined();
    const old = await stub(path.join(dir, "old", "grok"), "#!/bin/sh\necho 'grok 0.2.121 (393430e) [stable]'\n");
    await expect(assertGrokBuild(old, localRunner, "1.0.0")).rejects.toThrow(
      /^Grok Build 0\.2\.121 \(.*\) is older than 1\.0\.0, the oldest version Offrun works with\. Run `grok update`/,
    );
  });

  test("a program that prints something else is named as unknown, with what it printed", async () => {
    const bin = await stub(path.join(dir, "grok"), "#!/bin/sh\necho 'grok pattern tool 1.2'\n");
    await expect(assertGrokBuild(bin, localRunner)).rejects.toThrow(
      /an unknown program .*printed "grok pattern tool 1\.2"/,
    );
  });

  test("a live turn with the community CLI fails before spawning anything", async () => {
    const bin = await stub(path.join(dir, "community", "grok"), "#!/bin/sh\necho 0.0.34\n");
    const events: ParsedEvent[] = [];
    let spawned = false;
    await grokHarness.live!.runTurn(
      { prompt: "hi", mode: "build", cwd: dir, binary: bin, env: {} },
      {
        signal: new AbortController().signal,
        emit: (e) => events.push(...e),
        decide: async () => ({ kind: "deny" }),
        spawn: () => {
          spawned = true;
          throw new Error("must not spawn");
        },
        run: localRunner.run,
        alwaysAllowed: [],
      },
    );
    expect(spawned).toBe(false);
    expect(ofType(events, "error")[0]).toMatchObject({ kind: "not_installed" });
    expect(turnEnd(events).outcome).toBe("failed");
  });
});
