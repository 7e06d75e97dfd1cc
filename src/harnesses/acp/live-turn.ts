import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import type { WritableStream as WebWritable } from "node:stream/web";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import type {
  ClientContext,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from "@agentclientprotocol/sdk";
import type { ParsedEvent } from "../../core/foundation/events.js";
import type { LiveProcess, LiveTurnIO, TurnInput } from "../types.js";
import { acpCommand, type AcpAgentDefinition, type AcpExtensionTurn } from "./definition.js";
import { AgentExited, failureEvents, InitializeTimeout } from "./failures.js";
import {
  alwaysKeyOf,
  changesWorktree,
  elicitationAnswer,
  elicitationQuestion,
  permissionOutcome,
  permissionRequest,
  toolNameOf,
} from "./requests.js";
import { applyMode, openSession } from "./session.js";
import { createAcpUpdateMapper, promptUsageEvent } from "./updates.js";

/** A reopened session's replay is over once the agent has been quiet this long (bounded by REPLAY_MAX_MS). */
const REPLAY_QUIET_MS = 300;
const REPLAY_MAX_MS = 10_000;
/** After session/cancel, how long the agent may take to end the prompt before it is killed. */
const CANCEL_GRACE_MS = 5_000;

/** The events a finished prompt ends with: its usage, if any, and the one turn_end. */
function promptEnd(definition: AcpAgentDefinition, response: PromptResponse): ParsedEvent[] {
  const usage = definition.extensions?.promptUsage?.(response) ?? promptUsageEvent(response);
  const events: ParsedEvent[] = usage ? [usage] : [];
  switch (response.stopReason) {
    case "end_turn":
      return [...events, { type: "turn_end", outcome: "completed" }];
    case "cancelled":
      return [...events, { type: "turn_end", outcome: "cancelled", reason: "The turn was stopped." }];
    case "refusal":
      return [...events, { type: "turn_end", outcome: "failed", reason: "The model refused to go on." }];
    default:
      // max_tokens, max_turn_requests: the agent stopped early but the turn itself worked.
      return [...events, { type: "turn_end", outcome: "completed", reason: `Stopped early: ${response.stopReason}.` }];
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new InitializeTimeout(`${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One turn over ACP: spawn, initialize, open or reopen the session, set the mode, prompt, and
 * translate what the agent streams. Every failure after the spawn becomes the turn's one
 * turn_end; the process is always ended when the turn is.
 */
export async function runAcpTurn(definition: AcpAgentDefinition, input: TurnInput, io: LiveTurnIO): Promise<void> {
  let ended = false;
  const emit = (events: ParsedEvent[]) => {
    if (ended || events.length === 0) return;
    const end = events.findIndex((e) => e.type === "turn_end");
    io.emit(end < 0 ? events : events.slice(0, end + 1));
    if (end >= 0) ended = true;
  };

  let proc: LiveProcess;
  try {
    proc = io.spawn(acpCommand(definition, input));
  } catch (error) {
    emit(failureEvents(definition, error, "", new Date()));
    return;
  }
  let stderrTail = "";
  const exited = proc.exited.then((exit) => {
    stderrTail = exit.stderrTail;
    return exit;
  });
  // Rejects when the agent dies first, so no request waits forever on a dead process.
  const died = exited.then((exit): never => {
    throw new AgentExited(exit.signal ? `signal ${exit.signal}` : `exit code ${String(exit.exitCode)}`);
  });
  died.catch(() => undefined);

  const mapper = createAcpUpdateMapper();
  let replaying = false;
  let lastUpdateAt = Date.now();
  let sessionId: string | undefined;
  const ask = async (request: Parameters<LiveTurnIO["decide"]>[0]) => {
    emit(mapper.flush()); // the text before a question belongs before it in the log
    return io.decide(request);
  };

  const answerPermission = async (params: RequestPermissionRequest): Promise<RequestPermissionResponse> => {
    const reject = permissionOutcome({ kind: "deny" }, params.options);
    if (input.mode === "plan" && changesWorktree(params)) {
      emit([...mapper.flush(), { type: "denial", tool: toolNameOf(params), input: params.toolCall.rawInput ?? null }]);
      return reject;
    }
    if (io.alwaysAllowed.includes(alwaysKeyOf(params))) return permissionOutcome({ kind: "allow" }, params.options);
    try {
      return permissionOutcome(
        await ask(permissionRequest(params, `${definition.id}-${randomUUID().slice(0, 8)}`)),
        params.options,
      );
    } catch {
      return { outcome: { outcome: "cancelled" } }; // the turn was stopped while waiting
    }
  };

  // An extension may end the prompt itself when the agent's answer to session/prompt is lost.
  let endPrompt: ((events: ParsedEvent[]) => void) | undefined;
  const promptEnded = new Promise<ParsedEvent[]>((resolve) => (endPrompt = resolve));
  let endTimer: NodeJS.Timeout | undefined;
  const extensionTurn: AcpExtensionTurn = {
    mode: input.mode,
    ask: (request) => ask({ ...request, id: `${definition.id}-${randomUUID().slice(0, 8)}` }),
    emit: (events) => emit([...mapper.flush(), ...events]),
    endUnlessAnswered: (events, graceMs) => {
      clearTimeout(endTimer);
      endTimer = setTimeout(() => endPrompt?.([...mapper.flush(), ...events]), graceMs);
    },
  };

  let app = client({ name: "offrun" })
    .onNotification(methods.client.session.update, ({ params }) => {
      lastUpdateAt = Date.now();
      if (!replaying) emit(mapper.push(params.update));
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => answerPermission(params))
    .onRequest(methods.client.elicitation.create, async ({ params }) => {
      try {
        return elicitationAnswer(
          await ask(elicitationQuestion(params, `${definition.id}-${randomUUID().slice(0, 8)}`)),
          params,
        );
      } catch {
        return { action: "cancel" };
      }
    });
  for (const [method, handle] of Object.entries(definition.extensions?.requests ?? {})) {
    app = app.onRequest(
      method,
      (params: unknown) => params,
      ({ params }) => handle(params, extensionTurn),
    );
  }
  for (const [method, handle] of Object.entries(definition.extensions?.notifications ?? {})) {
    app = app.onNotification(
      method,
      (params: unknown) => params,
      ({ params }) => {
        if (!replaying) handle(params, extensionTurn);
      },
    );
  }

  let cancelTimer: NodeJS.Timeout | undefined;
  let context: ClientContext | undefined;
  const onAbort = () => {
    if (context && sessionId) {
      void context.notify(methods.agent.session.cancel, { sessionId }).catch(() => undefined);
      cancelTimer = setTimeout(() => proc.kill(), CANCEL_GRACE_MS);
    } else {
      proc.kill();
    }
  };

  const replayEnd = async () => {
    const deadline = Date.now() + REPLAY_MAX_MS;
    while (Date.now() - lastUpdateAt < REPLAY_QUIET_MS && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const converse = async (ctx: ClientContext): Promise<ParsedEvent[]> => {
    context = ctx;
    const init = await withTimeout(
      ctx.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        // No fs or terminal: the agent uses its own tools in the worktree, as it does headless.
        clientCapabilities: {
          fs: { readTextFile: false, writeTextFile: false },
          terminal: false,
          elicitation: { form: {} },
        },
        clientInfo: { name: "offrun", version: "1" },
      }),
      definition.initializeTimeoutMs,
    );
    const session = await openSession(ctx, init, definition, input, { replaying: (on) => (replaying = on) });
    sessionId = session.sessionId;
    // Gemini CLI 0.61.0 streams the replay after answering session/load: wait until it is over,
    // counting the quiet time from the answer (its first replayed chunk may come long before).
    lastUpdateAt = Date.now();
    if (session.reopened) await replayEnd();
    replaying = false;
    emit([{ type: "session", sessionId, ...(session.model ? { model: session.model } : {}) }, ...session.notices]);
    emit(await applyMode(ctx, definition, session, input.mode));
    if (io.signal.aborted) onAbort();
    const answered = ctx
      .request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: input.prompt }],
      })
      .then((response) => [...mapper.flush(), ...promptEnd(definition, response)]);
    return Promise.race([answered, promptEnded]);
  };

  io.signal.addEventListener("abort", onAbort);
  if (io.signal.aborted) onAbort();
  try {
    // Node's web stream types differ nominally from the DOM ones the SDK names; the objects are the same.
    const output = Writable.toWeb(proc.stdin) as WebWritable<Uint8Array>;
    // LiveProcess.stdout hands over one line per chunk without its "\n"; ndJsonStream splits
    // on "\n", so the line ends go back on before the SDK reads them.
    const encoder = new TextEncoder();
    const inputStream = new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          for await (const line of proc.stdout) controller.enqueue(encoder.encode(`${String(line)}\n`));
          controller.close();
        } catch (error) {
          controller.error(error);
        }
      },
    });
    const stream = ndJsonStream(output as unknown as WritableStream<Uint8Array>, inputStream);
    emit(await app.connectWith(stream, (ctx) => Promise.race([converse(ctx), died])));
  } catch (error) {
    emit(mapper.flush());
    if (io.signal.aborted) {
      emit([{ type: "turn_end", outcome: "cancelled", reason: "The turn was stopped." }]);
    } else if (error instanceof AgentExited) {
      // The end of stderr explains most early exits; wait briefly for the process to report it.
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      emit(failureEvents(definition, error, stderrTail, new Date()));
    } else {
      // The agent is alive and answered with an error (a limit, a refused sign-in): the turn's end
      // goes first, so ending the process below does not read as a stop by the user.
      emit(failureEvents(definition, error, stderrTail, new Date()));
      proc.kill();
    }
  } finally {
    io.signal.removeEventListener("abort", onAbort);
    clearTimeout(cancelTimer);
    clearTimeout(endTimer);
    proc.kill();
  }
}
