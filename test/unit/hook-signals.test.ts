import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { BUILTIN_HARNESSES } from "../../src/harnesses/registry.js";

// Payloads as Offrun's hook received them from the real CLIs (test/fixtures/record-hooks.ts).
const FIXTURES = path.resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..", "fixtures");

async function recorded(
  cli: string,
  version: string,
  event: string,
): Promise<{ receivedAt: string; payload: unknown }> {
  const text = await fs.readFile(path.join(FIXTURES, cli, version, "hooks", `${event}.json`), "utf8");
  return JSON.parse(text) as { receivedAt: string; payload: unknown };
}

const signal = (harness: string, payload: unknown, at = "2026-11-30T04:28:37.795Z") =>
  BUILTIN_HARNESSES.find((h) => h.id === harness)!.hooks!.signal(payload, at);

it("Claude Code's Stop is a finished turn with its last message", async () => {
  const { payload, receivedAt } = await recorded("claude", "2.1.332", "Stop");
  expect(await signal("claude", payload, receivedAt)).toEqual({
    kind: "finished",
    sessionId: "5fc2c9d5-8c90-467f-b4a3-82fe11da9752",
    cwd: "<root>/repo",
    text: "Hello from the fake model.",
    at: receivedAt,
  });
});

it("a Stop without last_assistant_message takes the last main-thread words from the transcript's tail", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-stop-"));
  const transcript = path.join(dir, "s.jsonl");
  const assistant = (text: string, sidechain = false) =>
    JSON.stringify({ type: "assistant", isSidechain: sidechain, message: { content: [{ type: "text", text }] } });
  await fs.writeFile(
    transcript,
    [assistant("Earlier."), assistant("Main answer."), assistant("A sub-agent", true)].join("\n") + "\n",
  );
  const payload = { session_id: "s", transcript_path: transcript, hook_event_name: "Stop", stop_hook_active: false };
  expect(await signal("claude", payload)).toMatchObject({ kind: "finished", text: "Main answer." });
  await fs.rm(dir, { recursive: true });
});

it("Claude Code's Notification waits on the user only for a permission prompt", async () => {
  // Notification fires only in interactive sessions, so none was recorded: this payload follows
  // the schema inside the 2.1.332 binary (message, title?, notification_type).
  const base = { session_id: "s", transcript_path: "/t.jsonl", cwd: "/w", hook_event_name: "Notification" };
  const permission = {
    ...base,
    message: "Claude needs your permission to use Bash",
    notification_type: "permission_prompt",
  };
  expect(await signal("claude", permission)).toMatchObject({ kind: "needs-approval", text: permission.message });
  expect(
    await signal("claude", { ...base, message: "Claude is waiting for your input", notification_type: "idle_prompt" }),
  ).toBeUndefined();
  // Grok Build reads Claude's hook files too, and sends camelCase: not Claude's shape, so no signal.
  expect(await signal("claude", { hookEventName: "Stop", sessionId: "g" })).toBeUndefined();
});

it("Codex's notify is a finished turn named by its turn id", async () => {
  const { payload, receivedAt } = await recorded("codex", "0.171.0", "agent-turn-complete");
  expect(await signal("codex", payload, receivedAt)).toEqual({
    kind: "finished",
    sessionId: "01a22ab6-4aa1-7dd3-9cc2-f694a0d5f543",
    eventId: "01a22ab6-4ab6-7e40-a939-4a11c0f07c7e",
    cwd: "<root>/repo",
    text: "Hello from the fake model.",
    at: receivedAt,
  });
});

it("Gemini CLI's AfterAgent is a finished turn with the response, and a tool permission needs approval", async () => {
  const { payload, receivedAt } = await recorded("gemini", "0.61.0", "AfterAgent");
  expect(await signal("gemini", payload, receivedAt)).toEqual({
    kind: "finished",
    sessionId: "387c4330-43d5-4929-ada0-bb0e334ea214",
    cwd: "<root>/repo",
    text: "Hello from the fake model.",
    at: receivedAt,
  });
  // Not recorded (headless runs never ask): fields from fireNotificationEvent in the 0.61.0 bundle.
  const notification = {
    session_id: "g",
    hook_event_name: "Notification",
    notification_type: "ToolPermission",
    message: "Allow run_shell_command?",
  };
  expect(await signal("gemini", notification)).toMatchObject({
    kind: "needs-approval",
    text: "Allow run_shell_command?",
  });
});

it("a payload of no known shape gives no signal", async () => {
  for (const harness of ["claude", "codex", "gemini", "grok"]) {
    expect(await signal(harness, "not json")).toBeUndefined();
    expect(await signal(harness, null)).toBeUndefined();
  }
});

it("Grok Build's `stop` at a turn's end is a finished turn with its last message; the session's end is not", async () => {
  // The envelope of xai-org/grok-build 1.0.6's own test stop_payload_serializes_task_and_cron_entries
  // (crates/codegen/xai-grok-hooks/src/event.rs:790-830), serialized as HookEventEnvelope does:
  // camelCase keys, the event name snake case ("the event value is `\"stop\"`", 10-hooks.md:384).
  const turnEnd = {
    hookEventName: "stop",
    sessionId: "s",
    cwd: "/tmp",
    workspaceRoot: "/tmp",
    timestamp: "t",
    reason: "end_turn",
    stopHookActive: true,
    lastAssistantMessage: "done",
    backgroundTasks: [],
    sessionCrons: [],
  };
  expect(await signal("grok", turnEnd)).toEqual({
    kind: "finished",
    sessionId: "s",
    cwd: "/tmp",
    text: "done",
    at: "2026-11-30T04:28:37.795Z",
  });
  // stop_gate.rs dispatch_session_end_stop: the end's reason, no message.
  const sessionEnd = { hookEventName: "stop", sessionId: "s", cwd: "/tmp", reason: "shutdown", stopHookActive: false };
  expect(await signal("grok", sessionEnd)).toBeUndefined();
});
