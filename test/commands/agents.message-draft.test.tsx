import fs from "node:fs/promises";
import Agents from "../../src/commands/agents.js";
import { readAgent } from "../../src/core/records/records.js";
import { addToDraft, draftFile, keepDraft, readDraft, writeDraft } from "../../src/core/records/draft.js";
import { eventually, runOffrun } from "../helpers/offrun.js";
import { type Screen, render } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

async function startAgent(name: string): Promise<void> {
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  const started = await runOffrun(["start", "--wait", "--name", name, `task of ${name}`], { env, cwd: sandbox.repo });
  expect(started).toSucceed();
}

async function openSendMessage(screen: Screen): Promise<void> {
  await screen.waitFor(() => screen.byTitle("List.Item", "upload"));
  await screen.press(screen.action(screen.byTitle("List.Item", "upload"), "Send Message"));
  await screen.waitFor(() => screen.findField("text"));
}

test("text typed into Send Message is kept in the draft when the box closes without sending", async () => {
  await startAgent("upload");
  const screen = render(<Agents />);
  await openSendMessage(screen);
  screen.setField("text", "also cover the retry path");
  await screen.settle();
  // Esc: the form is popped, and the list is on top again.
  runtime.navigation!.pop();
  await eventually(async () => (await readDraft(sandbox.repo, "upload")) ?? undefined);
  expect(await readDraft(sandbox.repo, "upload")).toBe("also cover the retry path\n");

  // Opened again, the box holds it.
  await openSendMessage(screen);
  await screen.waitFor(() => expect(screen.findField("text").props.value).toBe("also cover the retry path"));
  screen.unmount();
});

test("edits to the review's draft are saved back while typing, and opening the box alone writes nothing", async () => {
  await startAgent("upload");
  await addToDraft(sandbox.repo, "upload", "fix the empty case");
  const before = await fs.stat(draftFile(sandbox.repo, "upload"));
  const screen = render(<Agents />);
  await openSendMessage(screen);
  await screen.waitFor(() => expect(screen.findField("text").props.value).toBe("fix the empty case"));
  await screen.settle(600);
  expect((await fs.stat(draftFile(sandbox.repo, "upload"))).mtimeMs).toBe(before.mtimeMs);

  screen.setField("text", "fix the empty case, and the retry");
  // No close: Raycast may unload the command without unmounting, so the pause in typing saves it.
  await eventually(async () => ((await readDraft(sandbox.repo, "upload"))?.includes("retry") ? true : undefined));
  expect(await readDraft(sandbox.repo, "upload")).toBe("fix the empty case, and the retry\n");

  // Clearing the box and closing it clears the draft: it holds what the box held.
  screen.setField("text", "");
  runtime.navigation!.pop();
  await eventually(async () => ((await readDraft(sandbox.repo, "upload")) === undefined ? true : undefined));
  screen.unmount();
});

test("sending after an edit leaves no draft behind", async () => {
  await startAgent("upload");
  const screen = render(<Agents />);
  await openSendMessage(screen);
  screen.setField("text", "also cover the retry path");
  await screen.settle();
  await screen.press(screen.find("Action.SubmitForm"));
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Sent to upload"), 30_000);
  await screen.settle(600);
  await expect(fs.stat(draftFile(sandbox.repo, "upload"))).rejects.toThrow();
  screen.unmount();
});

test("two quick presses of Send send one message, and the box shows it is busy meanwhile", async () => {
  await startAgent("upload");
  const screen = render(<Agents />);
  await openSendMessage(screen);
  screen.setField("text", "also cover the retry path");
  await screen.settle();
  const send = screen.find("Action.SubmitForm");
  // Two ⌘↵ before the first answer: the second must not send the message again.
  const first = screen.press(send);
  const second = screen.press(send);
  await screen.waitFor(() => expect(screen.find("Form").props.isLoading).toBe(true));
  await Promise.all([first, second]);
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Sent to upload"), 30_000);
  await eventually(async () => ((await readAgent(sandbox.repo, "upload")).status === "idle" ? true : undefined));
  await screen.settle(1_000);
  expect((await readAgent(sandbox.repo, "upload")).turns).toBe(2);
  expect(runtime.toasts.filter((t) => t.title === "Sent to upload")).toHaveLength(1);
  screen.unmount();
});

test("with the companion down, the box's text is not written by the command: it says so and offers Start Companion", async () => {
  await startAgent("upload");
  expect(await runOffrun(["companion", "stop"], { env: sandbox.box.env })).toSucceed();
  const screen = render(<Agents />);
  await openSendMessage(screen);
  screen.setField("text", "also cover the retry path");
  const refused = await screen.waitFor(() => {
    const toast = runtime.toasts.at(-1)!;
    expect(toast.title).toBe("Could Not Keep the Draft");
    return toast;
  });
  expect(refused.primaryAction?.title).toBe("Start Companion");
  expect(await readDraft(sandbox.repo, "upload")).toBeUndefined();
  screen.unmount();
});

test("a draft keeper writes the last edit once, in order, and drops it when the message is sent", async () => {
  const keeper = keepDraft((text) => writeDraft(sandbox.repo, "upload", text), { delayMs: 50 });
  keeper.edit("a");
  keeper.edit("ab");
  await keeper.flush();
  expect(await readDraft(sandbox.repo, "upload")).toBe("ab\n");
  keeper.edit("abc");
  await keeper.sent();
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await readDraft(sandbox.repo, "upload")).toBeUndefined();
});
