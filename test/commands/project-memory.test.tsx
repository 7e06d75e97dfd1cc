import fs from "node:fs/promises";
import path from "node:path";
import ProjectMemory from "../../src/commands/project-memory.js";
import { readChat } from "../../src/core/records/records.js";
import { memoryFiles } from "../../src/core/memory/files.js";
import { runOffrun } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

/** Runs one turn of agent `upload` whose CLI adds a line to the agent's plan.md, as an agent keeps its memory. */
async function turnThatWritesThePlan(): Promise<string> {
  const plan = memoryFiles(sandbox.repo, "upload").plan;
  const stub = await writeStubCli(path.join(sandbox.box.dir, "stub-memory", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
    after: [`printf '%s\\n' '- retry the upload with backoff' >> '${plan}'`],
  });
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: stub };
  const started = await runOffrun(["start", "--wait", "--name", "upload", "fix the upload"], {
    env,
    cwd: sandbox.repo,
  });
  expect(started).toSucceed();
  return plan;
}

test("the memory files render, with the turn's memory change and its diff", async () => {
  await fs.mkdir(path.join(sandbox.repo, ".offrun", "memory"), { recursive: true });
  await fs.writeFile(memoryFiles(sandbox.repo, "_").conventions, "# Conventions\n\nUse pnpm.\n");
  await turnThatWritesThePlan();
  const screen = render(<ProjectMemory />);
  const conventions = await screen.waitFor(() => screen.byTitle("List.Item", "conventions.md"));
  expect(screen.find("List.Item.Detail", undefined, conventions.slots.detail).props.markdown).toContain("Use pnpm.");
  const plan = await screen.waitFor(() => screen.byTitle("List.Item", "upload/plan.md"));
  expect(screen.find("List.Item.Detail", undefined, plan.slots.detail).props.markdown).toContain(
    "- retry the upload with backoff",
  );
  const changes = screen.byTitle("List.Section", "Recent Changes").children;
  // Named as in Memory Files, with no subtitle beside the detail pane: the detail says which agent's turn.
  expect(changes.map((c) => [c.props.title, c.props.subtitle])).toContainEqual(["upload/plan.md", undefined]);
  const change = changes.find((c) => c.props.title === "upload/plan.md")!;
  expect(String(screen.find("List.Item.Detail", undefined, change.slots.detail).props.markdown)).toContain(
    "+- retry the upload with backoff",
  );
  screen.unmount();
});

test("Revert This Change asks first, then the companion puts the file back as the turn found it", async () => {
  const plan = await turnThatWritesThePlan();
  const before = (await fs.readFile(plan, "utf8")).replace("- retry the upload with backoff\n", "");
  const events = (await readChat(sandbox.repo, "upload")).entries.filter((e) => e.type === "memory_change");
  expect(events).toHaveLength(1);

  const screen = render(<ProjectMemory />);
  const change = await screen.waitFor(() =>
    screen.byTitle("List.Item", "upload/plan.md", screen.byTitle("List.Section", "Recent Changes").children),
  );
  await screen.press(screen.action(change, "Revert This Change"));
  expect(runtime.alerts[0]!.title).toBe("Revert this memory change?");
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Reverted"));
  expect(await fs.readFile(plan, "utf8")).toBe(before);
  const log = await fs.readFile(path.join(sandbox.box.offrunHome, "companion.log"), "utf8");
  expect(log).toContain(`for a face: memory.revert upload ${events[0]!.type === "memory_change" ? events[0]!.id : ""}`);
  screen.unmount();
});

test("a revert the user declines changes nothing", async () => {
  const plan = await turnThatWritesThePlan();
  const written = await fs.readFile(plan, "utf8");
  runtime.alertAnswer = false;
  const screen = render(<ProjectMemory />);
  const change = await screen.waitFor(() =>
    screen.byTitle("List.Item", "upload/plan.md", screen.byTitle("List.Section", "Recent Changes").children),
  );
  await screen.press(screen.action(change, "Revert This Change"));
  expect(runtime.toasts).toHaveLength(0);
  expect(await fs.readFile(plan, "utf8")).toBe(written);
  screen.unmount();
});

test("with the companion down, Revert This Change offers Start Companion and changes nothing", async () => {
  const plan = await turnThatWritesThePlan();
  const written = await fs.readFile(plan, "utf8");
  // The revert is the companion's to make, once no turn writes the file: the command does not write it.
  expect(await runOffrun(["companion", "stop"], { env: sandbox.box.env })).toSucceed();
  const screen = render(<ProjectMemory />);
  const change = await screen.waitFor(() =>
    screen.byTitle("List.Item", "upload/plan.md", screen.byTitle("List.Section", "Recent Changes").children),
  );
  await screen.press(screen.action(change, "Revert This Change"));
  const refused = await screen.waitFor(() => {
    const toast = runtime.toasts.at(-1)!;
    expect(toast.title).toBe("Could Not Revert");
    return toast;
  });
  expect(refused.primaryAction?.title).toBe("Start Companion");
  expect(await fs.readFile(plan, "utf8")).toBe(written);
  screen.unmount();
});
