import { CreateElicitationRequest } from "@agentclientprotocol/sdk";
import type {
  CreateElicitationResponse,
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from "@agentclientprotocol/sdk";
import type { Decision, PendingRequest } from "../types.js";

/** Tool kinds that change files or run commands: never allowed in a Planner turn. */
const CHANGING_KINDS = new Set(["edit", "delete", "move", "execute"]);

/** The tool's name as the agent reports it: its own name, else its kind, else its title. */
export function toolNameOf(request: RequestPermissionRequest): string {
  const call = request.toolCall;
  return call.name || call.kind || call.title || "tool";
}

/** Whether a Planner turn must refuse this request without asking (it would change the worktree). */
export function changesWorktree(request: RequestPermissionRequest): boolean {
  return CHANGING_KINDS.has(request.toolCall.kind ?? "");
}

/**
 * The key `--always` remembers. A command carries its text ("run_shell_command(npm test)"),
 * so allowing one command always does not allow every command; other tools are keyed by name.
 */
export function alwaysKeyOf(request: RequestPermissionRequest): string {
  const name = toolNameOf(request);
  const input = request.toolCall.rawInput;
  const command =
    typeof input === "object" && input !== null && "command" in input && typeof input.command === "string"
      ? input.command
      : undefined;
  return request.toolCall.kind === "execute" && command ? `${name}(${command})` : name;
}

export function permissionRequest(request: RequestPermissionRequest, id: string): PendingRequest {
  const call = request.toolCall;
  const paths = call.locations?.map((l) => l.path).join(", ");
  const text = call.title || `${toolNameOf(request)}${paths ? ` on ${paths}` : ""}`;
  return {
    id,
    kind: "approval",
    tool: toolNameOf(request),
    input: call.rawInput,
    text,
    alwaysKey: alwaysKeyOf(request),
  };
}

function pick(options: PermissionOption[], ...kinds: PermissionOptionKind[]): RequestPermissionResponse | undefined {
  for (const kind of kinds) {
    const option = options.find((o) => o.kind === kind);
    if (option) return { outcome: { outcome: "selected", optionId: option.optionId } };
  }
  return undefined;
}

/**
 * The option that carries the user's decision. "Once" is preferred so Offrun, not the agent,
 * remembers what was allowed always (`alwaysKey` in .offrun/config.json) unless the user asked
 * for always. With no matching option the request is answered as cancelled, which every agent
 * must accept.
 */
export function permissionOutcome(decision: Decision, options: PermissionOption[]): RequestPermissionResponse {
  const chosen =
    decision.kind === "allow"
      ? decision.always
        ? pick(options, "allow_always", "allow_once")
        : pick(options, "allow_once", "allow_always")
      : pick(options, "reject_once", "reject_always");
  return chosen ?? { outcome: { outcome: "cancelled" } };
}

/** An elicitation (a form or a link the agent asks the user about) as a question. */
export function elicitationQuestion(request: CreateElicitationRequest, id: string): PendingRequest {
  if (CreateElicitationRequest.isUrl(request))
    return { id, kind: "question", text: `${request.message}\n${request.url}` };
  if (CreateElicitationRequest.isForm(request)) {
    const fields = Object.entries(request.requestedSchema.properties ?? {}).map(
      ([key, field]) =>
        `- ${key}${"description" in field && typeof field.description === "string" ? `: ${field.description}` : ""}`,
    );
    return { id, kind: "question", text: [request.message, ...fields].join("\n") };
  }
  return { id, kind: "question", text: request.message };
}

/**
 * The user's answer as the agent's form: the text fills the first string field (Offrun asks
 * one free-text question); a link is accepted once the user answers. A denial declines.
 */
export function elicitationAnswer(decision: Decision, request: CreateElicitationRequest): CreateElicitationResponse {
  if (decision.kind === "deny") return { action: "decline" };
  const text = decision.kind === "answer" ? decision.text : "yes";
  if (!CreateElicitationRequest.isForm(request)) return { action: "accept" };
  const field = Object.entries(request.requestedSchema.properties ?? {}).find(([, schema]) => schema.type === "string");
  if (!field) return { action: "decline" };
  return { action: "accept", content: { [field[0]]: text } };
}
