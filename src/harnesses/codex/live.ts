import path from "node:path";
import * as z from "zod";
import type { Decision, LiveProcess, LiveTurnIO, PendingRequest, TurnInput } from "../types.js";
import { AppServerClient, APP_SERVER_ARGS } from "./app-server-client.js";
import { execItem, quotaEvents } from "./app-server-items.js";
import { createCodexParser } from "./parser.js";

/**
 * A Build turn of Codex through `codex app-server` (JSON-RPC 2.0, one JSON object per line on
 * stdio; shapes from `codex app-server generate-ts` of 0.171.0, recorded in
 * test/fixtures/codex/0.171.0/live-*.jsonl): initialize, initialized, thread/start (or
 * thread/resume with the same thread ids `codex exec` uses), turn/start, then notifications until
 * turn/completed. `approvalPolicy: "untrusted"` makes it ask before any command not on its
 * read-only list (item/commandExecution/requestApproval) and before file changes
 * (item/fileChange/requestApproval). Questions (item/tool/requestUserInput) need the
 * under-development feature default_mode_request_user_input: without it 0.171.0 answers the
 * model's request_user_input call with "unavailable in Default mode".
 * Notifications are turned into `codex exec --json` lines and fed to the exec parser, so both
 * paths share one mapping (limits, failures, tool calls).
 */

const LIVE_ARGS = [
  ...APP_SERVER_ARGS,
  "-c",
  "features.default_mode_request_user_input=true",
  "-c",
  "suppress_unstable_features_warning=true",
];

const threadResultSchema = z.looseObject({ thread: z.looseObject({ id: z.string() }) });
const turnResultSchema = z.looseObject({ turn: z.looseObject({ id: z.string() }) });
const turnCompletedSchema = z.looseObject({
  turn: z.looseObject({ status: z.string(), error: z.looseObject({ message: z.string() }).nullable().optional() }),
});
const errorSchema = z.looseObject({ error: z.looseObject({ message: z.string() }), willRetry: z.boolean() });
const breakdown = z.looseObject({ inputTokens: z.number(), cachedInputTokens: z.number(), outputTokens: z.number() });
const tokenUsageSchema = z.looseObject({ tokenUsage: z.looseObject({ last: breakdown }) });
const commandApprovalSchema = z.looseObject({
  itemId: z.string(),
  command: z.string().nullable().optional(),
  reason: z.string().nullable().optional(),
  commandActions: z
    .array(z.looseObject({ command: z.string().optional() }))
    .nullable()
    .optional(),
});
const fileApprovalSchema = z.looseObject({ itemId: z.string(), grantRoot: z.string().nullable().optional() });
const userInputSchema = z.looseObject({
  questions: z.array(
    z.looseObject({
      id: z.string(),
      question: z.string(),
      options: z
        .array(z.looseObject({ label: z.string() }))
        .nullable()
        .optional(),
    }),
  ),
});

