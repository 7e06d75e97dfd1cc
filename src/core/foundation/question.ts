/**
 * The question an assistant turn ends with, if it ends by asking the user something: the last
 * paragraph, when it ends with a question mark (markdown emphasis and quotes around it ignored).
 * Only a turn that completed with no tool call left open can end on a question for the user.
 */
export function trailingQuestion(text: string): string | undefined {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  const last = paragraphs.at(-1);
  if (!last || last.startsWith("```")) return undefined;
  const bare = last.replace(/[*_`"'”’)\]\s]+$/u, "");
  if (!bare.endsWith("?")) return undefined;
  return last.length > 500 ? `…${last.slice(-499)}` : last;
}
