import type http from "node:http";
import type { Step } from "./script.js";
import { sse, type Protocol } from "./server.js";

/**
 * The Gemini API wire format as Gemini CLI 0.61.0 uses it with GOOGLE_GEMINI_BASE_URL and an API
 * key: model turns are `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, answered with
 * `data: {GenerateContentResponse}` server-sent events. Source of truth: the Gemini API reference
 * (generateContent, countTokens) and @google/genai's types.
 */
export const geminiProtocol: Protocol = {
  matches: (_method, path) => path.startsWith("/v1beta/") || path.startsWith("/v1/"),
  isAuxiliary: (path, body) => !isModelTurn(path, body),
  answerAuxiliary: (res, path, body) => {
    const route = pathOf(path);
    if (route.endsWith(":countTokens")) {
      return json(res, 200, { totalTokens: 42 });
    }
    if (route.endsWith(":generateContent") || route.endsWith(":streamGenerateContent")) {
      // Helper calls (the model router's classifier, next-speaker checks, summaries) get a short
      // JSON-shaped answer they can read; they carry no tools and never consume a step.
      const text = helperAnswer(body);
      const response = { candidates: [candidate([{ text }])], usageMetadata: usage() };
      if (route.endsWith(":streamGenerateContent")) return stream(res, [response]);
      return json(res, 200, response);
    }
    if (route.endsWith("/models") || route.includes("/models?")) return json(res, 200, { models: [] });
    json(res, 404, { error: { code: 404, status: "NOT_FOUND", message: `fake server: nothing at ${path}` } });
  },
  answer: (res, step, body) => answerTurn(res, step, body),
};

function pathOf(path: string): string {
  return path.split("?")[0] ?? path;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

interface ToolDefinition {
  name: string;
  properties: string[];
}

/** The function declarations the CLI offered, with their parameter names. */
function toolsOf(body: unknown): ToolDefinition[] {
  const tools = record(body)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool) => {
    const declarations = record(tool)?.functionDeclarations;
    if (!Array.isArray(declarations)) return [];
    return declarations.flatMap((declaration) => {
      const name = record(declaration)?.name;
      if (typeof name !== "string") return [];
      const schema = record(record(declaration)?.parametersJsonSchema) ?? record(record(declaration)?.parameters);
      const properties = record(schema?.properties);
      return [{ name, properties: properties ? Object.keys(properties) : [] }];
    });
  });
}

/**
 * A model turn is a streamed request that lists tools (the agent's main loop). The CLI's helper
 * requests (routing classifier, next-speaker check, loop detection, compression) list none.
 */
function isModelTurn(path: string, body: unknown): boolean {
  return pathOf(path).endsWith(":streamGenerateContent") && toolsOf(body).length > 0;
}

/** Helper requests ask for JSON with a schema: answer with the fields they read. */
function helperAnswer(body: unknown): string {
  const config = record(record(body)?.generationConfig);
  const schema = record(config?.responseJsonSchema) ?? record(config?.responseSchema);
  const properties = record(schema?.properties);
  if (!properties) return "OK";
  const answer: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) {
    const type = record(schema)?.type;
    if (key === "model_choice") answer[key] = "flash";
    else if (key === "next_speaker") answer[key] = "user";
    else if (type === "number" || type === "integer" || type === "NUMBER" || type === "INTEGER") answer[key] = 10;
    else if (type === "boolean" || type === "BOOLEAN") answer[key] = false;
    else answer[key] = "fake server";
  }
  return JSON.stringify(answer);
}

function usage(): Record<string, number> {
  return { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 };
}

type Part = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

function candidate(parts: Part[]): Record<string, unknown> {
  return { content: { role: "model", parts }, finishReason: "STOP", index: 0 };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** One streamed answer: each response as one `data:` event (no event names, as the API sends). */
function stream(res: http.ServerResponse, responses: Record<string, unknown>[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const response of responses) sse(res, undefined, response);
  res.end();
}

/** Calls the write tool the request lists, with that tool's own path field. */
function writeCall(body: unknown, path: string, content: string): Part {
  const tool = toolsOf(body).find((t) => t.name === "write_file") ?? toolsOf(body).find((t) => /write/i.test(t.name));
  const pathField = tool?.properties.find((p) => p === "file_path" || p === "path" || p === "filePath") ?? "file_path";
  return { functionCall: { name: tool?.name ?? "write_file", args: { [pathField]: path, content } } };
}

function shellCall(body: unknown, command: string): Part {
  const tool =
    toolsOf(body).find((t) => t.name === "run_shell_command") ?? toolsOf(body).find((t) => /shell/i.test(t.name));
  return { functionCall: { name: tool?.name ?? "run_shell_command", args: { command } } };
}

function answerTurn(res: http.ServerResponse, step: Step, body: unknown): void {
  switch (step.kind) {
    case "unauthorized":
      return json(res, 401, {
        error: { code: 401, status: "UNAUTHENTICATED", message: "API key not valid. Please pass a valid API key." },
      });
    case "text":
      return stream(res, [{ candidates: [candidate([{ text: step.text }])], usageMetadata: usage() }]);
    case "write_file": {
      const parts: Part[] = step.text === undefined ? [] : [{ text: step.text }];
      parts.push(writeCall(body, step.path, step.content));
      return stream(res, [{ candidates: [candidate(parts)], usageMetadata: usage() }]);
    }
    case "shell":
      return stream(res, [{ candidates: [candidate([shellCall(body, step.command)])], usageMetadata: usage() }]);
    case "rate_limit":
      // A per-minute quota: 0.61.0 classifies it as retryable (RetryableQuotaError).
      res.setHeader("retry-after", String(step.retryAfterSeconds ?? 1));
      return json(res, 429, {
        error: {
          code: 429,
          status: "RESOURCE_EXHAUSTED",
          message: "Resource has been exhausted (e.g. check quota).",
        },
      });
    case "usage_limit":
      // A daily quota violation: 0.61.0 turns a QuotaFailure whose quotaId says PerDay into
      // TerminalQuotaError("You have exhausted your daily quota on this model.").
      return json(res, 429, {
        error: {
          code: 429,
          status: "RESOURCE_EXHAUSTED",
          message: "You exceeded your current quota, please check your plan and billing details.",
          details: [
            {
              "@type": "type.googleapis.com/google.rpc.QuotaFailure",
              violations: [
                {
                  quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                  quotaId: "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                  quotaDimensions: { location: "global", model: "gemini-2.5-flash" },
                  quotaValue: "250",
                },
              ],
            },
            {
              "@type": "type.googleapis.com/google.rpc.RetryInfo",
              retryDelay: `${Math.max(1, step.resetsAt - Math.floor(Date.now() / 1000))}s`,
            },
          ],
        },
      });
    case "hang":
      throw new Error("fake server: the hang step is handled by server.ts");
  }
}
