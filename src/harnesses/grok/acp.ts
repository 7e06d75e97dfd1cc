import * as z from "zod";
import type { ParsedEvent } from "../../core/foundation/events.js";
import type { AcpAgentDefinition, AcpExtensions, AcpExtensionTurn } from "../acp/definition.js";
import type { Decision, TurnInput } from "../types.js";
import { GROK_BUILD_INSTALL } from "./detect.js";
import { grokAcpFailure } from "./limits.js";

/*
 * Grok Build as an ACP agent, from xAI's published source (xai-org/grok-build 1.0.6; paths below
 * are under crates/codegen/). Nothing here ran against a real `grok`: it does not install here.
 *   `grok agent [-m MODEL] stdio`     agent options go before the transport (xai-grok-pager/docs/user-guide/15-agent-mode.md)
 *   session modes default, plan, ask  xai-grok-tools/src/types/session_mode.rs; session/new and
 *                                     session/load list none (xai-grok-shell/src/agent/mvp_agent/session_setup.rs)
 *   `_x.ai/ask_user_question`         a question with options (xai-grok-tools/.../ask_user_question/types.rs)
 *   `_x.ai/exit_plan_mode`            plan approval (xai-grok-tools/.../exit_plan_mode/types.rs)
 *   `_x.ai/session/prompt_complete`   sent before the session/prompt answer (mvp_agent/acp_agent.rs)
 *   `_meta.usage` on the answer       PromptUsage (xai-grok-shell/src/extensions/notification.rs)
 * The Rust ACP library puts "_" before an extension's name on the wire.
 */

const questionSchema = z
  .object({
    question: z.string(),
    options: z.array(z.object({ label: z.string(), description: z.string().optional() }).passthrough()).default([]),
    multiSelect: z.boolean().nullish(),
  })
  .passthrough();
const askSchema = z
  .object({ sessionId: z.string(), toolCallId: z.string(), questions: z.array(questionSchema), mode: z.string() })
  .passthrough();
const exitPlanSchema = z
  .object({ sessionId: z.string(), toolCallId: z.string(), planContent: z.string().nullish() })
  .passthrough();
const promptCompleteSchema = z
  .object({ sessionId: z.string(), stopReason: z.string().nullish(), agentResult: z.unknown().optional() })
  .passthrough();
const promptUsageSchema = z.object({
  _meta: z.object({
    usage: z
      .object({
        inputTokens: z.number(),
        outputTokens: z.number(),
        cachedReadTokens: z.number().default(0),
        cacheCreationTokens: z.number().default(0),
        costUsdTicks: z.number().optional(),
      })
      .passthrough(),
  }),
});

type Question = z.infer<typeof questionSchema>;

/** The question as one text: each question with its options, numbered when there are several. */
function questionText(questions: Question[]): string {
  return questions
    .map((q, index) => {
      const head = questions.length > 1 ? `${index + 1}. ${q.question}` : q.question;
      const options = q.options.map((o) => `   - ${o.label}${o.description ? `: ${o.description}` : ""}`);
      return [head, ...options].join("\n");
    })
    .join("\n");
}

/**
 * The user's one answer as Grok's `accepted` outcome, keyed by question text: an answer that names
 * an option picks it; anything else is "Other" with the words as notes, which is how Grok's own
 * UI sends free text (format.rs). Several questions take one line each when the answer has as
 * many lines, else the whole answer each.
 */
function acceptedAnswers(questions: Question[], text: string): unknown {
  const lines = text
    .split("\n")
    .map((line) => line.replace(/^\s*\d+[.)]\s*/, "").trim())
    .filter((line) => line !== "");
  const perQuestion = questions.length > 1 && lines.length === questions.length;
  const answers: Record<string, string[]> = {};
  const annotations: Record<string, { notes: string }> = {};
  questions.forEach((q, index) => {
    const said = perQuestion ? lines[index]! : text.trim();
    const option = q.options.find((o) => o.label.toLowerCase() === said.toLowerCase());
    if (option) answers[q.question] = [option.label];
    else {
      answers[q.question] = ["Other"];
      annotations[q.question] = { notes: said };
    }
  });
  return {
    outcome: "accepted",
    answers,
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
}

async function askUserQuestion(raw: unknown, turn: AcpExtensionTurn): Promise<unknown> {
  const params = askSchema.safeParse(raw);
  // A request Offrun cannot read is declined, which Grok's tool takes as "the user declined".
  if (!params.success || params.data.questions.length === 0) return { outcome: "cancelled" };
  const { questions } = params.data;
  let decision: Decision;
  try {
    decision = await turn.ask({ kind: "question", tool: "ask_user_question", text: questionText(questions) });
  } catch {
    return { outcome: "cancelled" }; // the turn was stopped while waiting
  }
  if (decision.kind === "deny") return { outcome: "cancelled" };
  return acceptedAnswers(questions, decision.kind === "answer" ? decision.text : "yes");
}

/** What a Planner turn tells Grok when its plan is ready: the plan stays as it is and nothing is built. */
const PLANNER_FEEDBACK =
  "This is a planning-only turn in Offrun: keep the plan as written, do not change any file, and end your turn.";

