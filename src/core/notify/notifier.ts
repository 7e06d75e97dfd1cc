import path from "node:path";
import notifier from "node-notifier";
import * as z from "zod";
import { describeError } from "../foundation/errors.js";
import { userPaths } from "../foundation/paths.js";
import { KeyedQueue } from "../foundation/queue.js";
import { readJsonFile } from "../foundation/store.js";
import { visible } from "../foundation/visible.js";
import { NOTIFICATION_KINDS, type AgentNotification, type NotificationKind } from "./classify.js";
import { agentDeeplink, raycastIsInstalled } from "./deeplink.js";

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected "HH:MM" (24-hour)');

/** The `notifications` part of `~/.offrun/config.json`; other top-level keys belong to others. */
export const notificationSettingsSchema = z
  .object({
    enabled: z.boolean().default(true),
    kinds: z.partialRecord(z.enum(NOTIFICATION_KINDS), z.boolean()).default({}),
    quietHours: z.object({ from: clock, to: clock }).optional(),
    /** At most one notification per agent this often (needs-approval and question always go through). */
    minIntervalSeconds: z.number().nonnegative().default(30),
  })
  .strict();
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;
const userConfigSchema = z.object({ notifications: notificationSettingsSchema.optional() });

/** These wait on the user: a rate limit must never hide them. */
const ALWAYS_THROUGH: readonly NotificationKind[] = ["needs-approval", "question"];
/** How many recent notifications are kept for the menu bar. */
const HISTORY = 50;
/** Dedupe keys kept; old turns never come back, so the oldest are forgotten. */
const SEEN_MAX = 5000;

export type Outcome = "delivered" | "duplicate" | "disabled" | "quiet-hours" | "rate-limited" | "delivery-failed";

export interface NotificationRecord extends AgentNotification {
  outcome: Outcome;
  /** The Raycast deeplink a click opens (on macOS with Raycast; kept on every platform for the menu bar and tests). */
  link?: string;
  /** Why delivery failed (no notify-send, ...), for the log and "Copy Details". */
  error?: string;
}

export interface NotifierOptions {
  log: (line: string) => void;
  /** Folder holding config.json (default: userPaths().home, i.e. ~/.offrun or OFFRUN_HOME). */
  home?: string;
  now?: () => Date;
}

/**
 * Decides which notifications reach the user, and delivers them with node-notifier. The
 * settings file is read on every offer (notifications are rare), so a change needs no restart.
 */
export class Notifier {
  private readonly inOrder = new KeyedQueue();
  private readonly seen = new Set<string>();
  private readonly lastByAgent = new Map<string, number>();
  private readonly history: NotificationRecord[] = [];
  private readonly listeners = new Set<(record: NotificationRecord) => void>();
  private lastConfigProblem: string | undefined;

  constructor(private readonly options: NotifierOptions) {}

  /** The last notifications offered (newest first), with what became of each. */
  recent(): NotificationRecord[] {
    return [...this.history];
  }

