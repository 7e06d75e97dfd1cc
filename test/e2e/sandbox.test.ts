import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { claudeWorld, codexWorld, type World } from "../helpers/e2e.js";
import { approvedCommand as approved, type Shown } from "../helpers/sandbox-turns.js";

// The real Claude Code and Codex inside the sandbox (bubblewrap on Linux), against the fake model
// server, which is the one host it may reach. The sandbox, not the CLI's own permission layer,
// must refuse what is outside the policy: each command below is approved first.

const SECRET = "SECRET-KEY-7c1e9b";

describe.each([
  ["Claude Code", claudeWorld, "claude"],
  ["Codex", codexWorld, "codex"],
] as const)("%s in the sandbox", (_name, makeWorld, harness) => {
  let world: World;
  const offrun = (...args: string[]) => world.offrun(args);
  const shown = async (name: string) => JSON.parse((await offrun("show", name, "--json")).stdout) as Shown;

  beforeAll(async () => {
    world = await makeWorld("offrun-sandbox-", { "README.md": "# demo\n" });
    await fs.mkdir(path.join(world.box.home, ".ssh"), { recursive: true, mode: 0o700 });
    await fs.writeFile(path.join(world.box.home, ".ssh", "id_ed25519"), `${SECRET}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await world.close();
  });

  const approvedCommand = (name: string, command: string) => approved(world, harness, name, command);

  test("a sandboxed task that writes in its worktree succeeds", async () => {
    const worktree = path.join(world.repo, ".worktrees", "inside");
    world.server.script({ kind: "write_file", path: path.join(worktree, "inside.txt"), content: "written inside\n" });
    const started = await offrun(
      "start",
      "--harness",
      harness,
      "--sandbox",
      "--wait",
      "--name",
      "inside",
      "write inside.txt",
    );
    expect(started).toSucceed();
    expect(started.stdout).toContain("sandboxed");
    expect(await fs.readFile(path.join(worktree, "inside.txt"), "utf8")).toBe("written inside\n");
    expect((await shown("inside")).agent.sandbox).toBe(true);
  });

  test("an approved command that writes outside the worktree is refused by the sandbox", async () => {
    const outside = path.join(world.box.dir, "outside.txt");
    const { output, shown: done } = await approvedCommand(
      "escape",
      `node -e "require('fs').writeFileSync('${outside}','x')"`,
    );
    await expect(fs.access(outside)).rejects.toThrow();
    expect(output).toMatch(/EROFS|read-only file system/i);
    // Named as the sandbox's refusal, apart from the CLI's own permission system.
    expect(done.events).toContainEqual(
      expect.objectContaining({ type: "sandbox_refusal", kind: "write", target: outside }),
    );
    expect((await offrun("show", "escape")).stdout).toContain(`sandbox refused a write to ${outside}`);
  });

  test("an approved command that reads ~/.ssh gets nothing, and the secret never reaches the model", async () => {
    const key = path.join(world.box.home, ".ssh", "id_ed25519");
    const before = world.server.turnRequests().length;
    const { output, shown: done } = await approvedCommand("peek", `cat ${key}`);
    expect(output).not.toContain(SECRET);
    expect(done.events).toContainEqual(expect.objectContaining({ type: "sandbox_refusal", kind: "read", target: key }));
    const later = world.server.turnRequests().slice(before);
    expect(later.length).toBeGreaterThan(0);
    expect(JSON.stringify(later.map((r) => r.body))).not.toContain(SECRET);
  });

  test("an approved command that connects to a host not on the list is blocked, and the model server still answers", async () => {
    // A server on this machine that is not the model's: reachable from outside the sandbox, never from inside.
    let hits = 0;
    const bait = http.createServer((_request, response) => {
      hits += 1;
      response.end("bait");
    });
    await new Promise<void>((resolve) => bait.listen(0, "127.0.0.1", resolve));
    const port = (bait.address() as AddressInfo).port;
    try {
      // Asks through the proxy the environment names, as curl and most tools do, and directly too.
      const probe = path.join(world.box.dir, "probe.cjs");
      await fs.writeFile(
        probe,
        `const http = require("http");
  const proxy = process.env.http_proxy ? new URL(process.env.http_proxy) : undefined;
  const ask = (label, options) => new Promise((done) => {
    http.get(options, (r) => { console.log(label, "status", r.statusCode); r.resume(); r.on("end", done); })
      .on("error", (e) => { console.log(label, "failed", e.code); done(); });
  });
  (async () => {
    if (proxy) await ask("proxied", { host: proxy.hostname, port: proxy.port, path: "http://127.0.0.1:${port}/",
      headers: { "proxy-authorization": "Basic " + Buffer.from(decodeURIComponent(proxy.username) + ":" + proxy.password).toString("base64") } });
    await ask("direct", { host: "127.0.0.1", port: ${port}, path: "/" });
  })();
  `,
      );
      const { output, shown: done } = await approvedCommand("netcheck", `node ${probe}`);
      expect(output).toContain("direct failed");
      expect(output).not.toContain("status 200");
      expect(hits).toBe(0);
      expect(done.events).toContainEqual(
        expect.objectContaining({ type: "sandbox_refusal", kind: "network", target: `127.0.0.1:${port}` }),
      );
      expect(done.agent.status).toBe("idle");
      expect(done.events.some((e) => e.type === "text" && e.text?.includes("Done with netcheck."))).toBe(true);
    } finally {
      bait.close();
    }
  });
});

describe("failover, memory and review in the sandbox (Claude Code)", () => {
  let world: World;
  const offrun = (...args: string[]) => world.offrun(args);

  beforeAll(async () => {
    world = await claudeWorld("offrun-sandbox-move-", { "README.md": "# demo\n" }, { subscriber: true });
    // A second login with its own home under ~/.offrun, which the sandbox otherwise keeps closed.
    const added = await offrun(
      "logins",
      "add",
      "claude",
      "second",
      "--no-login",
      "--env",
      `ANTHROPIC_BASE_URL=${world.server.url}`,
    );
    expect(added).toSucceed();
    await fs.mkdir(path.join(world.box.home, ".ssh"), { recursive: true, mode: 0o700 });
    await fs.writeFile(path.join(world.box.home, ".ssh", "id_ed25519"), `${SECRET}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await world.close();
  });

  test("a limit moves the session to the next login, whose home opens for it, and the agent's memory is written", async () => {
    const worktree = path.join(world.repo, ".worktrees", "moved");
    const plan = path.join(world.repo, ".offrun", "memory", "moved", "plan.md");
    world.server.script(
      { kind: "write_file", path: path.join(worktree, "step1.txt"), content: "on the first login\n" },
      { kind: "usage_limit", resetsAt: Math.floor(Date.now() / 1000) + 3 * 3600 },
      { kind: "write_file", path: plan, content: "# Plan\n- step1 done; finish the rest\n" },
      { kind: "text", text: "Finished on the second login." },
    );
    const result = await offrun(
      "start",
      "--sandbox",
      "--wait",
      "--login",
      "default",
      "--name",
      "moved",
      "do step1, then the rest",
    );
    expect(result).toSucceed();
    expect(result.stdout).toContain("Finished on the second login.");
    expect(await fs.readFile(path.join(worktree, "step1.txt"), "utf8")).toBe("on the first login\n");
    expect(await fs.readFile(plan, "utf8")).toBe("# Plan\n- step1 done; finish the rest\n");
    const done = JSON.parse((await offrun("show", "moved", "--json")).stdout) as Shown & {
      agent: { account: string };
      events: { type: string; from?: string; to?: string; sandbox?: boolean }[];
    };
    expect(done.agent).toMatchObject({ account: "second", status: "idle", sandbox: true });
    expect(done.events.find((e) => e.type === "account_switch")).toMatchObject({ from: "default", to: "second" });
    expect(done.events.filter((e) => e.type === "turn_start").every((e) => e.sandbox === true)).toBe(true);
    expect(done.events.filter((e) => e.type === "sandbox_refusal")).toEqual([]);
    expect(done.events.some((e) => e.type === "memory_change")).toBe(true);
  });

  test("a sandboxed agent's reviewer runs in the sandbox too: it reviews, and a protected file stays out of reach", async () => {
    const key = path.join(world.box.home, ".ssh", "id_ed25519");
    const before = world.server.turnRequests().length;
    world.server.script(
      { kind: "tool", name: "Read", input: { file_path: key } },
      {
        kind: "tool",
        name: "StructuredOutput",
        input: { verdict: "comment", summary: "step1.txt is fine.", findings: [] },
      },
    );
    const result = await offrun("review", "moved", "--harness", "claude", "--wait", "--json");
    expect(result).toSucceed();
    const { review } = JSON.parse(result.stdout) as { review: { verdict: string; transcript: string } };
    expect(review.verdict).toBe("comment");
    expect(
      JSON.stringify(
        world.server
          .turnRequests()
          .slice(before)
          .map((r) => r.body),
      ),
    ).not.toContain(SECRET);
    const transcript = (await fs.readFile(review.transcript, "utf8")).split("\n").filter(Boolean);
    expect(
      transcript.map((line) => JSON.parse(line) as { type: string; kind?: string; target?: string }),
    ).toContainEqual(expect.objectContaining({ type: "sandbox_refusal", kind: "read", target: key }));
  });
});
