import fs from "node:fs/promises";
import path from "node:path";
import { CompanionClient } from "../../src/core/protocol/client.js";
import { draftFile, readDraft } from "../../src/core/records/draft.js";
import { userPaths } from "../../src/core/foundation/paths.js";
import { claudeWorld, type World } from "../helpers/e2e.js";
import { eventually, OFFRUN_BIN } from "../helpers/offrun.js";

// One writer (docs/architecture.md): memory revert, memory edit and drafts go through the companion. A revert or
// an edit written while the agent's turn ran was credited to that turn, or written over by it; the
// companion now writes them under the agent's turn lock, and drafts under the draft's own lock.

let world: World;
let root: string;
beforeAll(async () => {
  world = await claudeWorld("offrun-one-writer-mem-");
  root = await fs.realpath(world.repo);
  const plan = path.join(root, ".offrun", "memory", "keeper", "plan.md");
  world.server.script(
    { kind: "write_file", path: plan, content: "# Plan\n\n1. keep the memory\n" },
    { kind: "text", text: "Planned." },
  );
  expect(await world.offrun(["start", "--wait", "--name", "keeper", "plan the work"])).toSucceed();
}, 120_000);
afterAll(async () => {
  await world.close();
});

const planFile = () => path.join(root, ".offrun", "memory", "keeper", "plan.md");
const status = async (name: string) =>
  (JSON.parse((await world.offrun(["show", name, "--json"])).stdout) as { agent: { status: string } }).agent.status;
const companionLog = () => fs.readFile(path.join(world.box.offrunHome, "companion.log"), "utf8");

const hangs = () => world.server.turnRequests().filter((r) => r.answeredWith === "hang").length;
/**
 * Until the turn holds the fake server's hanging request. "working" alone is not enough: on a
 * loaded machine the CLI can be stopped before its request arrives, and the hang would be left for
 * the next test's turn, which would then wait forever.
 */
const untilHanging = (count: number) =>
  eventually(async () => (hangs() >= count ? true : undefined), 60_000, `hanging request ${count} at the fake server`);

async function hangingTurn(name: string): Promise<void> {
  const before = hangs();
  world.server.script({ kind: "hang" });
  expect(await world.offrun(["send", name, "go on"])).toSucceed();
  await eventually(async () => ((await status(name)) === "working" ? true : undefined), 30_000, "the turn");
  await untilHanging(before + 1);
}

test("memory revert is refused while the agent is in a turn, and goes through the companion once it ends", async () => {
  await hangingTurn("keeper");
  const refused = await world.offrun(["memory", "revert", "keeper", "m1.1"]);
  expect(refused.exitCode).not.toBe(0);
  expect(refused.stderr).toContain("keeper is in the middle of a turn");
  expect(await fs.readFile(planFile(), "utf8")).toBe("# Plan\n\n1. keep the memory\n");

  expect(await world.offrun(["stop", "keeper"])).toSucceed();
  expect(await world.offrun(["memory", "revert", "keeper", "m1.1"])).toSucceed();
  expect(await fs.readFile(planFile(), "utf8")).not.toContain("1. keep the memory");
  expect(await companionLog()).toContain("for a face: memory.revert keeper m1.1");
}, 120_000);

test("memory edit: a turn started while the editor is open ends first, and the edits wait in their copies", async () => {
  const before = await fs.readFile(planFile(), "utf8");
  const bin = path.join(world.box.dir, "bin");
  await fs.mkdir(bin, { recursive: true });
  const append = 'for f in "$@"; do echo "- by hand" >> "$f"; done\n';
  // While the user edits, a message starts the agent's next turn.
  const busy = path.join(bin, "busy-editor");
  await fs.writeFile(
    busy,
    `#!/bin/sh\n"${process.execPath}" "${OFFRUN_BIN}" send keeper "meanwhile" >/dev/null || exit 1\n${append}`,
    {
      mode: 0o755,
    },
  );
  const hangsBefore = hangs();
  world.server.script({ kind: "hang" });
  const refused = await world.offrun(["memory", "edit", "keeper"], { env: { EDITOR: busy } });
  expect(refused.exitCode).not.toBe(0);
  expect(refused.stderr).toContain("keeper is in the middle of a turn");
  const kept = /Your edits are kept in (\S+)\./.exec(refused.stderr)?.[1];
  expect(kept).toBeDefined();
  expect(await fs.readFile(path.join(kept!, "keeper", "plan.md"), "utf8")).toContain("- by hand");
  expect(await fs.readFile(planFile(), "utf8")).toBe(before);

  await untilHanging(hangsBefore + 1);
  expect(await world.offrun(["stop", "keeper"])).toSucceed();
  const plain = path.join(bin, "plain-editor");
  await fs.writeFile(plain, `#!/bin/sh\n${append}`, { mode: 0o755 });
  const saved = await world.offrun(["memory", "edit", "keeper"], { env: { EDITOR: plain } });
  expect(saved).toSucceed();
  expect(saved.stdout).toContain(`Saved: ${path.join(root, ".offrun", "memory", "conventions.md")}`);
  expect(await fs.readFile(planFile(), "utf8")).toBe(`${before}- by hand\n`);
  expect(await companionLog()).toContain("for a face: memory.edit keeper");
}, 120_000);

test("drafts are written by the companion under the draft's lock, also while a turn runs", async () => {
  const client = await CompanionClient.connect(userPaths(world.box.offrunHome).socket);
  try {
    await hangingTurn("keeper");
    // Added at the same moment (a review's fixes, say): each read-and-append waits for the last.
    const texts = Array.from({ length: 8 }, (_, i) => `fix ${i + 1}`);
    await Promise.all(texts.map((text) => client.call("draft.add", { project: root, name: "keeper", text })));
    const draft = (await readDraft(root, "keeper")) ?? "";
    for (const text of texts) expect(draft).toContain(text);

    const written = await client.call("draft.write", { project: root, name: "keeper", text: "my own words" });
    expect(written.file).toBe(draftFile(root, "keeper"));
    expect(await readDraft(root, "keeper")).toBe("my own words\n");
    await client.call("draft.write", { project: root, name: "keeper", text: "" });
    expect(await readDraft(root, "keeper")).toBeUndefined();
    await expect(client.call("draft.add", { project: root, name: "nobody", text: "x" })).rejects.toMatchObject({
      kind: "not_found",
    });
  } finally {
    client.close();
    await world.offrun(["stop", "keeper"]);
  }
}, 120_000);
