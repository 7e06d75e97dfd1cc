import type { QuotaWindow, ReviewEvent } from "../core/foundation/events.js";
import { describeToolInput } from "../core/foundation/tool-input.js";

/** A review as `offrun show` and `offrun review` print it. */
export function renderReview(review: ReviewEvent): string {
  const who = `${review.reviewer.harness} · ${review.reviewer.account}${review.reviewer.model ? ` · ${review.reviewer.model}` : ""}`;
  const lines = [`\n🔍 review ${review.id} by ${who}: ${headline(review)}`];
  if (review.summary) lines.push(review.summary);
  if (review.reason) lines.push(`  ${review.outcome === "completed" ? "·" : "⚠"} ${review.reason}`);
  for (const finding of review.findings) {
    const where = `${finding.file}${finding.line === undefined ? "" : `:${finding.line}`}`;
    const off = finding.onDiff ? "" : " [not in the diff]";
    lines.push(`  • ${finding.severity} ${where}${off}: ${finding.message}`);
    if (finding.suggestion) lines.push(`      fix: ${finding.suggestion}`);
  }
  if (review.raw !== undefined) {
    lines.push(
      "  the reviewer's answer, as it came:",
      ...indent(review.raw.length > 2000 ? `${review.raw.slice(0, 2000)}…` : review.raw),
    );
  }
  const scope = review.scope;
  lines.push(`  reviewed ${scope.files} file(s) and ${scope.commits} commit(s) since ${scope.base.slice(0, 8)}`);
  for (const attempt of review.blockedWrites) {
    lines.push(
      `  ⊘ the reviewer tried to write (${attempt.tool} ${describeToolInput(attempt.input, 80)}); its read-only mode blocked it`,
    );
  }
  lines.push(`  ${authorLine(review)}`);
  const cost = costLine(review);
  if (cost) lines.push(`  ${cost}`);
  if (review.failedOver?.length) lines.push(`  ${movedOnLine(review.failedOver, review.signedOut ?? [])}`);
  return lines.join("\n");
}

function headline(review: ReviewEvent): string {
  switch (review.outcome) {
    case "completed":
      return (review.verdict ?? "comment").replace("_", " ");
    case "malformed":
      return "NO VERDICT (the reviewer's answer was not a valid review)";
    case "failed":
      return "FAILED (no review; this is not an approval)";
  }
}

function authorLine(review: ReviewEvent): string {
  const checked = review.authorWorktree;
  if (!checked) return "⚠ the author's worktree could not be compared with before the review";
  if (checked.unchanged) return "✓ the author's worktree is byte-for-byte what it was before the review";
  return `⚠ the author's worktree changed during the review: ${checked.changed.join(", ")}`;
}

function costLine(review: ReviewEvent): string | undefined {
  const parts: string[] = [];
  if (review.tokens) {
    const usd = review.tokens.costUsd === undefined ? "" : `, $${review.tokens.costUsd.toFixed(4)}`;
    parts.push(`tokens ${review.tokens.input} in, ${review.tokens.output} out${usd}`);
  }
  const before = quota(review.quotaBefore);
  const after = quota(review.quotaAfter);
  if (before || after) parts.push(`quota ${before ?? "unknown"} → ${after ?? "unknown"}`);
  return parts.length > 0 ? `cost: ${parts.join("; ")}` : undefined;
}

function quota(windows: QuotaWindow[] | undefined): string | undefined {
  const known = (windows ?? []).filter((w) => w.usedPercent !== undefined);
  if (known.length === 0) return undefined;
  return known.map((w) => `${w.kind} ${Math.round(w.usedPercent ?? 0)}%`).join(", ");
}

function indent(text: string): string[] {
  return text.split("\n").map((line) => `    ${line}`);
}

/** The logins the review left, and why: a usage limit, or a login that was not signed in. */
function movedOnLine(failedOver: string[], signedOut: string[]): string {
  if (signedOut.length === 0) return `⇄ moved on after a usage limit on: ${failedOver.join(", ")}`;
  const why = (label: string) => (signedOut.includes(label) ? "not signed in" : "usage limit");
  return `⇄ moved on from: ${failedOver.map((label) => `${label} (${why(label)})`).join(", ")}`;
}
