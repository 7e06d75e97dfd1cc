import fs from "node:fs/promises";
import path from "node:path";
import { addLogin, removeLogin } from "../../src/core/logins/store.js";
import { inHome } from "../../src/core/logins/home-use.js";
import { checkSignIn } from "../../src/core/logins/sign-in.js";
import { claudeHarness } from "../../src/harnesses/claude/index.js";
import type { Harness } from "../../src/harnesses/types.js";

// Broke in CI (credentials.test.ts): `accounts rm --purge` ran in the companion while its first
// sign-in round asked `claude auth status` in that login's home; the status command wrote its
// files after the folder was deleted, and the "purged" home was back.

test("a purge waits for a status command under way in the home, so the home stays deleted", async () => {
  const spare = await addLogin({ harness: "claude", label: "spare" });
  // A status command that writes its config into the home a moment later, as Claude Code does.
  const check = inHome(
    spare.home,
    new Promise<void>((resolve) => setTimeout(resolve, 300)).then(() =>
      fs.mkdir(path.join(spare.home, "statsig"), { recursive: true }),
    ),
  );
  const removed = await removeLogin({ harness: "claude", label: "spare", purge: true });
  expect(removed.deletedHome).toBe(true);
  await check;
  await expect(fs.stat(spare.home)).rejects.toThrow();
});

// Broke in CI (credentials.test.ts) once sign-in checks took turns: a check queued behind others
// was not yet counted as work in the home, the purge deleted it, and then the check ran the status
// command there, which made the home again.
test("a sign-in check still waiting for its turn when a purge starts is waited for, so the home stays deleted", async () => {
  const slow = await Promise.all(
    ["busy-1", "busy-2", "busy-3", "busy-4"].map((label) => addLogin({ harness: "claude", label })),
  );
  const spare = await addLogin({ harness: "claude", label: "queued" });
  const writesItsHome: Harness = {
    ...claudeHarness,
    identity: async (_binary, _env, home) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await fs.mkdir(path.join(home, "statsig"), { recursive: true });
      return { signedIn: true };
    },
  };
  const checks = [...slow, spare].map((login) => checkSignIn(login, writesItsHome, "/bin/claude", process.env));
  const removed = await removeLogin({ harness: "claude", label: "queued", purge: true });
  expect(removed.deletedHome).toBe(true);
  await Promise.all(checks);
  await expect(fs.stat(spare.home)).rejects.toThrow();
});
