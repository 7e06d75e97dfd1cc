import fs from "node:fs/promises";
import path from "node:path";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// A switch of login is refused while a turn runs: a stub CLI that sleeps holds the turn open.

describe("offrun switch while a turn runs", () => {
  let box: Sandbox;
  afterAll(async () => box.cleanup());

  test("is refused, and the agent stays on its login", async () => {
    box = await makeSandbox("offrun-sw2-");
    const repo = await makeRepo(path.join(box.dir, "repo"), box.env);
    const stub = await writeStubCli(path.join(box.dir, "stub", "claude"), {
      replay: fixture("claude", "2.1.332", "text-reply"),
      before: ["sleep 30"],
    });
    const env = { ...box.env, OFFRUN_CLAUDE_BIN: stub };
    const run = (...args: string[]) => runOffrun(args, { env, cwd: repo });
    // The Default login has been used (a home that does not exist is signed out, and never picked).
    await fs.mkdir(path.join(box.home, ".claude"), { recursive: true });
    expect(await run("logins", "add", "claude", "work", "--no-login")).toSucceed();
    expect(await run("start", "--name", "busy", "a long task")).toSucceed();

    const refused = await run("switch", "busy", "--login", "work");
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("in the middle of a turn");
    const record = JSON.parse(await fs.readFile(path.join(repo, ".offrun", "agents", "busy.json"), "utf8")) as {
      account: string;
    };
    expect(record.account).toBe("default");
    await run("stop", "busy");
  });
});
