import fs from "node:fs/promises";
import path from "node:path";
import { appendChat, readChat, writeAgent } from "../../src/core/records/records.js";
import type { AgentEvent, EventDraft } from "../../src/core/foundation/events.js";
import { memoryFiles } from "../../src/core/memory/files.js";
import { revertOnto, unifiedDiff } from "../../src/core/memory/diff.js";
import { applyMemoryEdit, readForEdit } from "../../src/core/memory/edit.js";
import { memoryHistory, revertMemoryChange } from "../../src/core/memory/history.js";
import { scanMemory, sha256 } from "../../src/core/memory/snapshots.js";
import { openMemoryTurn } from "../../src/core/memory/turn.js";
import type { AgentRecord } from "../../src/core/foundation/model.js";
import { ensureProjectDirs } from "../../src/core/foundation/project.js";
import { makeRepo, makeSandbox, type Sandbox } from "../helpers/offrun.js";
import { agentRecord } from "../helpers/records.js";

let box: Sandbox;
let root: string;
let repoCount = 0;

beforeAll(async () => {
  box = await makeSandbox("offrun-memory-");
  process.env.GIT_CONFIG_GLOBAL = box.env.GIT_CONFIG_GLOBAL;
  process.env.GIT_CONFIG_NOSYSTEM = "1";
});
afterAll(() => box.cleanup());
beforeEach(async () => {
  repoCount += 1;
  root = await fs.realpath(await makeRepo(path.join(box.dir, `repo${repoCount}`), box.env));
  await ensureProjectDirs(root);
});

function agent(name: string, changes: Partial<AgentRecord> = {}): AgentRecord {
  return agentRecord(root, name, { task: "t", base: "", port: 4000, status: "working", ...changes });
}

/** Runs one memory turn around `during` (what the agent does) and returns the events it logs, stamped as the supervisor would. */
async function turn(record: AgentRecord, during: () => Promise<void>, resume = false): Promise<AgentEvent[]> {
  await writeAgent(record);
  const memory = await openMemoryTurn(record, record.turns, resume);
  await during();
  const logged: EventDraft[] = [];
  await memory.finish(async (event) => {
    logged.push(event);
  });
  const stamped = logged.map((e) => ({ ...e, at: new Date().toISOString(), turn: record.turns }) as AgentEvent);
  for (const event of stamped) await appendChat(root, record.name, event);
  await writeAgent({ ...record, status: "idle" });
  return stamped;
}

const changesOf = (events: AgentEvent[]) => events.filter((e) => e.type === "memory_change");

test("a unified diff of a created file starts from /dev/null and adds every line", async () => {
  const diff = await unifiedDiff(undefined, "one\ntwo\n", ".offrun/memory/a/notes.md");
  expect(diff).toBe("--- /dev/null\n+++ b/.offrun/memory/a/notes.md\n@@ -0,0 +1,2 @@\n+one\n+two\n");
  expect(await unifiedDiff("same\n", "same\n", "x")).toBe("");
});

test("reverting a change keeps later edits on other lines and refuses edits to the same lines", async () => {
  const before = "# Dead ends\n\nkeep\n\nmiddle\n\nend\n";
  const after = "# Dead ends\n\nkeep\n\nmiddle\n- tried X: fails\n\nend\n";
  const laterElsewhere = after.replace("end\n", "end, edited later\n");
  expect(await revertOnto(laterElsewhere, after, before)).toEqual({
    ok: true,
    text: before.replace("end\n", "end, edited later\n"),
  });
  const laterSameLine = after.replace("- tried X: fails", "- tried X: fails on CI only");
  expect(await revertOnto(laterSameLine, after, before)).toMatchObject({ ok: false });
});

