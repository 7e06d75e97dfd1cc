import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { withFileLock } from "../../../../src/core/foundation/store.js";
import { markLimited, readLedgerEntry } from "../../../../src/core/quota/ledger.js";
import { cachedSignIns, markSignedIn } from "../../../../src/core/logins/sign-in.js";
import { userPaths } from "../../../../src/core/foundation/paths.js";

// What broke: withFileLock locked a file's folder (with the file's `.lock` as the lock's path),
// and proper-lockfile keeps a process's locks by that path, so two files of one folder locked at
// once shared one entry: the first release freed the other's, whose `.lock` stayed on disk (every
// writer of that file then waited for it to go stale, or gave up with ELOCKED on the folder), or
// the second release threw "Lock is not acquired/owned by you". Seen in `npm run screens`.

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-file-lock-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

/** Holds `file`'s lock until the returned `release` is called; resolves `held` once it has it. */
function holdLock(file: string): { held: Promise<void>; release: () => void; done: Promise<string> } {
  let release: () => void = () => undefined;
  let held: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const heldPromise = new Promise<void>((resolve) => (held = resolve));
  const done = withFileLock(file, async () => {
    held();
    await gate;
    return path.basename(file);
  });
  return { held: heldPromise, release, done };
}

test("two files of one folder locked at once, the later one released first: each lock is released", async () => {
  const quota = path.join(dir, "quota.json");
  const signIn = path.join(dir, "sign-in.json");
  const first = holdLock(quota);
  await first.held;
  const second = holdLock(signIn);
  await second.held;
  second.release();
  await expect(second.done).resolves.toBe("sign-in.json");
  first.release();
  await expect(first.done).resolves.toBe("quota.json");
  expect(await exists(`${quota}.lock`)).toBe(false);
  expect(await exists(`${signIn}.lock`)).toBe(false);
});

test("two files of one folder locked at once, the earlier one released first: neither lock stays on disk", async () => {
  const quota = path.join(dir, "quota.json");
  const signIn = path.join(dir, "sign-in.json");
  const first = holdLock(quota);
  await first.held;
  const second = holdLock(signIn);
  await second.held;
  first.release();
  await expect(first.done).resolves.toBe("quota.json");
  second.release();
  await expect(second.done).resolves.toBe("sign-in.json");
  expect(await exists(`${quota}.lock`)).toBe(false);
  expect(await exists(`${signIn}.lock`)).toBe(false);
  // The next writer gets the lock at once, not after the 10 s a left-over lock takes to go stale.
  const started = Date.now();
  await withFileLock(signIn, async () => undefined);
  expect(Date.now() - started).toBeLessThan(2_000);
});

test("the quota and sign-in caches written at once both land, and leave no lock behind", async () => {
  const login = { harness: "claude", label: "work" };
  const until = new Date(Date.now() + 3_600_000).toISOString();
  for (let round = 0; round < 5; round++) {
    await Promise.all([
      markLimited(login, until, `round ${round}`),
      markSignedIn({ harness: "codex", label: `login-${round}` }),
    ]);
  }
  expect((await readLedgerEntry(login)).limitReason).toBe("round 4");
  const signIns = await cachedSignIns(
    [0, 1, 2, 3, 4].map((round) => ({
      harness: "codex",
      label: `login-${round}`,
      home: os.homedir(),
      isDefault: true,
      adopted: false,
      env: {},
    })),
  );
  expect([...signIns.values()].map((entry) => entry.state)).toEqual(Array(5).fill("signed-in"));
  expect((await fs.readdir(userPaths().cache)).filter((name) => name.endsWith(".lock"))).toEqual([]);
});
