import { OffrunError } from "../foundation/errors.js";

/** Far beyond any model's context window; a prompt this big is a mistake (a pasted binary, a log). */
export const MAX_PROMPT_BYTES = 8_000_000;

/** A prompt the supervisor accepts: not empty, and not absurdly large. */
export function checkPrompt(prompt: string): void {
  if (prompt.trim() === "")
    throw new OffrunError("invalid_input", "The prompt is empty. Say what the agent should do.");
  const bytes = Buffer.byteLength(prompt, "utf8");
  if (bytes > MAX_PROMPT_BYTES) {
    throw new OffrunError(
      "invalid_input",
      `The prompt is ${(bytes / 1e6).toFixed(1)} MB, more than any model can read (the limit here is ${MAX_PROMPT_BYTES / 1e6} MB). Put the material in a file in the project and ask the agent to read the part it needs.`,
    );
  }
}
