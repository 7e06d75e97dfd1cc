import { methods, RequestError } from "@agentclientprotocol/sdk";
import type {
  ClientContext,
  InitializeResponse,
  LoadSessionResponse,
  NewSessionResponse,
  ResumeSessionResponse,
  SessionConfigOption,
  SessionModeState,
  SetSessionConfigOptionRequest,
} from "@agentclientprotocol/sdk";
import * as z from "zod";
import type { ParsedEvent } from "../../core/foundation/events.js";
import type { Mode } from "../../core/foundation/model.js";
import type { TurnInput } from "../types.js";
import type { AcpAgentDefinition } from "./definition.js";
import { AUTH_REQUIRED } from "./failures.js";

/** What opening (or reopening) a session gives the turn. */
export interface OpenedSession {
  sessionId: string;
  modes?: SessionModeState | null;
  configOptions?: SessionConfigOption[] | null;
  /** Remarks for the log: a resume that could not happen, a mode that is missing. */
  notices: ParsedEvent[];
}

export interface SessionHooks {
  /**
   * Called before session/load or session/resume (the agent replays the history, which must not be
   * logged again) and with false when reopening failed. After a success the caller ends it.
   */
  replaying(on: boolean): void;
}

/** `models.currentModelId` (ACP unstable session models; Gemini and OpenCode send it). */
const modelsSchema = z.object({ models: z.object({ currentModelId: z.string() }).passthrough() }).passthrough();

export function modelOf(response: unknown): string | undefined {
  const parsed = modelsSchema.safeParse(response);
  return parsed.success ? parsed.data.models.currentModelId : undefined;
}

/**
 * Runs `request`; when the agent says authentication is required and offers one of the
 * definition's auth methods, authenticates once and tries again.
 */
async function withAuth<T>(
  ctx: ClientContext,
  init: InitializeResponse,
  definition: AcpAgentDefinition,
  request: () => Promise<T>,
): Promise<T> {
  try {
    return await request();
  } catch (error) {
    const offered = new Set((init.authMethods ?? []).map((m) => m.id));
    const methodId = definition.authMethodIds.find((id) => offered.has(id));
    if (!(error instanceof RequestError) || error.code !== AUTH_REQUIRED || methodId === undefined) throw error;
    await ctx.request(methods.agent.authenticate, { methodId });
    return request();
  }
}

/**
 * A new session, or the previous one: session/resume when the agent offers it (no history
 * replay), else session/load (the agent replays the conversation, which the caller mutes).
 * An agent that can do neither, or cannot find the session, gets a new one and the log says so.
 */
export async function openSession(
  ctx: ClientContext,
  init: InitializeResponse,
  definition: AcpAgentDefinition,
  input: TurnInput,
  hooks: SessionHooks,
): Promise<OpenedSession & { model?: string; reopened: boolean }> {
  const caps = init.agentCapabilities ?? {};
  const extraDirs =
    caps.sessionCapabilities?.additionalDirectories && input.addDirs?.length
      ? { additionalDirectories: input.addDirs }
      : {};
  const base = { cwd: input.cwd, mcpServers: [], ...extraDirs };
  const notices: ParsedEvent[] = [];
  const warn = (message: string) => notices.push({ type: "notice", level: "warning", message });

  const resumeId = input.resumeSessionId;
  if (resumeId !== undefined) {
    const how = caps.sessionCapabilities?.resume ? "resume" : caps.loadSession ? "load" : undefined;
    if (how === undefined) {
      warn(
        `${definition.displayName} cannot reopen sessions over ACP (no loadSession): starting a new session, so it does not see the earlier conversation.`,
      );
    } else {
      hooks.replaying(true);
      try {
        const params = { ...base, sessionId: resumeId };
        const response = await withAuth<LoadSessionResponse | ResumeSessionResponse>(ctx, init, definition, () =>
          how === "resume"
            ? ctx.request(methods.agent.session.resume, params)
            : ctx.request(methods.agent.session.load, params),
        );
        return {
          reopened: true,
          sessionId: resumeId,
          modes: response.modes,
          configOptions: response.configOptions,
          notices,
          model: modelOf(response),
        };
      } catch (error) {
        hooks.replaying(false);
        if (error instanceof RequestError && error.code === AUTH_REQUIRED) throw error;
        const why = error instanceof Error ? error.message : String(error);
        warn(
          `${definition.displayName} could not reopen session ${resumeId} (${why}): starting a new session, so it does not see the earlier conversation.`,
        );
      }
    }
  }
  const created = await withAuth<NewSessionResponse>(ctx, init, definition, () =>
    ctx.request(methods.agent.session.new, base),
  );
  return {
    reopened: false,
    sessionId: created.sessionId,
    modes: created.modes,
    configOptions: created.configOptions,
    notices,
    model: modelOf(created),
  };
}

/**
 * The agent's modes: ACP `modes` (Gemini CLI), else a select config option of category "mode"
 * (OpenCode 1.18.33), else the ids the definition knows the agent takes unlisted (Grok Build).
 */
function modeChoices(
  session: Pick<OpenedSession, "modes" | "configOptions">,
  unlisted: readonly string[] | undefined,
): {
  ids: string[];
  current?: string;
  configId?: string;
} {
  if (session.modes) {
    return {
      ids: session.modes.availableModes.map((m) => m.id),
      current: session.modes.currentModeId,
      configId: undefined,
    };
  }
  const option = session.configOptions?.find((o) => o.type === "select" && (o.category === "mode" || o.id === "mode"));
  if (!option || option.type !== "select") {
    // An agent that lists no modes but takes known ids (Grok Build): its current mode is unknown,
    // since a reopened session keeps the mode it was left in, so the mode is always set.
    return { ids: [...(unlisted ?? [])], current: undefined, configId: undefined };
  }
  const ids = option.options.flatMap((o) => ("group" in o ? o.options.map((inner) => inner.value) : [o.value]));
  return { ids, current: option.currentValue, configId: option.id };
}

/**
 * Switches to the mode mapped for Build or Planner. Without a mapped mode the turn runs in the
 * agent's default mode; for Planner the log says that only permission requests are refused.
 */
export async function applyMode(
  ctx: ClientContext,
  definition: AcpAgentDefinition,
  session: Pick<OpenedSession, "sessionId" | "modes" | "configOptions">,
  mode: Mode,
): Promise<ParsedEvent[]> {
  const target = definition.modes[mode];
  const { ids: available, current, configId } = modeChoices(session, definition.unlistedModes);
  const { sessionId } = session;
  if (target === undefined) {
    if (mode === "build") return [];
    return [
      {
        type: "notice",
        level: "warning",
        message: `${definition.displayName} has no ACP mode mapped for Planner${available.length ? ` (it offers: ${available.join(", ")})` : ""}: Offrun refuses its file-changing tool requests, and checks the worktree after the turn.`,
      },
    ];
  }
  if (!available.includes(target)) {
    return [
      {
        type: "notice",
        level: "warning",
        message: `${definition.displayName} does not offer the mode '${target}' mapped for ${mode === "build" ? "Build" : "Planner"}${available.length ? ` (it offers: ${available.join(", ")})` : " (it offers no modes)"}: running in its default mode.`,
      },
    ];
  }
  if (current === target) return [];
  if (configId === undefined) await ctx.request(methods.agent.session.setMode, { sessionId, modeId: target });
  else {
    const params: SetSessionConfigOptionRequest = { sessionId, configId, value: target };
    await ctx.request(methods.agent.session.setConfigOption, params);
  }
  return [];
}
