import path from "node:path";
import * as z from "zod";
import { OffrunError } from "../../core/foundation/errors.js";
import type { QuotaWindow } from "../../core/foundation/events.js";
import { keptSessionScanner, type SessionScanner } from "../shared/session-scanner.js";
import type { QuotaReading, QuotaSource, QuotaSourceContext } from "../../core/foundation/quota-types.js";
import type { ProcessRunner } from "../../core/foundation/runner.js";
import { AppServerClient, AppServerError, APP_SERVER_ARGS } from "./app-server-client.js";
import { CODEX_ROLLOUT_SOURCE, codexRolloutLineQuota } from "./rollout.js";

/**
 * 0.171.0 writes, for each response, an `event_msg` `token_count` line whose `rate_limits` are the
 * response's `x-codex-*` headers ({primary, secondary}.{used_percent, window_minutes, resets_at});
 * a usage-limit 429 still writes one (primary at 100) before `task_complete` carries the error
 * text. `codex app-server` answers the same snapshot live, but only for a ChatGPT login: with an
 * API key it replies "chatgpt authentication required to read rate limits".
 */

const APP_SERVER_SOURCE = "codex-app-server";
const APP_SERVER_TIMEOUT_MS = 10_000;

const latestSchema = z.object({
  at: z.number(),
  windows: z.array(
    z.object({
      kind: z.string(),
      usedPercent: z.number().optional(),
      resetsAt: z.string().optional(),
      status: z.enum(["allowed", "warning", "rejected"]).optional(),
      source: z.string(),
      observedAt: z.string(),
    }),
  ),
});
type Latest = { value?: z.infer<typeof latestSchema> };

/** One scanner per login, kept for the life of the process (the companion's refreshes reuse it). */
export function codexRolloutScanner(home: string, cacheDir: string): SessionScanner<Latest> {
  return keptSessionScanner<Latest>(home, {
    name: "codex-rollout",
    version: 1,
    roots: [path.join(home, "sessions")],
    cacheDir,
    matches: (file) => path.basename(file).startsWith("rollout-") && file.endsWith(".jsonl"),
    // The key of a non-null rate_limits object. A needle starting with '"' makes Buffer#indexOf
    // several times slower (it looks for the first byte first); '_' is rare.
    needles: ['_limits":{'],
    initial: () => ({}),
    fold(latest, line) {
      const windows = codexRolloutLineQuota(line.toString("utf8"));
      if (windows === null) return "corrupt";
      const at = windows ? Date.parse(windows[0]?.observedAt ?? "") : NaN;
      if (!windows || Number.isNaN(at)) return "ignored";
      // Files are read in any order: the newest line wins, whichever file it is in.
      if (latest.value && latest.value.at >= at) return "ignored";
      latest.value = { at, windows };
      return "used";
    },
    encode: (latest) => latest.value ?? null,
    decode: (saved) => {
      if (saved === null) return {};
      const parsed = latestSchema.safeParse(saved);
      return parsed.success ? { value: parsed.data } : undefined;
    },
  });
}

/** Keeps the windows whose reset is ahead; the login is limited while a full one is. */
function current(windows: QuotaWindow[], now: Date): QuotaReading | undefined {
  const ahead = windows.filter((w) => w.resetsAt === undefined || Date.parse(w.resetsAt) > now.getTime());
  if (ahead.length === 0) return undefined;
  const full = ahead.filter((w) => (w.usedPercent ?? 0) >= 100 && w.resetsAt !== undefined);
  const until = full.reduce<number | undefined>((max, w) => Math.max(max ?? 0, Date.parse(w.resetsAt!)), undefined);
  return { windows: ahead, ...(until === undefined ? {} : { limitedUntil: new Date(until).toISOString() }) };
}

async function fromRollouts(context: QuotaSourceContext): Promise<QuotaReading | undefined> {
  const scanner = codexRolloutScanner(context.login.home, context.cacheDir);
  await scanner.refresh(context.changedFiles);
  const latest = scanner.aggregate.value;
  return latest ? current(latest.windows, context.now) : undefined;
}

