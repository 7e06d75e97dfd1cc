import fs from "node:fs/promises";
import path from "node:path";
import { readAgent, writeAgent, appendChat } from "../../src/core/records/records.js";
import { markLimited } from "../../src/core/quota/ledger.js";
import { AGENT_STATUSES } from "../../src/core/foundation/model.js";
import { userPaths } from "../../src/core/foundation/paths.js";
import { keepStateProblem } from "../../src/core/foundation/problem-register.js";
import Agents from "../../src/commands/agents.js";
import { runOffrun } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

test("with no agents the view says how to start one", async () => {
  const screen = render(<Agents />);
  await screen.waitFor(() => expect(screen.find("List").props.isLoading).toBe(false));
  expect(screen.find("List.EmptyView").props.title).toBe("No Agents Yet");
  expect(screen.findAll("List.Item")).toHaveLength(0);
  screen.unmount();
});

// What broke: an agent record that could not be read, and the files the companion found damaged,
// were in the overview's data but the view never showed them.
test("an unreadable record and a file the companion found damaged show under Offrun's Files", async () => {
  const record = path.join(sandbox.repo, ".offrun", "agents", "broken.json");
  await fs.mkdir(path.dirname(record), { recursive: true });
  await fs.writeFile(record, "");
  const hosts = path.join(userPaths().home, "hosts.json");
  await fs.writeFile(hosts, '{"version": 1, "hosts": [');
  await keepStateProblem({ file: hosts, message: `${hosts} is cut short. Fix it or move it aside.` });
  const screen = render(<Agents />);
  await screen.waitFor(() => expect(screen.find("List").props.isLoading).toBe(false));
  const section = screen.find("List.Section", (s) => s.props.title === "Offrun's Files");
  const items = screen.findAll("List.Item", undefined, section.children);
  expect(items.map((i) => i.props.title).sort()).toEqual(["broken.json", "hosts.json"]);
  const item = items.find((i) => i.props.title === "hosts.json")!;
  expect(String(screen.find("List.Item.Detail", undefined, item.slots.detail).props.markdown)).toContain(
    "is cut short",
  );
  expect(screen.find("List").props.isShowingDetail).toBe(true);
  screen.unmount();
});

test("agents in each status, needs-you first, with login quota and the conversation", async () => {
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  const started = await runOffrun(["start", "--wait", "--name", "upload", "fix the flaky upload test"], {
    env,
    cwd: sandbox.repo,
  });
  expect(started).toSucceed();
  const real = await readAgent(sandbox.repo, "upload");
  // The other statuses: the same real agent's record under other names, as the companion writes them.
  for (const status of AGENT_STATUSES) {
    if (status === real.status) continue;
    await writeAgent({ ...real, name: `a-${status}`, status, updatedAt: new Date().toISOString() });
  }
  await appendChat(sandbox.repo, "a-needs-you", {
    type: "approval_request",
    at: new Date().toISOString(),
    turn: real.turns,
    id: "req-1",
    tool: "Bash",
    input: { command: "npm install" },
    text: "npm install",
    alwaysKey: "Bash(npm install *)",
  });
  await markLimited(
    { harness: "claude", label: "default" },
    new Date(Date.now() + 3_600_000).toISOString(),
    "usage limit",
  );

  const screen = render(<Agents />);
  const items = await screen.waitFor(() => {
    const found = screen.findAll("List.Item");
    if (found.length < AGENT_STATUSES.length) throw new Error(`only ${found.length} items`);
    return found;
  });
  expect(items[0]!.props.title).toBe("a-needs-you");
  const tags = items.map((i) => (i.props.accessories as { tag?: { value: string } }[]).at(-1)!.tag!.value);
  expect(new Set(tags)).toEqual(new Set(["Needs You", "Working", "Limited", "Failed", "Idle", "Done"]));
  const section = screen.find("List.Section");
  expect(section.props.title).toBe("demo");
  expect(section.props.subtitle).toBe("1 need you");
  // The login is limited: its session reads 100%, in the detail's metadata (the row has its status only).
  const login = screen.find("Metadata.Label", (l) => l.props.title === "Login", items[0]!.slots.detail);
  expect(login.props.text).toBe("claude · default, session 100%");

  // The first row is selected, as Raycast selects it: its pending approval offers its answers.
  await screen.waitFor(() => screen.action(screen.byTitle("List.Item", "a-needs-you"), "Approve"));
  expect(screen.action(screen.byTitle("List.Item", "a-needs-you"), "Always Allow Bash(npm install *)")).toBeDefined();

  await screen.select(screen.byTitle("List.Item", "upload"));
  await screen.waitFor(() => {
    const detail = screen.find("List.Item.Detail", undefined, screen.byTitle("List.Item", "upload").slots.detail);
    expect(String(detail.props.markdown)).toContain("fix the flaky upload test");
  });
  const upload = screen.byTitle("List.Item", "upload");
  const titles = screen.actionsOf(upload).map((a) => a.props.title);
  expect(titles).toEqual(
    expect.arrayContaining([
      "Send Message",
      "Show Diff",
      "Review Changes",
      "Merge",
      "Discard",
      "Copy Branch",
      "Open in Editor",
    ]),
  );

  await screen.press(screen.action(upload, "Copy Branch"));
  expect(runtime.clipboard).toEqual([real.branch]);
  screen.unmount();
});

