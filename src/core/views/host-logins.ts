import { CompanionClient } from "../companion/client.js";
import type { QuotaRow } from "../companion/protocol-views.js";
import { runningCompanionPid } from "../agents/orphans.js";
import { describeError } from "../foundation/errors.js";
import { knownSignInState, type SignInState } from "../logins/sign-in.js";
import { readHosts, sshCommandText, type Host } from "../remote/hosts-file.js";
import { loginTitle, viewLoginQuota, type LoginQuotaView } from "./login-quota.js";

/**
 * The logins of other machines' CLIs (core/remote), for Agent Accounts and for the Agents view's
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
  { host: string; ok: true; harnesses: HostHarnessLogins[] } | { host: string; ok: false; message: string };

/** Every host's logins, grouped by CLI; a host that does not answer is named with why. */
export async function loadHostLogins(now = Date.now()): Promise<HostLoginsAnswer[]> {
  let hosts: Host[];
  try {
    hosts = await readHosts();
  } catch (error) {
    return [{ host: "hosts.json", ok: false, message: describeError(error) }];
  }
  if (hosts.length === 0) return [];
  const byName = new Map(hosts.map((h) => [h.name, h]));
  const down = (message: string) => hosts.map((h): HostLoginsAnswer => ({ host: h.name, ok: false, message }));
  if ((await runningCompanionPid()) === undefined) {
    return down(
      "The companion is not running, and it keeps the connections to the hosts. Start it with Start Companion.",
    );
  }
  let answer;
  try {
    const client = await CompanionClient.connect();
    try {
      answer = await client.call("hosts.quota", { timeoutMs: QUOTA_ANSWER_MS });
    } finally {
      client.close();
    }
  } catch (error) {
    return down(describeError(error));
  }
  return answer.hosts.map((h): HostLoginsAnswer =>
    h.ok
      ? { host: h.host, ok: true, harnesses: groupByHarness(byName.get(h.host), h.value.logins, now) }
      : { host: h.host, ok: false, message: h.error.message },
  );
}

/** Pure: a host's `quota.list` rows as the views show logins. */
export function groupByHarness(host: Host | undefined, rows: QuotaRow[], now: number): HostHarnessLogins[] {
  const groups = new Map<string, HostHarnessLogins>();
  for (const row of rows) {
    const signIn = knownSignInState(row.signIn.state) ?? "unknown";
    const quota = viewLoginQuota({ ...row, attempts: [], pace: row.pace }, now, {
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
        ? sshCommandText(host, ["accounts", "login", row.harness, row.label])
        : `offrun accounts login ${row.harness} ${row.label}`,
    });
    groups.set(row.harness, group);
  }
  return [...groups.values()];
}