test("the first turn creates the memory files with headings and briefs the agent with their absolute paths", async () => {
  const record = agent("alpha");
  const memory = await openMemoryTurn(record, 1, false);
  const files = memoryFiles(root, "alpha");
  expect(await fs.readFile(files.deadEnds, "utf8")).toMatch(/^# Dead ends\n/);
  expect(await fs.readFile(files.conventions, "utf8")).toMatch(/^# Conventions\n/);
  expect(memory.addDirs).toEqual([files.agentDir]);
  expect(memory.briefing).toContain(`- ${files.plan}\n- ${files.deadEnds}`);
  expect(memory.briefing).toContain("# Plan");
  // The snapshots stay out of git, like the chat logs.
  expect(await fs.readFile(path.join(root, ".git", "info", "exclude"), "utf8")).toContain(".offrun/memory-snapshots/");

  // The same session goes on: no briefing. Another login is a new session: briefed again.
  expect((await openMemoryTurn(record, 2, true)).briefing).toBeUndefined();
  expect((await openMemoryTurn({ ...record, account: "work" }, 3, true)).briefing).toContain("## Project memory");
});

test("writes during a turn become memory_change events saying whose file it was", async () => {
  const a = agent("alpha");
  const files = memoryFiles(root, "alpha");
  await turn(a, async () => undefined); // creates the files
  const events = await turn({ ...a, turns: 2 }, async () => {
    await fs.appendFile(files.deadEnds, "- retrying with sleep: flaky\n");
    await fs.appendFile(files.conventions, "- use pnpm\n");
    await fs.mkdir(path.join(root, ".offrun", "memory", "beta"), { recursive: true });
    await fs.writeFile(path.join(root, ".offrun", "memory", "beta", "plan.md"), "# Plan\nbeta's, written by alpha\n");
  });
  const changes = changesOf(events);
  expect(changes.map((c) => c.type === "memory_change" && [c.id, c.file, c.who])).toEqual([
    ["m2.1", ".offrun/memory/alpha/dead-ends.md", "own"],
    ["m2.2", ".offrun/memory/beta/plan.md", "other_agent"],
    ["m2.3", ".offrun/memory/conventions.md", "conventions"],
  ]);
  const own = changes[0]!;
  expect(own.type === "memory_change" && own.diff).toContain("\n+- retrying with sleep: flaky\n");
  expect(changes[1]).toMatchObject({ owner: "beta" });
  expect((await memoryHistory(root, "beta")).map((e) => [e.agent, e.event.id])).toEqual([["alpha", "m2.2"]]);
});

test("revert restores the file, is recorded as the user's, and refuses when later edits conflict", async () => {
  const a = agent("alpha");
  const files = memoryFiles(root, "alpha");
  await turn(a, async () => undefined);
  const original = await fs.readFile(files.deadEnds, "utf8");
  await turn({ ...a, turns: 2 }, () => fs.appendFile(files.deadEnds, "- approach A: too slow\n"));
  await turn({ ...a, turns: 3 }, () => fs.writeFile(files.plan, "# Plan\n- step 1\n"));

  expect(await revertMemoryChange(root, "alpha", "m2.1")).toEqual({
    file: ".offrun/memory/alpha/dead-ends.md",
    outcome: "reverted",
  });
  expect(await fs.readFile(files.deadEnds, "utf8")).toBe(original);
  expect(await revertMemoryChange(root, "alpha", "m2.1")).toMatchObject({ outcome: "unchanged" });
  const notices = (await readChat(root, "alpha")).entries.filter((e) => e.type === "notice");
  expect(notices.at(-1)).toMatchObject({
    message: "You reverted memory change m2.1 (.offrun/memory/alpha/dead-ends.md).",
  });
  // The next turn does not report the user's revert as the agent's change.
  expect(changesOf(await turn({ ...a, turns: 4 }, async () => undefined))).toEqual([]);

  const written = await fs.readFile(files.plan, "utf8");
  const byHand = { file: "alpha/plan.md", base: sha256(written), text: "# Plan\n- step 1, rewritten by hand\n" };
  expect(await applyMemoryEdit(root, "alpha", [byHand])).toEqual(["alpha/plan.md"]);
  await expect(revertMemoryChange(root, "alpha", "m3.1")).rejects.toMatchObject({ kind: "conflict" });
  expect(await fs.readFile(files.plan, "utf8")).toBe("# Plan\n- step 1, rewritten by hand\n");
  await expect(revertMemoryChange(root, "alpha", "m9.9")).rejects.toMatchObject({ kind: "not_found" });
});

test("a memory edit writes only what the user changed, and refuses when the file changed while it was edited", async () => {
  const a = agent("alpha");
  const files = memoryFiles(root, "alpha");
  await turn(a, async () => undefined);
  const opened = await readForEdit(root, "alpha");
  expect(opened.map((f) => f.file)).toEqual(["conventions.md", "alpha/plan.md", "alpha/dead-ends.md"]);
  const edited = opened.map((f) => (f.file === "alpha/plan.md" ? { ...f, text: `${f.text}- by hand\n` } : f));
  expect(await applyMemoryEdit(root, "alpha", edited)).toEqual(["alpha/plan.md"]);
  expect(await fs.readFile(files.plan, "utf8")).toContain("- by hand\n");
  // The user's edit is not the next turn's change.
  expect(changesOf(await turn({ ...a, turns: 2 }, async () => undefined))).toEqual([]);

  // The agent wrote the file after the editor opened it: saving the copy would lose that write.
  const stale = await readForEdit(root, "alpha");
  await fs.appendFile(files.plan, "- by the agent\n");
  const mine = stale.map((f) => (f.file === "alpha/plan.md" ? { ...f, text: "# Plan\nmine\n" } : f));
  await expect(applyMemoryEdit(root, "alpha", mine)).rejects.toMatchObject({ kind: "conflict" });
  expect(await fs.readFile(files.plan, "utf8")).toContain("- by the agent\n");
  // Only the files an edit opens: no path reaches outside them.
  const stray = { file: "../../escape.md", base: "x", text: "no" };
  await expect(applyMemoryEdit(root, "alpha", [stray])).rejects.toMatchObject({ kind: "invalid_input" });
});

test("a write seen by two overlapping turns is reported once, by the turn that ends first", async () => {
  const a = agent("alpha");
  const b = agent("beta");
  await turn(a, async () => undefined);
  await turn(b, async () => undefined);
  await writeAgent(a);
  await writeAgent(b);
  const memoryA = await openMemoryTurn(a, 2, true);
  const memoryB = await openMemoryTurn(b, 2, true);
  await fs.appendFile(memoryFiles(root, "alpha").conventions, "- tabs, not spaces\n");
  const loggedA: EventDraft[] = [];
  const loggedB: EventDraft[] = [];
  await memoryA.finish(async (e) => void loggedA.push(e));
  await memoryB.finish(async (e) => void loggedB.push(e));
  expect(loggedA.map((e) => e.type)).toEqual(["memory_change"]);
  expect(loggedB).toEqual([]);
});

test("a Planner turn that writes memory other than its own plan and dead ends is warned about", async () => {
  const a = agent("alpha", { mode: "plan" });
  await turn(a, async () => undefined);
  const events = await turn({ ...a, turns: 2 }, async () => {
    await fs.appendFile(memoryFiles(root, "alpha").plan, "- step 1\n");
    await fs.appendFile(memoryFiles(root, "alpha").conventions, "- planners decide\n");
  });
  const warning = events.find((e) => e.type === "notice");
  expect(warning).toMatchObject({ level: "warning" });
  expect(warning?.type === "notice" && warning.message).toContain(".offrun/memory/conventions.md [m2.2]");
  expect(warning?.type === "notice" && warning.message).not.toContain("alpha/plan.md");
  expect(Object.keys(await scanMemory(root)).sort()).toEqual(["alpha/dead-ends.md", "alpha/plan.md", "conventions.md"]);
});
