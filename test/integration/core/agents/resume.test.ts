import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { resumeAfterReset, type ResumeContext } from "../../../../src/core/agents/resume.js";
import type { AgentRecord } from "../../../../src/core/foundation/model.js";
import { LoginPicker } from "../../../../src/core/logins/picker.js";
import { addLogin } from "../../../../src/core/logins/store.js";
import { markLimited } from "../../../../src/core/quota/ledger.js";
import { agentRecord } from "../../../helpers/records.js";

// "Resumes 14:57 on personal" went on on default: after the reset both logins had room, and the
// pick ranked the Default login first, so the wait named one login and the turn spent another.

/** Runs the wait that came due through the real picker and quota ledger; returns the login the turn took and what was logged. */
async function resumeNow(record: AgentRecord) {
  const logged: { type: string; message?: string; account?: string }[] = [];
  let began: string | undefined;
  const ctx: ResumeContext = {
    record,
    env: process.env,
    logins: new LoginPicker(process.env),
    requireBinary: async () => "/bin/true",
    log: async (_turn, event) => void logged.push(event as (typeof logged)[number]),
    update: async (changes) => void Object.assign(record, changes),
    waitAgain: () => undefined,
    begin: async (_prompt, _binary, _config, resumed) => void (began = resumed.login),
  };
  const started = await resumeAfterReset(ctx);
  await started?.held;
  return { began, logged };
}

let root: string;
let project: string;
const saved = { HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, OFFRUN_HOME: process.env.OFFRUN_HOME };
beforeEach(async () => {
  // Each test its own homes: logins and limits of one must not be another's.
  root = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-resume-"));
  for (const name of ["HOME", "TMPDIR", "OFFRUN_HOME"] as const) {
    process.env[name] = path.join(root, name.toLowerCase());
    await fs.mkdir(process.env[name]!, { recursive: true });
  }
  project = path.join(root, "repo");
  await fs.mkdir(project);
  // The Default login's home exists and was used: it is a login like the others.
  await fs.mkdir(path.join(process.env.HOME!, ".claude"));
});
afterEach(async () => {
  Object.assign(process.env, saved);
  await fs.rm(root, { recursive: true, force: true });
});

test("a wait that named a login goes on on that login once it has room, not on one that ranks higher then", async () => {
  await addLogin({ harness: "claude", label: "personal" });
  const justPassed = new Date(Date.now() - 1_000).toISOString();
  await markLimited({ harness: "claude", label: "personal" }, justPassed, "usage limit");
  await markLimited({ harness: "claude", label: "default" }, justPassed, "usage limit");
  const record = agentRecord(project, "waits", {
    account: "default",
    status: "limited",
    resume: { at: justPassed, account: "personal", prompt: "go on", continuation: true, resetGiven: true },
  });
  const { began, logged } = await resumeNow(record);
  expect(began).toBe("personal");
  expect(logged.find((e) => e.type === "reset_wait")).toMatchObject({ account: "personal" });
  expect(logged.find((e) => e.type === "reset_wait")?.message).toMatch(
    /^Went on after the reset on login personal \(was default\)/,
  );
});

test("when the login the wait named cannot run, it goes on on one that can and says why", async () => {
  await addLogin({ harness: "claude", label: "personal" });
  await addLogin({ harness: "claude", label: "work" });
  const later = new Date(Date.now() + 3_600_000).toISOString();
  await markLimited({ harness: "claude", label: "personal" }, later, "usage limit");
  await markLimited({ harness: "claude", label: "default" }, later, "usage limit");
  const record = agentRecord(project, "waits", {
    account: "default",
    status: "limited",
    resume: {
      at: new Date().toISOString(),
      account: "personal",
      prompt: "go on",
      continuation: true,
      resetGiven: true,
    },
  });
  const { began, logged } = await resumeNow(record);
  expect(began).toBe("work");
  expect(logged.find((e) => e.type === "reset_wait")?.message).toMatch(/Not on personal, as planned: limited until /);
});
