import { headroom } from "../core/quota/pipeline.js";
import { quotaOfAllLogins, type LoginQuota } from "../core/quota/refresh.js";
import { LIMITS_ONLY, paceText, signInCommand } from "../core/views/login-quota.js";
import { elapsed, table } from "./format.js";
import { output, projectDir, type GlobalOptions } from "./output.js";

/** offrun quota: per login, its sign-in, each window with used %, reset time, pace, source and age. */
export async function quota(options: GlobalOptions & { refresh?: boolean }): Promise<void> {
  const { logins, customError } = await quotaOfAllLogins({ fresh: options.refresh, projectRoot: projectDir(options) });
  // The built-ins are listed all the same; the bad file is named so it can be fixed.
  if (customError) process.stderr.write(`offrun: custom agents left out: ${customError}\n`);
  const now = new Date();
  const data = logins.map(({ account, harness, quota, signIn }) => ({
    ...quota,
    home: account.home,
    headroom: headroom(quota, now) ?? null,
    coverage: harness.quotaCoverage,
    signIn: {
      state: signIn.state,
      ...(signIn.note ? { note: signIn.note } : {}),
      ...(signIn.state === "signed-out" ? { command: signInCommand(account) } : {}),
    },
    pace: quota.limitedUntil ? {} : (quota.pace ?? {}),
  }));
  output(options, data, () =>
    table(
      ["LOGIN", "WINDOW", "USED", "RESETS", "PACE", "SOURCE", "AGE"],
      logins.flatMap((login) => rowsOf(login, now)),
    ),
  );
}

function rowsOf({ account, harness, quota, signIn }: LoginQuota, now: Date): string[][] {
  const name = `${harness.displayName} · ${account.label}`;
  const rows: string[][] = [];
  if (signIn.state === "signed-out") {
    rows.push([name, "SIGNED OUT", "-", "-", "-", `sign in: ${signInCommand(account)}`, "-"]);
  }
  if (quota.limitedUntil) {
    const until = `until ${new Date(quota.limitedUntil).toLocaleString()}`;
    rows.push([name, "LIMITED", "-", until, "-", quota.source ?? "offrun", "-"]);
  }
  if (quota.windows.length === 0 && !quota.limitedUntil && signIn.state !== "signed-out") {
    if (harness.quotaCoverage === "limits") rows.push([name, LIMITS_ONLY, "-", "-", "-", "-", "-"]);
    else {
      const why = quota.attempts.map((a) => `${a.source}: ${a.outcome}`).join(", ") || "no source";
      rows.push([name, "unknown", "-", "-", "-", why, "-"]);
    }
  }
  const pace = quota.limitedUntil || signIn.state === "signed-out" ? undefined : paceText(quota.pace, now.getTime());
  for (const window of quota.windows) {
    const used = window.usedPercent === undefined ? "?" : `${Math.round(window.usedPercent)}%`;
    const blocking = quota.blocking?.kind === window.kind;
    rows.push([
      name,
      `${window.kind}${blocking ? " ◀" : ""}`,
      used,
      window.resetsAt ? new Date(window.resetsAt).toLocaleString() : "-",
      blocking && pace ? pace : "-",
      window.source,
      `${elapsed(window.observedAt, now.getTime())} ago`,
    ]);
  }
  return rows;
}
