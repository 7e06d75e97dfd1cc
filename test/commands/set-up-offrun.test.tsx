import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import SetUpOffrun from "../../src/commands/set-up-offrun.js";
import { companionNotRunning } from "../../src/commands/lib/companion.js";
import { showFailure } from "../../src/commands/lib/failure.js";
import { launcherPaths } from "../../src/core/setup/launcher.js";
import { eventually } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import { titleCaseBreaches, usSpellingBreaches } from "../helpers/title-case.js";
import { viewBreaches } from "../helpers/store-rules.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

// Set Up Offrun over a real sandbox: it installs the CLI this extension carries (assets/offrun-cli,
// from `npm run build:cli`), shows each step, and when Node is missing offers the install command
// and a help page. The face sandbox sets OFFRUN_NO_LOGIN_SERVICE: no real login service is made.

let sandbox: FaceSandbox;
let links: string;
const saved = { link: process.env.OFFRUN_LINK_DIR, node: process.env.OFFRUN_NODE };
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
  links = path.join(sandbox.box.dir, "links");
  await fs.mkdir(links);
  process.env.OFFRUN_LINK_DIR = links;
  delete process.env.OFFRUN_NODE;
});
afterEach(async () => {
  for (const [key, value] of [
    ["OFFRUN_LINK_DIR", saved.link],
    ["OFFRUN_NODE", saved.node],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await sandbox.cleanup();
});

/**
 * The user's own Node, where Volta keeps it (one of the launcher's usual places): the login shell's
 * PATH here has only this machine's Node, which may be older than Offrun needs.
 */
async function userNode(home: string): Promise<void> {
  const bin = path.join(home, ".volta", "bin");
  await fs.mkdir(bin, { recursive: true });
  await fs.symlink(process.execPath, path.join(bin, "node"));
}

test("Set Up Offrun installs the bundled CLI and shows each step", async () => {
  await userNode(sandbox.box.home);
  const screen = render(<SetUpOffrun />);
  await screen.waitFor(() => expect(screen.findAll("List.Item")).toHaveLength(5), 30_000);
  const titles = screen
    .findAll("List.Item")
    .map((item) => [item.props.title, (item.props.icon as { source: string }).source]);
  expect(titles).toEqual([
    ["Copy the Offrun CLI", "CheckCircle"],
    ["Write the Launcher", "CheckCircle"],
    ["Find Node.js", "CheckCircle"],
    ["Put Offrun on PATH", "CheckCircle"],
    ["Start Companion at Login", "Warning"],
  ]);
  // The steps' titles come from the core (src/core/setup/set-up.ts), which the check of the
  // commands' literal titles (layout.test.tsx) does not read: they were sentence case.
  expect(
    titles.flatMap(([title]) => [...titleCaseBreaches(String(title)), ...usSpellingBreaches(String(title))]),
  ).toEqual([]);
  const { launcher } = launcherPaths(sandbox.box.env);
  expect(await fs.readlink(path.join(links, "offrun"))).toBe(launcher);
  const version = await execa(path.join(links, "offrun"), ["--version"], { env: sandbox.box.env, extendEnv: false });
  expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  const detail = screen.find("List.Item.Detail", undefined, screen.byTitle("List.Item", "Find Node.js").slots.detail);
  expect(String(detail.props.markdown)).toContain("found a supported Node");
  expect(viewBreaches(screen.top)).toEqual([]);
  screen.unmount();
});

test("without a usable Node it offers Copy Install Command and a help page", async () => {
  process.env.OFFRUN_NODE = path.join(sandbox.box.dir, "no-such-node");
  const screen = render(<SetUpOffrun />);
  const node = await screen.waitFor(() => {
    const item = screen.byTitle("List.Item", "Find Node.js");
    expect((item.props.icon as { source: string }).source).toBe("XMarkCircle");
    return item;
  }, 30_000);
  expect(screen.action(node, "Copy Install Command").props.content).toBe("brew install node");
  // The steps after it were not tried, and say so.
  const skipped = screen.byTitle("List.Item", "Put Offrun on PATH");
  expect((skipped.props.icon as { source: string }).source).toBe("Circle");
  expect(screen.action(skipped, "Copy Install Command").props.content).toBe("brew install node");

  await screen.press(screen.action(node, "Show Help"));
  const help = await screen.waitFor(() => screen.find("Detail"));
  const markdown = String(help.props.markdown);
  expect(markdown).toContain("Node.js 22.12 or newer");
  expect(markdown).toContain("brew install node");
  expect(markdown).toContain("https://nodejs.org/en/download");
  expect(markdown).toContain("## What is missing");
  expect(screen.action(help, "Copy Install Command").props.content).toBe("brew install node");
  expect(viewBreaches(screen.top)).toEqual([]);
  expect(runtime.clipboard).toEqual([]);
  screen.unmount();
});

test("Start Companion with no offrun installed offers Set Up Offrun on its toast", async () => {
  // Regression: the toast said to run `npm link` in a checkout, which a Store user does not have.
  runtime.preferences = {};
  const toast = await showFailure(companionNotRunning(), "Could Not Load");
  expect(toast.primaryAction?.title).toBe("Start Companion");
  toast.primaryAction!.onAction!(toast);
  await eventually(
    async () => {
      if (toast.title !== "Could not start the companion") throw new Error(`toast: ${toast.title}`);
      return true;
    },
    30_000,
    "Start Companion to fail",
  );
  expect(toast.message).toContain("Run Set Up Offrun");
  expect(toast.message).not.toContain("npm link");
  expect(toast.primaryAction?.title).toBe("Set Up Offrun");
  toast.primaryAction!.onAction!(toast);
  expect(runtime.calls).toContainEqual({
    kind: "launchCommand",
    args: [expect.objectContaining({ name: "set-up-offrun" })],
  });
});
