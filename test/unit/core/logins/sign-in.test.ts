import fs from "node:fs/promises";
import path from "node:path";
import type { Login } from "../../../../src/core/foundation/login-model.js";
import {
  cachedSignIn,
  checkSignIn,
  isNeverUsed,
  markSignedIn,
  markSignedOut,
} from "../../../../src/core/logins/sign-in.js";
import { checksDone, turnStarts } from "../../../../src/core/logins/home-use.js";
import { codexHarness } from "../../../../src/harnesses/codex/index.js";
import type { Harness } from "../../../../src/harnesses/types.js";

// Broke under load in CI: Codex with its key from config.toml, whose status command cannot tell
// ("unknown"), answered just after a turn had succeeded on the login; the unknown replaced the
// turn's "signed in" and the picker ranked that login below one with less room.

/** Codex's adapter whose status command cannot tell, as 0.171.0 with a key from config.toml. */
const cannotTell: Harness = { ...codexHarness, identity: async () => ({ signedIn: undefined, note: "cannot tell" }) };

async function login(label: string): Promise<Login> {
  const home = path.join(process.env.TMPDIR!, label);
  await fs.mkdir(home, { recursive: true });
  return { harness: "codex", label, home, isDefault: false, adopted: false, env: {} };
}

test("a status command that cannot tell leaves a turn's 'signed in' as it was", async () => {
  const work = await login("work");
  await markSignedIn(work);
  expect((await checkSignIn(work, cannotTell, "/bin/codex", process.env)).state).toBe("signed-in");
  expect((await cachedSignIn(work)).state).toBe("signed-in");
});

test("nor does it make a login a turn found signed out usable again", async () => {
  const old = await login("old");
  await markSignedOut(old, "Not logged in");
  expect((await checkSignIn(old, cannotTell, "/bin/codex", process.env)).state).toBe("signed-out");
});

test("a definite answer from the status command replaces what a turn showed", async () => {
  const back = await login("back");
  await markSignedOut(back, "Not logged in");
  const signsIn: Harness = { ...codexHarness, identity: async () => ({ signedIn: true }) };
  expect((await checkSignIn(back, signsIn, "/bin/codex", process.env)).state).toBe("signed-in");
});

// Broke in CI: the companion's first sign-in round, slow under load, answered "signed in" for a
// login whose turn had just been refused (401) while the check ran, and the next pick took it again.
test("a check that started before a turn found the login signed out does not put it back", async () => {
  const beta = await login("beta");
  const slowSignedIn: Harness = {
    ...codexHarness,
    identity: async () => {
      await markSignedOut(beta, "Not logged in"); // the turn's answer arrives while the CLI is asked
      return { signedIn: true };
    },
  };
  expect((await checkSignIn(beta, slowSignedIn, "/bin/codex", process.env)).state).toBe("signed-out");
  expect((await cachedSignIn(beta)).state).toBe("signed-out");
});

// Broke in CI (failover.test.ts, Codex): the check read the entry, waited for the lock held by the
// warm-up turn's markSignedIn, then wrote its "unknown" over the "signed in" the turn had just
// written, and start picked the login with less room. Many pairs at once make the interleaving
// certain; every one must end signed in.
test("a turn's 'signed in' written while a check waits for the lock is not overwritten", async () => {
  const logins = await Promise.all(Array.from({ length: 12 }, (_, i) => login(`pair-${i}`)));
  await Promise.all(
    logins.flatMap((login) => [checkSignIn(login, cannotTell, "/bin/codex", process.env), markSignedIn(login)]),
  );
  const states = await Promise.all(logins.map(async (login) => (await cachedSignIn(login)).state));
  expect(states).toEqual(logins.map(() => "signed-in"));
});

// Broke in CI (failover-limits.test.ts, Claude): the companion's first round ran `claude auth
// status` beside a test suite, one check went past its budget, and its "unknown" replaced the
// "signed in" an earlier check had found; the failover then passed that login over.
test("a check that cannot answer leaves an earlier check's definite answer", async () => {
  const beta = await login("slow-beta");
  const signsIn: Harness = { ...codexHarness, identity: async () => ({ signedIn: true }) };
  expect((await checkSignIn(beta, signsIn, "/bin/codex", process.env)).state).toBe("signed-in");
  expect((await checkSignIn(beta, cannotTell, "/bin/codex", process.env)).state).toBe("signed-in");
  const signsOut: Harness = { ...codexHarness, identity: async () => ({ signedIn: false, note: "Not logged in" }) };
  expect((await checkSignIn(beta, signsOut, "/bin/codex", process.env)).state).toBe("signed-out");
  expect((await checkSignIn(beta, cannotTell, "/bin/codex", process.env)).state).toBe("signed-out");
});

// Broke in CI (failover-limits.test.ts, Claude): `offrun accounts` asked eight logins at once beside
// a test suite, every check ran past its budget, and the Default login nobody had used became an
// "unknown" that tied with the signed-in logins, so the failover moved the session to it.
test("a Default login whose home was never made stays never used when its CLI cannot tell", async () => {
  const home = path.join(process.env.TMPDIR!, "never-made");
  const defaultLogin: Login = { harness: "codex", label: "default", home, isDefault: true, adopted: true, env: {} };
  const entry = await checkSignIn(defaultLogin, cannotTell, "/bin/codex", process.env);
  expect(isNeverUsed(entry)).toBe(true);
  expect(isNeverUsed(await cachedSignIn(defaultLogin))).toBe(true);
});

test("status commands asked together run a few at a time, each with its whole budget", async () => {
  let running = 0;
  let most = 0;
  const counted: Harness = {
    ...codexHarness,
    identity: async () => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 50));
      running--;
      return { signedIn: true };
    },
  };
  const logins = await Promise.all(Array.from({ length: 8 }, (_, i) => login(`together-${i}`)));
  const states = await Promise.all(
    logins.map(async (a) => (await checkSignIn(a, counted, "/bin/codex", process.env)).state),
  );
  expect(states).toEqual(logins.map(() => "signed-in"));
  expect(most).toBeGreaterThanOrEqual(2);
  expect(most).toBeLessThanOrEqual(4);
});

// Broke in CI (memory-opencode.test.ts): the companion's `opencode auth list` held OpenCode's
// SQLite database when a turn started in the same home, and the turn failed "database is locked".
test("a status check never runs beside a turn in the same home, and a turn waits for one already running", async () => {
  const busy = await login("busy-home");
  let asked = 0;
  let answered = 0;
  const slow: Harness = {
    ...codexHarness,
    identity: async () => {
      asked += 1;
      await new Promise((resolve) => setTimeout(resolve, 300));
      answered += 1;
      return { signedIn: true };
    },
  };
  const turnEnds = turnStarts(busy.home);
  await checkSignIn(busy, slow, "/bin/codex", process.env);
  expect(asked).toBe(0); // skipped: the turn answers for the login
  turnEnds();

  const checking = checkSignIn(busy, slow, "/bin/codex", process.env);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the status command is running now
  expect(asked).toBe(1);
  const nextTurn = turnStarts(busy.home);
  await checksDone(busy.home);
  expect(answered).toBe(1); // the turn's CLI starts only after the status command is done
  nextTurn();
  await checking;
});
