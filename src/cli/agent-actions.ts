import fs from "node:fs/promises";
import type { Caller } from "../core/protocol/client.js";
import type { MethodParams } from "../core/protocol/protocol.js";
import { OffrunError } from "../core/foundation/errors.js";
import type { TurnEndEvent } from "../core/foundation/events.js";
import type { Mode } from "../core/foundation/model.js";
import { withCompanion } from "./context.js";
import { output, print, projectDir, type GlobalOptions } from "./output.js";
import { remoteProject, withAgent, type AgentTarget, type HostOptions } from "./target.js";

/** start, send and stop: the commands that act through the companion. */

/** The request's own fields (protocol.ts), with the mode as typed and what only the CLI reads. */
export type StartOptions = HostOptions &
  Omit<MethodParams<"agent.start">, "project" | "prompt" | "mode" | "account"> & {
    mode?: string;
    /** --login: the request's `account`. */
    login?: string;
    promptFile?: string;
    wait?: boolean;
    dictated?: boolean;
  };

export async function start(words: string[], options: StartOptions): Promise<void> {
  const read = await readPrompt(words, options);
  const prompt = options.dictated ? await applyVocabulary(read, options) : read;
  const host = options.host;
  const project = host ? remoteProject(options, host) : projectDir(options);
  if (host && project === undefined) {
    throw new OffrunError(
      "invalid_input",
      `Say which project on ${host}: offrun start --host ${host} --project /srv/app "…"`,
    );
  }
  await withCompanion(async (client) => {
    const caller = host ? client.on(host, options.wait ? WAIT_MS : undefined) : client;
    const {
      agent: record,
      warnings,
      firstTurn,
    } = await caller.call("agent.start", {
      project: project!,
      prompt,
      harness: options.harness,
      mode: parseMode(options.mode),
      name: options.name,
      base: options.base,
      model: options.model,
      account: options.login,
      force: options.force,
      sandbox: options.sandbox,
    });
    if (!options.json) for (const warning of warnings) print(process.stderr, `offrun: warning: ${warning}\n`);
    const shown = host ? `${host}:${record.name}` : record.name;
    const target = { name: record.name, project: project!, caller, shown, ...(host ? { host } : {}) };
    if (options.wait) return waitAndReport(target, options, firstTurn);
    output(options, record, () =>
      [
        `Started ${shown} (${record.harness} · ${record.account}, ${record.mode}${record.sandbox ? ", sandboxed" : ""}) on ${record.branch}`,
        `  worktree: ${record.worktree}${host ? ` (on ${host})` : ""}`,
        `  follow:   offrun show ${shown}`,
      ].join("\n"),
    );
  });
}

export async function send(
  name: string,
  words: string[],
  options: HostOptions & { wait?: boolean; promptFile?: string },
): Promise<void> {
  const prompt = await readPrompt(words, options);
  await withAgent(
    name,
    options,
    async (target) => {
      const { agent: record, firstTurn } = await target.caller.call("agent.send", {
        project: target.project,
        name: target.name,
        prompt,
      });
      if (options.wait) return waitAndReport(target, options, firstTurn);
      output(options, record, () => `Sent to ${target.shown}. Follow with: offrun show ${target.shown}`);
    },
    options.wait ? WAIT_MS : undefined,
  );
}

export async function handoff(
  name: string,
  words: string[],
  options: HostOptions & { harness: string; login?: string; force?: boolean; model?: string; wait?: boolean },
): Promise<void> {
  await withAgent(name, options, async (target) => {
    const {
      agent: record,
      warnings,
      firstTurn,
    } = await target.caller.call("agent.handoff", {
      project: target.project,
      name: target.name,
      harness: options.harness,
      account: options.login,
      force: options.force,
      model: options.model,
      message: words.length > 0 ? words.join(" ") : undefined,
    });
    if (!options.json) for (const warning of warnings) print(process.stderr, `offrun: warning: ${warning}\n`);
    if (options.wait) return waitAndReport(target, options, firstTurn);
    output(
      options,
      record,
      () => `Handed ${target.shown} to ${record.harness} (login ${record.account}) in the same worktree.`,
    );
  });
}

export async function stop(name: string, options: HostOptions): Promise<void> {
  const { record, shown } = await withAgent(name, options, async (target) => ({
    record: await target.caller.call("agent.stop", { project: target.project, name: target.name }),
    shown: target.shown,
  }));
  output(options, record, () => `${shown} is ${record.status}.`);
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
    for (const r of rewrites) print(process.stderr, `offrun: dictation: "${r.spoken}" -> ${r.spelling}\n`);
  }
  return text;
}

function parseMode(value: string | undefined): Mode | undefined {
  if (value === undefined) return undefined;
  if (value === "build") return "build";
  if (value === "plan" || value === "planner") return "plan";
  throw new OffrunError("invalid_input", `Unknown mode '${value}'. Use --mode build or --mode plan.`);
}

/** How long a --wait on another machine's agent may wait for its turn to end. */
const WAIT_MS = 12 * 60 * 60_000;

/** --wait: block until the turn ends, print it, exit non-zero unless it completed. */
async function waitAndReport(
  target: Pick<AgentTarget, "name" | "project" | "host"> & { caller: Caller },
  options: GlobalOptions,
  firstTurn: number,
): Promise<void> {
  // Loaded here: only --wait reads the log and renders it, and a plain start must not pay for the
  // file store (proper-lockfile, graceful-fs, write-file-atomic) and the renderer on every run.
  const { renderEvent } = await import("./format.js");
  const waited = await target.caller.call("agent.wait", { project: target.project, name: target.name });
  const { agent: latest, events: all } = target.host
    ? await target.caller.call("agent.show", { project: target.project, name: target.name })
    : await readLocally(target.project, target.name);
  // Every turn this request led to: a failover or a retry sends the message again as a new turn.
  const events = all.filter((e) => e.turn >= firstTurn);
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

async function readLocally(project: string, name: string) {
  const [{ readAgent, readChat }, { findRepoRoot }] = await Promise.all([
    import("../core/records/records.js"),
    import("../core/git/repo.js"),
  ]);
  const root = await findRepoRoot(project);
  return { agent: await readAgent(root, name), events: (await readChat(root, name)).entries };
}
