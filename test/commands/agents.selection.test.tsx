import fs from "node:fs/promises";
import path from "node:path";
import Agents from "../../src/commands/agents.js";
import { readAgent } from "../../src/core/records/records.js";
import { runOffrun } from "../helpers/offrun.js";
import { render, type Screen } from "../helpers/raycast-api-render.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

// Every row of the Agents list used to load its own detail, a `git diff` of its worktree, on each
// render and poll: with many agents that was many gits a second. Only the selected row's is read now.

let sandbox: FaceSandbox;
let savedPath: string | undefined;
let gitLog: string;

/** The real git, found on PATH before the logging one is put in front of it. */
async function realGit(): Promise<string> {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const file = path.join(dir, "git");
    if (
      await fs.access(file, fs.constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return file;
  }
  throw new Error("no git on PATH");
}

beforeEach(async () => {
  sandbox = await makeFaceSandbox();
  savedPath = process.env.PATH;
  // A git in front of the real one that logs where it ran and with what, then is the real git.
  gitLog = path.join(sandbox.box.dir, "git.log");
  const dir = path.join(sandbox.box.dir, "logging-git");
  await fs.mkdir(dir, { recursive: true });
  const script = `#!/bin/sh\nprintf '%s\\t%s\\n' "$(pwd -P)" "$*" >> '${gitLog}'\nexec '${await realGit()}' "$@"\n`;
  await fs.writeFile(path.join(dir, "git"), script, { mode: 0o755 });
  process.env.PATH = `${dir}${path.delimiter}${savedPath ?? ""}`;
});
afterEach(async () => {
  process.env.PATH = savedPath;
  await sandbox.cleanup();
});

async function startAgent(name: string): Promise<void> {
  // The companion gets the sandbox's own environment, without the logging git: only the view is counted.
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  const started = await runOffrun(["start", "--wait", "--name", name, `task of ${name}`], { env, cwd: sandbox.repo });
  expect(started).toSucceed();
}

/** The worktrees (real paths) the view diffed so far. */
async function diffedWorktrees(): Promise<Set<string>> {
  const lines = (await fs.readFile(gitLog, "utf8").catch(() => "")).split("\n").filter(Boolean);
  return new Set(
    lines
      .map((line) => line.split("\t"))
      // Offrun's git calls start with the settings that switch off fsmonitor and hooks (`-c ...`).
      .filter(([, args]) => /^(?:-c \S+ )*diff --cached/.test(args ?? "") && args!.includes("--name-status"))
      .map(([cwd]) => cwd!),
  );
}

async function worktreeOf(name: string): Promise<string> {
  return fs.realpath((await readAgent(sandbox.repo, name)).worktree);
}

async function detailShows(screen: Screen, name: string): Promise<void> {
  await screen.waitFor(() => {
    const detail = screen.find("List.Item.Detail", undefined, screen.byTitle("List.Item", name).slots.detail);
    expect(String(detail.props.markdown)).toContain(`task of ${name}`);
  });
}

test("only the selected agent's detail and diff are loaded; moving the selection loads the next", async () => {
  for (const name of ["upload", "billing", "docs"]) await startAgent(name);
  const screen = render(<Agents />);
  const items = await screen.waitFor(() => {
    const found = screen.findAll("List.Item");
    if (found.length < 3) throw new Error(`only ${found.length} items`);
    return found;
  });
  const [first, second, third] = items.map((i) => String(i.props.title));

  await detailShows(screen, first!);
  await screen.settle(300);
  expect(await diffedWorktrees()).toEqual(new Set([await worktreeOf(first!)]));
  // The other rows show no conversation: nothing was read for them.
  const otherDetail = screen.find("List.Item.Detail", undefined, screen.byTitle("List.Item", second!).slots.detail);
  expect(otherDetail.props.markdown).toBe("");

  await screen.select(screen.byTitle("List.Item", second!));
  await detailShows(screen, second!);
  await screen.settle(300);
  expect(await diffedWorktrees()).toEqual(new Set([await worktreeOf(first!), await worktreeOf(second!)]));
  expect(await diffedWorktrees()).not.toContain(await worktreeOf(third!));
  screen.unmount();
});

test("with the search hiding every row, no detail is loaded", async () => {
  await startAgent("upload");
  const screen = render(<Agents />);
  await detailShows(screen, "upload");
  await fs.rm(gitLog, { force: true });
  const list = screen.find("List");
  (list.props.onSelectionChange as (id: string | null) => void)(null);
  await screen.settle(300);
  expect(await diffedWorktrees()).toEqual(new Set());
  screen.unmount();
});
