import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "../../../../src/core/foundation/process.js";
import { grokHarness } from "../../../../src/harnesses/grok/index.js";
import type { TurnInput } from "../../../../src/harnesses/types.js";
import { ofType, turnEnd } from "../../../helpers/events.js";

// Grok Build's one-way turn (`grok -p … --output-format streaming-json`), what is left when
// nothing can ask: its argv run on the fake `grok` (test/fake-grok/), its stdout through the
// harness's parser.

const FAKE_GROK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../fake-grok/grok.mjs");

let dir: string;
let home: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-grok-p-"));
  home = path.join(dir, "grok-home");
  await fs.mkdir(home, { recursive: true });
  await fs.writeFile(path.join(home, "auth.json"), "{}");
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function oneWay(prompt: string) {
  const input: TurnInput = {
    prompt,
    mode: "build",
    cwd: dir,
    binary: FAKE_GROK,
    env: { PATH: process.env.PATH, HOME: path.join(dir, "home"), TMPDIR: os.tmpdir() },
    loginHome: home,
  };
  const command = grokHarness.turnCommand(input);
  const result = await runCommand(command, { timeoutMs: 30_000, ...(command.input ? { input: command.input } : {}) });
  const parser = grokHarness.createParser(input);
  const events = result.stdout
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => parser.push(line));
  return [...events, ...parser.finish({ exitCode: result.exitCode, stderrTail: result.stderr })];
}

test("acceptEdits headless ends a turn that needs an approval `cancelled`: a denial, never 'stopped by the user'", async () => {
  const events = await oneWay("run the tests");
  expect(ofType(events, "denial")).toHaveLength(1);
  expect(turnEnd(events)).toMatchObject({ outcome: "failed", reason: expect.stringContaining("grok agent stdio") });
});

test("no sign-in: headless says 'Not signed in' on stderr, a sign-in failure", async () => {
  await fs.rm(path.join(home, "auth.json"));
  const events = await oneWay("say hello");
  expect(ofType(events, "error")[0]).toMatchObject({ kind: "not_logged_in" });
  expect(turnEnd(events).reason).toMatch(/^Not signed in\. To authenticate without a browser/);
});