  /**
   * Calls `listener` with each notification offered from now on (not duplicates), once it is in
   * `recent()`, so the state snapshot follows without polling. Returns the unsubscribe.
   */
  subscribe(listener: (record: NotificationRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async settings(): Promise<NotificationSettings> {
    const file = path.join(this.options.home ?? userPaths().home, "config.json");
    try {
      const config = await readJsonFile(file, userConfigSchema, "Notifications use the defaults until it is fixed.");
      this.lastConfigProblem = undefined;
      return config?.notifications ?? notificationSettingsSchema.parse({});
    } catch (error) {
      // Said once per distinct problem: the log must not fill with it on every event.
      const problem = describeError(error);
      if (problem !== this.lastConfigProblem) this.options.log(`notifications: ${problem}`);
      this.lastConfigProblem = problem;
      return notificationSettingsSchema.parse({});
    }
  }

  /**
   * Offers one notification; resolves once it was delivered (or why not). Never throws. Offers are
   * delivered one after another in the order they came: two turn ends of one session a moment
   * apart must not reach the notification centre the wrong way round (seen under load).
   */
  offer(notification: AgentNotification): Promise<NotificationRecord> {
    return this.inOrder.run("offer", () => this.offerNow(notification));
  }

  private async offerNow(notification: AgentNotification): Promise<NotificationRecord> {
    const { host, project, agent } = notification;
    // Two reviews of one turn are two notifications, as two requests are.
    const key = [
      host,
      project,
      agent,
      notification.kind,
      notification.turn,
      notification.requestId,
      notification.review,
    ]
      .map((part) => String(part ?? ""))
      .join("\u0000");
    const link = agentDeeplink(notification);
    if (this.seen.has(key)) return { ...notification, outcome: "duplicate", link };
    this.remember(key);

    const settings = await this.settings();
    const now = (this.options.now ?? (() => new Date()))();
    const agentKey = `${host ?? ""}\u0000${project}\u0000${agent}`;
    const last = this.lastByAgent.get(agentKey);
    let outcome: Outcome | undefined;
    if (!settings.enabled || settings.kinds[notification.kind] === false) outcome = "disabled";
    else if (settings.quietHours && isWithin(now, settings.quietHours)) outcome = "quiet-hours";
    else if (
      !ALWAYS_THROUGH.includes(notification.kind) &&
      // A review the user started from Raycast comes back only as this notification: never held back.
      notification.review === undefined &&
      last !== undefined &&
      now.getTime() - last < settings.minIntervalSeconds * 1000
    )
      outcome = "rate-limited";

    let record: NotificationRecord;
    if (outcome) record = { ...notification, outcome, link };
    else {
      this.lastByAgent.set(agentKey, now.getTime());
      const error = await deliver(notification, link);
      record = error
        ? { ...notification, outcome: "delivery-failed", error, link }
        : { ...notification, outcome: "delivered", link };
      if (error) this.options.log(`notification "${notification.title}" could not be shown: ${error}`);
    }
    this.history.unshift(record);
    this.history.length = Math.min(this.history.length, HISTORY);
    for (const listener of this.listeners) {
      // A listener's failure is its own: offer() never throws.
      try {
        listener(record);
      } catch (error) {
        this.options.log(`notifications: a listener failed: ${describeError(error)}`);
      }
    }
    return record;
  }

  private remember(key: string): void {
    this.seen.add(key);
    if (this.seen.size > SEEN_MAX) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
  }
}

/** Whether `now` (local time) is in [from, to); a range past midnight (22:00-07:00) wraps. */
export function isWithin(now: Date, range: { from: string; to: string }): boolean {
  const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  const at = now.getHours() * 60 + now.getMinutes();
  const from = minutes(range.from);
  const to = minutes(range.to);
  return from <= to ? at >= from && at < to : at >= from || at < to;
}

/**
 * Shows one notification; resolves with the error text, or undefined when it was shown. On
 * Linux node-notifier runs `notify-send` (through a shell, quoting the text itself); a missing
 * notify-send comes back as an error in the callback, and must never take the companion down.
 */
function deliver(notification: AgentNotification, link: string): Promise<string | undefined> {
  // terminal-notifier (macOS) opens `open` on click; notify-send has no click action node-notifier can use.
  const open = raycastIsInstalled() ? { open: link } : {};
  return new Promise((resolve) => {
    try {
      notifier.notify(
        // The body is an agent's words: shown, never obeyed (a bidi override reorders a banner too).
        { title: visible(notification.title, "line"), message: visible(notification.body), wait: false, ...open },
        (error: unknown) => {
          // node-notifier passes notify-send's stderr as the "error" on success: empty means fine.
          resolve(error ? describeError(error) : undefined);
        },
      );
    } catch (error) {
      resolve(describeError(error));
    }
  });
}
