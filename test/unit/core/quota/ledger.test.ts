import { readLedgerEntry, recordObserved, storeReading, type LoginReading } from "../../../../src/core/quota/ledger.js";
import { cachedLoginQuota } from "../../../../src/core/quota/pipeline.js";
import type { Login } from "../../../../src/core/foundation/login-model.js";

// A regression seen in CI: the quota watcher read the ledger when Claude's session file grew, then
// the turn's rate_limit_event was written down, then the watcher stored its usage estimate (stamped
// "now"); the estimate, which never saw the exact figures, hid them from `offrun quota`.

const login: Login = {
  harness: "claude",
  label: "work",
  home: "/nowhere",
  isDefault: false,
  adopted: false,
  env: {},
};
const estimate = (at: string): LoginReading => ({
  harness: "claude",
  label: "work",
  windows: [{ kind: "five_hour", usedTokens: 1200, source: "claude-usage-estimate", observedAt: at }],
  source: "claude-usage-estimate",
  observedAt: at,
  attempts: [],
});
const exact = (at: string) => ({
  windows: [{ kind: "five_hour", usedPercent: 80, source: "claude-stream", observedAt: at }],
  observedAt: at,
});

test("a full reading made before the stream's figures were written down does not hide them", async () => {
  const eventAt = new Date(Date.now() - 2_000).toISOString();
  await recordObserved(login, exact(eventAt));
  // The watcher read the ledger before that observation existed ("" = none in hand), stored later.
  await storeReading(estimate(new Date().toISOString()), "");
  const quota = await cachedLoginQuota(login);
  expect(quota.windows[0]).toMatchObject({ usedPercent: 80, source: "claude-stream" });
});

test("a full reading made with the observation in hand stands", async () => {
  await recordObserved(login, exact(new Date(Date.now() - 2_000).toISOString()));
  const seen = (await readLedgerEntry(login)).observed!.recordedAt;
  await storeReading(estimate(new Date().toISOString()), seen);
  const quota = await cachedLoginQuota(login);
  expect(quota.source).toBe("claude-usage-estimate");
});
