import type { AgentEvent } from "../../../../src/core/foundation/events.js";
import { classifyEvent } from "../../../../src/core/notify/classify.js";
import { clockTime } from "../../../../src/core/foundation/time-words.js";
import { pinClock } from "../../../helpers/clock.js";

// Times in this file read on a 24-hour clock, whatever the machine's locale.
pinClock("24h");

// Event shapes copied from a chat log written by a stub claude replaying 2.1.332 fixtures.
const agent = { harness: "claude", name: "fin", project: "/work/repos/shop" };
const at = "2026-11-30T03:33:09.534Z";

test("a completed turn is 'finished' with the agent's last words as the body", () => {
  const event: AgentEvent = { type: "turn_end", outcome: "completed", at, turn: 1 };
  expect(classifyEvent(event, agent, "Hello from the fake server.")).toEqual({
    kind: "finished",
    agent: "fin",
    project: "/work/repos/shop",
    turn: 1,
    title: "fin (claude) · shop: finished",
    body: "Hello from the fake server.",
    at,
  });
});

test("a failed turn says why", () => {
  const event: AgentEvent = {
    type: "turn_end",
    outcome: "failed",
    reason: "Claude exited with code 0 without a result.",
    exitCode: 0,
    at,
    turn: 1,
  };
  expect(classifyEvent(event, agent)).toMatchObject({
    kind: "failed",
    body: "Claude exited with code 0 without a result.",
  });
});

test("an approval request names the tool and the command waiting", () => {
  const event: AgentEvent = {
    type: "approval_request",
    id: "1.1",
    tool: "Bash",
    input: { command: "node -e \"require('fs').writeFileSync('approved.txt','yes')\"" },
    text: "Bash: node -e …",
    alwaysKey: "Bash(node -e …)",
    at,
    turn: 1,
  };
  expect(classifyEvent(event, agent)).toMatchObject({
    kind: "needs-approval",
    requestId: "1.1",
    title: "fin (claude) · shop: needs approval (Bash)",
    body: "node -e \"require('fs').writeFileSync('approved.txt','yes')\"",
  });
});

test("questions, limits and login switches notify; a limit names its reset time", () => {
  expect(classifyEvent({ type: "question", text: "Which database?", id: "2.1", at, turn: 2 }, agent)).toMatchObject({
    kind: "question",
    body: "Which database?",
  });
  const limit: AgentEvent = {
    type: "limit_hit",
    message: "5-hour limit reached",
    resetsAt: "2026-11-30T08:00:00Z",
    at,
    turn: 1,
  };
  // It said "resets 2026-11-30T08:00:00Z": a notification writes the time as every face does.
  expect(classifyEvent(limit, agent)?.title).toBe(
    `fin (claude) · shop: hit a limit (resets ${clockTime("2026-11-30T08:00:00Z", Date.now(), "24h")})`,
  );
  const moved: AgentEvent = { type: "account_switch", from: "work", to: "home", reason: "usage limit", at, turn: 1 };
  expect(classifyEvent(moved, agent)).toMatchObject({ kind: "account-switch", body: "from work: usage limit" });
});

test("everything else, and a cancel the user asked for, is not a notification", () => {
  const quiet: AgentEvent[] = [
    { type: "text", text: "Hello", at, turn: 1 },
    { type: "tool_call", id: "t", name: "Bash", input: {}, at, turn: 1 },
    { type: "usage", inputTokens: 1, outputTokens: 1, at, turn: 1 },
    { type: "turn_end", outcome: "cancelled", at, turn: 1 },
  ];
  for (const event of quiet) expect(classifyEvent(event, agent)).toBeUndefined();
});

test("long bodies are cut to about 200 characters on one line", () => {
  const body = classifyEvent(
    { type: "turn_end", outcome: "completed", at, turn: 1 },
    agent,
    "word\n".repeat(100),
  )!.body;
  expect(body.length).toBeLessThanOrEqual(200);
  expect(body).not.toContain("\n");
  expect(body.endsWith("…")).toBe(true);
});
