import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import type { Login } from "../../src/core/foundation/login-model.js";
import type { Command } from "../../src/core/foundation/process.js";
import { wrappedRunner } from "../../src/core/foundation/runner.js";
import { checkSignIn } from "../../src/core/logins/sign-in.js";
import { readLoginQuota } from "../../src/core/quota/pipeline.js";
import { claudeHarness } from "../../src/harnesses/claude/index.js";
import { codexHarness } from "../../src/harnesses/codex/index.js";
import { CODEX_BIN } from "../helpers/codex-env.js";
import { writeStubCli } from "../helpers/stub-cli.js";

// Status and quota probes start the CLI through the runner they are handed, so a
// sandbox that wraps turns wraps the probes too. HOME, TMPDIR and OFFRUN_HOME are this
// file's own (test/helpers/isolate-env.ts).

async function login(harness: string, label: string): Promise<Login> {
  const home = path.join(process.env.TMPDIR!, `${harness}-${label}`);
  await fs.mkdir(home, { recursive: true });
  return { harness, label, home, isDefault: false, adopted: false, env: {} };
}

test("checkSignIn asks `claude auth status` through the runner it is handed", async () => {
  const work = await login("claude", "work");
  const stub = await writeStubCli(path.join(process.env.TMPDIR!, "bin", "claude"), { replay: "/dev/null" });
  const seen: Command[] = [];
  // The binary named below does not exist: only the runner's rewrite to the stub can answer.
  const runner = wrappedRunner((command) => {
    seen.push(command);
    return { ...command, file: stub };
  });

  const entry = await checkSignIn(work, claudeHarness, "/nowhere/claude", process.env, runner);

  expect(entry).toMatchObject({ state: "signed-in", source: "status" });
  expect(seen).toHaveLength(1);
  expect(seen[0]).toMatchObject({ file: "/nowhere/claude", args: ["auth", "status", "--json"] });
  expect(seen[0]?.env?.CLAUDE_CONFIG_DIR).toBe(work.home);
  expect(await fs.readFile(`${stub}.status`, "utf8")).toBe("auth status --json\n");
});

test("readLoginQuota starts `codex app-server` through the runner it is handed", async () => {
  const work = await login("codex", "work");
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, CODEX_HOME: work.home };
  // An API-key login: the real app-server starts and answers, with no plan limits to tell.
  execFileSync(CODEX_BIN, ["login", "--with-api-key"], {
    env,
    input: "sk-offrun-test-not-a-key",
    stdio: ["pipe", "ignore", "ignore"],
  });
  const seen: Command[] = [];
  const runner = wrappedRunner((command) => {
    seen.push(command);
    return command;
  });

  const quota = await readLoginQuota({ login: work, harness: codexHarness, binary: CODEX_BIN, env, runner });

  expect(seen.map((c) => [c.file, ...c.args])).toEqual([[CODEX_BIN, "app-server"]]);
  expect(seen[0]?.env?.CODEX_HOME).toBe(work.home);
  expect(quota.attempts).toContainEqual(expect.objectContaining({ source: "codex-app-server", outcome: "no-data" }));
});
