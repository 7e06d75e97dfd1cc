import { snapshotSchema } from "../../src/core/companion/snapshot.js";
import { viewReplies } from "../../src/core/protocol/protocol-views.js";
import { readLedgerEntry, storeReading } from "../../src/core/quota/ledger.js";
import type { QuotaListRow } from "../../src/core/quota/row.js";
import { hostSnapshot } from "../../src/core/companion/snapshot-part.js";

// One login's quota has one shape (core/quota/row.ts) in the ledger, in state.json and in a
// companion's `quota.list` answer: what one of them holds, the others keep. Before, each had its
// own, and a host's limit reason, name and home were lost on the way into state.json.

const window = {
  kind: "five_hour",
  usedPercent: 100,
  resetsAt: "2026-12-05T14:00:00Z",
  source: "stream",
  observedAt: "2026-12-05T11:59:00Z",
};
const row: QuotaListRow = {
  harness: "claude",
  label: "work",
  windows: [window],
  blocking: window,
  limitedUntil: "2026-12-05T14:00:00Z",
  limitReason: "5-hour limit reached",
  recovering: false,
  source: "stream",
  observedAt: "2026-12-05T11:59:00Z",
  attempts: [{ source: "stream", outcome: "answered" }],
  pace: {},
  displayName: "Claude Code",
  home: "/home/me/.offrun/logins/claude/work",
  headroom: 0,
  coverage: "percent",
  signIn: { state: "signed-in", note: "as me@example.com" },
};
const snapshotWith = (quota: unknown[]) => ({
  version: 1,
  writtenAt: "2026-12-05T12:00:00Z",
  companion: { pid: 1, version: "0.1.0", startedAt: "2026-12-05T10:00:00Z" },
  counts: { working: 0, "needs-you": 0, idle: 0, limited: 0, failed: 0, done: 0 },
  agents: [],
  quota,
  notifications: [],
});

test("a host's quota.list row reaches state.json with every field but the sources tried", () => {
  const answered = viewReplies["quota.list"].parse({ logins: [row] }).logins;
  expect(answered).toEqual([row]);
  const { quota } = hostSnapshot("devbox", undefined, () => ({ pending: [] }), answered);
  const shown: Partial<QuotaListRow> = { ...row, host: "devbox" };
  delete shown.attempts;
  expect(snapshotSchema.parse(snapshotWith(quota)).quota).toEqual([shown]);
});

test("the ledger keeps a row whole, and state.json and quota.list read what it keeps", async () => {
  await storeReading(row);
  const kept = (await readLedgerEntry(row)).last!;
  expect(kept).toEqual(row);
  expect(snapshotSchema.parse(snapshotWith([kept])).quota).toEqual([kept]);
  expect(viewReplies["quota.list"].parse({ logins: [kept] }).logins).toEqual([row]);
});

test("a sign-in state this version does not know reads as unknown; the rest of the answer is kept", () => {
  const newer = { ...row, signIn: { state: "expired", note: "token expired" } };
  const [parsed] = viewReplies["quota.list"].parse({ logins: [newer] }).logins;
  expect(parsed).toEqual({ ...row, signIn: { state: "unknown", note: "token expired" } });
});
