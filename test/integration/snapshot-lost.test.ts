import fs from "node:fs/promises";
import path from "node:path";
import { agentEventSchema } from "../../src/core/foundation/events.js";
import { readJsonl } from "../../src/core/foundation/store.js";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// A memory snapshot the disk has no room for (the `snapshot` fault point throwing ENOSPC) lets the
// turn go on with its memory, and the chat log says which snapshot was lost and why. Broke: the
// first turn's memory failed as a whole, in silence at the start (no briefing reached the agent),
// and a later turn said only "Project memory is unavailable this turn: ENOSPC: …".

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-snaplost-");
});
afterAll(async () => {
  await runOffrun(["companion", "stop"], { env: box.env });
  await box.cleanup();
});

test("a snapshot lost to a full disk is reported in the chat and by offrun show, and the turn goes on with its memory", async () => {
  const repo = await makeRepo(path.join(box.dir, "app"), box.env);
  const bin = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin };
  const offrun = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runOffrun(args, { env: { ...env, ...extra }, cwd: repo });
  expect(await offrun(["companion", "start"], { OFFRUN_FAULT: "snapshot:ENOSPC" })).toSucceed();
  expect(await offrun(["start", "--wait", "--name", "s", "hello"])).toSucceed();

  const chat = await readJsonl(path.join(repo, ".offrun", "chats", "s.jsonl"), agentEventSchema);
  const lost = chat.entries.filter((e) => e.type === "notice" && e.message.startsWith("Lost: the memory snapshot"));
  expect(lost).toHaveLength(1);
  expect(lost[0]).toEqual(
    expect.objectContaining({
      level: "warning",
      message: expect.stringMatching(
        /^Lost: the memory snapshot of \.offrun\/memory\/\S+.* as this turn found it could not be written \(the disk holding .* is full/,
      ),
    }),
  );
  expect(chat.entries.at(-1)).toEqual(expect.objectContaining({ type: "turn_end", outcome: "completed" }));
  // The turn still had its memory: its CLI was given the agent's memory folder to write.
  expect(await fs.readFile(`${bin}.argv`, "utf8")).toContain(`--add-dir ${path.join(repo, ".offrun", "memory", "s")}`);
  expect((await offrun(["show", "s"])).stdout).toContain("Lost: the memory snapshot of .offrun/memory/");
}, 90_000);
