import fs from "node:fs/promises";
import path from "node:path";
import { readAgent } from "../../src/core/records/records.js";
import { switchLogin } from "../../src/core/logins/switch.js";
import { Supervisor } from "../../src/core/agents/supervisor.js";
import type { Started } from "../../src/core/protocol/requests.js";
import { claudeProjectFolder } from "../../src/harnesses/claude/session-files.js";
import { makeRepo, makeSandbox, useSandboxInProcess, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { CompanionStop } from "../../src/core/agents/turn-stop.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// `offrun switch` runs in the companion under the supervisor's turn lock (whileIdle): a message
// sent at the same moment must start after the switch, on the new login, not straddle it.

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
let homesLog: string;
let slowFlag: string;
let supervisor: Supervisor;

beforeAll(async () => {
  box = await makeSandbox("offrun-swr-");
  // The supervisor runs in this process.
  useSandboxInProcess(box);
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  const stub = path.join(box.dir, "stub", "claude");
  homesLog = `${stub}.homes`;
  slowFlag = path.join(box.dir, "slow");
  await writeStubCli(stub, {
    replay: fixture("claude", "2.1.332", "text-reply"),
    // Which login each turn ran on; a long turn while the flag file exists.
    before: [`echo "\${CLAUDE_CONFIG_DIR:-default}" >> '${homesLog}'`, `if [ -f '${slowFlag}' ]; then sleep 30; fi`],
  });
  env = { ...box.env, OFFRUN_CLAUDE_BIN: stub };
  expect(await runOffrun(["logins", "add", "claude", "work", "--no-login"], { env, cwd: repo })).toSucceed();
  supervisor = new Supervisor(env);
  await supervisor.start({ project: repo, name: "mover", prompt: "first", account: "default" });
  await supervisor.wait(repo, "mover");
  // The Default login's session file, where the real CLI would have written it.
  const record = await readAgent(repo, "mover");
  const folder = path.join(box.home, ".claude", "projects", claudeProjectFolder(record.worktree));
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(path.join(folder, `${record.sessionId ?? "none"}.jsonl`), "{}\n");
});

afterAll(async () => {
  await supervisor.shutdown(new CompanionStop("stop"));
  await box.cleanup();
});

const homes = async () => (await fs.readFile(homesLog, "utf8")).trim().split("\n");

test("a message sent while a switch is under way starts after it, on the new login", async () => {
  let sent: Promise<Started> | undefined;
  const switched = await supervisor.whileIdle(repo, "mover", async () => {
    sent = supervisor.send(repo, "mover", "go on");
    // Without the lock the message's turn would have started on the old login by now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    return switchLogin({ project: repo, name: "mover", account: "work" }, env);
  });
  expect(switched).toMatchObject({ from: "default", to: "work", sessionCopied: true });
  expect((await sent)?.agent.account).toBe("work");
  expect(await supervisor.wait(repo, "mover")).toMatchObject({ outcome: "completed" });
  const workHome = path.join(box.offrunHome, "accounts", "claude", "work");
  expect(await homes()).toEqual(["default", workHome]);
  expect((await readAgent(repo, "mover")).account).toBe("work");
});

test("a switch is refused while a turn of the agent runs in the supervisor, and changes nothing", async () => {
  const before = (await readAgent(repo, "mover")).account;
  await fs.writeFile(slowFlag, "");
  await supervisor.send(repo, "mover", "a long one");
  let ran = false;
  await expect(
    supervisor.whileIdle(repo, "mover", async () => {
      ran = true;
    }),
  ).rejects.toThrow("in the middle of a turn");
  expect(ran).toBe(false);
  await supervisor.stop(repo, "mover");
  await fs.rm(slowFlag);
  expect((await readAgent(repo, "mover")).account).toBe(before);
});
