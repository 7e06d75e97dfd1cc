import fs from "node:fs/promises";
import path from "node:path";
import type { LaunchProps } from "@raycast/api";
import AgentQuota from "../../src/commands/agent-quota.js";
import SetUpOffrun from "../../src/commands/set-up-offrun.js";
import { userPaths } from "../../src/core/foundation/paths.js";
import { keepStateProblem } from "../../src/core/foundation/problem-register.js";
import { isAlive, runningCompanionPid } from "../../src/core/foundation/pids.js";
import { eventually } from "../helpers/offrun.js";
import type { Snapshot } from "../../src/core/companion/snapshot.js";
import { buildMenuBar } from "../../src/commands/presenters/menu-bar.js";
import { runtime } from "../helpers/raycast-api.js";
import { render } from "../helpers/raycast-api-render.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";
import { pinClock } from "../helpers/clock.js";

// Times in this file read on a 24-hour clock, whatever the machine's locale.
pinClock("24h");

type LaunchContext = LaunchProps["launchContext"];

const NOW = Date.parse("2026-03-02T18:00:00Z");
const names = new Map([
  ["claude", "Claude Code"],
  ["codex", "Codex"],
]);
const at = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();

function snapshot(overrides: Partial<Snapshot> = {}): Snapshot {
  return {
    version: 1,
    writtenAt: at(0),
    companion: { pid: process.pid, version: "test", startedAt: at(-60) },
    counts: { working: 1, "needs-you": 0, idle: 0, limited: 0, failed: 0, done: 0 },
    agents: [],
    quota: [
      {
        harness: "claude",
        label: "default",
        windows: [{ kind: "five_hour", usedPercent: 23, resetsAt: at(180), source: "stream", observedAt: at(-1) }],
      },
      {
        harness: "claude",
        label: "work",
        windows: [{ kind: "five_hour", usedPercent: 61, resetsAt: at(60), source: "stream", observedAt: at(-40) }],
      },
      { harness: "codex", label: "default", windows: [], limitedUntil: at(120), limitReason: "usage limit" },
    ],
    notifications: [],
    ...overrides,
  };
}

const agent = {
  project: "/p/demo",
  harness: "claude",
  account: "work",
  mode: "build" as const,
  turns: 1,
  updatedAt: at(-2),
  branch: "offrun/x",
  worktree: "/p/demo/.worktrees/x",
  port: 41000,
};

test("the title is each CLI's login with the most room, as % used; a limited login counts as full", () => {
  const model = buildMenuBar(snapshot(), { now: NOW, harnessNames: names, companionAlive: true });
  // Claude's Default has the most room (23% used); Codex's only login is limited. Before: "100%",
  // the fullest login of all, which read worse the more logins a user had.
  expect(model.title).toBe("C 23% · X 100%");
  expect(model.state).toBe("limited");
  expect(model.harnesses.map((h) => h.name)).toEqual(["Claude Code", "Codex"]);
  const claude = model.harnesses[0]!.logins;
  // Each login's row says its deciding window and when it resets, most room first.
  expect(claude.map((l) => l.title)).toEqual([
    expect.stringMatching(/^Default · 5-Hour 23% used · resets \d\d:\d\d$/),
    expect.stringMatching(/^Work · 5-Hour 61% used · resets \d\d:\d\d$/),
  ]);
  expect(model.harnesses[1]!.logins[0]!.title).toMatch(/^Default · limited until \d\d:\d\d$/);
  // A reading 40 minutes old is marked with its age.
  expect(claude[1]!.windows[0]).toMatch(/^5-Hour 61% used · resets \d\d:\d\d \(40m ago\)$/);
  expect(model.harnesses[1]!.logins[0]!.windows[0]).toMatch(/^Limited until \d\d:\d\d$/);
});

test("when an agent needs the user the title carries a badge with the count, beside the quota", () => {
  const model = buildMenuBar(
    snapshot({
      quota: [],
      agents: [
        {
          ...agent,
          name: "upload",
          status: "needs-you",
          pending: [{ kind: "approval", tool: "Bash", text: "npm install" }],
        },
      ],
    }),
    { now: NOW, harnessNames: names, companionAlive: true },
  );
  expect(model.title).toBe("⚑1");
  expect(model.needsYou).toEqual([
    expect.objectContaining({ name: "upload", projectName: "demo", waitingFor: "npm install" }),
  ]);
});

