import { headroom } from "../core/quota/pipeline.js";
import { quotaOfAllLogins } from "../core/quota/refresh.js";
import { elapsed, table } from "./format.js";
import { output, type GlobalOptions } from "./output.js";

/** offrun quota: per login, each window with used %, reset time, source and age. */
export async function quota(options: GlobalOptions & { refresh?: boolean }): Promise<void> {
  const logins = await quotaOfAllLogins({ fresh: options.refresh });
  const now = new Date();
  const data = logins.map(({ account, quota }) => ({
    ...quota,
    home: account.home,
    headroom: headroom(quota, now) ?? null,
  }));
  output(options, data, () => {
    const rows: string[][] = [];
    for (const { account, harness, quota } of logins) {
      const name = `${harness.displayName} · ${account.label}`;
      if (quota.limitedUntil) {
        rows.push([
          name,
          "LIMITED",
          "-",
          `until ${new Date(quota.limitedUntil).toLocaleString()}`,
          quota.source ?? "offrun",
          "-",
        ]);
      }
      if (quota.windows.length === 0 && !quota.limitedUntil) {
        const why = quota.attempts.map((a) => `${a.source}: ${a.outcome}`).join(", ") || "no source";
        rows.push([name, "unknown", "-", "-", why, "-"]);
      }
      for (const window of quota.windows) {
        const used = window.usedPercent === undefined ? "?" : `${Math.round(window.usedPercent)}%`;
        const mark = quota.blocking?.kind === window.kind ? " ◀" : "";
        rows.push([
          name,
          `${window.kind}${mark}`,
          used,
          window.resetsAt ? new Date(window.resetsAt).toLocaleString() : "-",
          window.source,
          `${elapsed(window.observedAt, now.getTime())} ago`,
        ]);
      }
    }
    return table(["LOGIN", "WINDOW", "USED", "RESETS", "SOURCE", "AGE"], rows);
  });
}
