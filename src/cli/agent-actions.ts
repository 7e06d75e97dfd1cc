import fs from "node:fs/promises";
import type { CompanionClient } from "../core/companion/client.js";
import { OffrunError } from "../core/foundation/errors.js";
import type { TurnEndEvent } from "../core/foundation/events.js";
import type { AgentRecord, Mode } from "../core/foundation/model.js";
import { withCompanion } from "./context.js";
import { output, projectDir, type GlobalOptions } from "./output.js";

/** start, send and stop: the commands that act through the companion. */

export interface StartOptions extends GlobalOptions {
  promptFile?: string;
  harness?: string;
  mode?: string;
  name?: string;
  base?: string;
  model?: string;
  account?: string;
  force?: boolean;
  sandbox?: boolean;
  wait?: boolean;
  dictated?: boolean;
}

export async function start(words: string[], options: StartOptions): Promise<void> {
  const read = await readPrompt(words, options);
  const prompt = options.dictated ? await applyVocabulary(read, options) : read;
  await withCompanion(async (client) => {
    const {
      agent: record,
      warnings,
      firstTurn,
    } = await client.call("agent.start", {
      project: projectDir(options),
      prompt,
      harness: options.harness,
      mode: parseMode(options.mode),
      name: options.name,
      base: options.base,
      model: options.model,
      account: options.account,
      force: options.force,
      sandbox: options.sandbox,
    });
    if (!options.json) for (const warning of warnings) process.stderr.write(`offrun: warning: ${warning}\n`);
    if (options.wait) return waitAndReport(client, options, record, firstTurn);
    output(options, record, () =>
      [
        `Started ${record.name} (${record.harness} · ${record.account}, ${record.mode}${record.sandbox ? ", sandboxed" : ""}) on ${record.branch}`,
        `  worktree: ${record.worktree}`,
        `  follow:   offrun show ${record.name}`,
      ].join("\n"),
    );
  });
}

export async function send(
  name: string,
  words: string[],
  options: GlobalOptions & { wait?: boolean; promptFile?: string },
): Promise<void> {
  const prompt = await readPrompt(words, options);
  await withCompanion(async (client) => {
    const { agent: record, firstTurn } = await client.call("agent.send", {
      project: projectDir(options),
      name,
      prompt,
    });
    if (options.wait) return waitAndReport(client, options, record, firstTurn);
    output(options, record, () => `Sent to ${record.name}. Follow with: offrun show ${record.name}`);
  });
}

export async function handoff(
  name: string,
  words: string[],
  options: GlobalOptions & { harness: string; account?: string; force?: boolean; model?: string; wait?: boolean },
): Promise<void> {
  await withCompanion(async (client) => {
    const {
      agent: record,
      warnings,
      firstTurn,
    } = await client.call("agent.handoff", {
      project: projectDir(options),
      name,
      harness: options.harness,
      account: options.account,
      force: options.force,
      model: options.model,
      message: words.length > 0 ? words.join(" ") : undefined,
    });
    if (!options.json) for (const warning of warnings) process.stderr.write(`offrun: warning: ${warning}\n`);
    if (options.wait) return waitAndReport(client, options, record, firstTurn);
    output(
      options,
      record,
      () => `Handed ${record.name} to ${record.harness} (login ${record.account}) in the same worktree.`,
    );
  });
}

export async function stop(name: string, options: GlobalOptions): Promise<void> {
  const record = await withCompanion((client) => client.call("agent.stop", { project: projectDir(options), name }));
  output(options, record, () => `${record.name} is ${record.status}.`);
}

/**
 * The prompt from the words after the command, `-` for stdin, or --prompt-file. A prompt larger
 * than the shell can pass as an argument (about 128 KB on Linux) needs one of the last two.
 */
async function readPrompt(words: string[], options: { promptFile?: string }): Promise<string> {
  if (options.promptFile !== undefined) {
    if (words.length > 0) {
      throw new OffrunError("invalid_input", "Give the prompt as words or with --prompt-file, not both.");
    }
    return fs.readFile(options.promptFile, "utf8").catch((error: Error) => {
      throw new OffrunError("invalid_input", `Cannot read the prompt file ${options.promptFile}: ${error.message}`);
    });
  }
  if (words.length === 1 && words[0] === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  if (words.length === 0) {
    throw new OffrunError(
      "invalid_input",
      'Say what the agent should do, e.g. offrun start "fix the flaky upload test" (or --prompt-file FILE, or - for stdin).',
    );
  }
  return words.join(" ");
}

/** --dictated: the prompt through the project's vocabulary; each rewrite is shown on stderr. */
async function applyVocabulary(prompt: string, options: GlobalOptions): Promise<string> {
  // Loaded only when asked for: `offrun start` without --dictated must not pay for the index code,
  // nor for git/execa, which the CLI otherwise leaves to the companion (about 20 ms of start-up).
  const [{ loadProjectVocabulary, rewriteDictation }, { findRepoRoot }] = await Promise.all([
    import("../core/vocabulary/index.js"),
    import("../core/git/repo.js"),
  ]);
  const { vocabulary } = await loadProjectVocabulary(await findRepoRoot(projectDir(options)));
  const { text, rewrites } = rewriteDictation(prompt, vocabulary);
  if (!options.json) {
    for (const r of rewrites) process.stderr.write(`offrun: dictation: "${r.spoken}" -> ${r.spelling}\n`);
  }
  return text;
}

function parseMode(value: string | undefined): Mode | undefined {
  if (value === undefined) return undefined;
  if (value === "build") return "build";
  if (value === "plan" || value === "planner") return "plan";
  throw new OffrunError("invalid_input", `Unknown mode '${value}'. Use --mode build or --mode plan.`);
}

/** --wait: block until the turn ends, print it, exit non-zero unless it completed. */
async function waitAndReport(
  client: CompanionClient,
  options: GlobalOptions,
  record: AgentRecord,
  firstTurn: number,
): Promise<void> {
  // Loaded here: only --wait reads the log and renders it, and a plain start must not pay for the
  // file store (proper-lockfile, graceful-fs, write-file-atomic) and the renderer on every run.
  const [{ readAgent, readChat }, { renderEvent }] = await Promise.all([
    import("../core/agents/records.js"),
    import("./format.js"),
  ]);
  const waited = await client.call("agent.wait", { project: projectDir(options), name: record.name });
  const latest = await readAgent(record.project, record.name);
  const chat = await readChat(record.project, record.name);
  // Every turn this request led to: a failover or a retry sends the message again as a new turn.
  const events = chat.entries.filter((e) => e.turn >= firstTurn);
  const turnEnd =
    (waited?.type === "turn_end" ? waited : undefined) ??
    events.findLast((e): e is TurnEndEvent => e.type === "turn_end");
  output(options, { agent: latest, turnEnd: turnEnd ?? null }, () =>
    events
      .map(renderEvent)
      .filter((line): line is string => line !== undefined)
      .join("\n"),
  );
  if (turnEnd?.outcome !== "completed") process.exitCode = 1;
}