test("what an agent waits for is shown with its control characters spelled out, in one line", () => {
  const model = buildMenuBar(
    snapshot({
      quota: [],
      agents: [
        {
          ...agent,
          name: "upload",
          status: "needs-you",
          pending: [{ kind: "approval", tool: "Bash", text: "rm -rf ~ \r\x1b[2Kls\nnpm install" }],
        },
      ],
    }),
    { now: NOW, harnessNames: names, companionAlive: true },
  );
  expect(model.needsYou[0]?.waitingFor).toBe("rm -rf ~ \\r\\x1b[2Kls\\nnpm install");
});

test("with the companion gone (kill -9), nothing shows as working or waiting: those turns are interrupted", () => {
  const agents = [
    { ...agent, name: "upload", status: "needs-you" as const, pending: [{ kind: "approval" as const, text: "npm i" }] },
    { ...agent, name: "build", status: "working" as const, pending: [] },
    { ...agent, name: "old", status: "idle" as const, pending: [] },
  ];
  const counts = { working: 1, "needs-you": 1, idle: 1, limited: 0, failed: 0, done: 0 };
  const up = buildMenuBar(snapshot({ quota: [], agents, counts }), {
    now: NOW,
    harnessNames: names,
    companionAlive: true,
  });
  expect(up.needsYou).toHaveLength(1);
  const down = buildMenuBar(snapshot({ quota: [], agents, counts }), {
    now: NOW,
    harnessNames: names,
    companionAlive: false,
  });
  expect(down.needsYou).toEqual([]);
  expect(down.title).toBeUndefined();
  expect(down.counts).toMatchObject({ working: 0, "needs-you": 0, idle: 1, failed: 2 });
  expect(down.interrupted).toBe(2);
  expect(down.tooltip).toBe("Offrun · the companion is not running · 2 interrupted");
});

test("another host's agents and logins are grouped by host, and its agents stay as they are when this companion is down", () => {
  const quota = [
    ...snapshot().quota,
    {
      host: "devbox",
      harness: "claude",
      label: "default",
      windows: [{ kind: "five_hour", usedPercent: 40, resetsAt: at(30), source: "stream", observedAt: at(-1) }],
    },
  ];
  const agents = [
    {
      ...agent,
      host: "devbox",
      project: "/srv/app",
      name: "up",
      status: "needs-you" as const,
      pending: [{ kind: "approval" as const, text: "npm install" }],
    },
  ];
  const counts = { working: 0, "needs-you": 1, idle: 0, limited: 0, failed: 0, done: 0 };
  const model = buildMenuBar(snapshot({ quota, agents, counts }), {
    now: NOW,
    harnessNames: names,
    companionAlive: true,
  });
  expect(model.harnesses.map((h) => h.name)).toEqual(["Claude Code", "Codex", "Claude Code on devbox"]);
  expect(model.harnesses.at(-1)?.logins.map((l) => l.title)).toEqual([
    expect.stringMatching(/^Default · 5-Hour 40% used · resets \d\d:\d\d$/),
  ]);
  // The title is this machine's: another host's logins are in their own section.
  expect(model.title).toBe("⚑1 C 23% · X 100%");
  expect(model.needsYou).toEqual([
    expect.objectContaining({
      name: "devbox:up",
      host: "devbox",
      projectName: "app on devbox",
      waitingFor: "npm install",
    }),
  ]);
  const down = buildMenuBar(snapshot({ quota, agents, counts }), {
    now: NOW,
    harnessNames: names,
    companionAlive: false,
  });
  expect(down.interrupted).toBe(0);
  expect(down.needsYou.map((a) => a.name)).toEqual(["devbox:up"]);
});

test("a CLI that is not installed is not in the menu at all", () => {
  const model = buildMenuBar(
    snapshot({
      quota: [
        ...snapshot().quota,
        { harness: "gemini", label: "default", windows: [], installed: false, signIn: { state: "signed-out" } },
      ],
    }),
    { now: NOW, harnessNames: names, companionAlive: true },
  );
  expect(model.harnesses.map((h) => h.id)).toEqual(["claude", "codex"]);
  expect(model.title).toBe("C 23% · X 100%");
});

