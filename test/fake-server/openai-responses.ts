import type http from "node:http";
import { randomUUID } from "node:crypto";
import type { QuotaHeaders, Step } from "./script.js";
import { sse, type Protocol } from "./server.js";

/**
 * The OpenAI Responses wire format as Codex (0.171.0) consumes it: `POST /v1/responses`
 * answered with server-sent events. Source of truth for the shapes: codex-rs
 * `codex-api` (ResponseEvent / ResponseItem) and `openai/codex` sdk/typescript/tests/responsesProxy.ts.
 */
export const responsesProtocol: Protocol = {
  // Codex talks to `<base_url>/responses` for turns; anything else under the base URL
  // (a model list, a compaction call) is answered here too so it never reaches a 404.
  matches: (_method, path) => path.startsWith("/v1/"),
  isAuxiliary: (path, body) => pathOf(path) !== "/v1/responses" || !isTurnRequest(body),
  answerAuxiliary: (res, path, body) => {
    const route = pathOf(path);
    if (route === "/v1/models") {
      // An empty catalog keeps Codex on its bundled model metadata.
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [], models: [] }));
    } else if (route === "/v1/responses" && typeof body === "object" && body !== null) {
      // A model request that is not a turn (request_kind other than "turn"): a short reply.
      stream(res, {}, [messageItem("")]);
    } else {
      // Includes a WebSocket upgrade (a bodiless GET /v1/responses): Codex then falls back to HTTP.
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake server: nothing at ${path}` } }));
    }
  },
  answer: (res, step, body, quota) => answerTurn(res, step, body, quota),
};

function pathOf(path: string): string {
  return path.split("?")[0] ?? path;
}

/**
 * Codex tags every Responses request with `client_metadata["x-codex-turn-metadata"].request_kind`;
 * only "turn" requests are model turns (others, e.g. memory or title work, must not eat a step).
 * A request without the tag but with an `input` list is treated as a turn.
 */
function isTurnRequest(body: unknown): boolean {
  if (!Array.isArray(field(body, "input"))) return false;
  const metadata = field(field(body, "client_metadata"), "x-codex-turn-metadata");
  if (typeof metadata !== "string") return true;
  try {
    const kind = field(JSON.parse(metadata) as unknown, "request_kind");
    return kind === undefined || kind === "turn";
  } catch {
    return true;
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** The `x-codex-*` rate-limit headers Codex records as `token_count.rate_limits` in its rollout. */
function quotaHeaders(quota: QuotaHeaders | undefined): Record<string, string> {
  if (!quota) return {};
  return {
    "x-codex-primary-used-percent": String(quota.fiveHourUsedPercent),
    "x-codex-primary-window-minutes": "300",
    "x-codex-primary-reset-at": String(quota.fiveHourResetsAt),
    "x-codex-secondary-used-percent": String(quota.weeklyUsedPercent),
    "x-codex-secondary-window-minutes": "10080",
    "x-codex-secondary-reset-at": String(quota.weeklyResetsAt),
  };
}

function answerTurn(res: http.ServerResponse, step: Step, body: unknown, quota: QuotaHeaders | undefined): void {
  const headers = quotaHeaders(quota);
  switch (step.kind) {
    case "rate_limit":
      return answerError(
        res,
        429,
        { ...headers, "retry-after": String(step.retryAfterSeconds ?? 1) },
        {
          type: "rate_limit_exceeded",
          code: "rate_limit_exceeded",
          message: "Rate limit reached. Please try again later.",
        },
      );
    case "usage_limit":
      return answerError(res, 429, headers, {
        type: "usage_limit_reached",
        message: "The usage limit has been reached",
        resets_at: step.resetsAt,
        resets_in_seconds: Math.max(0, step.resetsAt - Math.floor(Date.now() / 1000)),
      });
    case "unauthorized":
      return answerError(
        res,
        401,
        {},
        {
          type: "invalid_request_error",
          code: "invalid_api_key",
          message: "Incorrect API key provided.",
        },
      );
    case "text":
      return stream(res, headers, [messageItem(step.text)]);
    case "write_file": {
      const items = step.text === undefined ? [] : [messageItem(step.text)];
      return stream(res, headers, [...items, patchItem(step.path, step.content, body)]);
    }
    case "shell":
      return stream(res, headers, [
        {
          type: "function_call",
          id: `fc_${randomUUID()}`,
          call_id: `call_${randomUUID()}`,
          name: "exec_command",
          arguments: JSON.stringify({ cmd: step.command }),
        },
      ]);
    case "tool":
      return stream(res, headers, [
        {
          type: "function_call",
          id: `fc_${randomUUID()}`,
          call_id: `call_${randomUUID()}`,
          name: step.name,
          arguments: JSON.stringify(step.input),
        },
      ]);
    case "hang":
      // server.ts holds hanging requests open itself; reaching here would be a bug there.
      throw new Error("fake server: the hang step is handled by server.ts");
  }
}

function answerError(
  res: http.ServerResponse,
  status: number,
  headers: Record<string, string>,
  error: Record<string, unknown>,
): void {
  res.writeHead(status, { ...headers, "content-type": "application/json" });
  res.end(JSON.stringify({ error }));
}

function messageItem(text: string): Record<string, unknown> {
  return {
    type: "message",
    role: "assistant",
    id: `msg_${randomUUID()}`,
    content: [{ type: "output_text", text, annotations: [] }],
  };
}

/**
 * A patch that adds the file. Codex 0.171.0 lists `apply_patch` as a freeform (custom) tool for
 * the models it knows; older metadata lists it as a function taking `{input}`, so follow the request.
 */
function patchItem(path: string, content: string, body: unknown): Record<string, unknown> {
  const lines = content.replace(/\n$/, "").split("\n");
  const patch = `*** Begin Patch\n*** Add File: ${path}\n${lines.map((l) => `+${l}`).join("\n")}\n*** End Patch\n`;
  const callId = `call_${randomUUID()}`;
  const tools = field(body, "tools");
  const listsFunction =
    Array.isArray(tools) && tools.some((t) => field(t, "name") === "apply_patch" && field(t, "type") === "function");
  if (listsFunction) {
    return {
      type: "function_call",
      id: `fc_${randomUUID()}`,
      call_id: callId,
      name: "apply_patch",
      arguments: JSON.stringify({ input: patch }),
    };
  }
  return { type: "custom_tool_call", id: `ctc_${randomUUID()}`, call_id: callId, name: "apply_patch", input: patch };
}

/** One streamed response: `response.created`, one `output_item.done` per item, `response.completed`. */
function stream(res: http.ServerResponse, headers: Record<string, string>, items: Record<string, unknown>[]): void {
  const id = `resp_${randomUUID()}`;
  res.writeHead(200, { ...headers, "content-type": "text/event-stream", "cache-control": "no-cache" });
  sse(res, "response.created", { type: "response.created", response: { id } });
  items.forEach((item, index) => {
    sse(res, "response.output_item.done", { type: "response.output_item.done", output_index: index, item });
  });
  sse(res, "response.completed", {
    type: "response.completed",
    response: {
      id,
      usage: {
        input_tokens: 120,
        input_tokens_details: { cached_tokens: 20 },
        output_tokens: 12,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 132,
      },
    },
  });
  res.end();
}

/**
 * An OpenAI endpoint for a Codex home with no login: every request, HTTP or WebSocket upgrade
 * attempt aside, gets the 401 api.openai.com gives a request without a key. Point Codex's
 * built-in provider at it with `openai_base_url` in config.toml (0.171.0 ignores OPENAI_BASE_URL).
 */
export const unauthorizedResponsesProtocol: Protocol = {
  matches: () => true,
  isAuxiliary: () => true,
  answerAuxiliary: (res) => {
    res.writeHead(401, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        error: {
          message: "Missing bearer or basic authentication in header",
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      }),
    );
  },
  answer: () => {
    throw new Error("fake server: the unauthorized protocol answers every request as auxiliary");
  },
};
