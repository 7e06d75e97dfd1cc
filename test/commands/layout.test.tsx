import fs from "node:fs";
import path from "node:path";
import { List } from "@raycast/api";
import AgentQuota from "../../src/commands/agent-quota.js";
import Agents from "../../src/commands/agents.js";
import { AgentActions } from "../../src/commands/agents/agent-actions.js";
import { appendChat, readAgent, writeAgent } from "../../src/core/records/records.js";
import { loadAgentsOverview } from "../../src/commands/presenters/agents-overview-load.js";
import { runOffrun } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { Keyboard } from "../helpers/raycast-api.js";
import { ROW_CHARS_BESIDE_DETAIL, rowChars } from "../helpers/row-width.js";
import { macKey } from "../helpers/store-rules.js";
import { canShowTogether, sourceShortcuts } from "../helpers/shortcuts.js";
import { titleCaseBreaches, usSpellingBreaches } from "../helpers/title-case.js";
import { writeStateSnapshot } from "../screens/scene.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";
import ts from "typescript";

// Screens that read well: what Raycast has room for beside a detail pane and in a menu,
// what waits on the user first, submenus that say they load, and titles in Apple title case.

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

/** What a menu item may show, title and subtitle together (the full text goes in its tooltip). */
const MENU_ITEM_CHARS = 40;

const LONG_COMMAND = "npm install --save-dev @types/node@20 typescript@5.9 && npm run build && npm test -- --runInBand";

/** Agent `upload` from a real run, and `waiting` asking to run LONG_COMMAND. */
async function agentsWithOneWaiting() {
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  expect(
    await runOffrun(["start", "--wait", "--name", "upload", "fix the flaky upload test in the retry loop"], {
      env,
      cwd: sandbox.repo,
    }),
  ).toSucceed();
  const real = await readAgent(sandbox.repo, "upload");
  await writeAgent({ ...real, name: "waiting", status: "needs-you", updatedAt: new Date().toISOString() });
  for (let i = 0; i < 3; i++)
    await appendChat(sandbox.repo, "waiting", {
      type: "text",
      at: new Date().toISOString(),
      turn: real.turns,
      text: `step ${i}`,
    });
  await appendChat(sandbox.repo, "waiting", {
    type: "approval_request",
    at: new Date().toISOString(),
    turn: real.turns,
    id: "req-1",
    tool: "Bash",
    input: { command: LONG_COMMAND },
    text: LONG_COMMAND,
  });
  return real;
}

test("beside the detail pane an agent's row has its name and one status tag; the rest is in the metadata", async () => {
  await agentsWithOneWaiting();
  const screen = render(<Agents />);
  const rows = await screen.waitFor(() => {
    const found = screen.findAll("List.Item");
    if (found.length < 2) throw new Error("not listed yet");
    return found;
  });
  expect(screen.find("List").props.isShowingDetail).toBe(true);
  for (const row of rows) {
    expect(row.props.subtitle).toBeUndefined();
    expect(row.props.accessories).toEqual([{ tag: expect.objectContaining({ value: expect.any(String) }) }]);
    expect(rowChars(row.props)).toBeLessThanOrEqual(ROW_CHARS_BESIDE_DETAIL);
  }
  const upload = screen.byTitle("List.Item", "upload");
  const labels = screen.findAll("Metadata.Label", undefined, upload.slots.detail).map((l) => l.props.title);
  expect(labels).toEqual(expect.arrayContaining(["Status", "Task", "Login", "Elapsed", "Branch"]));
  const task = screen.find("Metadata.Label", (l) => l.props.title === "Task", upload.slots.detail);
  expect(task.props.text).toBe("fix the flaky upload test in the retry loop");
  screen.unmount();
});

test("the agent's detail shows what waits on the user first, whole, then the conversation", async () => {
  await agentsWithOneWaiting();
  const screen = render(<Agents />);
  const markdown = await screen.waitFor(() => {
    const row = screen.byTitle("List.Item", "waiting");
    const text = String(screen.find("List.Item.Detail", undefined, row.slots.detail).props.markdown);
    if (!text.includes("step 2")) throw new Error("detail not loaded yet");
    return text;
  });
  expect(markdown.startsWith("## Waiting for You")).toBe(true);
  expect(markdown.indexOf(LONG_COMMAND)).toBeLessThan(markdown.indexOf("# waiting"));
  expect(markdown.indexOf("# waiting")).toBeLessThan(markdown.indexOf("step 0"));
  screen.unmount();
});

