import { needsCompanion, type AgentStatus } from "../../core/foundation/model.js";
import { countStatuses, type Snapshot, type SnapshotQuota } from "../../core/companion/snapshot.js";
import { expireWindow } from "../../core/quota/pipeline.js";
import { elapsedShort, titleCase } from "../../core/foundation/format.js";
import { limitedUntilText } from "../../core/foundation/time-words.js";
import { LIMITS_ONLY, paceText, signInCommand, STALE_AFTER_MS } from "../../core/logins/login-quota.js";
import { windowText } from "../../core/quota/quota-window.js";
import { visible } from "../../core/foundation/visible.js";

/**
 * Agent Quota (menu bar) as data: the title, who needs the user, and each login's windows.
 * Built from the companion's snapshot alone, so the menu paints from one file read.
 */

export interface MenuAgent {
  project: string;
  projectName: string;
  /** As the menu shows it: host:agent for another machine's. */
  name: string;
  /** The agent's own name (what the Agents command is opened on). */
  agent: string;
  harness: string;
  /** What it waits for: the command to approve or the question. */
  waitingFor: string;
  /** An approval can be answered from the menu (Approve, Deny); a question is answered in Agents. */
  kind: "approval" | "question";
  /** The request's id, when the CLI gave one (several may wait in one turn). */
  requestId?: string;
  /** The machine it runs on, when not this one; `name` is then host:agent. */
  host?: string;
}

export interface MenuLogin {
  label: string;
  title: string;
  /** "5-Hour 23% used · resets 21:00 (20m ago)": one line per window (quota-window.ts). */
  windows: string[];
  /** Lines above the windows: "Signed out: offrun logins login …", "Out ~16:40 at this pace", "No usage data: limits only". */
  notes: string[];
  limited: boolean;
  /** It cannot run until it signs in again (it does not count toward the title's tightest %). */
  signedOut: boolean;
  usedPercent: number | undefined;
}

export interface MenuHarness {
  id: string;
  name: string;
  logins: MenuLogin[];
}

export interface MenuBarModel {
  /**
   * Per CLI of this machine, the used % of its login with the most room ("C 42% · X 20%"), with
   * "⚑1" before it while an agent needs the user.
   */
  title: string | undefined;
  /** Which icon: someone needs you, a login is limited, or all is well. */
  state: "needs-you" | "limited" | "ok" | "no-data";
  tooltip: string;
  needsYou: MenuAgent[];
  harnesses: MenuHarness[];
  counts: Partial<Record<AgentStatus, number>>;
  /** No snapshot, or the companion that wrote it is gone. */
  companionDown: boolean;
  /** Agents whose turn the companion carried when it went away (shown as failed: interrupted). */
  interrupted: number;
}

/** The title's short name of a CLI: "C 42% · X 20%". */
const CLI_LETTERS: Record<string, string> = {
  claude: "C",
  codex: "X",
  gemini: "G",
  opencode: "O",
  pi: "Pi",
  agy: "A",
  grok: "Gk",
};
const cliLetter = (id: string) => CLI_LETTERS[id] ?? id.slice(0, 2);

/** Most room first: a known use before an unknown one, a signed-out or limited login last. */
function byRoom(a: MenuLogin, b: MenuLogin): number {
  const rank = (l: MenuLogin) => (l.signedOut ? 3 : l.limited ? 2 : l.usedPercent === undefined ? 1 : 0);
  return rank(a) - rank(b) || (a.usedPercent ?? 0) - (b.usedPercent ?? 0);
}

/** "limited until 21:00" as a line of its own: "Limited until 21:00". */
const upperFirst = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

function windowLine(window: SnapshotQuota["windows"][number], now: number): string {
  const age = now - Date.parse(window.observedAt);
  const stale = age > STALE_AFTER_MS ? ` (${elapsedShort(window.observedAt, now)} ago)` : "";
  return `${windowText(window, now)}${stale}`;
}

function viewLogin(quota: SnapshotQuota, now: number): MenuLogin {
  const limited = quota.limitedUntil !== undefined && Date.parse(quota.limitedUntil) > now;
  const signedOut = quota.signIn?.state === "signed-out";
  const windows = quota.windows.map((w) => expireWindow(w, new Date(now)));
  const known = windows.map((w) => w.usedPercent).filter((p): p is number => p !== undefined);
  const usedPercent = signedOut ? undefined : limited ? 100 : known.length > 0 ? Math.max(...known) : undefined;
  const lines = windows.map((w) => windowLine(w, now));
  if (limited) lines.unshift(upperFirst(limitedUntilText(quota.limitedUntil, now)));
  const pace = limited || signedOut ? undefined : paceText(quota.pace, now);
  const limitsOnly = !limited && known.length === 0 && quota.coverage === "limits";
  const notes = [
    ...(signedOut ? [`Signed out: ${signInCommand(quota)}`] : []),
    ...(pace ? [upperFirst(pace)] : []),
    ...(limitsOnly ? [upperFirst(LIMITS_ONLY)] : []),
  ];
  // The deciding window (the fullest), with its reset: what the user decides by, on the row itself.
  const deciding = windows.reduce<(typeof windows)[number] | undefined>(
    (worst, w) => (w.usedPercent !== undefined && (worst?.usedPercent ?? -1) < w.usedPercent ? w : worst),
    undefined,
  );
  const summary = signedOut
    ? "signed out"
    : limited
      ? limitedUntilText(quota.limitedUntil, now)
      : deciding
        ? windowText(deciding, now)
        : limitsOnly
          ? "no quota windows: limits only"
          : "not read yet: run an agent on it";
  return {
    label: quota.label,
    title: `${titleCase(quota.label)} · ${summary}`,
    windows: lines,
    notes,
    limited,
    signedOut,
    usedPercent,
  };
}

