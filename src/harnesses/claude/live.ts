import * as z from "zod";
import type { Command } from "../../core/foundation/process.js";
import type { Decision, LiveProcess, LiveTurnIO, PendingRequest, TurnInput } from "../types.js";
import { createClaudeParser } from "./parser.js";

/**
 * A Build turn of Claude Code over its control protocol on stdin/stdout (checked against 2.1.332,
 * recorded in test/fixtures/claude/2.1.332/live-*.jsonl):
 *   claude -p --output-format stream-json --verbose --permission-mode acceptEdits
 *          --input-format stream-json --permission-prompt-tool stdio (--session-id ID | --resume ID)
 * The prompt goes in as `{"type":"user","message":{"role":"user","content":...}}`. acceptEdits keeps
 * Build's meaning (edits in the worktree go ahead); what it would refuse under -p (a command such as
 * `npm install`) arrives as a `control_request` with subtype `can_use_tool` and waits for our
 * `control_response`. AskUserQuestion (the question tool, offered only with stdio prompts) comes
 * the same way, flagged `requires_user_interaction`; the answer goes back as `updatedInput.answers`,
 * keyed by question text, as the CLI's own dialog does.
 */

const controlRequestSchema = z.looseObject({
  type: z.literal("control_request"),
  request_id: z.string(),
  request: z.looseObject({ subtype: z.string() }),
});

const canUseToolSchema = z.looseObject({
  subtype: z.literal("can_use_tool"),
  tool_name: z.string(),
  input: z.record(z.string(), z.unknown()),
  description: z.string().optional(),
  decision_reason: z.string().optional(),
  permission_suggestions: z
    .array(
      z.looseObject({
        type: z.string(),
        rules: z.array(z.looseObject({ toolName: z.string(), ruleContent: z.string().optional() })).optional(),
      }),
    )
    .optional(),
});
type CanUseTool = z.infer<typeof canUseToolSchema>;

const askUserQuestionSchema = z.looseObject({
  questions: z
    .array(z.looseObject({ question: z.string(), options: z.array(z.looseObject({ label: z.string() })).optional() }))
    .min(1),
});

/** The tool Claude Code 2.1.332 uses to ask the user something. */
const QUESTION_TOOL = "AskUserQuestion";

/** `build` is the one-way argv builder of index.ts; the live turn adds the control-protocol flags to it. */
export function createClaudeLive(build: (input: TurnInput) => Command) {
  return {
    async runTurn(input: TurnInput, io: LiveTurnIO): Promise<void> {
      // promptViaStdin leaves the prompt out of argv: it goes in as the first stream-json message.
      const base = build({ ...input, promptViaStdin: true });
      const command: Command = {
        file: base.file,
        args: [...base.args, "--input-format", "stream-json", "--permission-prompt-tool", "stdio"],
        ...(base.cwd ? { cwd: base.cwd } : {}),
        ...(base.env ? { env: base.env } : {}),
      };
      const child = io.spawn(command);
      const parser = createClaudeParser();
      send(child, { type: "user", message: { role: "user", content: input.prompt } });
      const answering = new Set<Promise<void>>();
      for await (const chunk of child.stdout) {
        const line = String(chunk);
        const control = controlRequestSchema.safeParse(parseJson(line));
        if (control.success) {
          const answered: Promise<void> = answer(child, io, control.data).finally(() => answering.delete(answered));
          answering.add(answered);
          continue;
        }
        const events = parser.push(line);
        io.emit(events);
        // The result line ends the turn; with stdin closed, the CLI exits instead of waiting for more.
        if (events.some((e) => e.type === "turn_end")) child.stdin.end();
      }
      await Promise.allSettled(answering);
      io.emit(parser.finish(await child.exited));
    },
  };
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function send(child: LiveProcess, message: unknown): void {
  if (!child.stdin.writableEnded) child.stdin.write(`${JSON.stringify(message)}\n`);
}

async function answer(
  child: LiveProcess,
  io: LiveTurnIO,
  control: z.infer<typeof controlRequestSchema>,
): Promise<void> {
  const respond = (response: Record<string, unknown>) =>
    send(child, {
      type: "control_response",
      response: { subtype: "success", request_id: control.request_id, response },
    });
  const tool = canUseToolSchema.safeParse(control.request);
  if (!tool.success) {
    // Hook callbacks, MCP messages: nothing Offrun registered, so say so rather than leave the CLI waiting.
    send(child, {
      type: "control_response",
      response: {
        subtype: "error",
        request_id: control.request_id,
        error: `Offrun does not handle ${control.request.subtype} requests.`,
      },
    });
    return;
  }
  const request = toPending(tool.data);
  let decision: Decision;
  try {
    decision = await io.decide(request);
  } catch {
    return; // the turn was stopped; the process is being ended
  }
  respond(toResponse(tool.data, request, decision));
}

function toPending(tool: CanUseTool): PendingRequest {
  const questions = tool.tool_name === QUESTION_TOOL ? askUserQuestionSchema.safeParse(tool.input) : undefined;
  if (questions?.success) {
    const text = questions.data.questions
      .map((q) => (q.options?.length ? `${q.question} (${q.options.map((o) => o.label).join(" / ")})` : q.question))
      .join(" ");
    return { id: "", kind: "question", tool: tool.tool_name, input: tool.input, text };
  }
  const what = tool.description ?? JSON.stringify(tool.input);
  return {
    id: "",
    kind: "approval",
    tool: tool.tool_name,
    input: tool.input,
    text: `${tool.tool_name}: ${what}`,
    alwaysKey: alwaysKeyOf(tool),
  };
}

/**
 * The rule Claude itself proposes for "don't ask again" (2.1.332: `{toolName:"Bash",
 * ruleContent:"npm install *"}` → "Bash(npm install *)"), else the tool name.
 */
function alwaysKeyOf(tool: CanUseTool): string {
  for (const suggestion of tool.permission_suggestions ?? []) {
    if (suggestion.type !== "addRules") continue;
    const rule = suggestion.rules?.find((r) => r.toolName === tool.tool_name);
    if (rule) return rule.ruleContent ? `${rule.toolName}(${rule.ruleContent})` : rule.toolName;
  }
  return tool.tool_name;
}

function toResponse(tool: CanUseTool, request: PendingRequest, decision: Decision): Record<string, unknown> {
  switch (decision.kind) {
    case "allow":
      return { behavior: "allow", updatedInput: tool.input };
    case "deny":
      return {
        behavior: "deny",
        message: decision.reason ? `The user said no: ${decision.reason}` : "The user said no.",
      };
    case "answer": {
      if (request.kind === "approval") return { behavior: "deny", message: decision.text };
      const parsed = askUserQuestionSchema.parse(tool.input);
      const answers = Object.fromEntries(parsed.questions.map((q) => [q.question, decision.text]));
      return { behavior: "allow", updatedInput: { ...tool.input, answers } };
    }
  }
}
