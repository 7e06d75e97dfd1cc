import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { askUser, PendingRequests, pendingFromLog, type AskContext } from "../../../../src/core/agents/approvals.js";
import { loadProjectConfig } from "../../../../src/core/foundation/project.js";
import { rememberAlwaysAllow } from "../../../../src/core/foundation/trust.js";
import type { AgentEvent, EventDraft } from "../../../../src/core/foundation/events.js";
import { projectConfigSchema, type AgentRecord } from "../../../../src/core/foundation/model.js";
import type { PendingRequest } from "../../../../src/harnesses/types.js";

const approval = (id: string): PendingRequest => ({
  id,
  kind: "approval",
  tool: "Bash",
  input: { command: "npm install" },
  text: "Bash: npm install",
  alwaysKey: "Bash(npm install *)",
});
const question = (id: string): PendingRequest => ({ id, kind: "question", text: "Which one?" });
const entry = (request: PendingRequest) => ({ request, turn: 1, since: new Date().toISOString() });

describe("PendingRequests", () => {
  test("the only pending request is resolved without naming it, and the waiting turn gets the decision", async () => {
    const pending = new PendingRequests();
    const waiting = pending.add("a", entry(approval("1.1")));
    expect(pending.list("a").map((e) => e.request.id)).toEqual(["1.1"]);
    expect(pending.resolve("a", "agent", { kind: "allow" }).request.id).toBe("1.1");
    await expect(waiting).resolves.toEqual({ kind: "allow" });
    expect(pending.list("a")).toEqual([]);
  });

  test("nothing pending says so", () => {
    expect(() => new PendingRequests().resolve("a", "fixer", { kind: "allow" })).toThrow(
      "fixer has nothing waiting for you",
    );
  });

  test("a second answer to the same request is refused and the first one stands", async () => {
    const pending = new PendingRequests();
    const waiting = pending.add("a", entry(approval("1.1")));
    pending.resolve("a", "agent", { kind: "deny", reason: "no" }, "1.1");
    expect(() => pending.resolve("a", "agent", { kind: "allow" }, "1.1")).toThrow(/already answered \(deny\)/);
    await expect(waiting).resolves.toEqual({ kind: "deny", reason: "no" });
  });

  test("an id that never existed is not found, and names what is waiting", () => {
    const pending = new PendingRequests();
    void pending.add("a", entry(approval("2.1")));
    expect(() => pending.resolve("a", "agent", { kind: "allow" }, "9.9")).toThrow(
      /no request 9.9 waiting.*Waiting: 2.1/,
    );
  });

  test("several pending requests need --request", () => {
    const pending = new PendingRequests();
    void pending.add("a", entry(approval("1.1")));
    void pending.add("a", entry(question("1.2")));
    expect(() => pending.resolve("a", "agent", { kind: "allow" })).toThrow(/2 requests waiting.*--request/);
    expect(pending.resolve("a", "agent", { kind: "answer", text: "this" }, "1.2").request.kind).toBe("question");
  });

  test("an approval cannot be answered and a question cannot be approved", () => {
    const pending = new PendingRequests();
    void pending.add("a", entry(approval("1.1")));
    void pending.add("b", entry(question("1.1")));
    expect(() => pending.resolve("a", "x", { kind: "answer", text: "hi" })).toThrow(/asks for approval/);
    expect(() => pending.resolve("b", "y", { kind: "allow" })).toThrow(/is a question/);
    expect(pending.list("a")).toHaveLength(1);
    expect(pending.resolve("b", "y", { kind: "deny" }).request.id).toBe("1.1");
  });

  test("requests of different agents are kept apart", () => {
    const pending = new PendingRequests();
    void pending.add("a", entry(approval("1.1")));
    expect(() => pending.resolve("b", "other", { kind: "allow" })).toThrow("other has nothing waiting for you");
  });

  test("cancel rejects the waiting turn and forgets the request", async () => {
    const pending = new PendingRequests();
    const waiting = pending.add("a", entry(approval("1.1")));
    pending.cancel("a", "1.1", new Error("stopped"));
    await expect(waiting).rejects.toThrow("stopped");
    expect(pending.list("a")).toEqual([]);
  });
});

