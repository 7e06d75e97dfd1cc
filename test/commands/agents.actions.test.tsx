import fs from "node:fs/promises";
import path from "node:path";
import Agents from "../../src/commands/agents.js";
import { addLogin } from "../../src/core/logins/store.js";
import { readAgent, readChat, writeAgent } from "../../src/core/records/records.js";
import { addToDraft, draftFile, readDraft } from "../../src/core/records/draft.js";
import { agentDeeplink } from "../../src/core/notify/deeplink.js";
import { findHarness } from "../../src/harnesses/registry.js";
import { claudeProjectFolder } from "../../src/harnesses/claude/session-files.js";
import { eventually, runOffrun } from "../helpers/offrun.js";
import { render, type Screen, type UiNode } from "../helpers/raycast-api-render.js";
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

/** How many times the stub CLI was run (one line of argv per run). */
async function stubRuns(): Promise<number> {
  const text = await fs.readFile(`${sandbox.claudeStub}.argv`, "utf8").catch(() => "");
  return text.split("\n").filter(Boolean).length;
}

function item(screen: Screen, title: string): UiNode {
  return screen.byTitle("List.Item", title);
}

test("a notification's deeplink opens the Agents list on that agent", async () => {
  await startAgent("upload");
  await startAgent("billing");
  const url = new URL(agentDeeplink({ project: sandbox.repo, agent: "billing" }));
  expect(`${url.protocol}//${url.host}${url.pathname}`).toBe("raycast://extensions/offrun/offrun/agents");
  const launchContext = JSON.parse(url.searchParams.get("context")!) as Record<string, unknown>;

  const screen = render(<Agents launchContext={launchContext} />);
  await screen.waitFor(() => item(screen, "billing"));
  const list = screen.find("List");
  expect(list.props.selectedItemId).toBe(item(screen, "billing").props.id);
  expect(list.props.isShowingDetail).toBe(true);
  screen.unmount();
});

test("an external session's deeplink, or a stale one, just opens the list", async () => {
  await startAgent("upload");
  for (const context of [
    { project: sandbox.repo, agent: "session 1a2b3c4d" },
    { project: "/nowhere", agent: "upload" },
    { agent: "upload" },
  ]) {
    const screen = render(<Agents launchContext={context} />);
    await screen.waitFor(() => item(screen, "upload"));
    expect(screen.find("List").props.selectedItemId).toBeUndefined();
    screen.unmount();
  }
});

test("Send Message opens with the review's draft, sends only on submit, then clears the draft", async () => {
  await startAgent("upload");
  await addToDraft(sandbox.repo, "upload", "Please fix these review findings:\n- src/a.ts:3 handle the empty case");
  expect(await stubRuns()).toBe(1);

  const screen = render(<Agents />);
  await screen.waitFor(() => item(screen, "upload"));
  await screen.press(screen.action(item(screen, "upload"), "Send Message"));
  await screen.waitFor(() =>
    expect(screen.findField("text").props.value).toBe(
      "Please fix these review findings:\n- src/a.ts:3 handle the empty case",
    ),
  );
  // Opening the box sent nothing: the CLI ran once (the start), and the draft is still there.
  await screen.settle(200);
  expect(await stubRuns()).toBe(1);
  expect(await readDraft(sandbox.repo, "upload")).toBeDefined();

  screen.setField("text", "Please fix these review findings:\n- src/a.ts:3 handle the empty case, and add a test");
  await screen.settle();
  await screen.press(screen.find("Action.SubmitForm"));
  await eventually(async () => ((await stubRuns()) === 2 ? true : undefined), 30_000, "the second turn");
  const chat = await eventually(async () => {
    const entries = (await readChat(sandbox.repo, "upload")).entries;
    return entries.some((e) => e.type === "user_message" && e.text.endsWith("and add a test")) ? entries : undefined;
  });
  expect(chat.filter((e) => e.type === "user_message")).toHaveLength(2);
  await expect(fs.stat(draftFile(sandbox.repo, "upload"))).rejects.toThrow();
  expect(runtime.toasts.at(-1)!.title).toBe("Sent to upload");
  screen.unmount();
});

test("a failed send keeps the draft", async () => {
  await startAgent("upload");
  await addToDraft(sandbox.repo, "upload", "fix the empty case");
  const record = await readAgent(sandbox.repo, "upload");
  // A discarded agent cannot take a message: the companion refuses it.
  await writeAgent({ ...record, status: "done" });
  const screen = render(<Agents />);
  await screen.waitFor(() => item(screen, "upload"));
  await screen.press(screen.action(item(screen, "upload"), "Send Message"));
  await screen.waitFor(() => expect(screen.findField("text").props.value).toBe("fix the empty case"));
  await screen.press(screen.find("Action.SubmitForm"));
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.style).toBe("FAILURE"));
  expect(runtime.toasts.at(-1)!.message).toMatch(/discarded/);
  expect(await readDraft(sandbox.repo, "upload")).toBe("fix the empty case\n");
  screen.unmount();
});

test("Switch Login moves the agent and copies its Claude session into the other login's home", async () => {
  await startAgent("upload");
  const work = await addLogin({ harness: "claude", label: "work" });
  const record = await readAgent(sandbox.repo, "upload");
  expect(record.sessionId).toBeDefined();
  // The stub replays a stream but writes no session: put one where Claude Code keeps it.
  const folder = claudeProjectFolder(record.worktree);
  const defaultHome = (await findHarness("claude")).defaultHome(sandbox.box.env);
  const session = path.join(defaultHome, "projects", folder, `${record.sessionId}.jsonl`);
  await fs.mkdir(path.dirname(session), { recursive: true });
  await fs.writeFile(session, '{"type":"user","message":"task of upload"}\n');

  const screen = render(<Agents />);
  await screen.waitFor(() => item(screen, "upload"));
  // The selected row reads the other logins itself: the submenu is there, loading, then filled.
  const action = await screen.waitFor(() => {
    const found = screen
      .actionsOf(item(screen, "upload"))
      .find((a) => String(a.props.title).startsWith("Claude · Work"));
    if (!found) throw new Error("no Work login in the submenu yet");
    return found;
  });
  await screen.press(action);
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("upload is on login work"));

  const moved = await readAgent(sandbox.repo, "upload");
  expect(moved).toMatchObject({ account: "work", sessionId: record.sessionId, harness: "claude" });
  expect(await fs.readFile(path.join(work.home, "projects", folder, `${record.sessionId}.jsonl`), "utf8")).toContain(
    "task of upload",
  );
  const switched = (await readChat(sandbox.repo, "upload")).entries.find((e) => e.type === "account_switch");
  expect(switched).toMatchObject({ from: "default", to: "work" });
  // Nothing was sent by switching: the next message resumes there.
  expect(await stubRuns()).toBe(1);
  screen.unmount();
});
