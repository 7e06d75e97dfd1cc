import path from "node:path";
import { execa } from "execa";
import { eventually, makeRepo, makeSandbox, OFFRUN_BIN, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

let box: Sandbox;

beforeAll(async () => {
  box = await makeSandbox("offrun-watch-");
});
afterAll(async () => {
  await box.cleanup();
});

test("offrun watch --json prints the events of an agent as they are appended", async () => {
  const repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  const bin = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin };
  const watcher = execa(process.execPath, [OFFRUN_BIN, "watch", "--json", "--project", repo], {
    env,
    extendEnv: false,
    stdin: "ignore",
    reject: false,
    timeout: 60_000,
  });
  let out = "";
  let err = "";
  watcher.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  watcher.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  try {
    // watch makes the chats folder before it is ready: that is the sign it is watching.
    await eventually(async () =>
      (await import("node:fs")).existsSync(path.join(repo, ".offrun", "chats")) ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = await runOffrun(["start", "--wait", "--name", "hi", "say hi"], { env, cwd: repo });
    expect(started).toSucceed();
    const lines = await eventually(
      async () => {
        const parsed = out
          .trim()
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l) as { agent: string; event: { type: string; text?: string } });
        return parsed.some((l) => l.event.type === "turn_end") ? parsed : undefined;
      },
      20_000,
      "the turn_end line",
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nstdout: ${out}\nstderr: ${err}`);
    });
    expect(lines.every((l) => l.agent === "hi")).toBe(true);
    expect(lines.map((l) => l.event.type)).toEqual(
      expect.arrayContaining(["user_message", "turn_start", "text", "turn_end"]),
    );
    expect(lines.find((l) => l.event.type === "text")?.event.text).toBe("Hello from the fake server.");
  } finally {
    watcher.kill("SIGTERM");
    await watcher;
  }
});
