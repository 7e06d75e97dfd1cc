import type { EventDraft, ParsedEvent } from "../foundation/events.js";
import { hostRefused, type AllowedHost } from "./policy.js";

type Refusal = Extract<EventDraft, { type: "sandbox_refusal" }>;

/**
 * Finds what the sandbox refused during one turn, from two sources: the runtime's own record
 * (every host the proxy turned away; on macOS every file Seatbelt denied) and the CLI's own tool
 * results (on Linux a write outside the policy fails with EROFS, and a protected path simply is
 * not there, so a tool call that names one is the refusal). Each refusal is reported once a turn.
 */
export class RefusalWatch {
  private readonly seen = new Set<string>();
  private readonly calls = new Map<string, string>();

  constructor(
    /** The runtime's refusal lines recorded since the last call (`deny network-outbound host:port (...)`). */
    private readonly recorded: () => string[],
    /** Paths no read may reach (the policy's denyRead). */
    private readonly protectedPaths: readonly string[],
    private readonly userHome: string,
    /** The turn's hosts: a refused one of the login's own is named with the setting it came from. */
    private readonly hosts: readonly AllowedHost[] = [],
  ) {}

  /** The refusals `event` reveals, and any the runtime recorded since the last look. */
  inspect(event: ParsedEvent): Refusal[] {
    const found: Refusal[] = [];
    if (event.type === "tool_call") this.calls.set(event.id, JSON.stringify(event.input ?? ""));
    if (event.type === "tool_result") {
      for (const target of writesRefusedIn(event.output)) found.push(this.refusal("write", target, event.id));
      const call = this.calls.get(event.id);
      for (const target of call ? this.protectedNamedIn(call) : []) found.push(this.refusal("read", target, event.id));
    }
    if (event.type === "tool_result" || event.type === "turn_end") found.push(...this.fromRuntime());
    return found.filter((refusal) => {
      const key = `${refusal.kind} ${refusal.target}`;
      if (this.seen.has(key)) return false;
      this.seen.add(key);
      return true;
    });
  }

  private refusal(kind: Refusal["kind"], target: string, toolId?: string): Refusal {
    return { type: "sandbox_refusal", kind, target, ...(toolId ? { toolId } : {}) };
  }

  /** The runtime's lines (`deny network-outbound host:port (...)`, Seatbelt's `deny(1) file-write-create /path`). */
  private fromRuntime(): Refusal[] {
    const refusals: Refusal[] = [];
    for (const line of this.recorded()) {
      const match = /deny(?:\(\d+\))? (network-outbound|file-write[\w-]*|file-read[\w-]*) (\S+)/.exec(line);
      if (!match) continue;
      const kind = match[1]!.startsWith("network") ? "network" : match[1]!.startsWith("file-write") ? "write" : "read";
      const listed = kind === "network" ? hostRefused(this.hosts, match[2]!) : undefined;
      refusals.push({
        ...this.refusal(kind, match[2]!),
        ...(listed?.own ? { setting: listed.setting } : {}),
        ...(listed?.own && listed.repository ? { repository: true } : {}),
      });
    }
    return refusals;
  }

  /** Protected paths a tool call names (`~/.ssh/id_ed25519`, `$HOME/.aws/credentials` spelled out too). */
  private protectedNamedIn(call: string): string[] {
    const spelled = call.replace(/(^|[\s"'=:])(?:~|\$HOME|\$\{HOME\})(?=\/)/g, `$1${this.userHome}`);
    const named: string[] = [];
    for (const guarded of this.protectedPaths) {
      const at = spelled.indexOf(guarded);
      if (at < 0) continue;
      const next = spelled[at + guarded.length];
      if (next !== undefined && next !== "/" && !/[\s"'\\]/.test(next)) continue; // a longer name (~/.sshfs)
      named.push(/^[^\s"'\\]*/.exec(spelled.slice(at))![0]);
    }
    return named;
  }
}

/** Paths a write was refused on, as Node, coreutils and shells word EROFS. */
export function writesRefusedIn(output: string): string[] {
  const paths = new Set<string>();
  const patterns = [
    /EROFS: read-only file system, \w+ '([^']+)'/g,
    /cannot (?:touch|create [\w ]+|remove|open) '([^']+)': Read-only file system/g,
    /(\/[^\s:'"]+): Read-only file system/g,
  ];
  for (const pattern of patterns) for (const match of output.matchAll(pattern)) paths.add(match[1]!);
  return [...paths];
}
