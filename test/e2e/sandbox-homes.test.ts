import fs from "node:fs/promises";
import path from "node:path";
import type { Step } from "../fake-server/script.js";
import { geminiDefaultWorld } from "../helpers/gemini-env.js";
import { opencodeDirs, opencodeWorld } from "../helpers/opencode-env.js";
import { piWorld } from "../helpers/pi-env.js";
import { shown } from "../helpers/sandbox-turns.js";
import type { World } from "../helpers/e2e.js";

// Gemini CLI and Pi in the real sandbox, against the fake model server. The model asks
// the CLI's own file tool to write the CLI's executable configuration and a dotfile of the user's
// home; both stay as they were, the write to the worktree goes in, and the CLI still keeps its
// session. For Pi the sandbox is what refuses (on the code before, models.json was overwritten).
// Gemini CLI's file tool refuses paths outside its workspace by itself, so for Gemini this shows
// that a Default login (home = HOME) works with only ~/.gemini open: its state, sessions and resume.

interface Case {
  label: string;
  harness: string;
  world: () => Promise<World>;
  /** The CLI's executable configuration in the login's home, which the turn aims at. */
  config: (world: World) => string;
  /** Aim with one shell command rather than the CLI's file tool (which refuses outside paths itself). */
  viaShell?: boolean;
  /** The user ran the CLI before, outside the sandbox (OpenCode installs its plugin package then). */
  usedBefore?: boolean;
}

const cases: Case[] = [
  {
    label: "Gemini CLI (Default login, home = HOME)",
    harness: "gemini",
    world: () => geminiDefaultWorld("offrun-sbx-gemini-", { "README.md": "# demo\n" }),
    config: (world) => path.join(world.box.home, ".gemini", "settings.json"),
  },
  {
    label: "Pi",
    harness: "pi",
    world: () => piWorld("offrun-sbx-pi-", { "README.md": "# demo\n" }),
    config: (world) => path.join(world.box.home, ".pi", "agent", "models.json"),
  },
  {
    label: "OpenCode",
    harness: "opencode",
    world: () => opencodeWorld("offrun-sbx-opencode-", { "README.md": "# demo\n" }),
    config: (world) => path.join(opencodeDirs(world.box.home).configHome, "opencode", "opencode.json"),
    viaShell: true,
    usedBefore: true,
  },
];

describe.each(cases)("$label in the sandbox", ({ harness, world: makeWorld, config, viaShell, usedBefore }) => {
  let world: World;
  beforeAll(async () => {
    world = await makeWorld();
  });
  afterAll(async () => {
    await world.close();
  });

  test("writes its worktree and its session, never its executable config nor the home's dotfiles", async () => {
    const worktree = path.join(world.repo, ".worktrees", "homes");
    const bashrc = path.join(world.box.home, ".bashrc");
    if (usedBefore) {
      world.server.script({ kind: "text", text: "Used before." });
      expect(await world.offrun(["start", "--harness", harness, "--wait", "--name", "before", "go"])).toSucceed();
    }
    const before = await fs.readFile(config(world), "utf8");
    const attack: Step[] = viaShell
      ? [
          {
            kind: "shell",
            command: `echo '{"planted": true}' > '${config(world)}'; echo 'touch ~/PWNED' > '${bashrc}'; echo "the agent's work" > work.txt`,
          },
        ]
      : [
          { kind: "write_file", path: config(world), content: '{"planted": true}\n' },
          { kind: "write_file", path: bashrc, content: "touch ~/PWNED\n" },
          { kind: "write_file", path: path.join(worktree, "work.txt"), content: "the agent's work\n" },
        ];
    world.server.script(...attack, { kind: "text", text: "Done in the sandbox." });
    const started = await world.offrun(["start", "--harness", harness, "--sandbox", "--wait", "--name", "homes", "go"]);
    expect(started).toSucceed();
    expect(started.stdout).toContain("Done in the sandbox.");
    expect(await fs.readFile(config(world), "utf8")).toBe(before);
    await expect(fs.access(bashrc)).rejects.toThrow();
    expect(await fs.readFile(path.join(worktree, "work.txt"), "utf8")).toBe("the agent's work\n");
    const done = await shown(world, "homes");
    expect(done.agent).toMatchObject({ status: "idle", sandbox: true });
    // The CLI's session was kept: the next message resumes it.
    world.server.script({ kind: "text", text: "Resumed in the sandbox." });
    const again = await world.offrun(["send", "homes", "--wait", "and again"]);
    expect(again).toSucceed();
    expect(again.stdout).toContain("Resumed in the sandbox.");
  });
});

describe("OpenCode's first run in the sandbox", () => {
  let world: World;
  beforeAll(async () => {
    world = await opencodeWorld("offrun-sbx-opencode-first-", { "README.md": "# demo\n" });
  });
  afterAll(async () => {
    await world.close();
  });

  test("is refused with what to do, since OpenCode would install its plugin package into its config", async () => {
    const folder = path.join(opencodeDirs(world.box.home).configHome, "opencode");
    const before = await fs.readdir(folder);
    world.server.script({ kind: "text", text: "never asked" });
    const started = await world.offrun([
      "start",
      "--harness",
      "opencode",
      "--sandbox",
      "--wait",
      "--name",
      "first",
      "go",
    ]);
    // The message stays in the conversation, with why its turn did not run.
    expect(started.stdout).toContain("› you (turn 1)");
    expect(started.stdout + started.stderr).toContain(`OpenCode has not set up its config folder (${folder}) yet`);
    expect(started.stdout + started.stderr).toContain("without --sandbox");
    expect(await fs.readdir(folder)).toEqual(before);
    expect(world.server.requests).toHaveLength(0);
  });
});
