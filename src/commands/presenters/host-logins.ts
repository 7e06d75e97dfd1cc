import type { QuotaListRow } from "../../core/quota/row.js";
import type { SignInState } from "../../core/logins/sign-in.js";
import { sshCommandText, type Host } from "../../core/remote/hosts-file.js";
import { askHosts, type HostReply } from "../../core/remote/ask-hosts.js";
import { loginTitle, viewLoginQuota, type LoginQuotaView } from "../../core/logins/login-quota.js";

/**
 * The logins of other machines' CLIs (core/remote), for Agent Logins and for the Agents view's
 * Switch Login and Hand Off on a host's agent. Their sign-ins stay on the host: from here a face
 * can read them (`hosts.quota`, each host time-boxed) and point at the host's own sign-in command.
 */

/**
 * How long a host may take to list its logins: it may ask its CLIs who is signed in, which takes
 * seconds on a busy host. The view shows this Mac's logins meanwhile.
 */
const QUOTA_ANSWER_MS = 10_000;

export interface HostLogin {
  harness: string;
  label: string;
  home: string;
  quota: LoginQuotaView;
  /** "Claude · Work: 23% used, resets 21:00" */
  title: string;
  signIn: { state: SignInState; note?: string };
  /** What the user types here to sign it in there: the CLI's own sign-in on the host, over ssh. */
  signInCommand: string;
}

export interface HostHarnessLogins {
  id: string;
  name: string;
  logins: HostLogin[];
}

export type HostLoginsAnswer =
  { host: string; ok: true; harnesses: HostHarnessLogins[] } | Extract<HostReply<unknown>, { ok: false }>;

/** Every host's logins, grouped by CLI; a host that does not answer is named with why. */
export async function loadHostLogins(now = Date.now()): Promise<HostLoginsAnswer[]> {
  return (await askHosts("hosts.quota", { timeoutMs: QUOTA_ANSWER_MS })).map((h): HostLoginsAnswer =>
    h.ok ? { host: h.host, ok: true, harnesses: groupByHarness(h.entry, h.value.logins, now) } : h,
  );
}

/** Pure: a host's `quota.list` rows as the views show logins. */
export function groupByHarness(host: Host | undefined, rows: QuotaListRow[], now: number): HostHarnessLogins[] {
  const groups = new Map<string, HostHarnessLogins>();
  for (const row of rows) {
    const signIn = row.signIn.state;
    const quota = viewLoginQuota(row, now, {
      signIn,
      coverage: row.coverage,
    });
    const group = groups.get(row.harness) ?? { id: row.harness, name: row.displayName, logins: [] };
    group.logins.push({
      harness: row.harness,
      label: row.label,
      home: row.home,
      quota,
      title: loginTitle(row.displayName, row.label, quota),
      signIn: { state: signIn, ...(row.signIn.note ? { note: row.signIn.note } : {}) },
      signInCommand: host
        ? // `accounts`, the old name that newer hosts keep as an alias: a host of an earlier version knows only it.
          sshCommandText(host, ["accounts", "login", row.harness, row.label])
        : `offrun logins login ${row.harness} ${row.label}`,
    });
    groups.set(row.harness, group);
  }
  return [...groups.values()];
}