test("discard shows the refusal when work would be lost", async () => {
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  await runOffrun(["start", "--wait", "--name", "upload", "fix it"], { env, cwd: sandbox.repo });
  const record = await readAgent(sandbox.repo, "upload");
  const fs = await import("node:fs/promises");
  await fs.writeFile(`${record.worktree}/new-work.txt`, "unsaved\n");
  const screen = render(<Agents />);
  const item = await screen.waitFor(() => screen.byTitle("List.Item", "upload"));
  await screen.press(screen.action(item, "Discard"));
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Discard Refused"));
  expect(runtime.alerts[0]!.title).toBe("Discard upload?");
  expect((await fs.stat(record.worktree)).isDirectory()).toBe(true);
  screen.unmount();
});

// Show Diff and Show Changed Files read the worktree when they open, not the
// row's detail (which may not have loaded, or be a poll old): no blank page, no "No Changes" where
// there are changes.
test("Show Diff and Show Changed Files show the worktree as it is when they open", async () => {
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  expect(await runOffrun(["start", "--wait", "--name", "late", "a task"], { env, cwd: sandbox.repo })).toSucceed();
  const screen = render(<Agents />);
  await screen.waitFor(() => screen.action(screen.byTitle("List.Item", "late"), "Show Diff"));
  await screen.settle(300);
  // A change after the row's detail was read.
  const record = await readAgent(sandbox.repo, "late");
  await fs.writeFile(path.join(record.worktree, "late.txt"), "written later\n");
  await screen.press(screen.action(screen.byTitle("List.Item", "late"), "Show Diff"));
  await screen.waitFor(() => expect(String(screen.find("Detail").props.markdown)).toContain("late.txt"));
  runtime.navigation!.pop();
  await screen.settle();
  await screen.press(screen.action(screen.byTitle("List.Item", "late"), "Show Changed Files"));
  await screen.waitFor(() => expect(screen.findAll("List.Item").map((item) => item.props.title)).toEqual(["late.txt"]));

  // What broke: both read once and never again. Refresh (⌘R) reads the worktree as it is now.
  await fs.writeFile(path.join(record.worktree, "later.txt"), "written after the list opened\n");
  const refresh = screen.action(screen.byTitle("List.Item", "late.txt"), "Refresh");
  expect(refresh.props.shortcut).toMatchObject({ macOS: { modifiers: ["cmd"], key: "r" } });
  await screen.press(refresh);
  await screen.waitFor(() =>
    expect(screen.findAll("List.Item").map((item) => item.props.title)).toEqual(["late.txt", "later.txt"]),
  );
  runtime.navigation!.pop();
  await screen.settle();
  await fs.writeFile(path.join(record.worktree, "last.txt"), "written after the diff opened\n");
  await screen.press(screen.action(screen.byTitle("List.Item", "late"), "Show Diff"));
  await screen.waitFor(() => expect(String(screen.find("Detail").props.markdown)).toContain("last.txt"));
  await fs.writeFile(path.join(record.worktree, "final.txt"), "written after that\n");
  await screen.press(screen.action(screen.find("Detail"), "Refresh"));
  await screen.waitFor(() => expect(String(screen.find("Detail").props.markdown)).toContain("final.txt"));
  screen.unmount();
});