test("a window whose reset has passed reads as empty again", () => {
  const model = buildMenuBar(
    snapshot({
      quota: [
        {
          harness: "claude",
          label: "default",
          windows: [{ kind: "five_hour", usedPercent: 90, resetsAt: at(-5), source: "s", observedAt: at(-10) }],
        },
      ],
    }),
    { now: NOW, harnessNames: names, companionAlive: true },
  );
  expect(model.title).toBe("C 0%");
});

test("a signed-out login reads as such with its sign-in command and does not count toward the title", () => {
  const model = buildMenuBar(
    snapshot({
      quota: [
        {
          harness: "claude",
          label: "work",
          windows: [{ kind: "five_hour", usedPercent: 90, resetsAt: at(60), source: "s", observedAt: at(-1) }],
          signIn: { state: "signed-out", note: "Not logged in" },
        },
        { harness: "claude", label: "home", windows: [], signIn: { state: "signed-in" } },
      ],
    }),
    { now: NOW, harnessNames: names, companionAlive: true },
  );
  const logins = model.harnesses[0]!.logins;
  // Most room first: one not read yet can still run; a signed-out one cannot.
  expect(logins.map((l) => l.label)).toEqual(["home", "work"]);
  const [home, work] = logins;
  expect(work!.title).toBe("Work · signed out");
  expect(work!.signedOut).toBe(true);
  expect(work!.notes).toEqual(["Signed out: offrun logins login claude work"]);
  expect(home!.title).toBe("Home · not read yet: run an agent on it");
  expect(model.title).toBeUndefined();
});

test("a limits-only CLI says so, and the pace shows when the login runs out or that it lasts", () => {
  const five = (used: number) => [
    { kind: "five_hour", usedPercent: used, resetsAt: at(120), source: "s", observedAt: at(-1) },
  ];
  const model = buildMenuBar(
    snapshot({
      quota: [
        { harness: "gemini", label: "default", windows: [], coverage: "limits" },
        { harness: "claude", label: "fast", windows: five(70), pace: { runsOutAt: at(40) } },
        { harness: "claude", label: "slow", windows: five(20), pace: { lastsPastReset: true } },
        // A pace whose moment has passed says nothing any more.
        { harness: "claude", label: "old", windows: five(30), pace: { runsOutAt: at(-5) } },
      ],
    }),
    { now: NOW, harnessNames: names, companionAlive: true },
  );
  const logins = new Map(model.harnesses.flatMap((h) => h.logins).map((l) => [l.label, l]));
  expect(logins.get("default")!.title).toBe("Default · no quota windows: limits only");
  expect(logins.get("default")!.notes).toEqual(["No usage data: limits only"]);
  expect(logins.get("fast")!.title).toMatch(/^Fast · 5-Hour 70% used · resets \d\d:\d\d$/);
  expect(logins.get("fast")!.notes).toEqual([expect.stringMatching(/^Out ~\d\d:\d\d at this pace$/)]);
  expect(logins.get("slow")!.title).toMatch(/^Slow · 5-Hour 20% used · resets \d\d:\d\d$/);
  expect(logins.get("slow")!.notes).toEqual(["Lasts past its reset"]);
  expect(logins.get("old")!.notes).toEqual([]);
});

