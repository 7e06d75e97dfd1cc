/**
 * The sandbox's launcher, a process of its own between Offrun and the agent's CLI:
 *
 *   node launch.js <settings.json> <refusals.jsonl> -- <file> <args...>
 *
 * It starts `@anthropic-ai/sandbox-runtime` 0.0.83 with the policy in the settings file (its
 * filtering proxies live here, outside the sandbox), runs the CLI inside it with the same stdio,
 * writes every refusal the runtime sees (a host not on the list on every platform, a denied file
 * on macOS) to the refusals file as a JSON line, and exits as the CLI did. The runtime's own `srt`
 * does the same but keeps its refusals to itself, which is why Offrun has this file.
 *
 * The runtime's wrap is a command line for a shell, by its API: it has no argv form on macOS or
 * Linux. The CLI's argv is quoted by the runtime's own quoting, and the line it returns is handed
 * to /bin/sh as one argument; no Offrun code builds a shell string.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { SandboxManager, type SandboxRuntimeConfig } from "@anthropic-ai/sandbox-runtime";
import { quote } from "@anthropic-ai/sandbox-runtime/dist/utils/shell-quote.js";

/** A command that ignores SIGTERM gets this long before SIGKILL. */
const KILL_GRACE_MS = 2_000;

async function main(argv: string[]): Promise<void> {
  const split = argv.indexOf("--");
  const [settingsFile, refusalsFile] = argv.slice(0, split);
  const command = argv.slice(split + 1);
  if (split !== 2 || !settingsFile || !refusalsFile || command.length === 0) {
    fail("usage: launch.js <settings.json> <refusals.jsonl> -- <file> <args...>");
  }
  const config = JSON.parse(fs.readFileSync(settingsFile, "utf8")) as SandboxRuntimeConfig;
  const record = (line: string) => {
    try {
      fs.appendFileSync(refusalsFile, `${JSON.stringify({ line, at: new Date().toISOString() })}\n`, { mode: 0o600 });
    } catch {
      // A refusal that cannot be noted is still a refusal: the CLI sees it either way.
    }
  };
  // Asked only about what no rule decided, which the policy leaves closed: the answer is no.
  await SandboxManager.initialize(config, async () => false);
  let seen = 0;
  SandboxManager.getSandboxViolationStore().subscribe((violations) => {
    const total = SandboxManager.getSandboxViolationStore().getTotalCount();
    for (const violation of violations.slice(Math.max(0, violations.length - (total - seen)))) record(violation.line);
    seen = total;
  });
  const wrapped = await SandboxManager.wrapWithSandbox(quote(command));
  const child = spawn("/bin/sh", ["-c", wrapped], { stdio: "inherit" });
  const forward = (signal: NodeJS.Signals) => {
    child.kill(signal);
    setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS).unref();
  };
  process.on("SIGTERM", () => forward("SIGTERM"));
  process.on("SIGINT", () => forward("SIGINT"));
  child.on("error", (error) => fail(`could not start the sandbox: ${error.message}`));
  child.on("exit", (code, signal) => {
    SandboxManager.cleanupAfterCommand();
    void SandboxManager.reset().finally(() => process.exit(code ?? (signal ? 128 + signalNumber(signal) : 1)));
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  return { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[signal as string] ?? 1;
}

function fail(message: string): never {
  process.stderr.write(`offrun sandbox: ${message}\n`);
  process.exit(1);
}

main(process.argv.slice(2)).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)));