export const codexLive = {
  async runTurn(input: TurnInput, io: LiveTurnIO): Promise<void> {
    const env = input.loginHome === undefined ? { ...input.env } : { ...input.env, CODEX_HOME: input.loginHome };
    const child = io.spawn({ file: input.binary, args: LIVE_ARGS, cwd: input.cwd, env });
    const turn = new AppServerTurn(child, io, input);
    let failure: string | undefined;
    try {
      await turn.run();
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    turn.client.end(); // app-server exits at stdin EOF
    await turn.client.closed;
    // After the exit, so that a stop, timeout or idle kill is what the log says ended the turn.
    const exit = await child.exited;
    // A refused request (a thread this home does not have, say) fails the turn like exec would.
    if (failure !== undefined && !io.signal.aborted)
      turn.pushLine({ type: "turn.failed", error: { message: failure } });
    io.emit(turn.parser.finish(exit));
  },
};

class AppServerTurn {
  readonly parser = createCodexParser();
  readonly client: AppServerClient;
  private readonly fileChanges = new Map<string, string[]>();
  private usage = { input: 0, cached: 0, output: 0 };
  private retries = 0;
  private threadId = "";
  private turnId = "";
  private finished!: () => void;
  private readonly done = new Promise<void>((resolve) => (this.finished = resolve));

  constructor(
    child: LiveProcess,
    private readonly io: LiveTurnIO,
    private readonly input: TurnInput,
  ) {
    this.client = new AppServerClient(child, {
      onNotification: (method, params) => this.notified(method, params),
      onRequest: (id, method, params) => void this.answer(id, method, params),
    });
    // A process that ends early has failed every call still waiting; the turn is over then too.
    void this.client.closed.then(() => this.finished());
  }

  async run(): Promise<void> {
    await this.client.initialize();
    const settings = {
      cwd: this.input.cwd,
      approvalPolicy: "untrusted",
      // Inside Offrun's sandbox Codex's own cannot nest (see codexTurnArgs): Offrun's enforces the mode.
      sandbox: this.input.sandboxed ? "danger-full-access" : "workspace-write",
      ...(this.input.model ? { model: this.input.model } : {}),
      ...(!this.input.sandboxed && this.input.addDirs?.length
        ? { config: { "sandbox_workspace_write.writable_roots": this.input.addDirs } }
        : {}),
    };
    const thread = threadResultSchema.parse(
      this.input.resumeSessionId
        ? await this.client.call("thread/resume", { threadId: this.input.resumeSessionId, ...settings })
        : await this.client.call("thread/start", settings),
    );
    this.threadId = thread.thread.id;
    this.pushLine({ type: "thread.started", thread_id: this.threadId });
    const text = { type: "text", text: this.input.prompt, text_elements: [] };
    const started = turnResultSchema.parse(
      await this.client.call("turn/start", { threadId: this.threadId, input: [text] }),
    );
    this.turnId = started.turn.id;
    await this.done;
  }

  pushLine(line: Record<string, unknown>): void {
    this.io.emit(this.parser.push(JSON.stringify(line)));
  }

  private notified(method: string, params: unknown): void {
    switch (method) {
      case "turn/started":
        return this.pushLine({ type: "turn.started" });
      case "item/started":
      case "item/completed": {
        const item = execItem(params, this.fileChanges);
        if (item) this.pushLine({ type: method === "item/started" ? "item.started" : "item.completed", item });
        return;
      }
      case "thread/tokenUsage/updated": {
        const last = tokenUsageSchema.safeParse(params).data?.tokenUsage.last;
        if (last) {
          this.usage.input += last.inputTokens;
          this.usage.cached += last.cachedInputTokens;
          this.usage.output += last.outputTokens;
        }
        return;
      }
      case "account/rateLimits/updated":
        return this.io.emit(quotaEvents(params));
      case "error": {
        const error = errorSchema.safeParse(params).data;
        if (!error) return;
        if (error.willRetry) {
          this.retries += 1;
          this.io.emit([{ type: "retry", attempt: this.retries, message: error.error.message }]);
        } else this.pushLine({ type: "error", message: error.error.message });
        return;
      }
      case "turn/completed":
        return this.completed(params);
    }
  }

  private completed(params: unknown): void {
    const turn = turnCompletedSchema.safeParse(params).data?.turn;
    if (turn?.status === "completed") {
      const usage = {
        input_tokens: this.usage.input,
        cached_input_tokens: this.usage.cached,
        output_tokens: this.usage.output,
      };
      this.pushLine({ type: "turn.completed", usage });
    } else if (turn?.status === "interrupted") {
      this.io.emit([{ type: "turn_end", outcome: "interrupted", reason: "Codex interrupted the turn." }]);
    } else {
      this.pushLine({
        type: "turn.failed",
        error: { message: turn?.error?.message ?? "Codex ended the turn as failed." },
      });
    }
    this.finished();
  }

  /** The server's requests: approvals and questions go to the user; anything else is refused. */
  private async answer(id: number | string, method: string, params: unknown): Promise<void> {
    const reply = (result: unknown) => this.client.reply(id, result);
    const ask = async (request: Omit<PendingRequest, "id">): Promise<Decision | undefined> => {
      try {
        return await this.io.decide({ id: "", ...request });
      } catch {
        return undefined; // the turn was stopped; the process is being ended
      }
    };
    if (method === "item/commandExecution/requestApproval") {
      const p = commandApprovalSchema.parse(params);
      const actions = (p.commandActions ?? []).map((a) => a.command);
      const command = actions.length > 0 && actions.every(Boolean) ? actions.join(" && ") : (p.command ?? "a command");
      const decision = await ask({
        kind: "approval",
        tool: "shell",
        input: { command },
        text: `run \`${command}\`${p.reason ? ` (${p.reason})` : ""}`,
        alwaysKey: `shell(${command})`,
      });
      if (!decision) return;
      // 0.171.0 lists accept and cancel as choices, but takes "decline": it tells the model the user rejected it.
      reply({ decision: decision.kind === "allow" ? "accept" : "decline" });
      if (decision.kind === "deny" && decision.reason) this.steer(`I declined \`${command}\`: ${decision.reason}`);
    } else if (method === "item/fileChange/requestApproval") {
      const p = fileApprovalSchema.parse(params);
      const paths = this.fileChanges.get(p.itemId) ?? [];
      // Build means edits in the worktree go ahead (as Claude's acceptEdits); others are asked.
      if (!p.grantRoot && paths.length > 0 && paths.every((file) => isInside(this.input.cwd, file))) {
        return reply({ decision: "accept" });
      }
      const decision = await ask({
        kind: "approval",
        tool: "file_change",
        input: { paths },
        text: `change ${paths.join(", ") || "files"}`,
      });
      if (decision) reply({ decision: decision.kind === "allow" ? "accept" : "decline" });
    } else if (method === "item/tool/requestUserInput") {
      const p = userInputSchema.parse(params);
      const text = p.questions
        .map((q) => (q.options?.length ? `${q.question} (${q.options.map((o) => o.label).join(" / ")})` : q.question))
        .join(" ");
      const decision = await ask({ kind: "question", tool: "request_user_input", input: p.questions, text });
      if (!decision) return;
      // No answers tells the model to go on with its best judgment (the tool's own instructions).
      const answers =
        decision.kind === "answer"
          ? Object.fromEntries(p.questions.map((q) => [q.id, { answers: [decision.text] }]))
          : {};
      reply({ answers });
    } else {
      this.client.refuse(id, `Offrun does not handle ${method}.`);
    }
  }

  /** Adds the user's words to the running turn (the decline itself carries no reason). */
  private steer(message: string): void {
    const input = [{ type: "text", text: message, text_elements: [] }];
    this.client
      .call("turn/steer", { threadId: this.threadId, expectedTurnId: this.turnId, input })
      .catch(() => undefined);
  }
}

function isInside(root: string, file: string): boolean {
  const relative = path.relative(path.resolve(root), path.resolve(root, file));
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}
