import fs from "node:fs/promises";
import path from "node:path";
import { claudeWorld, codexWorld, type World } from "../helpers/e2e.js";
import { eventually } from "../helpers/offrun.js";

// "Needs you": the real CLIs ask before running a command (or ask a question) in a Build turn; the
// user's answer, given with `offrun approve` / `offrun answer`, reaches the running CLI.

interface Listing {
  agents: { name: string; status: string }[];
}
interface Shown {
  agent: { status: string; worktree: string };
  pending: { id: string; type: string; tool?: string; input?: unknown; alwaysKey?: string }[];
  events: { type: string; id?: string; decision?: string; by?: string; outcome?: string; turn: number }[];
}

/** A command the CLIs ask about in Build mode (not on their read-only lists), which writes a file. */
const writeWith = (file: string) => `node -e "require('fs').writeFileSync('${file}','yes')"`;

function helpers(world: () => World) {
  const offrun = (...args: string[]) => world().offrun(args);
  const status = async (name: string) =>
    (JSON.parse((await offrun("ls", "--json")).stdout) as Listing).agents.find((a) => a.name === name)?.status;
  const waitFor = (name: string, wanted: string) =>
    eventually(async () => ((await status(name)) === wanted ? true : undefined), 60_000, `${name} to be ${wanted}`);
  const shown = async (name: string) => JSON.parse((await offrun("show", name, "--json")).stdout) as Shown;
  const lastBody = () => JSON.stringify(world().server.turnRequests().at(-1)?.body ?? "");
  return { offrun, status, waitFor, shown, lastBody };
}

