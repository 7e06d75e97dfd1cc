import fs from "node:fs/promises";
import type { Command } from "commander";
import { agentDiff, agentDiscard, agentMerge } from "../core/agent-ops.js";
import { listAgentsDetailed, readAgent, readChat } from "../core/agents.js";
import { OffrunError } from "../core/errors.js";
import { agentEventSchema, type AgentEvent, type TurnEndEvent } from "../core/events.js";
import { findRepoRoot } from "../core/git/repo.js";
import { agentRecordSchema, type AgentRecord, type Mode } from "../core/model.js";
import type { CompanionClient } from "../core/companion/client.js";
import { AGENT_HEADER, agentRows, elapsed, renderEvent, table } from "./format.js";
import { fail, output, projectDir, withCompanion, type GlobalOptions } from "./context.js";

interface StartOptions extends GlobalOptions {
  promptFile?: string;
  harness?: string;
  mode?: string;
  name?: string;
  base?: string;
  model?: string;
  wait?: boolean;
}

/**
 * The prompt from the words after the command, `-` for stdin, or --prompt-file. A prompt larger
 * than the shell can pass as an argument (about 128 KB on Linux) needs one of the last two.
 */
async function readPrompt(words: string[], options: { promptFile?: string }): Promise<string> {
  if (options.promptFile !== undefined) {
    if (words.length > 0)
      throw new OffrunError("invalid_input", "Give the prompt as words or with --prompt-file, not both.");
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

function parseMode(value: string | undefined): Mode | undefined {
  if (value === undefined) return undefined;
  if (value === "build") return "build";
  if (value === "plan" || value === "planner") return "plan";
  throw new OffrunError("invalid_input", `Unknown mode '${value}'. Use --mode build or --mode plan.`);
}

/** Adds --project and --json to a command. */
export function withGlobals(command: Command): Command {
  return command
    .option("--project <dir>", "the project (default: the git repository around the current folder)")
    .option("--json", "print JSON for scripts");
}

/** Runs a command body and turns any failure into a clear message and exit code. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    const options =
      args.find((a): a is GlobalOptions => typeof a === "object" && a !== null && !Array.isArray(a)) ?? {};
    try {
      await fn(...args);
    } catch (error) {
      fail(error, (options as GlobalOptions).json);
    }
  };
}

async function waitAndReport(client: CompanionClient, options: GlobalOptions, record: AgentRecord): Promise<void> {
  const project = projectDir(options);
  const end = agentEventSchema.nullable().parse(await client.request("agent.wait", { project, name: record.name }));
  const chat = await readChat(record.project, record.name);
  const turn = (await readAgent(record.project, record.name)).turns;
  const events = chat.entries.filter((e) => e.turn === turn);
  const turnEnd = (end as TurnEndEvent | null) ?? events.findLast((e): e is TurnEndEvent => e.type === "turn_end");
  output(options, { agent: await readAgent(record.project, record.name), turnEnd: turnEnd ?? null }, () =>
    events
      .map(renderEvent)
      .filter((line): line is string => line !== undefined)
      .join("\n"),
  );
  if (turnEnd?.outcome !== "completed") process.exitCode = 1;
}

export function registerAgentCommands(program: Command): void {
  withGlobals(program.command("start").description("start an agent on a task in its own worktree"))
    .argument("[prompt...]", "what the agent should do (- reads it from stdin)")
    .option("--prompt-file <file>", "read the prompt from a file")
    .option("--harness <id>", "which agent CLI (claude, codex)")
    .option("--mode <mode>", "build (default) or plan")
    .option("--name <name>", "agent name (default: made from the prompt)")
    .option("--base <ref>", "branch or commit to start from (default: HEAD)")
    .option("--model <model>", "model to ask the CLI for")
    .option("--wait", "block until the turn ends; exit non-zero if it failed")
    .action(
      action(async (words: string[], options: StartOptions) => {
        await withCompanion(async (client) => {
          const record = agentRecordSchema.parse(
            await client.request("agent.start", {
              project: projectDir(options),
              prompt: await readPrompt(words, options),
              harness: options.harness,
              mode: parseMode(options.mode),
              name: options.name,
              base: options.base,
              model: options.model,
            }),
          );
          if (options.wait) return waitAndReport(client, options, record);
          output(options, record, () =>
            [
              `Started ${record.name} (${record.harness}, ${record.mode}) on ${record.branch}`,
              `  worktree: ${record.worktree}`,
              `  follow:   offrun show ${record.name}`,
            ].join("\n"),
          );
        });
      }),
    );

  withGlobals(program.command("send").description("send the next message to an agent (same session)"))
    .argument("<agent>")
    .argument("[message...]", "the message (- reads it from stdin)")
    .option("--prompt-file <file>", "read the message from a file")
    .option("--wait", "block until the turn ends; exit non-zero if it failed")
    .action(
      action(
        async (name: string, words: string[], options: GlobalOptions & { wait?: boolean; promptFile?: string }) => {
          const prompt = await readPrompt(words, options);
          await withCompanion(async (client) => {
            const record = agentRecordSchema.parse(
              await client.request("agent.send", { project: projectDir(options), name, prompt }),
            );
            if (options.wait) return waitAndReport(client, options, record);
            output(options, record, () => `Sent to ${record.name}. Follow with: offrun show ${record.name}`);
          });
        },
      ),
    );

  withGlobals(program.command("ls").description("agents of this project")).action(
    action(async (options: GlobalOptions) => {
      const root = await findRepoRoot(projectDir(options));
      const listing = await listAgentsDetailed(root);
      output(options, listing, () => {
        if (listing.agents.length === 0 && listing.unreadable.length === 0) {
          return `No agents in ${root} yet. Start one: offrun start "describe the task"`;
        }
        const problems = listing.unreadable.map((u) => `⚠ ${u.problem}`);
        return [table(AGENT_HEADER, agentRows(listing.agents)), ...problems].join("\n");
      });
    }),
  );

  withGlobals(program.command("show").description("an agent's conversation, status, worktree and branch"))
    .argument("<agent>")
    .action(
      action(async (name: string, options: GlobalOptions) => {
        const root = await findRepoRoot(projectDir(options));
        const record = await readAgent(root, name);
        const chat = await readChat(root, name);
        output(options, { agent: record, events: chat.entries, corruptLines: chat.corrupt }, () =>
          showText(record, chat.entries, chat.corrupt.length),
        );
      }),
    );

  withGlobals(program.command("diff").description("changed files and the diff against the agent's base"))
    .argument("<agent>")
    .option("--stat", "only the list of changed files")
    .action(
      action(async (name: string, options: GlobalOptions & { stat?: boolean }) => {
        const diff = await agentDiff(projectDir(options), name);
        output(options, { files: diff.files, patch: diff.patch }, () => {
          if (diff.files.length === 0) return `${name} has changed nothing since ${diff.record.base.slice(0, 8)}.`;
          const list = diff.files
            .map((f) => `${f.status.padEnd(8)} ${f.path}  +${f.additions} -${f.deletions}`)
            .join("\n");
          return options.stat ? list : `${list}\n\n${diff.patch}`;
        });
      }),
    );

  withGlobals(
    program.command("merge").description("commit the agent's work on its branch and merge it into the current branch"),
  )
    .argument("<agent>")
    .action(
      action(async (name: string, options: GlobalOptions) => {
        const result = await agentMerge(projectDir(options), name);
        output(
          options,
          result,
          () =>
            `Merged ${result.record.branch} into ${result.mergedInto} (${result.commit.slice(0, 8)}): ${result.files.length} file(s).`,
        );
      }),
    );

  withGlobals(program.command("discard").description("remove the agent's worktree (refuses to lose unmerged work)"))
    .argument("<agent>")
    .option("--force", "discard even uncommitted or unmerged work")
    .option("--delete-branch", "also delete the agent's branch")
    .action(
      action(async (name: string, options: GlobalOptions & { force?: boolean; deleteBranch?: boolean }) => {
        const project = projectDir(options);
        if (options.force) await withCompanion((client) => client.request("agent.stop", { project, name }));
        const result = await agentDiscard(project, name, {
          force: Boolean(options.force),
          deleteBranch: Boolean(options.deleteBranch),
        });
        output(
          options,
          result,
          () => `Discarded ${name}: removed ${result.worktreeRemoved}. The conversation stays in ${result.logFile}.`,
        );
      }),
    );

  withGlobals(program.command("stop").description("stop the agent's running turn"))
    .argument("<agent>")
    .action(
      action(async (name: string, options: GlobalOptions) => {
        const record = agentRecordSchema.parse(
          await withCompanion((client) => client.request("agent.stop", { project: projectDir(options), name })),
        );
        output(options, record, () => `${record.name} is ${record.status}.`);
      }),
    );
}

function showText(record: AgentRecord, events: AgentEvent[], corrupt: number): string {
  const head = [
    `${record.name} · ${record.status} · ${record.harness} (${record.account}) · ${record.mode}`,
    `  task:     ${record.task.split("\n")[0]}`,
    `  worktree: ${record.worktree}`,
    `  branch:   ${record.branch} (base ${record.base.slice(0, 8)})`,
    `  port:     ${record.port}`,
    `  elapsed:  ${elapsed(record.createdAt)} since start, ${record.turns} turn(s)`,
    ...(record.sessionId ? [`  session:  ${record.sessionId}`] : []),
    ...(record.lastError ? [`  ⚠ ${record.lastError}`] : []),
    ...(corrupt > 0
      ? [`  ⚠ ${corrupt} line(s) of the chat log could not be read; they are kept in the file as they are.`]
      : []),
  ];
  const body = events.map(renderEvent).filter((line): line is string => line !== undefined);
  return [...head, ...body].join("\n");
}
