import type http from "node:http";
import { randomUUID } from "node:crypto";
import type { Step } from "./script.js";
import { sse, type Protocol } from "./server.js";

/**
 * The OpenAI Chat Completions wire format as OpenCode (1.18.33, through
 * `@ai-sdk/openai-compatible`) and Pi (0.73.1, api "openai-completions") consume it:
 * `POST <baseURL>/chat/completions` with `stream:true`, answered with `data:` chunks whose
 * `choices[0].delta` carries `content` or `tool_calls`, a last chunk with `finish_reason` and
 * `usage`, then `data: [DONE]`. Source of truth: the OpenAI API reference for
 * `chat.completion.chunk`, and `@ai-sdk/openai-compatible`'s chunk schema.
 */
export const chatCompletionsProtocol: Protocol = {
  // Both CLIs append `/chat/completions` to the configured base URL (`<server>/v1`).
  matches: (_method, path) => path.startsWith("/v1/"),
  isAuxiliary: (path, body) => pathOf(path) !== "/v1/chat/completions" || isTitleRequest(body),
  answerAuxiliary: (res, path, body) => {
    if (pathOf(path) === "/v1/chat/completions" && typeof body === "object" && body !== null) {
      // OpenCode's session title: a short plain reply, streamed or not as asked.
      if (field(body, "stream") === true) return stream(res, [{ content: "Fake title" }], "stop");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(completion("Fake title")));
      return;
    }
    if (pathOf(path) === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: FAKE_MODEL, object: "model", owned_by: "fake" }] }));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `fake server: nothing at ${path}` } }));
  },
  answer: (res, step, body) => answerTurn(res, step, body),
};

/** The model id the test homes configure for both CLIs. */
export const FAKE_MODEL = "fake-model";

/**
 * The text of the usage-limit 429. OpenAI's own quota error (`insufficient_quota`) is what both
 * CLIs' OpenAI-compatible clients know; the message names the reset the way a vendor would.
 */
export function usageLimitMessage(resetsAt: number): string {
  return `You have hit your usage limit. Your quota resets at ${new Date(resetsAt * 1000).toISOString()}.`;
}

function pathOf(path: string): string {
  return path.split("?")[0] ?? path;
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * OpenCode 1.18.33 asks for a session title in a request of its own, with no tools and a
 * system prompt that names the job ("You are a title generator"); it must not eat a step.
 */
function isTitleRequest(body: unknown): boolean {
  const messages = field(body, "messages");
  if (!Array.isArray(messages)) return false;
  const tools = field(body, "tools");
  if (Array.isArray(tools) && tools.length > 0) return false;
  return messages.some((m) => field(m, "role") === "system" && /title generator/i.test(textOf(field(m, "content"))));
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => textOf(field(part, "text"))).join("");
  return "";
}

interface ToolSpec {
  name: string;
  properties: string[];
  required: string[];
}

/** The function tools the request lists, with their parameter names. */
function toolsOf(body: unknown): ToolSpec[] {
  const tools = field(body, "tools");
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool) => {
    const fn = field(tool, "function");
    const name = field(fn, "name");
    if (typeof name !== "string") return [];
    const parameters = field(fn, "parameters");
    const properties = field(parameters, "properties");
    const required = field(parameters, "required");
    return [
      {
        name,
        properties: typeof properties === "object" && properties !== null ? Object.keys(properties) : [],
        required: Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : [],
      },
    ];
  });
}

const WRITE_TOOLS = ["write", "write_file", "Write"];
const PATH_FIELDS = ["filePath", "file_path", "path"];
const SHELL_TOOLS = ["bash", "shell", "Bash", "run_shell_command"];

/**
 * Arguments for the CLI's own write tool, with that tool's path field. When the request lists
 * no write tool (a read-only mode), the call names `write` anyway with every usual path field,
 * so the test sees the CLI refuse it.
 */
function writeCall(body: unknown, path: string, content: string): { name: string; args: Record<string, string> } {
  const tool = toolsOf(body).find((t) => WRITE_TOOLS.includes(t.name));
  if (!tool) return { name: "write", args: { filePath: path, path, content } };
  const pathField = PATH_FIELDS.find((f) => tool.properties.includes(f)) ?? "path";
  return { name: tool.name, args: { [pathField]: path, content } };
}

function shellCall(body: unknown, command: string): { name: string; args: Record<string, string> } {
  const tool = toolsOf(body).find((t) => SHELL_TOOLS.includes(t.name));
  const args: Record<string, string> = { command };
  // OpenCode's bash tool requires a description of the command.
  if (tool?.required.includes("description")) args.description = "Runs the scripted command";
  return { name: tool?.name ?? "bash", args };
}

function answerTurn(res: http.ServerResponse, step: Step, body: unknown): void {
  switch (step.kind) {
    case "rate_limit":
      return answerError(
        res,
        { "retry-after": String(step.retryAfterSeconds ?? 1) },
        {
          message: "Rate limit reached for requests. Please try again later.",
          type: "rate_limit_exceeded",
          code: "rate_limit_exceeded",
        },
      );
    case "usage_limit":
      return answerError(
        res,
        {},
        { message: usageLimitMessage(step.resetsAt), type: "insufficient_quota", code: "insufficient_quota" },
      );
    case "unauthorized":
      return answerError(
        res,
        {},
        { message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key" },
        401,
      );
    case "text":
      return stream(res, [{ content: step.text }], "stop");
    case "write_file": {
      const call = writeCall(body, step.path, step.content);
      const text = step.text === undefined ? [] : [{ content: step.text }];
      return stream(res, [...text, toolCallDelta(call.name, call.args)], "tool_calls");
    }
    case "shell": {
      const call = shellCall(body, step.command);
      return stream(res, [toolCallDelta(call.name, call.args)], "tool_calls");
    }
    case "hang":
      // server.ts holds hanging requests open itself; reaching here would be a bug there.
      throw new Error("fake server: the hang step is handled by server.ts");
  }
}

function answerError(
  res: http.ServerResponse,
  headers: Record<string, string>,
  error: Record<string, unknown>,
  status = 429,
): void {
  res.writeHead(status, { ...headers, "content-type": "application/json" });
  res.end(JSON.stringify({ error: { ...error, param: null } }));
}

function toolCallDelta(name: string, args: Record<string, string>): Record<string, unknown> {
  return {
    tool_calls: [
      {
        index: 0,
        id: `call_${randomUUID().slice(0, 8)}`,
        type: "function",
        function: { name, arguments: JSON.stringify(args) },
      },
    ],
  };
}

const USAGE = {
  prompt_tokens: 120,
  completion_tokens: 12,
  total_tokens: 132,
  prompt_tokens_details: { cached_tokens: 20 },
};

/** One streamed completion: a role chunk, one chunk per delta, a finish chunk with usage, `[DONE]`. */
function stream(res: http.ServerResponse, deltas: Record<string, unknown>[], finish: "stop" | "tool_calls"): void {
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null, usage?: unknown) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model: FAKE_MODEL,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...(usage === undefined ? {} : { usage }),
  });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  sse(res, undefined, chunk({ role: "assistant", content: "" }, null));
  for (const delta of deltas) sse(res, undefined, chunk(delta, null));
  sse(res, undefined, chunk({}, finish, USAGE));
  sse(res, undefined, "[DONE]");
  res.end();
}

function completion(text: string): Record<string, unknown> {
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: FAKE_MODEL,
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: USAGE,
  };
}
