import type { Command } from "commander";

/** "unknown command 'strat' (did you mean start?)". */
export function unknownCommand(word: string, program: Command): string {
  const shown = program.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  // An old name (an alias, such as accounts) is matched too, and the command's name offered.
  const near = shown
    .flatMap((c) => [c.name(), ...c.aliases()].map((spelling) => ({ name: c.name(), spelling })))
    .map(({ name, spelling }) => ({ name, spelling, distance: editDistance(word.toLowerCase(), spelling) }))
    .filter((c) => c.distance <= Math.max(1, Math.floor(c.spelling.length / 2)))
    .sort((a, b) => a.distance - b.distance)[0];
  return `offrun: unknown command '${word}'${near ? ` (did you mean ${near.name}?)` : ""}`;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const next = [i];
    for (let j = 1; j <= b.length; j += 1)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
