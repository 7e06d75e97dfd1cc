import fs from "node:fs/promises";
import path from "node:path";
import { makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// The first screens a user sees (`offrun`, `offrun logins`, `offrun quota`) show what matters: the
// CLIs that are not installed fold into one line, none of them reads "SIGNED OUT", and no line is
// wider than the terminal. Broke: `offrun logins` showed 11 rows for 3 logins (five CLIs not
// installed, Gemini "SIGNED OUT" while not installed), a row about 230 characters wide, and the
// dashboard's columns broke on "Antigravity CLI".

// In the registry's order, which the screens keep.
const ABSENT = ["gemini", "agy", "opencode", "pi", "grok"];
const ABSENT_NAMES = ["Gemini CLI", "Antigravity CLI", "OpenCode", "Pi", "Grok Build"];

let box: Sandbox;
let env: NodeJS.ProcessEnv;
let longHome: string;
const offrun = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
  runOffrun(args, { env: { ...env, ...extra }, cwd: box.dir });

beforeAll(async () => {
  box = await makeSandbox("offrun-first-");
  // Claude Code and Codex are installed (stand-ins that only need to exist); the others are named
  // by a path with nothing there, so a CLI on this machine's PATH does not count.
  const stub = path.join(box.dir, "bin", "stub");
  await fs.mkdir(path.dirname(stub), { recursive: true });
  await fs.writeFile(stub, "#!/bin/sh\necho 1.0.0\n", { mode: 0o755 });
  const nothing = path.join(box.dir, "bin", "nothing-here");
  env = {
    ...box.env,
    OFFRUN_CLAUDE_BIN: stub,
    OFFRUN_CODEX_BIN: stub,
    ...Object.fromEntries(ABSENT.map((id) => [`OFFRUN_${id.toUpperCase()}_BIN`, nothing])),
  };
  // A home with a long path (one the user had, adopted): its row runs far past 80 columns.
  longHome = path.join(box.dir, "homes", "a-login-home-folder-with-a-name-long-enough-to-overflow-any-terminal");
  await fs.mkdir(longHome, { recursive: true });
  expect(await offrun(["logins", "add", "claude", "work", "--no-login", "--home", longHome])).toSucceed();
  // A login added to a CLI that is not installed (or was uninstalled since): named in the fold.
  expect(await offrun(["logins", "add", "gemini", "work", "--no-login"])).toSucceed();
});

afterAll(async () => {
  await offrun(["companion", "stop"]).catch(() => undefined);
  await box.cleanup();
});

const FOLD =
  /Not installed: Gemini CLI \(login work\), Antigravity CLI, OpenCode, Pi, Grok Build \(offrun harnesses says how to install each\)/;

/** Every line that names a CLI that is not installed. */
function mentionsOfAbsent(stdout: string): string[] {
  return stdout.split("\n").filter((line) => ABSENT_NAMES.some((name) => line.includes(name)));
}

test.each([[[]], [["logins"]], [["quota"]]])(
  "offrun %j folds the CLIs that are not installed into one line",
  async (args) => {
    const result = await offrun(args);
    expect(result).toSucceed();
    const mentions = mentionsOfAbsent(result.stdout);
    expect(mentions).toHaveLength(1);
    expect(mentions[0]).toMatch(FOLD);
    // No row of its own: not by id (logins' HARNESS column) nor by name (quota's LOGIN column).
    for (const id of ABSENT) expect(result.stdout).not.toMatch(new RegExp(`^${id}\\s`, "m"));
    expect(result.stdout).not.toContain("SIGNED OUT");
  },
);

test("the dashboard lists the installed CLIs in one column, and no ✗ row for each missing one", async () => {
  const result = await offrun([]);
  const rows = result.stdout.split("\n").filter((line) => line.startsWith("  ✓ "));
  expect(rows.map((row) => row.slice(4).split(/\s{2,}/)[0])).toEqual(["Claude Code", "Codex"]);
  // The version starts at the same column in every row.
  expect(new Set(rows.map((row) => row.indexOf("1.0.0"))).size).toBe(1);
  expect(result.stdout).not.toContain("✗");
});

test("the advice in the folded line is a command that says how to install each", async () => {
  const result = await offrun(["harnesses"]);
  expect(result).toSucceed();
  for (const name of ABSENT_NAMES) expect(result.stdout).toMatch(new RegExp(`✗ ${name} \\(\\w+\\) not installed: \\S`));
});

test.each([[[]], [["logins"]], [["quota"]]])("with COLUMNS=80, no line of offrun %j is wider than 80", async (args) => {
  const result = await offrun(args, { COLUMNS: "80" });
  expect(result).toSucceed();
  const wide = result.stdout.split("\n").filter((line) => [...line].length > 80);
  expect(wide).toEqual([]);
  expect(result.stdout).toMatch(/Not installed: Gemini CLI/);
});

test("a row too wide is cut with … where the terminal ends, and whole when piped", async () => {
  const narrow = (await offrun(["logins"], { COLUMNS: "80" })).stdout;
  const work = narrow.split("\n").find((line) => line.startsWith("claude") && line.includes("work"))!;
  expect(work).toContain("…");
  expect(narrow).not.toContain(longHome);
  // Not a terminal and no COLUMNS: a file gets every character.
  expect((await offrun(["logins"])).stdout).toContain(longHome);
});

test("--json still lists every CLI and login, in full", async () => {
  const logins = JSON.parse((await offrun(["logins", "--json"], { COLUMNS: "80" })).stdout) as {
    accounts: { harness: string; label: string; home: string; installed: boolean }[];
  };
  const harnesses = new Set(logins.accounts.map((a) => a.harness));
  for (const id of ["claude", "codex", ...ABSENT]) expect(harnesses).toContain(id);
  expect(logins.accounts.find((a) => a.harness === "claude" && a.label === "work")).toMatchObject({
    home: longHome,
    installed: true,
  });
  expect(logins.accounts.find((a) => a.harness === "gemini" && a.label === "work")?.installed).toBe(false);

  const dashboard = JSON.parse((await offrun(["--json"], { COLUMNS: "80" })).stdout) as {
    clis: { id: string; binary?: string; installHint: string }[];
  };
  expect(dashboard.clis.filter((c) => !c.binary).map((c) => c.id)).toEqual(ABSENT);
  expect(dashboard.clis.every((c) => c.installHint.length > 0)).toBe(true);

  const quota = JSON.parse((await offrun(["quota", "--json"], { COLUMNS: "80" })).stdout) as {
    harness: string;
    label: string;
    home: string;
    installed?: boolean;
  }[];
  expect(quota.find((r) => r.harness === "claude" && r.label === "work")).toMatchObject({
    home: longHome,
    installed: true,
  });
  expect(quota.find((r) => r.harness === "gemini" && r.label === "work")?.installed).toBe(false);
});
