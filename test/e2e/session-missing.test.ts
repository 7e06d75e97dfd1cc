import fs from "node:fs/promises";
import path from "node:path";
import { readAgent, readChat } from "../../src/core/records/records.js";
import { claudeWorld, type World } from "../helpers/e2e.js";

// A session the CLI does not have: its CLI was ended in its first second, before it wrote one
// (the companion killed then, as the crash matrix does), or someone deleted it. The next message
// goes on in a new session that is handed the conversation so far, and the log says so; it used
// to fail every time with "Claude reported an error".

let world: World;

beforeAll(async () => {
  world = await claudeWorld("offrun-e2e-session-missing-");
});
afterAll(async () => {
  await world.offrun(["companion", "stop"]);
  await world.close();
});

/** Every file under `dir` named `name`. */
async function find(dir: string, name: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile() && e.name === name).map((e) => path.join(e.parentPath, e.name));
}

test("a message to an agent whose session is gone goes on in a new session, with the conversation so far", async () => {
  world.server.script({ kind: "text", text: "The parser reads headers now." });
  expect(await world.offrun(["start", "--wait", "--name", "parser", "write the header parser"])).toSucceed();
  const before = await readAgent(world.repo, "parser");
  const lost = await find(path.join(world.box.home, ".claude"), `${before.sessionId}.jsonl`);
  expect(lost).toHaveLength(1);
  await fs.rm(lost[0]!);

  world.server.script({ kind: "text", text: "Tests added for the parser." });
  const requests = world.server.turnRequests().length;
  const sent = await world.offrun(["send", "--wait", "parser", "now add tests"]);
  expect(sent).toSucceed();
  expect(sent.stdout).toContain("Tests added for the parser.");

  const after = await readAgent(world.repo, "parser");
  expect(after.sessionId).toBeDefined();
  expect(after.sessionId).not.toBe(before.sessionId);
  expect(after.status).toBe("idle");
  const entries = (await readChat(world.repo, "parser")).entries;
  const failed = entries.filter((e) => e.type === "turn_end" && e.outcome === "failed");
  expect(failed).toEqual([
    expect.objectContaining({ reason: `No conversation found with session ID: ${before.sessionId}` }),
  ]);
  expect(entries).toContainEqual(
    expect.objectContaining({
      type: "notice",
      message: expect.stringContaining(`no conversation ${before.sessionId}`),
    }),
  );
  // One more request only, in the new session, and it carries the task and the first answer.
  const asked = world.server.turnRequests().slice(requests);
  expect(asked).toHaveLength(1);
  const body = JSON.stringify(asked[0]!.body);
  expect(body).toContain("write the header parser");
  expect(body).toContain("The parser reads headers now.");
  expect(body).toContain("now add tests");
});
