import { lazy, withHost, withLogin, type Define } from "./define.js";
import type { QuickWord } from "./quick-words.js";

/**
 * The definitions of the commands the quick bundle runs (quick-words.ts): each of them, no other
 * (a word added there and not here, or here and not there, fails tsc). commands.ts lists them among
 * all the others, in the order help shows them.
 */
export const QUICK_COMMANDS: Record<QuickWord, Define> = {
  start: (program) => {
    withLogin(
      withHost(program.command("start").description("start an agent on a task in its own worktree")),
      "the login to use (default: the one with the most headroom)",
    )
      .argument("[prompt...]", "what the agent should do (- reads it from stdin)")
      .option("--prompt-file <file>", "read the prompt from a file")
      .option("--harness <id>", "which agent CLI (claude, codex)")
      .option("--mode <mode>", "build (default) or plan")
      .option("--name <name>", "agent name (default: made from the prompt)")
      .option("--base <ref>", "branch or commit to start from (default: HEAD)")
      .option("--model <model>", "model to ask the CLI for")
      .option("--force", "start even on a login that is limited")
      .option("--sandbox", "run the agent's CLI inside the sandbox (default: the project's sandbox.enabled)")
      .option("--no-sandbox", "run it outside the sandbox even when the project enables it")
      .option("--wait", "block until the turn ends; exit non-zero if it failed")
      .option("--dictated", "the prompt was dictated: spoken names become the code's spellings first (printed)")
      .action(lazy(() => import("./agent-actions.js"), "start"));
  },
  send: (program) => {
    withHost(program.command("send").description("send the next message to an agent (same session)"))
      .argument("<agent>")
      .argument("[message...]", "the message (- reads it from stdin)")
      .option("--prompt-file <file>", "read the message from a file")
      .option("--wait", "block until the turn ends; exit non-zero if it failed")
      .action(lazy(() => import("./agent-actions.js"), "send"));
  },
  handoff: (program) => {
    withLogin(
      withHost(program.command("handoff").description("move an agent to another CLI in the same worktree")),
      "its login (default: the one with the most headroom)",
    )
      .argument("<agent>")
      .argument("[message...]", "what to do next (default: continue the task)")
      .requiredOption("--harness <id>", "the CLI to hand off to")
      .option("--force", "even on a login that is limited")
      .option("--model <model>", "model to ask the CLI for")
      .option("--wait", "block until the turn ends; exit non-zero if it failed")
      .action(lazy(() => import("./agent-actions.js"), "handoff"));
  },
  stop: (program) => {
    withHost(program.command("stop").description("stop the agent's running turn"))
      .argument("<agent>")
      .action(lazy(() => import("./agent-actions.js"), "stop"));
  },
  approve: (program) => {
    withHost(program.command("approve").description("allow (or --deny) what a running agent waits for"))
      .argument("<agent>")
      .option("--deny", "refuse it; the agent is told, with --reason")
      .option("--always", "allow it, and requests like it from now on (kept per user in ~/.offrun/trust.json)")
      .option("--reason <text>", "why, for the agent (with --deny)")
      .option("--request <id>", "which request, when several wait (see offrun show)")
      .action(lazy(() => import("./approval-actions.js"), "approve"));
  },
  answer: (program) => {
    withHost(program.command("answer").description("answer the question a running agent asked"))
      .argument("<agent>")
      .argument("<text...>", "your answer")
      .option("--request <id>", "which question, when several wait (see offrun show)")
      .action(lazy(() => import("./approval-actions.js"), "answer"));
  },
  ls: (program) => {
    withHost(program.command("ls").description("agents of this project"))
      .option("--all", "also the agents you discarded")
      .option("--status <status>", "only agents in this status: working, needs-you, idle, limited, failed, done")
      .option("--cli <id>", "only agents of this agent CLI (claude, codex, gemini, ...)")
      .action(lazy(() => import("./view-actions.js"), "ls"));
  },
  show: (program) => {
    withHost(program.command("show").description("an agent's conversation, status, worktree and branch"))
      .argument("<agent>")
      .action(lazy(() => import("./view-actions.js"), "show"));
  },
  diff: (program) => {
    withHost(program.command("diff").description("changed files and the diff against the agent's base"))
      .argument("<agent>")
      .option("--stat", "only the list of changed files")
      .action(lazy(() => import("./view-actions.js"), "diff"));
  },
  merge: (program) => {
    withHost(
      program.command("merge").description("commit the agent's work on its branch, merge it into the current branch"),
    )
      .argument("<agent>")
      .action(lazy(() => import("./view-actions.js"), "merge"));
  },
  discard: (program) => {
    withHost(program.command("discard").description("remove the agent's worktree (refuses to lose unmerged work)"))
      .argument("<agent>")
      .option("--force", "discard even uncommitted or unmerged work")
      .option("--delete-branch", "also delete the agent's branch")
      .action(lazy(() => import("./view-actions.js"), "discard"));
  },
};
