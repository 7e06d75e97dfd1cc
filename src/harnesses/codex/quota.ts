import path from "node:path";
import { execa } from "execa";
import { z } from "zod";
import { OffrunError } from "../../core/foundation/errors.js";
import type { QuotaWindow } from "../../core/foundation/events.js";
import { SessionScanner } from "../../core/foundation/session-scanner.js";
import type { QuotaReading, QuotaSource, QuotaSourceContext } from "../../core/foundation/quota-types.js";
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

const scanners = new Map<string, SessionScanner<Latest>>();

/** One scanner per login, kept for the life of the process (the companion's refreshes reuse it). */
export function codexRolloutScanner(home: string, cacheDir: string): SessionScanner<Latest> {
  const key = `${home}\0${cacheDir}`;
  const known = scanners.get(key);
  if (known) return known;
  const scanner = new SessionScanner<Latest>({
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
  scanners.set(key, scanner);
  return scanner;
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
  const scanner = codexRolloutScanner(context.account.home, context.cacheDir);
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
/** A response to one of our requests; the server's own requests (with a method) are not answers. */
const responseSchema = z.object({
  id: z.number(),
  method: z.undefined().optional(),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string() }).optional(),
});

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
 * Asks `codex app-server` (JSON-RPC, one JSON object per line on stdio): initialize, initialized,
 * account/read, then account/rateLimits/read when the login is a ChatGPT one. The CLI makes the
 * network call with its own credentials; Offrun never sees them.
 */
export async function readAppServerRateLimits(
  binary: string,
  env: NodeJS.ProcessEnv,
  now: Date,
  timeoutMs = APP_SERVER_TIMEOUT_MS,
): Promise<QuotaReading | undefined> {
  const child = execa(binary, ["app-server"], {
    env,
    extendEnv: false,
    stdin: "pipe",
    stderr: "ignore",
    buffer: false,
    reject: false,
    timeout: timeoutMs,
    forceKillAfterDelay: 2_000,
  });
  const send = (message: Record<string, unknown>) => child.stdin?.write(`${JSON.stringify(message)}\n`);
  const answer = new Promise<QuotaReading | undefined>((resolve, reject) => {
    let pending = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      pending += chunk;
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        let json: unknown;
        try {
          json = JSON.parse(line);
        } catch {
          continue; // not a protocol line
        }
        const response = responseSchema.safeParse(json);
        if (!response.success) continue; // a notification (configWarning, remoteControl/status/changed)
        const { id, result, error } = response.data;
        if (error) {
          // 0.171.0 without a ChatGPT login: "... authentication required to read rate limits".
          if (/authentication required/i.test(error.message)) resolve(undefined);
          else reject(new OffrunError("unreadable_output", `codex app-server refused ${id}: ${error.message}`));
        } else if (id === 1) {
          send({ jsonrpc: "2.0", method: "initialized" });
          send({ jsonrpc: "2.0", id: 2, method: "account/read", params: {} });
        } else if (id === 2) {
          const account = accountResultSchema.safeParse(result);
          if (account.data?.account?.type !== "chatgpt")
            resolve(undefined); // API key or no login: no plan limits
          else
            send({
              jsonrpc: "2.0",
              id: 3,
              method: "account/rateLimits/read",
              params: { excludeResetCreditDetails: true },
            });
        } else if (id === 3) {
          const limits = rateLimitsResultSchema.safeParse(result);
          if (!limits.success) {
            reject(new OffrunError("unreadable_output", "codex app-server answered rate limits in an unknown shape."));
            return;
          }
          const { primary, secondary } = limits.data.rateLimits;
          const windows = [
            ...(primary ? [appWindow("primary", primary, now)] : []),
            ...(secondary ? [appWindow("secondary", secondary, now)] : []),
          ];
          resolve(current(windows, now));
        }
      }
    });
    void child.then((result) =>
      reject(
        result.timedOut
          ? new OffrunError("timed_out", `codex app-server did not answer within ${timeoutMs / 1000} s.`)
          : new OffrunError(
              "process_failed",
              `codex app-server ended before answering (exit ${String(result.exitCode)}).`,
            ),
      ),
    );
  });
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { clientInfo: { name: "offrun", title: null, version: "1" }, capabilities: null },
  });
  try {
    return await answer;
  } finally {
    child.stdin?.end(); // the app-server exits at stdin EOF; the kill is for one that does not
    child.kill();
    await child;
  }
}

async function fromAppServer(context: QuotaSourceContext): Promise<QuotaReading | undefined> {
  if (!context.binary) return undefined;
  return readAppServerRateLimits(context.binary, context.env, context.now);
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
