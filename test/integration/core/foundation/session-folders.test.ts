import fs from "node:fs/promises";
import path from "node:path";
import { SessionFolders, type FolderEvent } from "../../../../src/core/foundation/session-folders.js";
import { eventually, makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

// Real watches on a temp folder: folders made while the watch runs, each written into at once,
// the way Gemini makes tmp/<project>/chats/, Claude projects/<project>/ and Codex sessions/<y>/<m>/<d>/.

let box: Sandbox;
let folders: SessionFolders | undefined;

beforeEach(async () => {
  box = await makeSandbox("offrun-folders-");
});

afterEach(async () => {
  await folders?.close();
  folders = undefined;
  await box.cleanup();
});

/** Every event, by file. */
function record() {
  const events = new Map<string, { event: FolderEvent; initial: boolean }[]>();
  return {
    events,
    onFile: (file: string, event: FolderEvent, initial: boolean) =>
      events.set(file, [...(events.get(file) ?? []), { event, initial }]),
  };
}

test("a file written at once into folders made while watching is announced as new, then followed", async () => {
  const root = path.join(box.home, "tmp");
  await fs.mkdir(path.join(root, "old"), { recursive: true });
  await fs.writeFile(path.join(root, "old", "session.jsonl"), "old\n");
  const seen = record();
  folders = new SessionFolders({ log: () => undefined });
  await folders.subscribe(root, seen);
  expect(seen.events.get(path.join(root, "old", "session.jsonl"))).toEqual([{ event: "add", initial: true }]);

  // Regression: chokidar 5 listed a new folder before watching it, so a folder made in between
  // (chats/ right after its project folder) was never watched, nor the session in it.
  const files: string[] = [];
  for (let i = 0; i < 40; i++) {
    const project = path.join(root, `project-${i}`);
    await fs.mkdir(project);
    await fs.writeFile(path.join(project, ".project_root"), "/repo");
    const file = path.join(project, "chats", "deep", "session.jsonl");
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.appendFile(file, "first\n");
    files.push(file);
  }
  const missing = () => files.filter((f) => !seen.events.get(f)?.length);
  await eventually(async () => (missing().length === 0 ? true : undefined), 5_000, "every new session").catch(() => {
    throw new Error(`never announced: ${missing().join(", ")}`);
  });
  for (const file of files) expect(seen.events.get(file)?.every((e) => !e.initial && e.event !== "unlink")).toBe(true);

  // Each of those folders is watched, not just listed: what is appended next comes too.
  for (const file of files) seen.events.delete(file);
  for (const file of files) await fs.appendFile(file, "second\n");
  await eventually(async () => (missing().length === 0 ? true : undefined), 5_000, "every append").catch(() => {
    throw new Error(`appends never told: ${missing().join(", ")}`);
  });
}, 30_000);

test("a removed folder's files go, and the root coming back makes its files new", async () => {
  const root = path.join(box.home, "sessions");
  await fs.mkdir(path.join(root, "a"), { recursive: true });
  const file = path.join(root, "a", "s.jsonl");
  await fs.writeFile(file, "x\n");
  const seen = record();
  let gone = 0;
  folders = new SessionFolders({ log: () => undefined, missingRootPollMs: 100 });
  await folders.subscribe(root, { onFile: seen.onFile, onRootGone: () => gone++ });
  await fs.rm(root, { recursive: true });
  await eventually(async () => (gone === 1 ? true : undefined), 5_000, "the root gone");
  expect(seen.events.get(file)?.at(-1)?.event).toBe("unlink");

  seen.events.clear();
  await fs.mkdir(path.join(root, "b"), { recursive: true });
  await fs.writeFile(path.join(root, "b", "s.jsonl"), "y\n");
  await eventually(async () => (seen.events.has(path.join(root, "b", "s.jsonl")) ? true : undefined), 5_000, "b");
  expect(seen.events.get(path.join(root, "b", "s.jsonl"))?.every((e) => !e.initial)).toBe(true);
}, 30_000);