test("a Needs You approval in the menu bar is a submenu named by the agent, its whole request inside it", async () => {
  await agentsWithOneWaiting();
  await writeStateSnapshot();
  const screen = render(<AgentQuota />);
  const section = await screen.waitFor(() => screen.find("MenuBarExtra.Section", (s) => s.props.title === "Needs You"));
  const item = section.children[0]!;
  // In the menu itself only the agent's name (macOS widens a whole menu to its widest item) ...
  expect(item.type).toBe("MenuBarExtra.Submenu");
  expect(item.props.title).toBe("waiting");
  expect([...String(item.props.title)].length).toBeLessThanOrEqual(MENU_ITEM_CHARS);
  // ... and in its submenu, a menu of its own, the request whole: what Approve allows.
  const request = item.children[0]!;
  expect(String(request.props.title)).toContain(LONG_COMMAND);
  expect(String(request.props.tooltip)).toContain(LONG_COMMAND);
  expect(item.children.slice(1).map((c) => c.props.title)).toEqual(["Approve", "Deny", "Open in Agents"]);
  screen.unmount();
});

test("Switch Login… and Hand Off… say they load, and are not shown when there is nothing to switch to", async () => {
  await agentsWithOneWaiting();
  const overview = await loadAgentsOverview({ env: process.env });
  const row = overview.groups[0]!.agents.find((a) => a.record.name === "upload")!;
  const screen = render(
    <List searchBarPlaceholder="Filter agents">
      <List.Item title="upload" actions={<AgentActions row={row} detail={undefined} reload={() => undefined} />} />
    </List>,
  );
  const submenus = () => screen.findAll("ActionPanel.Submenu");
  // While the other logins and CLIs are read, both submenus are there and say so.
  expect(submenus().map((s) => [s.props.title, s.props.isLoading])).toEqual([
    ["Switch Login…", true],
    ["Hand Off to Another CLI…", true],
  ]);
  // Claude Code has only its default login here and no other CLI is installed: neither is left.
  await screen.waitFor(() => expect(submenus()).toHaveLength(0));
  screen.unmount();
});

// Selecting a row read Start Agent's whole options for its submenus: the project's branches (git) and
// settings, about a second a selection here (bench/agents-selection.bench.tsx).
test("selecting a row reads the logins and CLIs for its submenus without running git", async () => {
  await agentsWithOneWaiting();
  const overview = await loadAgentsOverview({ env: process.env });
  const row = overview.groups[0]!.agents.find((a) => a.record.name === "upload")!;
  // A git first on PATH that writes down each call, then runs the real one.
  const realGit = (process.env.PATH ?? "")
    .split(path.delimiter)
    .map((dir) => path.join(dir, "git"))
    .find((file) => fs.existsSync(file))!;
  const spy = path.join(sandbox.box.dir, "git-spy");
  const calls = path.join(sandbox.box.dir, "git.calls");
  fs.mkdirSync(spy);
  fs.writeFileSync(path.join(spy, "git"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${calls}'\nexec '${realGit}' "$@"\n`, {
    mode: 0o755,
  });
  const savedPath = process.env.PATH;
  process.env.PATH = `${spy}${path.delimiter}${savedPath ?? ""}`;
  try {
    const screen = render(
      <List searchBarPlaceholder="Filter agents">
        <List.Item title="upload" actions={<AgentActions row={row} detail={undefined} reload={() => undefined} />} />
      </List>,
    );
    await screen.waitFor(() => expect(screen.findAll("ActionPanel.Submenu")).toHaveLength(0));
    screen.unmount();
  } finally {
    process.env.PATH = savedPath;
  }
  expect(fs.existsSync(calls) ? fs.readFileSync(calls, "utf8") : "").toBe("");
});

test("Agents shows no empty view while it loads", () => {
  const screen = render(<Agents />);
  expect(screen.find("List").props.isLoading).toBe(true);
  expect(screen.findAll("List.EmptyView")).toHaveLength(0);
  screen.unmount();
});

/** Keys Raycast keeps for itself (`@raycast/eslint-plugin` no-reserved-shortcut's list, as macKey writes them). */
const RESERVED = ["cmd+w", "cmd+k", "cmd+,", "cmd+p", "cmd+shift+/", "cmd+q", "cmd+escape", "cmd+return", "cmd+a"];

