import fs from "node:fs/promises";
import path from "node:path";
import { isAlive } from "../../src/core/foundation/pids.js";
import { eventually, makeRepo, makeSandbox, OFFRUN_BIN, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// Agents started before the companion was installed as a service are adopted by it.
// `companion install` asks the companion that runs (started by the CLI) to hand over; it ends once
// no turn runs, and the service's companion, which waits for the socket instead of exiting, takes
// over. systemd is stood in for by a `systemctl` that starts the unit's command the way
// `enable --now` would, with the unit's OFFRUN_COMPANION_SERVICE=1.

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
const status = async () =>
  JSON.parse((await offrun("companion", "status", "--json")).stdout) as { pid?: number; service?: boolean };

beforeAll(async () => {
  box = await makeSandbox("offrun-handover-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  const claude = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const bin = path.join(box.dir, "bin");
  await fs.mkdir(bin);
  const started = path.join(box.dir, "service.pid");
  await fs.writeFile(
    path.join(bin, "systemctl"),
    [
      "#!/bin/sh",
      // Like systemd, `enable --now` of a unit that runs starts nothing.
      `case "$*" in *"enable --now"*)`,
      `  if [ -f '${started}' ] && kill -0 "$(cat '${started}')" 2>/dev/null; then exit 0; fi`,
      `  OFFRUN_COMPANION_SERVICE=1 '${process.execPath}' '${OFFRUN_BIN}' companion run >/dev/null 2>&1 &`,
      `  echo $! > '${started}';;`,
      "esac",
      "exit 0",
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  env = { ...box.env, OFFRUN_CLAUDE_BIN: claude, PATH: `${bin}:${box.env.PATH ?? ""}` };
});

afterAll(async () => {
  await box.cleanup();
});

test("install hands the running companion's agents over to the service's companion", async () => {
  expect(await offrun("start", "--wait", "--name", "early", "say hello")).toSucceed();
  const before = await status();
  expect(before.service).toBeFalsy();
  const oldPid = before.pid!;

  const installed = await offrun("companion", "install");
  expect(installed).toSucceed();
  expect(installed.stdout).toContain(
    `The companion that was running (pid ${oldPid}) hands its agents over to the service`,
  );

  const after = await eventually(
    async () => {
      const now = await status().catch(() => undefined);
      return now?.service === true ? now : undefined;
    },
    30_000,
    "the service's companion",
  );
  expect(after.pid).not.toBe(oldPid);
  expect(isAlive(oldPid)).toBe(false);
  const log = await fs.readFile(path.join(box.offrunHome, "companion.log"), "utf8");
  expect(log).toContain("handing over to the login service");
  // Never two at once: the service's companion listens only once the old one has stopped. It
  // logs that it waits for the old one only when it started first, which a loaded machine decides.
  const stopped = log.indexOf(`[${oldPid}] stopped`);
  expect(stopped).toBeGreaterThan(-1);
  expect(log.indexOf(`[${after.pid}] companion`)).toBeGreaterThan(stopped);

  // The agent started under the old companion goes on under the new one.
  const sent = await offrun("send", "--wait", "early", "and again");
  expect(sent).toSucceed();
  expect((await status()).pid).toBe(after.pid);
  const shown = JSON.parse((await offrun("show", "early", "--json")).stdout) as { agent: { turns: number } };
  expect(shown.agent.turns).toBe(2);
});

test("a second install finds the service's own companion and asks nothing of it", async () => {
  const installed = await offrun("companion", "install");
  expect(installed).toSucceed();
  expect(installed.stdout).not.toContain("hands its agents over");
});
