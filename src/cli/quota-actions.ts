import type { QuotaListRow } from "../core/quota/row.js";
import { DEFAULT_LOGIN } from "../core/foundation/login-model.js";
import { quotaReport } from "../core/logins/quota-report.js";
import { readHosts } from "../core/remote/hosts-file.js";
import { limitedUntilText } from "../core/foundation/time-words.js";
import { LIMITS_ONLY, paceText, windowPaceText } from "../core/logins/login-quota.js";
import { windowText } from "../core/quota/quota-window.js";
import { withCompanion } from "./context.js";
import { elapsed, notInstalledLines, table } from "./format.js";
import { screenWidth } from "./fit.js";
import { output, print, projectDir, type GlobalOptions } from "./output.js";

/**
 * offrun quota: per login, its sign-in, each window ("5-Hour 23% used · resets 21:00", as every face
 * writes it: core/quota/quota-window.ts; ◀ marks the one that decides), pace ("1.4× · out ~16:40 at
 * this pace": docs/cli.md explains it), source and age;
 * with hosts added, their logins too (each host time-boxed; one that does not answer is named).
 */
export async function quota(options: GlobalOptions & { refresh?: boolean }): Promise<void> {
  const { rows, customError, notInstalled } = await quotaReport({
    fresh: options.refresh,
    projectRoot: projectDir(options),
  });
  // The built-ins are listed all the same; the bad file is named so it can be fixed.
  if (customError) print(process.stderr, `offrun: custom agents left out: ${customError}\n`);
  const remote = (await readHosts()).length > 0 ? await remoteQuota() : { rows: [], silent: [] };
  for (const s of remote.silent) print(process.stderr, `offrun: ${s.host} did not answer: ${s.message}\n`);
  const now = new Date();
  const data = [...rows, ...remote.rows];
  output(options, data, () => {
    const width = screenWidth();
    // A login of a CLI that is not installed cannot run: it is named in the folded line, never a
    // row that reads SIGNED OUT or unknown for a CLI that is not there (an older host says nothing: shown).
    const lines = [
      table(
        ["LOGIN", "WINDOW", "PACE", "SOURCE", "AGE"],
        data.filter((row) => row.installed !== false).flatMap((row) => rowsOf(row, now)),
        { width },
      ),
    ];
    const folded = notInstalledLines(absentClis(notInstalled, data), { width });
    if (folded.length > 0) lines.push("", ...folded);
    return lines.join("\n");
  });
}

/** The CLIs not installed here (with their added logins) and those of each host, for notInstalledLines. */
function absentClis(here: string[], rows: (QuotaListRow & { host?: string })[]): { name: string; logins: string[] }[] {
  const clis = new Map<string, { name: string; logins: string[] }>(
    here.map((name) => [name, { name, logins: [] }] as const),
  );
  for (const row of rows) {
    if (row.installed !== false) continue;
    const name = row.host ? `${row.host} · ${row.displayName}` : row.displayName;
    const cli = clis.get(name) ?? { name, logins: [] };
    clis.set(name, cli);
    // Only a login the user added: every CLI has its Default.
    if (row.label !== DEFAULT_LOGIN) cli.logins.push(row.label);
  }
  return [...clis.values()];
}

async function remoteQuota(): Promise<{
  rows: (QuotaListRow & { host: string })[];
  silent: { host: string; message: string }[];
}> {
  const answers = await withCompanion((client) => client.call("hosts.quota", {}));
  return {
    rows: answers.hosts.flatMap((h) => (h.ok ? h.value.logins.map((row) => ({ ...row, host: h.host })) : [])),
    silent: answers.hosts.flatMap((h) => (h.ok ? [] : [{ host: h.host, message: h.error.message }])),
  };
}

function rowsOf(row: QuotaListRow & { host?: string }, now: Date): string[][] {
  const name = `${row.host ? `${row.host} · ` : ""}${row.displayName} · ${row.label}`;
  const signedOut = row.signIn.state === "signed-out";
  const rows: string[][] = [];
  if (signedOut) rows.push([name, "SIGNED OUT", "-", `sign in: ${row.signIn.command ?? "-"}`, "-"]);
  if (row.limitedUntil) {
    const until = limitedUntilText(row.limitedUntil, now.getTime());
    rows.push([name, until.replace(/^limited/, "LIMITED"), "-", row.source ?? "offrun", "-"]);
  }
  if (row.windows.length === 0 && !row.limitedUntil && !signedOut) {
    if (row.coverage === "limits") rows.push([name, LIMITS_ONLY, "-", "-", "-"]);
    else {
      const why = row.attempts.map((a) => `${a.source}: ${a.outcome}`).join(", ") || "no source";
      rows.push([name, "unknown", "-", why, "-"]);
    }
  }
  const pace = row.limitedUntil || signedOut ? undefined : paceText(row.pace, now.getTime());
  for (const window of row.windows) {
    const blocking = row.blocking?.kind === window.kind;
    // The window's own pace; the deciding one also says when it runs out at the recent rate.
    const paces = [
      row.limitedUntil || signedOut ? undefined : windowPaceText(window, now.getTime()),
      blocking ? pace : undefined,
    ].filter(Boolean);
    rows.push([
      name,
      `${windowText(window, now.getTime())}${blocking ? " ◀" : ""}`,
      paces.join(" · ") || "-",
      window.source,
      `${elapsed(window.observedAt, now.getTime())} ago`,
    ]);
  }
  return rows;
}