describe("Claude Code", () => {
  let world: World;
  const { offrun, waitFor, shown, lastBody } = helpers(() => world);

  beforeAll(async () => {
    world = await claudeWorld("offrun-e2e-appr-", { "README.md": "# demo\n" });
    await fs.mkdir(path.join(world.repo, ".offrun"), { recursive: true });
    await fs.writeFile(path.join(world.repo, ".offrun", "config.json"), JSON.stringify({ idleTimeoutMinutes: 5 }));
  });
  afterAll(async () => {
    await world.close();
  });

  test("a command waits as needs-you, shows in ls and show, and runs once approved", async () => {
    world.server.script({ kind: "shell", command: writeWith("approved.txt") }, { kind: "text", text: "Installed." });
    expect(await offrun("start", "--name", "npm", "install the deps")).toSucceed();
    await waitFor("npm", "needs-you");

    const text = (await offrun("show", "npm")).stdout;
    expect(text).toContain("waiting for your approval");
    expect(text).toContain("approved.txt");
    expect(text).toContain("offrun approve npm");
    const before = await shown("npm");
    expect(before.pending).toEqual([expect.objectContaining({ type: "approval_request", tool: "Bash" })]);
    await expect(fs.access(path.join(before.agent.worktree, "approved.txt"))).rejects.toThrow();

    const approved = await offrun("approve", "npm");
    expect(approved.stderr).toBe("");
    expect(approved).toSucceed();
    await waitFor("npm", "idle");
    expect(await fs.readFile(path.join(before.agent.worktree, "approved.txt"), "utf8")).toBe("yes");
    const after = await shown("npm");
    expect(after.pending).toEqual([]);
    expect(after.events.find((e) => e.type === "decision")).toMatchObject({ decision: "allow", by: "user" });
    expect(after.events.filter((e) => e.type === "turn_end").map((e) => e.outcome)).toEqual(["completed"]);
    expect((await offrun("show", "npm")).stdout).toContain("Installed.");
  });

  test("a denial with a reason reaches the agent, nothing runs, and the turn ends", async () => {
    world.server.script({ kind: "shell", command: writeWith("denied.txt") });
    expect(await offrun("start", "--name", "deny", "install the deps")).toSucceed();
    await waitFor("deny", "needs-you");
    expect(await offrun("approve", "deny", "--deny", "--reason", "not now")).toSucceed();
    await waitFor("deny", "idle");
    const after = await shown("deny");
    await expect(fs.access(path.join(after.agent.worktree, "denied.txt"))).rejects.toThrow();
    expect(lastBody()).toContain("not now");
    expect(after.events.find((e) => e.type === "decision")).toMatchObject({ decision: "deny" });
  });

  test("--always is saved for this user, not in the committed config, and the next identical request is allowed without asking", async () => {
    const command = writeWith("always.txt");
    world.server.script({ kind: "shell", command });
    expect(await offrun("start", "--name", "always1", "first")).toSucceed();
    await waitFor("always1", "needs-you");
    const key = (await shown("always1")).pending[0]?.alwaysKey;
    expect(key).toMatch(/^Bash\(/);
    expect(await offrun("approve", "always1", "--always")).toSucceed();
    await waitFor("always1", "idle");
    // An "always" in the committed file would change what the repository asks others to trust.
    const config = JSON.parse(await fs.readFile(path.join(world.repo, ".offrun", "config.json"), "utf8")) as unknown;
    expect(config).toEqual({ idleTimeoutMinutes: 5 });
    const trust = JSON.parse(await fs.readFile(path.join(world.box.offrunHome, "trust.json"), "utf8")) as {
      repositories: Record<string, { alwaysAllow: string[] }>;
    };
    expect(Object.values(trust.repositories).map((entry) => entry.alwaysAllow)).toEqual([[key]]);

    world.server.script({ kind: "shell", command });
    const second = await offrun("start", "--wait", "--name", "always2", "second");
    expect(second).toSucceed();
    const after = await shown("always2");
    expect(after.events.find((e) => e.type === "decision")).toMatchObject({ decision: "allow", by: "always_allow" });
    expect(await fs.readFile(path.join(after.agent.worktree, "always.txt"), "utf8")).toBe("yes");
  });

  test("two answers to one request: the first wins, the second is refused", async () => {
    world.server.script({ kind: "shell", command: writeWith("twice.txt") });
    expect(await offrun("start", "--name", "twice", "install")).toSucceed();
    await waitFor("twice", "needs-you");
    const id = (await shown("twice")).pending[0]!.id;
    const results = await Promise.all([
      offrun("approve", "twice", "--request", id),
      offrun("approve", "twice", "--request", id, "--deny"),
    ]);
    const won = results.findIndex((r) => r.exitCode === 0);
    const lost = results[1 - won]!;
    expect(results.filter((r) => r.exitCode === 0)).toHaveLength(1);
    expect(lost.stderr).toContain("already answered");
    await waitFor("twice", "idle");
    const decisions = (await shown("twice")).events.filter((e) => e.type === "decision");
    expect(decisions).toEqual([expect.objectContaining({ id, decision: won === 0 ? "allow" : "deny" })]);
  });

  test("approve with nothing pending, or for an unknown agent, says so", async () => {
    const nothing = await offrun("approve", "npm");
    expect(nothing.exitCode).toBe(2);
    expect(nothing.stderr).toContain("npm has nothing waiting for you");
    const unknown = await offrun("approve", "ghost");
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("No agent named 'ghost'");
    const gone = await offrun("answer", "npm", "--request", "1.9", "hello");
    expect(gone.stderr).toContain("no request 1.9");
  });

  test("a question (AskUserQuestion) waits for `offrun answer`, and the answer reaches the model", async () => {
    const question = "Which package manager should I use?";
    world.server.script({
      kind: "tool",
      name: "AskUserQuestion",
      input: {
        questions: [
          {
            question,
            header: "Pkg mgr",
            options: [
              { label: "npm", description: "the default" },
              { label: "pnpm", description: "faster" },
            ],
            multiSelect: false,
          },
        ],
      },
    });
    expect(await offrun("start", "--name", "ask", "set up the project")).toSucceed();
    await waitFor("ask", "needs-you");
    const text = (await offrun("show", "ask")).stdout;
    expect(text).toContain(question);
    expect(text).toContain('offrun answer ask "your answer"');
    expect((await offrun("approve", "ask")).stderr).toContain("is a question");
    expect(await offrun("answer", "ask", "pnpm", "please")).toSucceed();
    await waitFor("ask", "idle");
    expect(lastBody()).toContain("pnpm please");
  });
});

describe("Codex app-server", () => {
  let world: World;
  const { offrun, waitFor, shown, lastBody } = helpers(() => world);

  beforeAll(async () => {
    world = await codexWorld("offrun-e2e-apprx-", { "README.md": "# demo\n" });
  });
  afterAll(async () => {
    await world.close();
  });

  test("a command waits for approval, runs once approved, and the next turn resumes the thread", async () => {
    world.server.script({ kind: "shell", command: writeWith("approved.txt") }, { kind: "text", text: "Ran it." });
    expect(await offrun("start", "--harness", "codex", "--name", "cx", "install the deps")).toSucceed();
    await waitFor("cx", "needs-you");
    const before = await shown("cx");
    expect(before.pending).toEqual([expect.objectContaining({ type: "approval_request", tool: "shell" })]);
    expect((await offrun("show", "cx")).stdout).toContain("offrun approve cx");
    expect(await offrun("approve", "cx")).toSucceed();
    await waitFor("cx", "idle");
    expect(await fs.readFile(path.join(before.agent.worktree, "approved.txt"), "utf8")).toBe("yes");

    world.server.script({ kind: "text", text: "Still here." });
    const next = await offrun("send", "--wait", "cx", "what did you run?");
    expect({ exitCode: next.exitCode, stderr: next.stderr }).toEqual({ exitCode: 0, stderr: "" });
    expect(next.stdout).toContain("Still here.");
    expect(lastBody()).toContain("install the deps");
    expect(lastBody()).toContain("approved.txt");
  });

  test("a denial with a reason declines the command and tells the agent why", async () => {
    world.server.script({ kind: "shell", command: writeWith("denied.txt") });
    expect(await offrun("start", "--harness", "codex", "--name", "cxdeny", "install")).toSucceed();
    await waitFor("cxdeny", "needs-you");
    expect(await offrun("approve", "cxdeny", "--deny", "--reason", "not now")).toSucceed();
    await waitFor("cxdeny", "idle");
    const after = await shown("cxdeny");
    await expect(fs.access(path.join(after.agent.worktree, "denied.txt"))).rejects.toThrow();
    const bodies = JSON.stringify(
      world.server
        .turnRequests()
        .slice(-2)
        .map((r) => r.body),
    );
    expect(bodies).toContain("not now");
  });

  test("request_user_input waits for `offrun answer`, and the answer reaches the model", async () => {
    world.server.script({
      kind: "tool",
      name: "request_user_input",
      input: {
        questions: [
          {
            id: "pkg",
            header: "Pkg mgr",
            question: "Which package manager?",
            options: [
              { label: "npm", description: "default" },
              { label: "pnpm", description: "faster" },
            ],
          },
        ],
      },
    });
    expect(await offrun("start", "--harness", "codex", "--name", "cxask", "set up")).toSucceed();
    await waitFor("cxask", "needs-you");
    expect((await offrun("show", "cxask")).stdout).toContain("Which package manager?");
    expect(await offrun("answer", "cxask", "pnpm please")).toSucceed();
    await waitFor("cxask", "idle");
    expect(lastBody()).toContain("pnpm please");
  });
});
