import type { MemoryChangeEvent } from "../core/foundation/events.js";

/** Whose memory a change touched, in words: a write to another agent's memory or to conventions.md stands out. */
export function describeWho(event: Pick<MemoryChangeEvent, "who" | "owner">): string {
  switch (event.who) {
    case "own":
      return "its own memory";
    case "other_agent":
      return `⚠ another agent's memory (${event.owner ?? "?"})`;
    case "conventions":
      return "⚠ conventions.md, shared by every agent";
    case "shared":
      return "⚠ a shared memory file";
    default: {
      const unreachable: never = event.who;
      return String(unreachable);
    }
  }
}

/** A memory_change in `offrun show`: what changed, whose it is, the diff, and how to undo it. */
export function renderMemoryChange(event: MemoryChangeEvent, agent?: string): string {
  const diff = event.diff
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => `      ${line}`)
    .join("\n");
  const undo = agent ? `\n      undo: offrun memory revert ${agent} ${event.id}` : "";
  return `  ✎ memory [${event.id}] ${event.file}: ${describeWho(event)}\n${diff}${undo}`;
}