describe("the menu bar command", () => {
  let sandbox: FaceSandbox;
  beforeEach(async () => {
    sandbox = await makeFaceSandbox();
    pinClock("24h");
  });
  afterEach(async () => {
    await sandbox.cleanup();
  });

  test("paints from the snapshot and is done loading (so Raycast can unload it)", async () => {
    const file = userPaths().state;
    await fs.mkdir(path.dirname(file), { recursive: true });
    const now = Date.now();
    const fresh = (m: number) => new Date(now + m * 60_000).toISOString();
    await fs.writeFile(
      file,
      JSON.stringify(
        snapshot({
          agents: [
            {
              ...agent,
              name: "upload",
              status: "needs-you",
              pending: [{ kind: "question", text: "keep the old API?" }],
            },
          ],
          quota: [
            {
              harness: "claude",
              label: "default",
              windows: [
                { kind: "five_hour", usedPercent: 42, resetsAt: fresh(60), source: "s", observedAt: fresh(-1) },
              ],
            },
          ],
        }),
      ),
    );
    const screen = render(<AgentQuota />);
    await screen.waitFor(() => expect(screen.find("MenuBarExtra").props.isLoading).toBe(false));
    const bar = screen.find("MenuBarExtra");
    expect(bar.props.title).toBe("⚑1 C 42%");
    const section = screen.find("MenuBarExtra.Section", (s) => s.props.title === "Needs You");
    expect(section.children[0]!.props.title).toBe("upload");
    expect(section.children[0]!.props.subtitle).toBe("demo · keep the old API?");
    // A click opens Agents on that agent (its launch context), not just the list.
    runtime.calls = [];
    (section.children[0]!.props.onAction as () => void)();
    await screen.waitFor(() => expect(runtime.calls.some((c) => c.kind === "launchCommand")).toBe(true));
    expect(runtime.calls.find((c) => c.kind === "launchCommand")!.args[0]).toMatchObject({
      name: "agents",
      context: { agent: "upload" },
    });
    expect(screen.find("MenuBarExtra.Submenu").props.title).toMatch(/^Default · 5-Hour 42% used · resets \d\d:\d\d$/);
    // Start Agent and Agents come before the logins, above the fold however many logins there are.
    const sections = screen.findAll("MenuBarExtra.Section").map((s) => s.props.title ?? s.children[0]?.props.title);
    expect(sections.indexOf("Start Agent")).toBeLessThan(sections.indexOf("Claude Code"));
    screen.unmount();
  });

  test("a signed-out login's submenu offers its sign-in command", async () => {
    const file = userPaths().state;
    await fs.mkdir(path.dirname(file), { recursive: true });
    const signedOut = { harness: "claude", label: "work", windows: [], signIn: { state: "signed-out" as const } };
    await fs.writeFile(file, JSON.stringify(snapshot({ quota: [signedOut], writtenAt: new Date().toISOString() })));
    const screen = render(<AgentQuota />);
    await screen.waitFor(() => expect(screen.find("MenuBarExtra").props.isLoading).toBe(false));
    const login = screen.find("MenuBarExtra.Submenu");
    expect(login.props.title).toBe("Work · signed out");
    expect(login.props.icon).toBe("XMarkCircle");
    expect(login.children.map((c) => c.props.title)).toEqual(["Signed out: offrun logins login claude work"]);
    screen.unmount();
  });

  // Start Companion started the service from the menu bar command itself, which Raycast unloads when
  // its menu closes (raycast/extensions#2334): the start could be cut off, its HUD never shown.
  test("with no companion it is done at once, says so, and Start Companion opens a view that starts it", async () => {
    const screen = render(<AgentQuota />);
    await screen.waitFor(() => expect(screen.find("MenuBarExtra").props.isLoading).toBe(false));
    // Nothing was started by painting the menu.
    await expect(fs.access(userPaths().pidFile)).rejects.toThrow();
    const section = screen.find("MenuBarExtra.Section", (s) => s.props.title === "Companion Not Running");
    expect(section.children.map((c) => c.props.title)).toEqual(["Start Companion", "Copy Start Command"]);
    expect(section.children[1]!.props.subtitle).toBe("offrun companion install");
    expect(screen.find("MenuBarExtra").props.tooltip).toBe("Offrun: the companion has not written its state yet");
    const footer = screen.findAll("MenuBarExtra.Item").map((i) => i.props.title);
    expect(footer).toEqual(expect.arrayContaining(["Refresh", "Preferences…"]));

    runtime.calls = [];
    (section.children[0]!.props.onAction as () => void)();
    // The menu bar's action does no long work itself: it launches the view command, and returns.
    await screen.waitFor(() => expect(runtime.calls.map((c) => c.kind)).toContain("launchCommand"));
    expect(runtime.calls.find((c) => c.kind === "launchCommand")!.args[0]).toEqual({
      name: "set-up-offrun",
      type: "userInitiated",
      context: { startCompanion: true },
    });
    expect(runtime.calls.map((c) => c.kind)).not.toContain("showHUD");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await runningCompanionPid()).toBeUndefined();
    const launched = runtime.calls.find((c) => c.kind === "launchCommand")!.args[0] as { context: LaunchContext };

    // That view starts the companion and shows how it went.
    const view = render(<SetUpOffrun launchContext={launched.context} />);
    expect(view.find("Detail").props.markdown).toBe("## Starting the Companion…");
    const pid = await eventually(async () => runningCompanionPid(), 30_000, "the companion started by Start Companion");
    expect(isAlive(pid)).toBe(true);
    await view.waitFor(
      () => expect(String(view.find("Detail").props.markdown)).toMatch(/^## Companion Running\n\n\S/),
      30_000,
    );
    expect(view.findAll("Action.CopyToClipboard").map((a) => a.props.title)).toEqual(["Copy Start Command"]);
    view.unmount();
    screen.unmount();
    // The menu bar's next run (Raycast reloads it every minute) finds it running.
    const next = render(<AgentQuota />);
    await next.waitFor(
      () =>
        expect(next.findAll("MenuBarExtra.Section").some((s) => s.props.title === "Companion Not Running")).toBe(false),
      30_000,
    );
    next.unmount();
  });

  // What broke: a file only the companion reads (and may repair) was named in companion.log alone.
  test("a file the companion found damaged is under Offrun's Files until it is fixed; Finder shows it", async () => {
    const file = userPaths().accounts;
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, "");
    await keepStateProblem({
      file,
      message: `${file} is empty. Offrun lists only the Default logins until it is fixed.`,
    });
    await keepStateProblem({ file: userPaths().projects, message: "projects.json was rebuilt.", repaired: true });
    const screen = render(<AgentQuota />);
    await screen.waitFor(() => expect(screen.find("MenuBarExtra").props.isLoading).toBe(false));
    const section = screen.find("MenuBarExtra.Section", (s) => s.props.title === "Offrun's Files");
    const items = screen.findAll("MenuBarExtra.Item", undefined, section.children);
    expect(items.map((i) => [i.props.title, i.props.subtitle])).toEqual([
      ["accounts.json", "Damaged"],
      ["projects.json", "Repaired"],
    ]);
    expect(String(items[0]!.props.tooltip)).toContain("is empty");
    runtime.calls = [];
    (items[0]!.props.onAction as () => void)();
    await screen.waitFor(() => expect(runtime.calls).toContainEqual({ kind: "showInFinder", args: [file] }));

    await fs.writeFile(file, '{"version": 1, "accounts": []}\n');
    (screen.find("MenuBarExtra.Item", (i) => i.props.title === "Refresh").props.onAction as () => void)();
    await screen.waitFor(() =>
      expect(
        screen
          .findAll(
            "MenuBarExtra.Item",
            undefined,
            screen.find("MenuBarExtra.Section", (s) => s.props.title === "Offrun's Files").children,
          )
          .map((i) => i.props.title),
      ).toEqual(["projects.json"]),
    );
    screen.unmount();
  });

  test("a damaged state.json is one clear line, not a crash", async () => {
    await fs.mkdir(path.dirname(userPaths().state), { recursive: true });
    await fs.writeFile(userPaths().state, '{"version": 1, "agents": [');
    const screen = render(<AgentQuota />);
    await screen.waitFor(() => expect(screen.find("MenuBarExtra").props.isLoading).toBe(false));
    const item = screen.find("MenuBarExtra.Item", (i) => i.props.title === "Cannot Read Offrun's State");
    // The item shows the start of it; its tooltip has all of it.
    expect(String(item.props.tooltip)).toMatch(/state\.json is damaged .*Restart the companion/);
    await fs.writeFile(userPaths().state, JSON.stringify({ ...snapshot(), version: 2 }));
    (screen.find("MenuBarExtra.Item", (i) => i.props.title === "Refresh").props.onAction as () => void)();
    await screen.waitFor(() =>
      expect(
        String(screen.find("MenuBarExtra.Item", (i) => i.props.title === "Cannot Read Offrun's State").props.tooltip),
      ).toContain("written by a newer Offrun companion (format 2)"),
    );
    screen.unmount();
  });
});
