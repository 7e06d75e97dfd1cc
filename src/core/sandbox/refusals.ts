import fs from "node:fs";
import type { ParsedEvent } from "../foundation/events.js";

type Refusal = Extract<ParsedEvent, { type: "sandbox_refusal" }>;

/**
 * Finds what the sandbox refused during one turn, from two sources: the launcher's refusals file
 * (every host the proxy turned away; on macOS every file Seatbelt denied) and the CLI's own tool
 * results (on Linux a write outside the policy fails with EROFS, and a protected path simply is
 * not there, so a tool call that names one is the refusal). Each refusal is reported once a turn.
 */
export class RefusalWatch {
  private offset = 0;
  private readonly seen = new Set<string>();
  private readonly calls = new Map<string, string>();

  constructor(
    private readonly refusalsFile: string,
    /** Paths no read may reach (the policy's denyRead). */
    private readonly protectedPaths: readonly string[],
    private readonly userHome: string,
  ) {}

  /** The refusals `event` reveals, and any the launcher noted since the last look. */
  inspect(event: ParsedEvent): Refusal[] {
    const found: Refusal[] = [];
    if (event.type === "tool_call") this.calls.set(event.id, JSON.stringify(event.input ?? ""));
    if (event.type === "tool_result") {
      for (const target of writesRefusedIn(event.output)) found.push(this.refusal("write", target, event.id));
      const call = this.calls.get(event.id);
      for (const target of call ? this.protectedNamedIn(call) : []) found.push(this.refusal("read", target, event.id));
    }
    if (event.type === "tool_result" || event.type === "turn_end") found.push(...this.fromLauncher());
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

  /** The lines the launcher appended since the last read (`deny network-outbound host:port (...)`, Seatbelt's `deny(1) file-write-create /path`). */
  private fromLauncher(): Refusal[] {
    let text: string;
    try {
      const buffer = fs.readFileSync(this.refusalsFile);
      text = buffer.subarray(this.offset).toString("utf8");
      const complete = text.lastIndexOf("\n") + 1;
      this.offset += Buffer.byteLength(text.slice(0, complete));
      text = text.slice(0, complete);
    } catch {
      return []; // nothing refused yet: the launcher makes the file at the first refusal
    }
    const refusals: Refusal[] = [];
    for (const raw of text.split("\n")) {
      const line = parseLine(raw);
      const match = line && /deny(?:\(\d+\))? (network-outbound|file-write[\w-]*|file-read[\w-]*) (\S+)/.exec(line);
      if (!match) continue;
      const kind = match[1]!.startsWith("network") ? "network" : match[1]!.startsWith("file-write") ? "write" : "read";
      refusals.push(this.refusal(kind, match[2]!));
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

function parseLine(raw: string): string | undefined {
  if (raw.trim() === "") return undefined;
  try {
    const parsed = JSON.parse(raw) as { line?: unknown };
    return typeof parsed.line === "string" ? parsed.line : undefined;
  } catch {
    return undefined; // a torn or foreign line: skipped, never fatal
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