export function buildMenuBar(
  snapshot: Snapshot | undefined,
  options: { now: number; harnessNames: ReadonlyMap<string, string>; companionAlive: boolean },
): MenuBarModel {
  if (!snapshot) {
    return {
      title: undefined,
      state: "no-data",
      tooltip: "Offrun: the companion has not written its state yet",
      needsYou: [],
      harnesses: [],
      counts: {},
      companionDown: !options.companionAlive,
      interrupted: 0,
    };
  }
  const { now } = options;
  const down = !options.companionAlive;
  // A companion that is gone carries no turn on: what it left working or waiting is interrupted.
  // Another host's agents belong to its own companion: this one being down interrupts none of them.
  const carried = (a: Snapshot["agents"][number]) => a.host === undefined && needsCompanion(a);
  const interrupted = down ? snapshot.agents.filter(carried).length : 0;
  const agents = down
    ? snapshot.agents.map((a) => (carried(a) ? { ...a, status: "failed" as const } : a))
    : snapshot.agents;
  const counts = down ? countStatuses(agents) : snapshot.counts;
  const needsYou = agents
    .filter((a) => a.status === "needs-you")
    .map((a) => ({
      project: a.project,
      projectName: `${a.project.split("/").filter(Boolean).at(-1) ?? a.project}${a.host ? ` on ${a.host}` : ""}`,
      name: a.host ? `${a.host}:${a.name}` : a.name,
      agent: a.name,
      ...(a.host ? { host: a.host } : {}),
      harness: a.harness,
      // The agent's own words, in a menu item of one line: shown, never obeyed.
      waitingFor: visible(a.pending[0]?.text ?? "waiting for you", "line"),
      kind: a.pending[0]?.kind ?? ("question" as const),
      ...(a.pending[0]?.id ? { requestId: a.pending[0].id } : {}),
    }));
  // Grouped by CLI, and by machine: another host's logins are their own group ("Claude Code on devbox").
  const byHarness = new Map<string, { name: string; logins: MenuLogin[] }>();
  for (const quota of snapshot.quota) {
    // A CLI that is not installed has nothing to run on: not in the menu at all.
    if (quota.installed === false) continue;
    const id = quota.host ? `${quota.host}:${quota.harness}` : quota.harness;
    const name = `${options.harnessNames.get(quota.harness) ?? quota.harness}${quota.host ? ` on ${quota.host}` : ""}`;
    const group = byHarness.get(id) ?? { name, logins: [] };
    group.logins.push(viewLogin(quota, now));
    byHarness.set(id, group);
  }
  // Each CLI's logins by room, the most first: the row at the top is the one the next agent gets.
  const harnesses = [...byHarness].map(([id, group]) => ({
    id,
    name: group.name,
    logins: [...group.logins].sort(byRoom),
  }));
  const all = harnesses.flatMap((h) => h.logins);
  const used = all.map((l) => l.usedPercent).filter((p): p is number => p !== undefined);
  const tightest = used.length > 0 ? Math.max(...used) : undefined;
  const limited = all.some((l) => l.limited);
  // What the user decides by: per CLI of this machine, the use of its login with the most room;
  // "needs you" a badge beside it, never instead of it.
  const perCli = harnesses
    .filter((h) => !h.id.includes(":"))
    .flatMap((h) => {
      const best = h.logins.find((l) => l.usedPercent !== undefined);
      return best?.usedPercent === undefined ? [] : [`${cliLetter(h.id)} ${Math.round(best.usedPercent)}%`];
    });
  const badge = needsYou.length > 0 ? `⚑${needsYou.length}` : undefined;
  const title = [badge, perCli.join(" · ")].filter(Boolean).join(" ") || undefined;
  const working = counts.working ?? 0;
  const tightestText = tightest === undefined ? "" : ` · tightest login ${Math.round(tightest)}%`;
  return {
    title,
    state: needsYou.length > 0 ? "needs-you" : limited ? "limited" : "ok",
    tooltip: down
      ? `Offrun · the companion is not running${interrupted > 0 ? ` · ${interrupted} interrupted` : ""}${tightestText}`
      : `Offrun · ${needsYou.length} need you · ${working} working${tightestText}`,
    needsYou,
    harnesses,
    counts,
    companionDown: down,
    interrupted,
  };
}