/** Source of truth: `codex app-server generate-ts` of 0.171.0 (RateLimitWindow, GetAccountRateLimitsResponse). */
const appWindowSchema = z.object({
  usedPercent: z.number(),
  windowDurationMins: z.number().nullable(),
  resetsAt: z.number().nullable(), // epoch seconds
});
const rateLimitsResultSchema = z.object({
  rateLimits: z.object({ primary: appWindowSchema.nullable(), secondary: appWindowSchema.nullable() }),
});
const accountResultSchema = z.object({ account: z.object({ type: z.string() }).nullable() });
function appWindow(slot: "primary" | "secondary", window: z.infer<typeof appWindowSchema>, now: Date): QuotaWindow {
  const minutes = window.windowDurationMins ?? (slot === "primary" ? 300 : 10_080);
  const kind = minutes === 300 ? "five_hour" : minutes === 10_080 ? "seven_day" : `window_${minutes}m`;
  const usedPercent = Math.min(100, Math.max(0, window.usedPercent));
  return {
    kind,
    usedPercent,
    ...(window.resetsAt === null ? {} : { resetsAt: new Date(window.resetsAt * 1000).toISOString() }),
    status: usedPercent >= 100 ? "rejected" : "allowed",
    source: APP_SERVER_SOURCE,
    observedAt: now.toISOString(),
  };
}

/**
 * Asks `codex app-server` through the one client (app-server-client.ts): initialize, then
 * account/read, then account/rateLimits/read when the login is a ChatGPT one. The CLI makes the
 * network call with its own credentials; Offrun never sees them. The process runs through
 * `runner` (the login's, so a sandbox wraps the probe as it wraps a turn), time-boxed as a whole
 * and ended with its process group.
 */
export async function readAppServerRateLimits(
  runner: ProcessRunner,
  binary: string,
  env: NodeJS.ProcessEnv,
  now: Date,
  timeoutMs = APP_SERVER_TIMEOUT_MS,
): Promise<QuotaReading | undefined> {
  const child = runner.piped(
    { file: binary, args: [...APP_SERVER_ARGS], env },
    { timeoutMs, idleTimeoutMs: timeoutMs },
  );
  // Notifications (configWarning, remoteControl/status/changed) are not answers; requests are refused.
  const client = new AppServerClient(child);
  const ended = child.exited.then((result): never => {
    throw result.killedBecause === "timeout" || result.killedBecause === "idle"
      ? new OffrunError("timed_out", `codex app-server did not answer within ${timeoutMs / 1000} s.`)
      : new OffrunError("process_failed", `codex app-server ended before answering (exit ${String(result.exitCode)}).`);
  });
  const ask = async (): Promise<QuotaReading | undefined> => {
    await client.initialize();
    const account = accountResultSchema.safeParse(await client.call("account/read", {}));
    if (account.data?.account?.type !== "chatgpt") return undefined; // API key or no login: no plan limits
    const limits = rateLimitsResultSchema.safeParse(
      await client.call("account/rateLimits/read", { excludeResetCreditDetails: true }),
    );
    if (!limits.success) {
      throw new OffrunError("unreadable_output", "codex app-server answered rate limits in an unknown shape.");
    }
    const { primary, secondary } = limits.data.rateLimits;
    const windows = [
      ...(primary ? [appWindow("primary", primary, now)] : []),
      ...(secondary ? [appWindow("secondary", secondary, now)] : []),
    ];
    return current(windows, now);
  };
  try {
    return await Promise.race([ask(), ended]);
  } catch (error) {
    // 0.171.0 without a ChatGPT login: "... authentication required to read rate limits".
    if (error instanceof AppServerError) {
      if (/authentication required/i.test(error.message)) return undefined;
      throw new OffrunError("unreadable_output", `codex app-server refused ${error.method}: ${error.message}`);
    }
    throw error;
  } finally {
    client.end(); // the app-server exits at stdin EOF; the kill is for one that does not
    child.kill();
    ended.catch(() => undefined);
    await child.exited;
  }
}

async function fromAppServer(context: QuotaSourceContext): Promise<QuotaReading | undefined> {
  if (!context.binary) return undefined;
  return readAppServerRateLimits(context.runner, context.binary, context.env, context.now);
}

/** Quota sources of Codex, most trusted first. */
export const quotaSources: readonly QuotaSource[] = [
  {
    id: CODEX_ROLLOUT_SOURCE,
    description: "The latest token_count rate limits in the login's rollout files (exact, as fresh as the last run).",
    read: fromRollouts,
  },
  {
    id: APP_SERVER_SOURCE,
    description: "Live rate limits from `codex app-server` (ChatGPT logins only; the CLI makes the call).",
    read: fromAppServer,
  },
];