async function exitPlanMode(raw: unknown, turn: AcpExtensionTurn): Promise<unknown> {
  const params = exitPlanSchema.safeParse(raw);
  const plan = params.success ? (params.data.planContent ?? "") : "";
  // Grok keeps the session in plan mode on "cancelled" (tool_calls.rs, PlanApprovalOutcome).
  if (turn.mode === "plan") {
    if (plan.trim() !== "") turn.emit([{ type: "text", text: plan }]);
    return { outcome: "cancelled", feedback: PLANNER_FEEDBACK };
  }
  let decision: Decision;
  try {
    decision = await turn.ask({
      kind: "approval",
      tool: "exit_plan_mode",
      input: { planContent: plan },
      text: `Grok Build's plan is ready; allow it to start coding?${plan.trim() ? `\n\n${plan}` : ""}`,
      alwaysKey: "exit_plan_mode",
    });
  } catch {
    return { outcome: "cancelled" };
  }
  if (decision.kind === "allow") return { outcome: "approved" };
  const feedback = decision.kind === "answer" ? decision.text : decision.reason;
  return { outcome: "cancelled", ...(feedback ? { feedback } : {}) };
}

/** How long the session/prompt answer may lag the prompt_complete that precedes it. */
const PROMPT_ANSWER_GRACE_MS = 10_000;

/** The turn's end as prompt_complete says it (`prompt_complete_fields` in sampling/error.rs). */
function promptCompleteEnd(raw: unknown): ParsedEvent[] | undefined {
  const params = promptCompleteSchema.safeParse(raw);
  if (!params.success) return undefined;
  const stop = params.data.stopReason ?? "end_turn";
  const result = typeof params.data.agentResult === "string" ? params.data.agentResult : undefined;
  const lost = "its answer to the prompt never came";
  switch (stop) {
    case "end_turn":
    case "max_tokens":
    case "max_turn_requests":
      return [
        {
          type: "turn_end",
          outcome: "completed",
          ...(stop === "end_turn" ? {} : { reason: `Stopped early: ${stop}.` }),
        },
      ];
    case "cancelled":
      return [{ type: "turn_end", outcome: "cancelled", reason: "The turn was stopped." }];
    case "rate_limit": {
      const message = `Grok Build was rate limited (${lost}).`;
      return [
        { type: "error", kind: "rate_limited", message },
        { type: "turn_end", outcome: "failed", reason: message },
      ];
    }
    default: {
      const message = `Grok Build failed: ${result ?? stop} (${lost}).`;
      return [
        { type: "error", kind: "process_failed", message },
        { type: "turn_end", outcome: "failed", reason: message },
      ];
    }
  }
}

/** Grok's `_meta.usage`: input counts cache reads in (notification.rs), Offrun's does not. */
function promptUsage(response: unknown): ParsedEvent | undefined {
  const parsed = promptUsageSchema.safeParse(response);
  if (!parsed.success) return undefined;
  const usage = parsed.data._meta.usage;
  return {
    type: "usage",
    inputTokens: Math.max(0, usage.inputTokens - usage.cachedReadTokens),
    outputTokens: usage.outputTokens,
    cacheReadTokens: usage.cachedReadTokens,
    cacheWriteTokens: usage.cacheCreationTokens,
    // 1e10 ticks per dollar; absent when Grok scrubbed an incomplete cost.
    ...(usage.costUsdTicks !== undefined ? { costUsd: usage.costUsdTicks / 1e10 } : {}),
  };
}

const extensions: AcpExtensions = {
  requests: {
    "_x.ai/ask_user_question": askUserQuestion,
    "_x.ai/exit_plan_mode": exitPlanMode,
  },
  notifications: {
    "_x.ai/session/prompt_complete": (params, turn) => {
      const events = promptCompleteEnd(params);
      if (events) turn.endUnlessAnswered(events, PROMPT_ANSWER_GRACE_MS);
    },
  },
  promptUsage,
  failure: grokAcpFailure,
};

/** `grok agent [-m MODEL] stdio`: agent options go between `agent` and the transport. */
export function grokAcpArgs(input: Pick<TurnInput, "model">): string[] {
  return ["agent", ...(input.model ? ["-m", input.model] : []), "stdio"];
}

export const grokAcpDefinition: AcpAgentDefinition = {
  id: "grok",
  displayName: "Grok Build",
  command: "grok",
  args: ["agent", "stdio"],
  argsFor: grokAcpArgs,
  env: {},
  homeVariable: "GROK_HOME",
  defaultHome: "~/.grok",
  modes: { build: "default", plan: "plan" },
  unlistedModes: ["default", "plan", "ask"],
  installHint: `Install Grok Build from ${GROK_BUILD_INSTALL} (the npm package @vibe-kit/grok-cli is a different program)`,
  initializeTimeoutMs: 30_000,
  // `cached_token` is the login `grok login` leaves in $GROK_HOME/auth.json (agent/auth_method.rs).
  authMethodIds: ["cached_token"],
  loginHint: "grok login",
  // The model API (xai-grok-env/src/lib.rs, PRODUCTION_ENDPOINTS), the OAuth issuer that refreshes
  // the login's token (xai-grok-shell/src/auth/config.rs), and the API-key endpoint (api.x.ai/v1).
  hosts: ["cli-chat-proxy.grok.com", "auth.x.ai", "api.x.ai"],
  extensions,
};