describe("askUser", () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-approvals-"));
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  function context(overrides: Partial<AskContext> = {}) {
    const logged: EventDraft[] = [];
    const statuses: string[] = [];
    const record = { name: "fixer", project: root, turns: 1, status: "working" } as AgentRecord;
    const ctx: AskContext = {
      pending: new PendingRequests(),
      agent: "a",
      record,
      turn: 1,
      config: projectConfigSchema.parse({ approvalTimeoutMinutes: 0.0005 }),
      signal: new AbortController().signal,
      log: async (_turn, event) => void logged.push(event),
      update: async (changes) => void (changes.status && statuses.push(changes.status)),
      ...overrides,
    };
    return { ctx, logged, statuses };
  }

  test("logs the request, shows needs-you, never approves by itself (one notice after the timeout), then logs the decision", async () => {
    const { ctx, logged, statuses } = context();
    const decision = askUser(ctx, approval("1.1"));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(statuses).toEqual(["needs-you"]);
    expect(logged.map((e) => e.type)).toEqual(["approval_request", "notice"]);
    expect(ctx.pending.list("a")).toHaveLength(1);
    ctx.pending.resolve("a", "fixer", { kind: "allow", always: true });
    await expect(decision).resolves.toEqual({ kind: "allow", always: true });
    expect(logged.at(-1)).toEqual({ type: "decision", id: "1.1", decision: "allow", by: "user", always: true });
    expect(statuses).toEqual(["needs-you", "working"]);
  });

  test("a request matching an alwaysAllow rule on disk is allowed without asking", async () => {
    await rememberAlwaysAllow(root, "Bash(npm install *)");
    const { ctx, logged, statuses } = context();
    await expect(askUser(ctx, approval("1.1"))).resolves.toEqual({ kind: "allow" });
    expect(logged.map((e) => e.type)).toEqual(["approval_request", "decision"]);
    expect(logged[1]).toMatchObject({ by: "always_allow" });
    expect(statuses).toEqual([]);
  });

  test("a stopped turn rejects the wait and leaves nothing pending", async () => {
    const controller = new AbortController();
    const { ctx } = context({ signal: controller.signal });
    const decision = askUser(ctx, question("1.1"));
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await expect(decision).rejects.toThrow("stopped");
    expect(ctx.pending.list("a")).toEqual([]);
  });
});

test("an always rule is the user's, kept once per repository outside it: the committed config is not touched", async () => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-always-"));
  const file = path.join(root, ".offrun", "config.json");
  await fs.mkdir(path.dirname(file), { recursive: true });
  const committed = JSON.stringify({ custom: { kept: true } });
  await fs.writeFile(file, committed);
  await rememberAlwaysAllow(root, "Bash(npm install *)");
  await rememberAlwaysAllow(root, "Bash(npm install *)");
  await rememberAlwaysAllow(root, "shell(make)");
  expect(await fs.readFile(file, "utf8")).toBe(committed);
  expect((await loadProjectConfig(root)).alwaysAllow).toEqual(["Bash(npm install *)", "shell(make)"]);
  await fs.rm(root, { recursive: true, force: true });
});

test("pendingFromLog lists the undecided requests of the latest turn while the agent needs you", () => {
  const at = new Date().toISOString();
  const events: AgentEvent[] = [
    { type: "approval_request", id: "1.1", tool: "Bash", input: {}, at, turn: 1 },
    { type: "approval_request", id: "2.1", tool: "Bash", input: {}, at, turn: 2 },
    { type: "decision", id: "2.1", decision: "allow", by: "user", at, turn: 2 },
    { type: "question", id: "2.2", text: "Which?", at, turn: 2 },
  ];
  const record = { status: "needs-you", turns: 2 } as AgentRecord;
  expect(pendingFromLog(record, events).map((e) => e.type === "question" && e.id)).toEqual(["2.2"]);
  expect(pendingFromLog({ ...record, status: "working" }, events)).toEqual([]);
});
