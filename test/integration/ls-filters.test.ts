import path from "node:path";
import { git, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// What `offrun ls` shows is what a user still works with: a discarded agent is left out (and
// said to be, with the command that shows it), `--status` and `--cli` narrow the list, and a host
// that is down is named without the list claiming there is nothing. Broke: discarded agents stayed
// forever as `done` with a branch `--delete-branch` had removed, discarding twice said "removed"
// again, and `ls --host devbox` with the host down said "No agents here or on the hosts yet".

let box: Sandbox;
let repo: string;
let offrun: (...args: string[]) => ReturnType<typeof runOffrun>;
beforeAll(async () => {
  box = await makeSandbox("offrun-ls-filters-");
  repo = await makeRepo(path.join(box.dir, "app"), box.env);
  const claude = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const env = { ...box.env, OFFRUN_CLAUDE_BIN: claude };
  offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  for (const name of ["kept", "gone", "dropped"]) {
    expect(await offrun("start", "--wait", "--name", name, `task of ${name}`)).toSucceed();
  }
});
afterAll(async () => {
  await offrun("companion", "stop").catch(() => undefined);
  await box.cleanup();
});

const names = (stdout: string) =>
  stdout
    .split("\n")
    .slice(1)
    .map((line) => line.split(/\s+/)[0])
    .filter((name) => name && !name.startsWith("⚠") && /^[a-z]+$/.test(name));

test("discarded agents leave ls, which says so and how to see them; --all shows them as discarded", async () => {
  expect(await offrun("discard", "gone")).toSucceed();
  expect(await offrun("discard", "dropped", "--delete-branch")).toSucceed();
  const ls = await offrun("ls");
  expect(ls).toSucceed();
  expect(names(ls.stdout)).toEqual(["kept"]);
  expect(ls.stdout).toContain("2 discarded agent(s) not shown: offrun ls --all");
  // The advice, as printed.
  const all = await offrun("ls", "--all");
  expect(all).toSucceed();
  expect(all.stdout).toMatch(/^gone\s+discarded\s/m);
  expect(all.stdout).toMatch(/^dropped\s+discarded\s.*offrun\/dropped \(deleted\)$/m);
  expect(all.stdout).not.toContain("not shown");
  expect((await git(repo, box.env, ["branch", "--list", "offrun/dropped"])).trim()).toBe("");
  const json = JSON.parse((await offrun("ls", "--json")).stdout) as { agents: { name: string }[] };
  expect(json.agents.map((a) => a.name)).toEqual(["kept"]);
});

test("discarding twice says it was already discarded, and removes nothing", async () => {
  const again = await offrun("discard", "dropped", "--delete-branch");
  expect(again).toSucceed();
  expect(again.stdout).toMatch(/^dropped was already discarded \(.+\); nothing more to remove\./);
});

test("--status and --cli narrow the list; an unknown status exits 2 naming the ones there are", async () => {
  expect(names((await offrun("ls", "--status", "idle")).stdout)).toEqual(["kept"]);
  expect(names((await offrun("ls", "--status", "idle", "--all")).stdout)).toEqual(["kept"]);
  expect(names((await offrun("ls", "--cli", "claude")).stdout)).toEqual(["kept"]);
  const none = await offrun("ls", "--cli", "codex");
  expect(none).toSucceed();
  expect(none.stdout).toContain("No agent in");
  expect(none.stdout).toContain("is of codex");
  const bad = await offrun("ls", "--status", "asleep");
  expect(bad.exitCode).toBe(2);
  expect(bad.stderr).toContain("working, needs-you, idle, limited, failed, done");
  // Its example, as printed, runs.
  expect(await offrun("ls", "--status", "needs-you")).toSucceed();
});

test("a host that is down is named; --host does not claim there are no agents anywhere", async () => {
  expect(await offrun("hosts", "add", "devbox", "ssh://me@127.0.0.1:1")).toSucceed();
  const everywhere = await offrun("ls");
  expect(everywhere).toSucceed();
  expect(everywhere.stdout).toMatch(/^local\s+kept\s+idle/m);
  expect(everywhere.stdout).toContain("⚠ devbox did not answer");
  const only = await offrun("ls", "--host", "devbox");
  expect(only).toSucceed();
  expect(only.stdout).not.toContain("No agents here");
  expect(only.stdout).toContain("devbox did not answer, so its agents are not listed");
  // The way back it names: without --host, this machine's agents are there.
  expect((await offrun("ls")).stdout).toMatch(/^local\s+kept\s+idle/m);
}, 60_000);
