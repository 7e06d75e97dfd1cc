import fs from "node:fs/promises";
import path from "node:path";
import { copyTail } from "../../../src/commands/presenters/host-agents.js";
import { makeSandbox, type Sandbox } from "../../helpers/offrun.js";

// A host agent's detail reads the end of its local copy, never the whole file: a copy may hold
// hundreds of MB (up to its budget), and Raycast read it whole for every detail shown.

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox("offrun-copy-tail-");
});
afterEach(async () => {
  await box.cleanup();
});

const line = (n: number) => JSON.stringify({ type: "text", text: `entry ${n} ${"x".repeat(1000)}`, turn: 1 });

test("a large copy gives its last whole lines and where they end, not the whole file", async () => {
  const file = path.join(box.dir, "copy.jsonl");
  const lines = Array.from({ length: 12_000 }, (_, i) => line(i)); // about 12 MB
  await fs.writeFile(file, lines.join("\n") + "\n" + '{"type":"text","te'); // a line still being written
  const { size } = await fs.stat(file);
  const tail = await copyTail(file);
  // The last entries, each whole, up to the last newline; the half line after it is left for later.
  expect(tail.lines.at(-1)).toBe(lines.at(-1));
  expect(tail.lines.every((l) => lines.includes(l))).toBe(true);
  expect(tail.lines.length).toBeLessThan(lines.length / 2);
  expect(tail.end).toBe(size - '{"type":"text","te'.length);
});

test("a small copy is read from its start; a missing one is empty", async () => {
  const file = path.join(box.dir, "small.jsonl");
  await fs.writeFile(file, `${line(1)}\n${line(2)}\n`);
  expect(await copyTail(file)).toEqual({ lines: [line(1), line(2)], end: (await fs.stat(file)).size });
  expect(await copyTail(path.join(box.dir, "none.jsonl"))).toEqual({ lines: [], end: 0 });
});