// Show Diff had ⌘D, Raycast's Common.Duplicate, and Dictate ⌘⇧D, Common.RemoveAll on Windows (⌃⇧D): the old
// check read only Stop's constant.
test("every shortcut of every action in src/commands equals no other's in its panel, nor a common or reserved one it is not", () => {
  const found = sourceShortcuts(path.resolve("src/commands"));
  expect(found.length).toBeGreaterThan(10);
  expect(found.find((s) => s.written === "STOP_SHORTCUT")).toMatchObject({ macOS: "cmd+opt+.", windows: "alt+ctrl+." });
  const common = Object.entries(Keyboard.Shortcut.Common).flatMap(([name, both]) => [
    { name, key: macKey(both.macOS)! },
    { name, key: macKey(both.windows)! },
  ]);
  const breaches: string[] = [];
  for (const s of found) {
    if (RESERVED.includes(s.macOS)) breaches.push(`${s.at} ${s.title}: ${s.macOS} is reserved by Raycast`);
    if (s.common) continue; // Raycast's own, used for what it names
    // Raycast reads ⌘ as Ctrl and ⌥ as Alt on Windows: the same keys must be free there too.
    for (const key of [s.macOS, s.windows]) {
      for (const c of common.filter((c) => c.key === key))
        breaches.push(`${s.at} ${s.title}: ${key} is Keyboard.Shortcut.Common.${c.name}`);
    }
  }
  found.forEach((a, i) => {
    for (const b of found.slice(i + 1)) {
      if (!canShowTogether(a, b)) continue;
      if (a.macOS === b.macOS || a.windows === b.windows)
        breaches.push(`${a.at} ${a.title} and ${b.at} ${b.title} share ${a.macOS === b.macOS ? a.macOS : a.windows}`);
    }
  });
  expect([...new Set(breaches)]).toEqual([]);
});

/**
 * Every literal title of the commands: JSX `title`/`submitTitle`, `title:` of the toasts, alerts and
 * their actions, and showFailure's. A list item's or a menu item's title is data; an alert that asks a question
 * ("Discard upload?") is a sentence, as macOS writes them.
 */
function literalTitles(dir: string): { at: string; title: string }[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).flatMap((entry) => {
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name)) return [];
    const file = path.join(entry.parentPath, entry.name);
    const text = fs.readFileSync(file, "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
    const found: { at: string; title: string }[] = [];
    const add = (node: ts.Node, title: string) => {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push({ at: `${path.relative(dir, file)}:${line}`, title });
    };
    const literalOf = (init: ts.Node | undefined) =>
      init && ts.isStringLiteral(init)
        ? init.text
        : init && ts.isJsxExpression(init) && init.expression && ts.isStringLiteralLike(init.expression)
          ? init.expression.text
          : undefined;
    const visit = (node: ts.Node) => {
      if (ts.isJsxAttribute(node) && ["title", "submitTitle"].includes(node.name.getText())) {
        const literal = literalOf(node.initializer);
        const tag = (node.parent.parent as ts.JsxOpeningLikeElement).tagName.getText();
        if (literal !== undefined && !/^(List\.Item|MenuBarExtra\.Item)$/.test(tag)) add(node, literal);
      }
      // showFailure(error, "Could Not Start the Agent"): the failure toast's title.
      if (ts.isCallExpression(node) && node.expression.getText() === "showFailure") {
        const literal = literalOf(node.arguments[1]);
        if (literal !== undefined) add(node, literal);
      }
      if (ts.isPropertyAssignment(node) && node.name.getText() === "title") {
        const literal = literalOf(node.initializer);
        if (literal !== undefined && !literal.endsWith("?")) add(node, literal);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  });
}

test("every title the commands write is US English in Apple title case", () => {
  const titles = literalTitles(path.resolve("src/commands"));
  expect(titles.length).toBeGreaterThan(50);
  const breaches = titles.flatMap(({ at, title }) =>
    [...titleCaseBreaches(title), ...usSpellingBreaches(title)].map((b) => `${at}: ${b}`),
  );
  expect(breaches).toEqual([]);
});

test("the title-case checker knows Apple's rules", () => {
  expect(titleCaseBreaches("Sign In with Terminal")).toEqual([]);
  expect(titleCaseBreaches("Hand Off to Another CLI…")).toEqual([]);
  expect(titleCaseBreaches("Review and Request Fixes")).toEqual([]);
  expect(titleCaseBreaches("Sign in with Terminal")).toEqual(['"Sign in with Terminal": "in" should be capitalized']);
  expect(titleCaseBreaches("Open In Editor")).toEqual(['"Open In Editor": "In" should be lowercase']);
  expect(titleCaseBreaches("Copy branch")).toHaveLength(1);
  expect(titleCaseBreaches("Copy Ssh Command")).toEqual(['"Copy Ssh Command": "Ssh" should be written "SSH"']);
  expect(usSpellingBreaches("Pick a Colour")).toHaveLength(1);
  expect(usSpellingBreaches("Turn Cancelled")).toHaveLength(1);
  expect(usSpellingBreaches("Canceled")).toEqual([]);
});
