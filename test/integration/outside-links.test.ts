import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { appendChat, writeAgent } from "../../src/core/records/records.js";
import { memoryBriefing, memoryFiles } from "../../src/core/memory/files.js";
import { revertMemoryChange } from "../../src/core/memory/history.js";
import { agentRecord } from "../helpers/records.js";

// Files Offrun reads back from a project are input. A conventions.md committed as
// a link to a secret must not reach an agent's prompt; a crafted memory_change must not make
// `offrun memory revert` (one click in Project Memory) write a file outside the repository.

let dir: string;
let root: string;
beforeEach(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "offrun-links-")));
  root = path.join(dir, "repo");
  await fs.mkdir(path.join(root, ".offrun", "memory", "fixer"), { recursive: true });
  await fs.mkdir(path.join(root, ".offrun", "chats"), { recursive: true });
  await writeAgent(agentRecord(root, "fixer"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

test("a conventions.md that links out of the repository is not read into the briefing", async () => {
  const secret = path.join(dir, "credentials");
  await fs.writeFile(secret, "aws_secret_access_key = SECRET-9f1c\n");
  await fs.symlink(secret, memoryFiles(root, "fixer").conventions);
  const briefing = await memoryBriefing(root, "fixer");
  expect(briefing).not.toContain("SECRET-9f1c");
  expect(briefing).toContain(`(not read: it is a link to ${secret}, outside the repository)`);
});

test("a crafted memory change naming a file outside the repository is refused and writes nothing", async () => {
  const victim = path.join(dir, "victim.txt");
  await fs.writeFile(victim, "mine\n");
  for (const [id, file, before] of [
    ["m1", victim, undefined],
    ["m2", ".offrun/memory/../../../victim.txt", undefined],
    ["m3", ".offrun/memory/fixer/plan.md", "../../../victim"],
  ] as const) {
    await appendChat(root, "fixer", {
      type: "memory_change",
      id,
      file,
      who: "own",
      diff: "",
      ...(before ? { before } : {}),
      after: "0".repeat(64),
      at: new Date().toISOString(),
      turn: 1,
    });
    await expect(revertMemoryChange(root, "fixer", id)).rejects.toThrow(/cannot be reverted/);
  }
  expect(await fs.readFile(victim, "utf8")).toBe("mine\n");
});
