import type { ReviewEvent } from "../foundation/events.js";

/** The message `--request-fixes` puts into the author's draft: one item per finding, most severe first. */
export function fixRequest(review: ReviewEvent): string | undefined {
  if (review.outcome !== "completed" || review.findings.length === 0) return undefined;
  const order = ["critical", "major", "minor", "nit"];
  const findings = [...review.findings].sort((a, b) => order.indexOf(a.severity) - order.indexOf(b.severity));
  const who = `${review.reviewer.harness} · ${review.reviewer.account}`;
  return [
    `A review (${who}, ${review.verdict?.replace("_", " ")}) found ${findings.length} thing(s) to fix:`,
    "",
    ...findings.map((f, i) => {
      const where = `${f.file}${f.line === undefined ? "" : `:${f.line}`}`;
      const note = f.onDiff ? "" : " (outside your changes)";
      const fix = f.suggestion ? `\n   Suggested fix: ${f.suggestion}` : "";
      return `${i + 1}. [${f.severity}] ${where}${note}: ${f.message}${fix}`;
    }),
    "",
    "Please fix these, or say why a finding does not apply.",
  ].join("\n");
}
