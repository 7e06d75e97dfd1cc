import fs from "node:fs/promises";
import path from "node:path";
import ReviewChanges from "../../src/commands/review-changes.js";
import { readChat } from "../../src/core/records/records.js";
import { readDraft } from "../../src/core/records/draft.js";
import { claudeWorld, type World } from "../helpers/e2e.js";
import { OFFRUN_BIN } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";

// Review Changes with a real review: the companion runs the real Claude Code as the reviewer,
// read-only, against the fake model server; the command shows the findings and drafts the fixes.

let world: World;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  world = await claudeWorld("offrun-face-review-", { "README.md": "# demo\n", "src/app.ts": "export {};\n" });
  await fs.mkdir(path.join(world.repo, ".offrun"), { recursive: true });
  await fs.writeFile(
    path.join(world.repo, ".offrun", "config.json"),
    JSON.stringify({ review: { harness: "claude" } }),
  );
  const worktree = path.join(world.repo, ".worktrees", "author");
  world.server.script({
    kind: "write_file",
    path: path.join(worktree, "src", "feature.ts"),
    content: "export function add(a: number, b: number) {\n  return a - b;\n}\n",
  });
  expect(await world.offrun(["start", "--wait", "--name", "author", "add an add() helper"])).toSucceed();
  // The command reads process.env, as in Raycast: the world's environment, companion included.
  for (const [key, value] of Object.entries(world.env)) {
    saved[key] = process.env[key];
    process.env[key] = value;
  }
});

afterAll(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await world.close();
});

beforeEach(() => {
  runtime.reset();
  runtime.preferences = { offrunPath: OFFRUN_BIN };
});

test("Review and Request Fixes shows the findings and drafts the fixes without sending them", async () => {
  world.server.script({
    kind: "tool",
    name: "StructuredOutput",
    input: {
      verdict: "changes_requested",
      summary: "add() subtracts.",
      findings: [
        {
          file: "src/feature.ts",
          line: 2,
          severity: "major",
          message: "add returns a - b",
          suggestion: "return a + b;",
        },
      ],
    },
  });
  const turnsBefore = (await readChat(world.repo, "author")).entries.filter((e) => e.type === "user_message").length;
  const screen = render(<ReviewChanges />);
  const item = await screen.waitFor(() => screen.byTitle("List.Item", "author"));
  await screen.press(screen.action(item, "Review and Request Fixes"));
  const detail = await screen.waitFor(() => screen.find("Detail"), 60_000);
  expect(detail.props.navigationTitle).toBe("Review of author");
  const markdown = String(detail.props.markdown);
  expect(markdown).toContain("**Review** by claude · default: changes requested");
  expect(markdown).toContain("`src/feature.ts:2`");
  expect(markdown).toContain("add returns a - b");
  const toast = runtime.toasts.find((t) => t.title.startsWith("Review"))!;
  expect(toast.history.at(-1)).toBe(
    "SUCCESS: Review: changes requested — 1 finding(s); fixes drafted in the message box",
  );
  expect(await readDraft(world.repo, "author")).toContain("add returns a - b");
  // The draft waits in the message box: no new message went to the author.
  const events = (await readChat(world.repo, "author")).entries;
  expect(events.filter((e) => e.type === "user_message")).toHaveLength(turnsBefore);
  expect(events.findLast((e) => e.type === "review")).toMatchObject({
    outcome: "completed",
    verdict: "changes_requested",
  });
  // Request Fixes again from the findings: the companion adds them to the draft, after what is there.
  await screen.press(screen.action(detail, "Request Fixes"));
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Fixes Drafted"));
  expect((await readDraft(world.repo, "author"))?.split("add returns a - b")).toHaveLength(3);
  screen.unmount();
});

test("two quick presses of Review run one review, and the list shows it is busy meanwhile", async () => {
  world.server.script({
    kind: "tool",
    name: "StructuredOutput",
    input: { verdict: "approve", summary: "Fine.", findings: [] },
  });
  const reviews = async () => (await readChat(world.repo, "author")).entries.filter((e) => e.type === "review").length;
  const before = await reviews();
  const screen = render(<ReviewChanges />);
  const item = await screen.waitFor(() => screen.byTitle("List.Item", "author"));
  await screen.waitFor(() => expect(screen.find("List").props.isLoading).toBe(false));
  // A second Enter before the first review answered started a second review, its toast left spinning.
  await screen.press(screen.action(item, "Review"));
  await screen.press(screen.action(item, "Review"));
  await screen.waitFor(() => expect(screen.find("List").props.isLoading).toBe(true));
  await screen.waitFor(() => screen.find("Detail"), 60_000);
  expect(runtime.toasts.map((t) => t.title)).not.toContain("Review Failed");
  expect(runtime.toasts.filter((t) => t.history.some((h) => h.includes("Reviewing author")))).toHaveLength(1);
  expect(await reviews()).toBe(before + 1);
  screen.unmount();
});
