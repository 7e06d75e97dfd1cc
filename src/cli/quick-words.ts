/**
 * The everyday commands (starting agents, talking to them, looking at them) run from a bundle of
 * their own, build/cli-quick.cjs, about half the size of the one every command is in: a start pays
 * for the size of what it loads (src/cli/boot.ts). Only Node's built-ins here: the boot imports it.
 */
export const QUICK_WORDS = [
  "start",
  "send",
  "handoff",
  "stop",
  "approve",
  "answer",
  "ls",
  "show",
  "diff",
  "merge",
  "discard",
] as const;

export type QuickWord = (typeof QUICK_WORDS)[number];

/**
 * Whether the quick bundle runs this command: its first argument names one of its commands, or
 * asks the version. Anything else (help, a global option first, a typo) goes to the whole CLI,
 * which knows every command.
 */
export function runsQuick(argv: readonly string[]): boolean {
  const first = argv[2];
  return first === "--version" || first === "-V" || (QUICK_WORDS as readonly string[]).includes(first ?? "");
}
