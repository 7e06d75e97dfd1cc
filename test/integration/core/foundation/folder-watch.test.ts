import fs from "node:fs/promises";
import path from "node:path";
import { watchFile, watchFolder } from "../../../../src/core/foundation/folder-watch.js";
import { writeJsonAtomic } from "../../../../src/core/foundation/store.js";
import { holds, makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

// Real watches on a temp folder, written the ways Offrun writes: atomic replacement, appends, removal.

let box: Sandbox;
const closing: { close(): void }[] = [];

beforeEach(async () => {
  box = await makeSandbox("offrun-folder-watch-");
});

afterEach(async () => {
  for (const watcher of closing.splice(0)) watcher.close();
  await box.cleanup();
});

test("a folder's watch names each entry made, replaced, appended to and removed", async () => {
  const dir = path.join(box.home, "records");
  await fs.mkdir(dir);
  const names: (string | undefined)[] = [];
  closing.push(watchFolder(dir, (name) => names.push(name), { log: (line) => names.push(`log: ${line}`) })!);
  const seen = (name: string) => holds(() => expect(names).toContain(name));
  await writeJsonAtomic(path.join(dir, "a.json"), { turns: 1 });
  await seen("a.json");
  names.length = 0;
  await fs.appendFile(path.join(dir, "b.jsonl"), "{}\n");
  await seen("b.jsonl");
  names.length = 0;
  await fs.rm(path.join(dir, "a.json"));
  await seen("a.json");
  expect(names.filter((name) => name?.startsWith("log:"))).toEqual([]);
});

test("a folder that is not there gives no watch, and says nothing", () => {
  const lines: string[] = [];
  expect(watchFolder(path.join(box.home, "missing"), () => undefined, { log: (line) => lines.push(line) })).toBe(
    undefined,
  );
  expect(lines).toEqual([]);
});

test("a file's watch sees it made, replaced by an atomic write and removed, and nothing else in its folder", async () => {
  const file = path.join(box.home, "projects.json");
  let changes = 0;
  closing.push(watchFile(file, () => changes++, { log: () => undefined })!);
  // Another file of the same folder, written often (the companion's state.json): no news.
  await writeJsonAtomic(path.join(box.home, "state.json"), { agents: [] });
  await fs.appendFile(path.join(box.home, "companion.log"), "a line\n");
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(changes).toBe(0);
  await writeJsonAtomic(file, { projects: ["/a"] });
  await holds(() => expect(changes).toBeGreaterThan(0));
  // Replaced again: a watch of the file itself would have lost it at the first rename.
  const before = changes;
  await writeJsonAtomic(file, { projects: ["/a", "/b"] });
  await holds(() => expect(changes).toBeGreaterThan(before));
  const beforeRemoval = changes;
  await fs.rm(file);
  await holds(() => expect(changes).toBeGreaterThan(beforeRemoval));
});
