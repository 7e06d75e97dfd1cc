import type { QuotaWindow } from "../foundation/events.js";

/**
 * The window that decides: the fullest one. When the weekly window is full, a 5-hour window at
 * 3% is not headroom. (Its own file: the ledger needs it to keep each login's pace readings, and
 * the pipeline, which reads the ledger, needs it too.)
 */
export function blockingWindow(windows: QuotaWindow[]): QuotaWindow | undefined {
  const known = windows.filter((w) => w.usedPercent !== undefined || w.status === "rejected");
  const severity = (w: QuotaWindow) => (w.status === "rejected" ? 101 : (w.usedPercent ?? 0));
  return known.sort((a, b) => severity(b) - severity(a))[0];
}
