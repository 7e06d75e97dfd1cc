import fs from "node:fs/promises";
import path from "node:path";
import { diffWorktree } from "../../src/core/git/diff.js";
import { headCommit } from "../../src/core/git/repo.js";
import { loadAgentsOverview } from "../../src/commands/presenters/agents-overview-load.js";
import { addHost } from "../../src/core/remote/hosts-file.js";
import { makeRepo, makeSandbox, useSandboxInProcess, type Sandbox } from "../helpers/offrun.js";

// The Agents view polls every 3 s and aborts the read before when the next starts or the view
// closes: an aborted read must end as an AbortError, not run on or fail as something else.

let box: Sandbox;
const savedEnv = { ...process.env };
beforeEach(async () => {
  box = await makeSandbox("offrun-abort-");
  useSandboxInProcess(box);
});
afterEach(async () => {
  process.env = { ...savedEnv };
  await box.cleanup();
});

test("a diff aborted while git runs ends as an AbortError and leaves no scratch index behind", async () => {
  const repo = await makeRepo(path.join(box.dir, "demo"), box.env);
  await fs.writeFile(path.join(repo, "new.txt"), "work\n");
  const base = await headCommit(repo);
  expect((await diffWorktree({ worktree: repo, baseCommit: base })).files.map((f) => f.path)).toEqual(["new.txt"]);

  const call = new AbortController();
  const diff = diffWorktree({ worktree: repo, baseCommit: base, signal: call.signal });
  call.abort();
  await expect(diff).rejects.toMatchObject({ name: "AbortError" });
  const scratch = (await fs.readdir(box.tmp)).filter((name) => name.startsWith("offrun-diff-"));
  expect(scratch).toEqual([]);
});

test("an overview asked for with an aborted signal reads nothing and says AbortError", async () => {
  const call = new AbortController();
  call.abort();
  await expect(loadAgentsOverview({ projects: [box.dir], signal: call.signal })).rejects.toMatchObject({
    name: "AbortError",
  });
});

test("an overview aborted while a host is asked leaves no rejection behind unhandled", async () => {
  // The hosts are asked while this machine's files are read: an abort ends both, and the one not
  // awaited first must not surface later as an unhandled rejection (Jest fails whatever test runs then).
  await addHost({ name: "devbox", destination: "ssh://nobody@127.0.0.1:1" }, box.env);
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", record);
  try {
    const call = new AbortController();
    call.abort();
    await expect(loadAgentsOverview({ projects: [box.dir], signal: call.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", record);
  }
});
