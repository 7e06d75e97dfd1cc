import type { TurnInput } from "../types.js";

/**
 * argv for one headless turn (agy 1.1.12 or later; docs/harnesses/agy.md has the sources):
 *   agy [-p=PROMPT] --output-format stream-json --print-timeout 60m --mode accept-edits|plan
 *       [--disable-slash-commands] [--model M] [--effort E] [--conversation ID] [--add-dir D]...
 * - The prompt is attached to the flag, `-p=PROMPT`, as agy's own error asks ("-p took
 *   \"--output-format\" as its prompt … Attach the prompt to the flag"), so no prompt, however it
 *   starts, is read as a flag. A long prompt goes on stdin instead (1.1.2+ enters print mode by
 *   itself then).
 * - `--print-timeout` bounds agy's own wait: before 1.2.7 print mode stopped after 5 minutes by
 *   default, and since 1.2.1 agy retries an exhausted quota until this timeout (the live turn's
 *   watchdog ends such a turn long before).
 * - `--mode plan` (honoured headless from 1.1.12) refuses edit tools but not shell commands, so
 *   Offrun's post-turn check still guards Planner. It is inert together with
 *   `--disable-slash-commands` (measured on 1.1.13), so Planner turns leave that flag out and keep
 *   the prompt from starting with "/" instead; Build turns pass it (1.1.9+ expands slash commands
 *   in print mode).
 * - `--model` and `--effort` take effect headless from 1.1.10. Offrun has one model field: "low",
 *   "medium" or "high" alone is an effort, and a model id ending in one of them also gets that
 *   effort, as T3 Code passes them.
 */
export const AGY_PRINT_TIMEOUT = "60m";
const EFFORTS = ["low", "medium", "high"] as const;

export function agyTurnArgs(
  input: Pick<TurnInput, "prompt" | "mode" | "model" | "addDirs" | "resumeSessionId" | "promptViaStdin">,
): string[] {
  const args = input.promptViaStdin ? [] : [`-p=${agyPrompt(input)}`];
  args.push("--output-format", "stream-json", "--print-timeout", AGY_PRINT_TIMEOUT);
  args.push("--mode", input.mode === "plan" ? "plan" : "accept-edits");
  if (input.mode !== "plan") args.push("--disable-slash-commands");
  args.push(...modelArgs(input.model));
  if (input.resumeSessionId) args.push("--conversation", input.resumeSessionId);
  for (const dir of input.addDirs ?? []) args.push("--add-dir", dir);
  return args;
}

/** The prompt as agy gets it: a Planner prompt never starts with "/" (slash commands stay on there). */
export function agyPrompt(input: Pick<TurnInput, "prompt" | "mode">): string {
  return input.mode === "plan" && input.prompt.startsWith("/") ? ` ${input.prompt}` : input.prompt;
}

export function modelArgs(model: string | undefined): string[] {
  if (!model) return [];
  const effort = EFFORTS.find((e) => model === e || model.endsWith(`-${e}`));
  if (model === effort) return ["--effort", effort];
  return ["--model", model, ...(effort ? ["--effort", effort] : [])];
}
