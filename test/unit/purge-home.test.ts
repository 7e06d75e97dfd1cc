import fs from "node:fs/promises";
import path from "node:path";
import { addAccount, removeAccount } from "../../src/core/logins/accounts.js";
import { inHome } from "../../src/core/logins/home-use.js";

// Broke in CI (credentials.test.ts): `accounts rm --purge` ran in the companion while its first
// sign-in round asked `claude auth status` in that login's home; the status command wrote its
// files after the folder was deleted, and the "purged" home was back.

test("a purge waits for a status command under way in the home, so the home stays deleted", async () => {
  const spare = await addAccount({ harness: "claude", label: "spare" });
  // A status command that writes its config into the home a moment later, as Claude Code does.
  const check = inHome(
    spare.home,
    new Promise<void>((resolve) => setTimeout(resolve, 300)).then(() =>
      fs.mkdir(path.join(spare.home, "statsig"), { recursive: true }),
    ),
  );
  const removed = await removeAccount({ harness: "claude", label: "spare", purge: true });
  expect(removed.deletedHome).toBe(true);
  await check;
  await expect(fs.stat(spare.home)).rejects.toThrow();
});
