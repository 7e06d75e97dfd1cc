import path from "node:path";
import { eventually, makeRepo, makeSandbox, runOffrun, startOffrun, type Sandbox } from "../helpers/offrun.js";
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
  const watcher = startOffrun(["watch", "--json", "--project", repo], { env, timeoutMs: 60_000 });
  const { output } = watcher;
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
        const parsed = output.stdout
          .trim()
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l) as { agent: string; event: { type: string; text?: string } });
        return parsed.some((l) => l.event.type === "turn_end") ? parsed : undefined;
      },
      20_000,
      "the turn_end line",
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nstdout: ${output.stdout}\nstderr: ${output.stderr}`);
    });
    expect(lines.every((l) => l.agent === "hi")).toBe(true);
    expect(lines.map((l) => l.event.type)).toEqual(
      expect.arrayContaining(["user_message", "turn_start", "text", "turn_end"]),
    );
    expect(lines.find((l) => l.event.type === "text")?.event.text).toBe("Hello from the fake server.");
  } finally {
    await watcher.stop();
  }
});
