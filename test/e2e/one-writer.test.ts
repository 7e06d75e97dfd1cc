import fs from "node:fs/promises";
import path from "node:path";
import { claudeWorld, type World } from "../helpers/e2e.js";
import { eventually } from "../helpers/offrun.js";

// One writer (docs/architecture.md): merge and discard go through the companion, under the agent's turn lock.
// They were checked against the record's status and pid, then done with no lock shared with the
// supervisor, so a turn that started in between had its worktree removed under it, or its record
// overwritten with a stale copy.

let world: World;
beforeAll(async () => {
  world = await claudeWorld("offrun-one-writer-");
});
afterAll(async () => {
  await world.close();
});

/**
 * The turn holds the fake server's hanging request. "working" alone is not enough: on a loaded
 * machine the CLI can be stopped before its request arrives, and the hang would be left for the
 * next test's turn, which would then wait forever.
 */
const untilHanging = (count: number) =>
  eventually(
    async () =>
      world.server.turnRequests().filter((r) => r.answeredWith === "hang").length === count ? true : undefined,
    60_000,
    `hanging request ${count} to reach the fake server`,
  );

const status = async (name: string) =>
  (JSON.parse((await world.offrun(["show", name, "--json"])).stdout) as { agent: { status: string } }).agent.status;

test("discard and merge are refused while a turn runs; discard --force stops the turn, then discards", async () => {
  world.server.script({ kind: "hang" });
  expect(await world.offrun(["start", "--name", "busy", "a long task"])).toSucceed();
  await eventually(async () => ((await status("busy")) === "working" ? true : undefined), 30_000, "the turn");
  await untilHanging(1);
  const worktree = path.join(world.repo, ".worktrees", "busy");

  for (const args of [
    ["discard", "busy"],
    ["merge", "busy"],
  ]) {
    const refused = await world.offrun(args);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain("in the middle of a turn");
  }
  expect((await fs.stat(worktree)).isDirectory()).toBe(true);
  expect(await status("busy")).toBe("working");

  const forced = await world.offrun(["discard", "busy", "--force"]);
  expect(forced).toSucceed();
  await expect(fs.stat(worktree)).rejects.toThrow();
  expect(await status("busy")).toBe("done");
});

test("with the companion running, merge goes through it and the record keeps every turn", async () => {
  const worktree = path.join(world.repo, ".worktrees", "notes");
  world.server.script({ kind: "write_file", path: path.join(worktree, "NOTES.md"), content: "notes\n" });
  expect(await world.offrun(["start", "--wait", "--name", "notes", "write NOTES.md"])).toSucceed();
  const merged = await world.offrun(["merge", "notes", "--json"]);
  expect(merged).toSucceed();
  expect((JSON.parse(merged.stdout) as { files: string[] }).files).toContain("NOTES.md");
  expect(await fs.readFile(path.join(world.repo, "NOTES.md"), "utf8")).toBe("notes\n");
  const log = await fs.readFile(path.join(world.box.offrunHome, "companion.log"), "utf8");
  expect(log).not.toContain("agent.merge failed");
}, 120_000);

test("a login is not removed, nor its home deleted, while a turn runs on it", async () => {
  const home = path.join(world.box.dir, "claude-side");
  await fs.mkdir(home, { recursive: true });
  expect(await world.offrun(["logins", "add", "claude", "side", "--home", home, "--no-login"])).toSucceed();
  world.server.script({ kind: "hang" });
  expect(await world.offrun(["start", "--login", "side", "--name", "onside", "a long task"])).toSucceed();
  await eventually(async () => ((await status("onside")) === "working" ? true : undefined), 30_000, "the turn");
  // The first test's hang was answered; this one's must be too before the turn is stopped.
  await untilHanging(2);

  const refused = await world.offrun(["logins", "rm", "claude", "side", "--purge"]);
  expect(refused.exitCode).not.toBe(0);
  expect(refused.stderr).toContain("onside is in the middle of a turn");
  expect((await fs.stat(home)).isDirectory()).toBe(true);

  expect(await world.offrun(["stop", "onside"])).toSucceed();
  // Its agent is stopped but still on it: removing it needs --force (its home stays for the agent).
  expect(await world.offrun(["logins", "rm", "claude", "side", "--force"])).toSucceed();
  const listed = JSON.parse((await world.offrun(["logins", "--json"])).stdout) as { accounts: { label: string }[] };
  expect(listed.accounts.map((a) => a.label)).not.toContain("side");
}, 120_000);

test("accounts add, default and reserve go through the companion, and a relative --home is the user's folder", async () => {
  await fs.mkdir(path.join(world.box.dir, "homes", "claude-extra"), { recursive: true });
  // Relative to where the user is, not to the companion's working directory.
  const added = await world.offrun(["logins", "add", "claude", "extra", "--home", "claude-extra", "--no-login"], {
    cwd: path.join(world.box.dir, "homes"),
  });
  expect(added).toSucceed();
  expect(await world.offrun(["logins", "default", "claude", "extra"])).toSucceed();
  const listed = JSON.parse((await world.offrun(["logins", "--json"])).stdout) as {
    accounts: { label: string; home: string }[];
    defaults: Record<string, string>;
  };
  expect(listed.accounts.find((a) => a.label === "extra")?.home).toBe(
    path.join(world.box.dir, "homes", "claude-extra"),
  );
  expect(listed.defaults).toMatchObject({ claude: "extra" });
  expect(await world.offrun(["logins", "default", "claude", "--clear"])).toSucceed();
  const reserved = await world.offrun(["logins", "reserve", "claude", "extra", "20%", "--json"]);
  expect(reserved).toSucceed();
  expect(JSON.parse(reserved.stdout)).toMatchObject({ label: "extra", reservePercent: 20 });
  const refused = await world.offrun(["logins", "reserve", "claude", "extra", "lots"]);
  expect(refused.stderr).toContain("A reserve is a percentage from 0 to 100; 'NaN' is not.");
  const log = await fs.readFile(path.join(world.box.offrunHome, "companion.log"), "utf8");
  expect(log).toContain("for a face: login.add claude extra");
  expect(log).toContain("for a face: login.default claude extra");
  expect(log).toContain("for a face: login.default claude (none)");
  expect(log).toContain("for a face: login.reserve claude extra 20");
}, 60_000);
