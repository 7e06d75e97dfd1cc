import fs from "node:fs/promises";
import path from "node:path";
import { addLogin, listLogins } from "../../../../src/core/logins/store.js";
import { renameLogin } from "../../../../src/core/logins/rename.js";
import { userPaths } from "../../../../src/core/foundation/paths.js";
import { markLimited, readLedger, recordObserved, storeReading } from "../../../../src/core/quota/ledger.js";
import { cachedLoginQuota } from "../../../../src/core/quota/pipeline.js";

// isolate-env.ts points OFFRUN_HOME and HOME at temp folders: accounts.json and the quota cache are real files.

test("renaming a login moves its cached quota and its limit to the new name", async () => {
  await addLogin({ harness: "claude", label: "work" });
  await addLogin({ harness: "claude", label: "spare" });
  const observedAt = new Date().toISOString();
  const resetsAt = new Date(Date.now() + 3_600_000).toISOString();
  const window = { kind: "five_hour", usedPercent: 87, resetsAt, source: "stream", observedAt };
  await recordObserved({ harness: "claude", label: "work" }, { windows: [window], observedAt });
  await markLimited({ harness: "claude", label: "work" }, resetsAt, "usage limit");
  const before = await cachedLoginQuota((await listLogins()).find((a) => a.label === "work")!);
  await storeReading(before);
  await recordObserved({ harness: "claude", label: "spare" }, { windows: [{ ...window, usedPercent: 5 }], observedAt });

  await renameLogin({ harness: "claude", label: "work", to: "team" });

  const ledger = await readLedger();
  expect(Object.keys(ledger.accounts).sort()).toEqual(["claude/spare", "claude/team"]);
  expect(ledger.accounts["claude/team"]!.last!.label).toBe("team");
  const team = (await listLogins()).find((a) => a.label === "team")!;
  const after = await cachedLoginQuota(team);
  expect(after).toMatchObject({ label: "team", limitedUntil: resetsAt, limitReason: "usage limit" });
  expect(after.windows.map((w) => w.usedPercent)).toEqual([87]);
  // The other login's reading is untouched.
  expect(ledger.accounts["claude/spare"]!.observed!.windows[0]!.usedPercent).toBe(5);
  expect(JSON.parse(await fs.readFile(path.join(userPaths().cache, "quota.json"), "utf8"))).toEqual(ledger);
});

test("renaming a login with nothing cached leaves the quota cache as it was", async () => {
  await addLogin({ harness: "claude", label: "fresh" });
  const before = await readLedger();
  await renameLogin({ harness: "claude", label: "fresh", to: "newer" });
  expect(await readLedger()).toEqual(before);
  expect(Object.keys(before.accounts)).not.toContain("claude/newer");
});
