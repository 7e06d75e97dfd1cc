import fs from "node:fs/promises";
import path from "node:path";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// `offrun ls` with hosts goes through the companion, which keeps the SSH connections. When the
// companion cannot start, this machine's agents still show, and each host is named with why not.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-lsnc-");
});
afterAll(async () => {
  await box.cleanup();
});

test("ls lists this project's agents and names each host when the companion cannot start", async () => {
  const repo = await makeRepo(path.join(box.dir, "app"), box.env);
  const claude = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const env = { ...box.env, OFFRUN_CLAUDE_BIN: claude };
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  expect(await offrun("start", "--wait", "--name", "here", "say hello")).toSucceed();
  expect(await offrun("hosts", "add", "devbox", "ssh://me@127.0.0.1:1")).toSucceed();
  expect(await offrun("companion", "stop")).toSucceed();
  // Where the companion keeps its socket is a file: it cannot start.
  const run = path.join(box.offrunHome, "run");
  await fs.rm(run, { recursive: true, force: true });
  await fs.writeFile(run, "in the way\n");

  const ls = await offrun("ls");
  expect(ls).toSucceed();
  expect(ls.stdout).toMatch(/^local\s+here\s+idle/m);
  expect(ls.stdout).toContain("⚠ devbox did not answer: the companion, which keeps the connection, could not start");
  const listed = JSON.parse((await offrun("ls", "--json")).stdout) as {
    agents: { name: string }[];
    hosts: { host: string; ok: boolean; error?: { kind: string } }[];
  };
  expect(listed.agents.map((a) => a.name)).toEqual(["here"]);
  expect(listed.hosts).toEqual([expect.objectContaining({ host: "devbox", ok: false })]);
  expect(listed.hosts[0]!.error!.kind).toBe("companion_unavailable");
}, 120_000);
