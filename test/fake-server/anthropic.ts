import type http from "node:http";
import { randomUUID } from "node:crypto";
import { sse, type Protocol } from "./server.js";
import type { QuotaHeaders, Step } from "./script.js";

/**
 * The Anthropic Messages wire format as Claude Code 2.1.332 accepts it from ANTHROPIC_BASE_URL:
 * `POST /v1/messages?beta=true`, streamed as SSE. Source of truth: the Messages API streaming docs.
 */

interface ToolDefinition {
  name: string;
  properties: string[];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The tools the CLI offered in this request, with their input property names. */
function toolsOf(body: unknown): ToolDefinition[] {
  const tools = record(body)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool) => {
    const name = record(tool)?.name;
    if (typeof name !== "string") return [];
    const properties = record(record(record(tool)?.input_schema)?.properties);
    return [{ name, properties: properties ? Object.keys(properties) : [] }];
  });
}

/**
 * Whether a request is a scripted model turn. 2.1.332 with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
 * sent nothing else in our recordings; older builds sent token counts, non-streamed title requests
 * and tool-less Haiku helper calls, which must not eat a step.
 */
function isModelTurn(path: string, body: unknown): boolean {
  if (!path.startsWith("/v1/messages") || path.startsWith("/v1/messages/")) return false;
  const request = record(body);
  if (request?.stream !== true) return false;
  const model = typeof request.model === "string" ? request.model : "";
  return toolsOf(body).length > 0 || !model.includes("haiku");
}

/** Answers with the model the CLI asked for, as the real API does. */
function modelOf(body: unknown): string {
  const model = record(body)?.model;
  return typeof model === "string" ? model : "claude-sonnet-4-5";
}

/** The `anthropic-ratelimit-unified-*` headers a subscription login sees (utilization is 0..1). */
function quotaHeaders(quota: QuotaHeaders | undefined, status = "allowed"): Record<string, string> {
  if (!quota) return {};
  const p = "anthropic-ratelimit-unified";
  return {
    [`${p}-status`]: status,
    [`${p}-5h-status`]: status,
    [`${p}-5h-utilization`]: String(quota.fiveHourUsedPercent / 100),
    [`${p}-5h-reset`]: String(quota.fiveHourResetsAt),
    [`${p}-7d-status`]: "allowed",
    [`${p}-7d-utilization`]: String(quota.weeklyUsedPercent / 100),
    [`${p}-7d-reset`]: String(quota.weeklyResetsAt),
    [`${p}-representative-claim`]: "five_hour",
    [`${p}-reset`]: String(quota.fiveHourResetsAt),
  };
}

type Block = { type: "text"; text: string } | { type: "tool_use"; name: string; input: Record<string, unknown> };

function usage(): Record<string, number> {
  return { input_tokens: 12, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

/** Streams one assistant message made of `blocks`. */
function streamMessage(
  res: http.ServerResponse,
  model: string,
  blocks: Block[],
  headers: Record<string, string>,
): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
  const id = `msg_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
  sse(res, "message_start", {
    type: "message_start",
    message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, usage: usage() },
  });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      sse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      sse(res, "content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: block.text },
      });
    } else {
      const toolId = `toolu_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
      sse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: toolId, name: block.name, input: {} },
      });
      // The CLI accepts the whole input JSON as a single partial_json delta.
      sse(res, "content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  const stopReason = blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  sse(res, "message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
}

function sendError(
  res: http.ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string>,
): void {
  res.writeHead(status, { "content-type": "application/json", "request-id": `req_${randomUUID()}`, ...headers });
  res.end(JSON.stringify({ type: "error", error: { type, message } }));
}

/** The request's Write tool and its path field: `file_path`, or `path` where its schema says so. */
function writeCall(body: unknown, path: string, content: string): Block {
  const tool = toolsOf(body).find((t) => t.name === "Write");
  const pathField = tool?.properties.find((p) => p === "file_path" || p === "path") ?? "file_path";
  return { type: "tool_use", name: tool?.name ?? "Write", input: { [pathField]: path, content } };
}

export const anthropicProtocol: Protocol = {
  matches: (method, path) => method === "POST" && path.startsWith("/v1/messages"),

  isAuxiliary: (path, body) => !isModelTurn(path, body),

  answerAuxiliary(res, path, body) {
    if (path.startsWith("/v1/messages/count_tokens")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ input_tokens: 42 }));
      return;
    }
    // Titles and other small helper calls: a short text answer, streamed or not as asked.
    const text = "Fake title";
    if (record(body)?.stream === true) {
      streamMessage(res, modelOf(body), [{ type: "text", text }], {});
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: `msg_${randomUUID().replace(/-/g, "").slice(0, 24)}`,
        type: "message",
        role: "assistant",
        model: modelOf(body),
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: usage(),
      }),
    );
  },

  answer(res, step: Step, body, quota) {
    const headers = quotaHeaders(quota);
    switch (step.kind) {
      case "text":
        return streamMessage(res, modelOf(body), [{ type: "text", text: step.text }], headers);
      case "write_file": {
        const blocks: Block[] = step.text ? [{ type: "text", text: step.text }] : [];
        blocks.push(writeCall(body, step.path, step.content));
        return streamMessage(res, modelOf(body), blocks, headers);
      }
      case "shell":
        return streamMessage(
          res,
          modelOf(body),
          [{ type: "tool_use", name: "Bash", input: { command: step.command } }],
          headers,
        );
      case "tool":
        return streamMessage(res, modelOf(body), [{ type: "tool_use", name: step.name, input: step.input }], headers);
      case "rate_limit":
        return sendError(res, 429, "rate_limit_error", "Number of requests has exceeded your rate limit.", {
          ...headers,
          ...(step.retryAfterSeconds === undefined ? {} : { "retry-after": String(step.retryAfterSeconds) }),
        });
      case "usage_limit": {
        const base = quota ?? {
          fiveHourUsedPercent: 100,
          fiveHourResetsAt: step.resetsAt,
          weeklyUsedPercent: 40,
          weeklyResetsAt: step.resetsAt + 6 * 86_400,
        };
        const limited = quotaHeaders(
          { ...base, fiveHourUsedPercent: 100, fiveHourResetsAt: step.resetsAt },
          "rejected",
        );
        return sendError(res, 429, "rate_limit_error", "You have reached your usage limit.", limited);
      }
      case "unauthorized":
        // What the API answers a token it does not accept.
        return sendError(res, 401, "authentication_error", "invalid x-api-key", {});
      case "hang":
        // server.ts answers hangs itself; never reached.
        return;
    }
  },
};
