import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { keepAsFound } from "../../../../src/core/sandbox/kept.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-kept-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const KEYS = [["mcpServers"], ["projects", "*", "mcpServers"], ["projects", "*", "hasTrustDialogAccepted"]];

test("executable keys come out of the turn as they went in; the CLI's own changes to the file stay", async () => {
  const file = path.join(dir, ".claude.json");
  await fs.writeFile(file, JSON.stringify({ numStartups: 1, projects: { "/work/app": { allowedTools: [] } } }));
  const kept = await keepAsFound([], [{ file, keys: KEYS }]);
  // During the turn: the CLI counts a start and records the project; the agent adds servers and trust.
  await fs.writeFile(
    file,
    JSON.stringify({
      numStartups: 2,
      mcpServers: { planted: { command: "sh" } },
      projects: {
        "/work/app": { allowedTools: [], lastCost: 0.1, mcpServers: { planted: { command: "sh" } } },
        "/elsewhere": { hasTrustDialogAccepted: true },
      },
    }),
  );
  const said = await kept.restore();
  expect(JSON.parse(await fs.readFile(file, "utf8"))).toEqual({
    numStartups: 2,
    projects: { "/work/app": { allowedTools: [], lastCost: 0.1 } },
  });
  expect(said).toHaveLength(1);
  expect(said[0]).toContain("mcpServers");
  expect(await kept.restore()).toEqual([]); // nothing left to put back
});

test("a file left unreadable goes back whole", async () => {
  const file = path.join(dir, ".claude.json");
  await fs.writeFile(file, '{"numStartups":1}');
  const kept = await keepAsFound([], [{ file, keys: KEYS }]);
  await fs.writeFile(file, '{"mcpServers": {"planted"');
  expect(await kept.restore()).toEqual([expect.stringContaining("unreadable")]);
  expect(await fs.readFile(file, "utf8")).toBe('{"numStartups":1}');
});

test("a link file that was changed, created or removed is put back", async () => {
  const changed = path.join(dir, "commondir");
  const created = path.join(dir, "alternates");
  const removed = path.join(dir, "gitdir");
  await fs.writeFile(changed, "../..\n");
  await fs.writeFile(removed, "/work/app/.worktrees/a/.git\n");
  const kept = await keepAsFound([changed, created, removed], []);
  await fs.writeFile(changed, "/tmp/evil\n");
  await fs.writeFile(created, "/tmp/evil/objects\n");
  await fs.rm(removed);
  const said = await kept.restore();
  expect(said).toHaveLength(3);
  expect(await fs.readFile(changed, "utf8")).toBe("../..\n");
  await expect(fs.access(created)).rejects.toThrow();
  expect(await fs.readFile(removed, "utf8")).toBe("/work/app/.worktrees/a/.git\n");
});
