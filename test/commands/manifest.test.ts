import fs from "node:fs";
import path from "node:path";
import { createElement, type ReactNode } from "react";
import * as z from "zod";
import AgentLogins from "../../src/commands/agent-accounts.js";
import Agents from "../../src/commands/agents.js";
import ProjectMemory from "../../src/commands/project-memory.js";
import ReviewChanges from "../../src/commands/review-changes.js";
import StartAgent from "../../src/commands/start-agent.js";
import { appendChat, readAgent, writeAgent } from "../../src/core/records/records.js";
import { addLogin } from "../../src/core/logins/store.js";
import { memoryFiles } from "../../src/core/memory/files.js";
import { BUILTIN_HARNESSES } from "../../src/harnesses/registry.js";
import { PROJECT_ROOT, runOffrun } from "../helpers/offrun.js";
import { collect, render, type Screen } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import { macKey, sourceBreaches, sourceTreeBreaches, viewBreaches } from "../helpers/store-rules.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

// Raycast's store rules for the manifest, which `ray build` does not check.
const manifest = z
  .object({
    name: z.string(),
    title: z.string(),
    description: z.string(),
    icon: z.string(),
    categories: z.array(z.string()).min(1),
    commands: z.array(
      z.object({
        name: z.string(),
        title: z.string(),
        description: z.string(),
        icon: z.string(),
        mode: z.enum(["view", "no-view", "menu-bar"]),
        interval: z.string().optional(),
      }),
    ),
    preferences: z.array(
      z.object({
        name: z.string(),
        title: z.string(),
        description: z.string(),
        type: z.string(),
        required: z.boolean(),
        placeholder: z.string().optional(),
        default: z.unknown().optional(),
      }),
    ),
    platforms: z.array(z.string()).optional(),
    keywords: z.array(z.string()).optional(),
    scripts: z.record(z.string(), z.string()),
  })
  .parse(JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")));

const CATEGORIES = [
  "Applications",
  "Communication",
  "Data",
  "Design Tools",
  "Developer Tools",
  "Documentation",
  "Finance",
  "Fun",
  "Media",
  "News",
  "Productivity",
  "Security",
  "System",
  "Web",
  "Other",
];
const SMALL = new Set(["a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to", "with"]);

function isTitleCase(title: string): boolean {
  return title.split(" ").every((word, i) => (i > 0 && SMALL.has(word)) || /^[A-Z0-9]/.test(word));
}

function pngSize(file: string): { width: number; height: number } {
  const data = fs.readFileSync(file);
  expect(data.subarray(1, 4).toString("ascii")).toBe("PNG");
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

function expectIcon(name: string) {
  const file = path.join(PROJECT_ROOT, "assets", name);
  expect(pngSize(file)).toEqual({ width: 512, height: 512 });
  const dark = file.replace(/\.png$/, "@dark.png");
  expect(pngSize(dark)).toEqual({ width: 512, height: 512 });
}

test("categories are Raycast's, in title case", () => {
  for (const category of manifest.categories) expect(CATEGORIES).toContain(category);
});

test("the extension and every command have a 512 px PNG icon with a dark variant", () => {
  expectIcon(manifest.icon);
  for (const command of manifest.commands) expectIcon(command.icon);
});

test("each command has its own icon, drawn apart from the extension's, in a light and a dark variant", () => {
  const read = (name: string) => fs.readFileSync(path.join(PROJECT_ROOT, "assets", name)).toString("base64");
  const icons = manifest.commands.map((c) => c.icon);
  expect(new Set(icons).size).toBe(manifest.commands.length);
  const drawings = new Set([manifest.icon, ...icons].map(read));
  expect(drawings.size).toBe(manifest.commands.length + 1);
  for (const icon of icons) {
    expect(fs.existsSync(path.join(PROJECT_ROOT, "assets", icon.replace(/\.png$/, "@dark.png")))).toBe(true);
    expect(read(icon.replace(/\.png$/, "@dark.png"))).not.toBe(read(icon));
  }
});

test("every command has a title-case title, a description and an entry file at src/<name>.tsx", () => {
  expect(manifest.commands.map((c) => c.name).sort()).toEqual(
    [
      "agent-accounts",
      "agent-quota",
      "agents",
      "dictate-task",
      "project-memory",
      "review-changes",
      "set-up-offrun",
      "start-agent",
    ].sort(),
  );
  for (const command of manifest.commands) {
    expect(isTitleCase(command.title)).toBe(true);
    expect(command.description.length).toBeGreaterThan(20);
    expect(command.description.endsWith(".")).toBe(true);
    expect(fs.existsSync(path.join(PROJECT_ROOT, "src", `${command.name}.tsx`))).toBe(true);
  }
  const menuBar = manifest.commands.find((c) => c.mode === "menu-bar");
  expect(menuBar?.interval).toBe("1m");
});

test("preferences cover the binary paths and the speech tool, each titled and described", () => {
  const names = manifest.preferences.map((p) => p.name);
  expect(names).toEqual(
    expect.arrayContaining(["offrunPath", "claudePath", "codexPath", "recorderPath", "speechToolPath", "speechModel"]),
  );
  for (const preference of manifest.preferences) {
    expect(isTitleCase(preference.title)).toBe(true);
    expect(preference.description.endsWith(".")).toBe(true);
  }
});

test("the title-case check itself rejects lowercase words", () => {
  expect(isTitleCase("Agent quota")).toBe(false);
  expect(isTitleCase("Hand Off to Another CLI")).toBe(true);
});

// --- the Store's fields and the scripts ------------------------------------------------------

const read = (...parts: string[]) => fs.readFileSync(path.join(PROJECT_ROOT, ...parts), "utf8");

test("the extension is for macOS only and is found in the Store by the CLIs' names", () => {
  // Raycast: restrict `platforms` when the extension uses platform APIs (ours: apps, launchd, sox).
  expect(manifest.platforms).toEqual(["macOS"]);
  const keywords = manifest.keywords ?? [];
  expect(keywords.length).toBeGreaterThanOrEqual(3);
  expect(new Set(keywords).size).toBe(keywords.length);
  for (const keyword of keywords) expect(keyword).toMatch(/^[a-z0-9][a-z0-9 .-]*[a-z0-9]$/);
  expect(keywords).toEqual(expect.arrayContaining(["claude code", "codex"]));
});

test("Raycast's scripts are there, and every script CI, the README and the docs run exists", () => {
  const scripts = manifest.scripts;
  expect(scripts.dev).toBe("ray develop");
  expect(scripts.build).toMatch(/^ray build -e dist\b/);
  expect(scripts.publish).toBe("npx @raycast/api@latest publish");
  // `ray lint` cannot run here: lint is ESLint and Prettier, fix-lint their fixing forms.
  expect(scripts.lint).toBe("eslint . && prettier --check .");
  expect(scripts["fix-lint"]).toBe("eslint . --fix && prettier --write .");
  expect(scripts.test).toMatch(/jest/);
  for (const name of ["test", "bench", "build:cli", "typecheck", "pack:cli"]) expect(scripts[name]).toBeDefined();
  const texts = [read(".ci", "run"), read("README.md"), ...docsFiles().map((f) => read("docs", f))];
  const called = texts.flatMap((text) =>
    // A colon after the name is the sentence's ("npm run screens: every command's screens").
    [...text.matchAll(/\bnpm (?:run ([\w-]+(?::[\w-]+)*)|(test)\b)/g)].map((m) => m[1] ?? m[2]!),
  );
  expect(called.length).toBeGreaterThan(5);
  for (const name of called) expect(Object.keys(scripts)).toContain(name);
});

test("every text preference has a placeholder", () => {
  const text = manifest.preferences.filter((p) => p.type === "textfield" || p.type === "password");
  expect(text.length).toBeGreaterThanOrEqual(6);
  for (const preference of text)
    expect({ [preference.name]: preference.placeholder?.trim() || "" }).not.toEqual({
      [preference.name]: "",
    });
});

test("raycast-env.d.ts is committed and declares package.json's preferences as ray build generates them", () => {
  expect(read(".gitignore").split("\n")).not.toContain("raycast-env.d.ts");
  const generated = read("raycast-env.d.ts");
  const block = /type ExtensionPreferences = \{([\s\S]*?)\n\}/.exec(generated)?.[1] ?? "";
  const declared = [...block.matchAll(/^\s*"(\w+)"(\??):/gm)].map((m) => ({ name: m[1], optional: m[2] === "?" }));
  // ray build's rule (@raycast/api dist/utils/generate-typeScript-definitions.js): optional unless required or
  // defaulted, and an app picker always (its default app may not be installed).
  expect(declared).toEqual(
    manifest.preferences.map((p) => ({
      name: p.name,
      optional: (!p.required && p.default === undefined) || p.type === "appPicker",
    })),
  );
  // The commands use that type, not a copy of their own that could drift from package.json.
  const own = sourceFilesUnder("src").filter((file) => /\b(interface|type) Preferences\b/.test(read(file)));
  expect(own).toEqual([]);
});

/** What Raycast's "Version History" asks of CHANGELOG.md; empty when it is met. */
function changelogBreaches(text: string): string[] {
  const breaches: string[] = [];
  if (!/^# .+ Changelog\n/.test(text)) breaches.push("the first line is not '# <Name> Changelog'");
  const entries = text.split(/^(?=## )/m).slice(1);
  if (entries.length === 0) breaches.push("no entry");
  const dates: string[] = [];
  entries.forEach((entry, index) => {
    const [heading = "", ...body] = entry.split("\n");
    const match = /^## \[[^\]\n]+\] - (\{PR_MERGE_DATE\}|\d{4}-\d{2}-\d{2})$/.exec(heading);
    if (!match) breaches.push(`'${heading}' is not '## [Title] - {PR_MERGE_DATE}' or '## [Title] - YYYY-MM-DD'`);
    else if (match[1] === "{PR_MERGE_DATE}" && index > 0) breaches.push(`'${heading}': only the newest is unmerged`);
    else if (match[1] !== "{PR_MERGE_DATE}") dates.push(match[1]!);
    if (body.join("").trim() === "") breaches.push(`'${heading}' says nothing`);
  });
  if ([...dates].sort().reverse().join() !== dates.join()) breaches.push("entries are not newest first");
  return breaches;
}

test("CHANGELOG.md is in Raycast's format", () => {
  expect(changelogBreaches(read("CHANGELOG.md"))).toEqual([]);
});

test("the changelog check itself rejects what Raycast's format does not allow", () => {
  expect(changelogBreaches("# Offrun Changelog\n\n## [New] - {PR_MERGE_DATE}\n\n- a\n")).toEqual([]);
  expect(changelogBreaches("# Offrun\n\n## 1.0 - 2024-01-01\n\n- a\n")).toHaveLength(2);
  expect(changelogBreaches("# X Changelog\n\n## [A] - 2024-01-01\n\n- a\n\n## [B] - 2024-03-01\n\n- b\n")).toEqual([
    "entries are not newest first",
  ]);
  expect(changelogBreaches("# X Changelog\n\n## [A] - 2024-01-01\n\n## [B] - {PR_MERGE_DATE}\n- b\n")).toEqual([
    "'## [A] - 2024-01-01' says nothing",
    "'## [B] - {PR_MERGE_DATE}': only the newest is unmerged",
  ]);
});

// --- the README, which the Store shows as "About This Extension" --------------------------------

function docsFiles(): string[] {
  return fs.readdirSync(path.join(PROJECT_ROOT, "docs")).filter((f) => f.endsWith(".md"));
}

function sourceFilesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFilesUnder(relative);
    return /\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

/** The `## ` sections of a markdown text, by heading. */
function sections(text: string): Map<string, string> {
  return new Map(
    text
      .split(/^(?=## )/m)
      .slice(1)
      .map((part) => [part.slice(3, part.indexOf("\n")).trim(), part]),
  );
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

test("the README opens with the install and `offrun`, then the contributor commands, then links to docs/", () => {
  const readme = read("README.md");
  const parts = [...sections(readme).keys()];
  expect(parts.slice(0, 3)).toEqual(["Install", "Contributing", "Documentation"]);
  // It opens with the two commands that matter on a fresh machine: install and run, then the tests.
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  expect(readme.indexOf(firstBlock)).toBeLessThan(readme.indexOf("\n## "));
  const lines = firstBlock.trim().split("\n");
  expect(lines).toHaveLength(2);
  // `./` makes it a path: `npm install -g pack/x.tgz` is read as the GitHub repository pack/x.tgz.
  expect(lines[0]).toMatch(/^npm ci && npm run pack:cli && npm install -g \.\/pack\/offrun-\*\.tgz && offrun\s/);
  expect(lines[1]).toMatch(/^npm test\s+# build, install the pinned agent CLIs/);
  // CI and the project's rules run the README's test command: the contributor block keeps both lines as they were.
  const contributing = sections(readme).get("Contributing") ?? "";
  expect(contributing).toMatch(/^npm ci && npm link && offrun {5}# install, put `offrun` on PATH/m);
  expect(contributing).toMatch(/^npm test {25}# build, install the pinned agent CLIs/m);
  const linked = [...(sections(readme).get("Documentation") ?? "").matchAll(/\]\((docs\/[\w-]+\.md)\)/g)].map(
    (m) => m[1],
  );
  expect(linked.sort()).toEqual(docsFiles().map((f) => `docs/${f}`));
});

test("the README says what each agent CLI needs, how to set up dictation, and what each command does", () => {
  const readme = read("README.md").replace(/\\\|/g, "|");
  const requirements = sections(readme).get("Requirements") ?? "";
  for (const harness of BUILTIN_HARNESSES) {
    expect(requirements).toContain(harness.displayName);
    const needles = harness.installHint.match(/npm install -g \S+|curl .*\| bash|https?:\/\/[^\s)]+/g) ?? [];
    expect(needles.length).toBeGreaterThan(0);
    for (const needle of needles) expect(requirements).toContain(needle);
  }
  for (const tool of ["brew install sox", "brew install whisper-cpp", "ggml", "**Speech Model**"])
    expect(requirements).toContain(tool);
  const extension = sections(readme).get("The Raycast extension (macOS)") ?? "";
  for (const command of manifest.commands) expect(extension).toContain(`**${command.title}**`);
  const unwrapped = readme.replace(/\s*\n\s*/g, " ");
  for (const preference of manifest.preferences) expect(unwrapped).toContain(`**${preference.title}**`);
});

test("every relative link of the README, the changelog and docs/ reaches a file, and its anchor a heading", () => {
  const files = ["README.md", "CHANGELOG.md", ...docsFiles().map((f) => `docs/${f}`)];
  let links = 0;
  for (const file of files) {
    for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      links++;
      const [where = "", anchor] = target!.split("#");
      const resolved = where ? path.join(path.dirname(file), where) : file;
      expect({ link: `${file} -> ${target}`, exists: fs.existsSync(path.join(PROJECT_ROOT, resolved)) }).toEqual({
        link: `${file} -> ${target}`,
        exists: true,
      });
      if (!anchor) continue;
      const headings = [...read(resolved).matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!));
      expect(headings).toContain(anchor);
    }
  }
  expect(links).toBeGreaterThan(5);
});

// --- what the commands show: Raycast's rules for actions, search bars and fields ----------------

test("no command's source breaks the action rules, in any branch", () => {
  expect(sourceTreeBreaches(path.join(PROJECT_ROOT, "src", "commands"))).toEqual([]);
});

test("the rule checks themselves catch each breach, rendered and in source", async () => {
  const { Action, ActionPanel, Form, List, Keyboard } = await import("@raycast/api");
  const bad = createElement(
    List,
    {},
    createElement(List.Item, {
      title: "row",
      actions: createElement(
        ActionPanel,
        {},
        createElement(Action, { title: "Open", shortcut: { modifiers: ["cmd"], key: "return" } }),
        createElement(Action, { title: "Edit", shortcut: Keyboard.Shortcut.Common.Edit }),
        createElement(Action, { title: "Rename", shortcut: { modifiers: ["cmd"], key: "e" } }),
        createElement(Action, {
          title: "Delete",
          style: Action.Style.Destructive,
          shortcut: { modifiers: ["ctrl"], key: "x" },
        }),
        createElement(Action, { title: "Trash", style: Action.Style.Destructive }),
        createElement(ActionPanel.Submenu, { title: "Move To" }, createElement(Action, { title: "Inbox" })),
      ),
    }),
  );
  const badForm = createElement(
    Form,
    {
      actions: createElement(
        ActionPanel,
        {},
        createElement(Action, { title: "Dictate" }),
        createElement(Action.SubmitForm, { title: "Send", shortcut: { modifiers: ["cmd"], key: "return" } }),
      ),
    },
    createElement(Form.TextArea, { id: "text", title: "Message" }),
  );
  const breaches = [bad, badForm].flatMap((element) => {
    const screen = render(element);
    const found = viewBreaches(screen.top);
    screen.unmount();
    return found;
  });
  expect(breaches).toEqual([
    "List has no searchBarPlaceholder",
    'destructive action "Trash" does not use Keyboard.Shortcut.Common.Remove',
    'submenu "Move To" does not end with "…"',
    '"Edit" and "Open" share cmd+return in the panel at List > row',
    '"Rename" and "Edit" share cmd+e in the panel at List > row',
    "Form.TextArea Message has no placeholder",
    'the first action of the form at Form is "Dictate", not its Submit',
    '"Send" and "Dictate" share cmd+return in the panel at Form',
  ]);
  // Ctrl+X by hand is what Common.Remove is: only the stand-in's real values tell them apart from ⌘X.
  expect(macKey(Keyboard.Shortcut.Common.Remove)).toBe("ctrl+x");
  const source = [
    "<List><List.Item actions={<ActionPanel>",
    '<ActionPanel.Submenu title="Switch Login" />',
    '<Action title="Discard" style={Action.Style.Destructive} shortcut={{ modifiers: ["ctrl"], key: "x" }} />',
    "</ActionPanel>} /></List>",
    '<Form><Form.TextField id="name" title="Name" /></Form>',
  ].join("\n");
  expect(sourceBreaches("bad.tsx", source)).toEqual([
    "bad.tsx:1: <List> has no searchBarPlaceholder",
    'bad.tsx:2: submenu Switch Login does not end with "…"',
    "bad.tsx:3: destructive Discard does not use Keyboard.Shortcut.Common.Remove",
    "bad.tsx:5: <Form.TextField> Name has no placeholder",
  ]);
});

describe("every view of the commands, with agents in each state", () => {
  let sandbox: FaceSandbox;

  beforeAll(async () => {
    sandbox = await makeFaceSandbox();
    // One real agent whose turn writes its plan (a memory change to revert), then copies of its record
    // that wait for an approval, ask a question and work: each state brings actions of its own.
    const plan = memoryFiles(sandbox.repo, "upload").plan;
    const stub = await writeStubCli(path.join(sandbox.box.dir, "stub-memory", "claude"), {
      replay: fixture("claude", "2.1.332", "text-reply"),
      after: [`printf '%s\\n' '- retry with backoff' >> '${plan}'`],
    });
    const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: stub };
    expect(
      await runOffrun(["start", "--wait", "--name", "upload", "fix the upload"], { env, cwd: sandbox.repo }),
    ).toSucceed();
    const real = await readAgent(sandbox.repo, "upload");
    const at = new Date().toISOString();
    for (const [name, status] of [
      ["waits", "needs-you"],
      ["asks", "needs-you"],
      ["busy", "working"],
    ] as const)
      await writeAgent({ ...real, name, status, updatedAt: at });
    await appendChat(sandbox.repo, "waits", {
      type: "approval_request",
      at,
      turn: real.turns,
      id: "req-1",
      tool: "Bash",
      input: { command: "npm install" },
      text: "npm install",
      alwaysKey: "Bash(npm install *)",
    });
    await appendChat(sandbox.repo, "asks", { type: "question", at, turn: real.turns, id: "q-1", text: "npm or pnpm?" });
    await addLogin({ harness: "claude", label: "work" });
  });
  afterAll(async () => {
    await sandbox.cleanup();
  });

  /** The breaches of the view on top and of each view its Action.Push actions open (one of each title). */
  async function breachesFrom(screen: Screen, seen: Set<string>): Promise<string[]> {
    const found = viewBreaches(screen.top);
    for (const push of collect(screen.top, (n) => n.type === "Action.Push")) {
      const title = String(push.props.title);
      if (seen.has(title)) continue;
      seen.add(title);
      runtime.navigation!.push(push.props.target as ReactNode);
      await screen.settle(300);
      found.push(...viewBreaches(screen.top).map((breach) => `${title}: ${breach}`));
      runtime.navigation!.pop();
      await screen.settle(50);
    }
    return found;
  }

  async function loaded(screen: Screen, items: number): Promise<void> {
    await screen.waitFor(() => {
      const found = screen.findAll("List.Item").length;
      if (found < items) throw new Error(`only ${found} of ${items} items`);
    });
  }

  test("Agents: each row's actions and what they open follow the rules", async () => {
    const screen = render(createElement(Agents, {}));
    await loaded(screen, 4);
    const seen = new Set<string>();
    const breaches: string[] = [];
    const shown: string[] = [];
    for (const title of ["waits", "asks", "busy", "upload"]) {
      await screen.select(screen.byTitle("List.Item", title));
      await screen.waitFor(() => {
        const detail = screen.find("List.Item.Detail", undefined, screen.byTitle("List.Item", title).slots.detail);
        expect(detail.props.isLoading).toBe(false);
        expect(String(detail.props.markdown)).not.toBe("");
      });
      shown.push(...screen.actionsOf(screen.byTitle("List.Item", title)).map((a) => String(a.props.title)));
      breaches.push(...(await breachesFrom(screen, seen)));
    }
    // Each state's own actions were on screen, so the rules were checked on them too.
    expect(shown).toEqual(
      expect.arrayContaining(["Approve", "Always Allow Bash(npm install *)", "Answer", "Stop", "Discard"]),
    );
    expect([...seen]).toEqual(expect.arrayContaining(["Send Message", "Answer", "Show Diff", "Show Changed Files"]));
    expect(breaches).toEqual([]);
    screen.unmount();
  });

  test("Start Agent, Agent Logins, Project Memory and Review Changes follow the rules", async () => {
    const breaches: string[] = [];
    const views: [ReturnType<typeof createElement>, number][] = [
      [createElement(StartAgent, { launchType: "userInitiated", arguments: {} } as never), 0],
      [createElement(AgentLogins), 2],
      [createElement(ProjectMemory), 2],
      [createElement(ReviewChanges), 4],
    ];
    for (const [element, items] of views) {
      const screen = render(element);
      if (items > 0) await loaded(screen, items);
      else await screen.waitFor(() => expect(screen.find("Form").props.isLoading).toBe(false));
      await screen.settle(200);
      breaches.push(...(await breachesFrom(screen, new Set())));
      screen.unmount();
    }
    expect(breaches).toEqual([]);
  });
});
