import fs from "node:fs/promises";
import path from "node:path";
import ReviewChanges from "../../src/commands/review-changes.js";
import { readChat } from "../../src/core/records/records.js";
import { readDraft } from "../../src/core/records/draft.js";
import { readSnapshot } from "../../src/core/companion/snapshot.js";
import { claudeWorld, type World } from "../helpers/e2e.js";
import { recordingNotifySend, withNotifySend, type RecordingNotifySend } from "../helpers/notify-send.js";
import { eventually, OFFRUN_BIN } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";

// Review Changes with a real review: the companion runs the real Claude Code as the reviewer,
// read-only, against the fake model server. The command starts the review and returns; the
// finished review's notification opens the command again on its findings.

let world: World;
let notifySend: RecordingNotifySend;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  world = await claudeWorld("offrun-face-review-", { "README.md": "# demo\n", "src/app.ts": "export {};\n" });
  // The companion (started by the first offrun call) delivers its notifications through this notify-send.
  notifySend = await recordingNotifySend(path.join(world.box.dir, "notify"));
  world.env = withNotifySend(world.env, notifySend);
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
  expect(
    await world.offrun(["start", "--wait", "--name", "author", "add an add() helper"], { env: world.env }),
  ).toSucceed();
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

const reviews = async () => (await readChat(world.repo, "author")).entries.filter((e) => e.type === "review");

/** The fake model answers the reviewer only once `release` is called: the test acts before the review can end. */
function heldReview(input: Record<string, unknown>): () => void {
  let release!: () => void;
  const until = new Promise<void>((resolve) => (release = resolve));
  world.server.script({ kind: "held", until, step: { kind: "tool", name: "StructuredOutput", input } });
  return release;
}

// The review waited inside the view up to its time box and showed the findings there: closing Raycast
// lost them, and the notification opened the Agents list, not the findings.
test("Review and Request Fixes starts the review and returns; its notification opens the findings", async () => {
  const release = heldReview({
    verdict: "changes_requested",
    summary: "add() subtracts.",
    findings: [
      { file: "src/feature.ts", line: 2, severity: "major", message: "add returns a - b", suggestion: "return a + b;" },
    ],
  });
  const before = (await reviews()).length;
  const turnsBefore = (await readChat(world.repo, "author")).entries.filter((e) => e.type === "user_message").length;
  const screen = render(<ReviewChanges />);
  const item = await screen.waitFor(() => screen.byTitle("List.Item", "author"));
  await screen.press(screen.action(item, "Review and Request Fixes"));
  // Started, while the reviewer has not had its answer: the command did not wait for the review.
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Review Started"), 30_000);
  expect(runtime.toasts.at(-1)!.message).toContain("a notification opens the findings");
  expect(screen.findAll("Detail")).toHaveLength(0);
  expect(await reviews()).toHaveLength(before);
  await screen.waitFor(() => expect(screen.find("List").props.isLoading).toBe(false));
  // Raycast closes the view; the review runs on in the companion.
  screen.unmount();
  release();

  const notification = await eventually(
    async () => (await readSnapshot())?.notifications.find((n) => n.link?.includes("review-changes")),
    120_000,
    "the finished review's notification",
  );
  expect(notification).toMatchObject({ kind: "finished", agent: "author", outcome: "delivered" });
  expect(notification.title).toContain("reviewed: changes requested");
  expect(
    (await notifySend.calls()).some((call) => call.some((arg) => arg.includes("reviewed: changes requested"))),
  ).toBe(true);
  // The link: raycast://extensions/<author>/<name>/<command>?context=…, the command one of the manifest's.
  const link = new URL(notification.link!);
  expect(`${link.protocol}//${link.host}${link.pathname}`).toBe("raycast://extensions/offrun/offrun/review-changes");
  const context: unknown = JSON.parse(link.searchParams.get("context")!);
  const review = (await reviews()).at(-1)!;
  expect(context).toEqual({ project: world.repo, agent: "author", review: review.type === "review" && review.id });

  // Opening the link: the command launched with that context shows the findings, from the chat log.
  const opened = render(<ReviewChanges launchContext={context as Record<string, unknown>} />);
  const detail = await opened.waitFor(() => {
    const found = opened.find("Detail");
    expect(found.props.isLoading).toBeFalsy();
    return found;
  });
  expect(detail.props.navigationTitle).toBe("Review of author");
  const markdown = String(detail.props.markdown);
  expect(markdown).toContain("**Review** by claude · default: changes requested");
  expect(markdown).toContain("`src/feature.ts:2`");
  expect(markdown).toContain("add returns a - b");
  expect(await readDraft(world.repo, "author")).toContain("add returns a - b");
  // The draft waits in the message box: no new message went to the author.
  const events = (await readChat(world.repo, "author")).entries;
  expect(events.filter((e) => e.type === "user_message")).toHaveLength(turnsBefore);
  // Request Fixes again from the findings: the companion adds them to the draft, after what is there.
  await opened.press(opened.action(detail, "Request Fixes"));
  await opened.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Fixes Drafted"));
  expect((await readDraft(world.repo, "author"))?.split("add returns a - b")).toHaveLength(3);
  opened.unmount();
}, 240_000);

test("a link to a review the conversation does not hold says so", async () => {
  const opened = render(
    <ReviewChanges launchContext={{ project: world.repo, agent: "author", review: "r0nothing" }} />,
  );
  const detail = await opened.waitFor(() => {
    const found = opened.find("Detail");
    expect(found.props.isLoading).toBeFalsy();
    return found;
  });
  expect(String(detail.props.markdown)).toContain("No such review in author's conversation");
  expect(opened.findAll("Action")).toHaveLength(0);
  opened.unmount();
});

test("two quick presses of Review start one review, and the list shows it is busy meanwhile", async () => {
  const release = heldReview({ verdict: "approve", summary: "Fine.", findings: [] });
  const before = (await reviews()).length;
  const screen = render(<ReviewChanges />);
  const item = await screen.waitFor(() => screen.byTitle("List.Item", "author"));
  await screen.waitFor(() => expect(screen.find("List").props.isLoading).toBe(false));
  const pressedAt = screen.seen.length;
  // A second Enter before the first review answered started a second review, its toast left spinning.
  await screen.press(screen.action(item, "Review"));
  await screen.press(screen.action(item, "Review"));
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Review Started"), 30_000);
  // Busy while the start was out, however briefly (polling for it missed it one run in N under load).
  const busy = screen.seen.slice(pressedAt).some((top) => screen.find("List", undefined, top).props.isLoading === true);
  expect(busy).toBe(true);
  release();
  expect(runtime.toasts.map((t) => t.title)).not.toContain("Review Failed");
  expect(runtime.toasts.filter((t) => t.history.some((h) => h.includes("Starting a Review of author")))).toHaveLength(
    1,
  );
  await eventually(async () => ((await reviews()).length === before + 1 ? true : undefined), 120_000, "the review");
  screen.unmount();
}, 240_000);
