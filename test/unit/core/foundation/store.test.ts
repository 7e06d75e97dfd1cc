import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { agentEventSchema } from "../../../../src/core/foundation/events.js";
import { loadProjectConfig } from "../../../../src/core/foundation/project.js";
import { appendJsonLine, readJsonl, splitJsonl, writeJsonAtomic } from "../../../../src/core/foundation/store.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-store-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

test("a missing project config means the defaults", async () => {
  const config = await loadProjectConfig(dir);
  expect(config.branchPrefix).toBe("offrun/");
  expect(config.copyFiles).toEqual([]);
});

test("an invalid project config names the file, every bad field and the fix", async () => {
  await writeJsonAtomic(path.join(dir, ".offrun", "config.json"), {
    branchPrefix: "a b",
    setup: [["npm", 3]],
    idleTimeoutMinutes: -1,
  });
  const error = await loadProjectConfig(dir).catch((e: Error) => e);
  expect(error).toBeInstanceOf(Error);
  const message = (error as Error).message;
  expect(message).toContain(path.join(dir, ".offrun", "config.json"));
  expect(message).toContain("branchPrefix");
  expect(message).toContain("setup.0.1");
  expect(message).toContain("idleTimeoutMinutes");
  expect(message).toContain("move the file aside to use the defaults");
});

test("a project config that is not JSON says so", async () => {
  await fs.mkdir(path.join(dir, ".offrun"));
  await fs.writeFile(path.join(dir, ".offrun", "config.json"), "{ branchPrefix: ");
  await expect(loadProjectConfig(dir)).rejects.toThrow(/not valid JSON/);
});

test("corrupt chat lines are reported with their line numbers and the good lines are kept", async () => {
  const file = path.join(dir, "chat.jsonl");
  await appendJsonLine(file, { type: "text", text: "one", at: "2026-01-01T00:00:00Z", turn: 1 });
  await fs.appendFile(file, "{half a line\n");
  await appendJsonLine(file, { type: "mystery", at: "x", turn: 1 });
  await appendJsonLine(file, { type: "text", text: "two\u2028still two", at: "2026-01-01T00:00:01Z", turn: 1 });
  const result = await readJsonl(file, agentEventSchema);
  expect(result.entries.map((e) => (e.type === "text" ? e.text : e.type))).toEqual(["one", "two\u2028still two"]);
  expect(result.corrupt.map((c) => c.line)).toEqual([2, 3]);
  expect(await fs.readFile(file, "utf8")).toContain("{half a line");
});

test("JSONL is split on newline only, so U+2028 inside a string is not a line end", () => {
  expect(splitJsonl('{"a":"x\u2028y"}\n{"b":1}\n')).toEqual(['{"a":"x\u2028y"}', '{"b":1}']);
});

test("atomic JSON writes leave no temp file behind and can set a mode", async () => {
  const file = path.join(dir, "nested", "state.json");
  await writeJsonAtomic(file, { ok: true }, { mode: 0o600 });
  expect(JSON.parse(await fs.readFile(file, "utf8"))).toEqual({ ok: true });
  expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
  expect(await fs.readdir(path.dirname(file))).toEqual(["state.json"]);
});
