import { OffrunError } from "./errors.js";

// Words that carry no meaning in a task title.
const STOP_WORDS = new Set(
  (
    "a an the to of and or but in on at by for from with into onto about as is are be been was were " +
    "it its this that these those there here i me my we our us you your please pls kindly can could " +
    "would should will shall must may might just also then so some any all let lets do does did make " +
    "hey hi hello ok okay now need want like get"
  ).split(" "),
);

const MAX_SLUG_WORDS = 4;
const MAX_SLUG_LENGTH = 32;
export const MAX_AGENT_NAME_LENGTH = 48;

/** A short, unique, branch-safe name from a prompt: "Please fix the login bug" -> "fix-login-bug". */
export function slugFromPrompt(prompt: string, existing: ReadonlySet<string>): string {
  const words = prompt
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // "café" -> "cafe"
    .replace(/'/g, "") // "don't" -> "dont"
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "" && !STOP_WORDS.has(word))
    .slice(0, MAX_SLUG_WORDS);
  const base = fitWords(words, MAX_SLUG_LENGTH) || "agent";
  if (!existing.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${fitWords(base.split("-"), MAX_SLUG_LENGTH - suffix.length) || "agent"}${suffix}`;
    if (!existing.has(candidate)) return candidate;
  }
}

/** Joins words with '-' up to `limit` characters, cutting a single long word if it must. */
function fitWords(words: string[], limit: number): string {
  let slug = "";
  for (const word of words) {
    const next = slug === "" ? word : `${slug}-${word}`;
    if (next.length > limit) break;
    slug = next;
  }
  if (slug === "" && words[0]) slug = words[0].slice(0, limit);
  return slug;
}

/**
 * Throws unless `name` is safe as a folder name under .worktrees/ and as the last component of
 * a git branch (the rules of `git check-ref-format` that can apply to it).
 */
export function validateAgentName(name: string): void {
  const problem = agentNameProblem(name);
  if (problem) {
    throw new OffrunError(
      "invalid_input",
      `'${name}' cannot be an agent name: ${problem}. Use lowercase letters, digits and '-', for example 'fix-login'.`,
    );
  }
}

export function agentNameProblem(name: string): string | undefined {
  if (name === "") return "it is empty";
  if (name.length > MAX_AGENT_NAME_LENGTH) return `it is longer than ${MAX_AGENT_NAME_LENGTH} characters`;
  if (/[A-Z]/.test(name)) return "it has uppercase letters";
  if (/\s/.test(name)) return "it has spaces";
  if (/[/\\]/.test(name)) return "it has a slash";
  if (name.startsWith(".")) return "it starts with '.'";
  if (name.startsWith("-")) return "it starts with '-' (it would read as an option)";
  if (name.includes("..")) return "it contains '..'";
  if (name.endsWith(".lock")) return "it ends with '.lock', which git reserves";
  if (name.endsWith(".")) return "it ends with '.'";
  const bad = name.match(/[^a-z0-9._-]/);
  if (bad) return `it contains '${bad[0]}'`;
  return undefined;
}
