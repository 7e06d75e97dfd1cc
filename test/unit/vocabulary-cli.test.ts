import fs from "node:fs/promises";
import path from "node:path";
import { makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// `offrun start --dictated` through the built CLI, the companion and a stand-in Claude Code that
// logs its argv: what the agent CLI receives is the rewritten prompt.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-dict-");
});
afterAll(async () => {
  await box.cleanup();
});

test("a dictated prompt reaches the agent with the code's spellings, and each rewrite is printed", async () => {
  const repo = await makeRepo(path.join(box.dir, "repo"), box.env, {
    "src/retry.ts": "export function retryBackoffHelper() {}\n",
    "src/upload.test.js": "retryBackoffHelper();\n",
  });
  const bin = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin };
  const spoken = "Retry the upload with retry backoff helper in upload dot test dot js.";
  const result = await runOffrun(["start", "--wait", "--dictated", "--mode", "plan", "--name", "dict", spoken], {
    env,
    cwd: repo,
  });
  expect(result).toSucceed();
  expect(result.stderr).toContain('offrun: dictation: "retry backoff helper" -> retryBackoffHelper');
  expect(result.stderr).toContain('offrun: dictation: "upload dot test dot js" -> upload.test.js');
  const argv = await fs.readFile(`${bin}.argv`, "utf8");
  expect(argv).toContain("Retry the upload with `retryBackoffHelper` in `upload.test.js`.");
  expect(argv).not.toContain("retry backoff helper");
});

test("without --dictated the prompt is sent exactly as typed", async () => {
  const repo = await makeRepo(path.join(box.dir, "plain"), box.env, {
    "src/retry.ts": "export function retryBackoffHelper() {}\n",
  });
  const bin = await writeStubCli(path.join(box.dir, "stub-plain", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin, OFFRUN_HOME: path.join(box.dir, "oh-plain") };
  const result = await runOffrun(["start", "--wait", "--mode", "plan", "--name", "raw", "use retry backoff helper"], {
    env,
    cwd: repo,
  });
  expect(result).toSucceed();
  expect(result.stderr).not.toContain("dictation");
  expect(await fs.readFile(`${bin}.argv`, "utf8")).toContain("use retry backoff helper");
});
