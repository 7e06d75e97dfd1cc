import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  loginProcessEnv,
  addLogin,
  findLogin,
  listLogins,
  loginCommand,
  removeLogin,
} from "../../../../src/core/logins/store.js";
import { isOffrunError } from "../../../../src/core/foundation/errors.js";
import { stateProblems } from "../../../../src/core/foundation/state-problems.js";
import { claudeProjectFolder } from "../../../../src/harnesses/claude/index.js";
import { parseCodexLoginStatus } from "../../../../src/harnesses/codex/identity.js";
import { findHarness } from "../../../../src/harnesses/registry.js";
import { BUILTIN_HARNESSES } from "../../../../src/harnesses/registry.js";
import { failure } from "../../../helpers/failure.js";

let dir: string;
let env: NodeJS.ProcessEnv;
let loginsFile: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-accounts-"));
  env = { HOME: path.join(dir, "home"), OFFRUN_HOME: path.join(dir, "oh") };
  loginsFile = path.join(dir, "oh", "accounts.json");
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const add = (harness: string, label: string, extra: { home?: string; env?: Record<string, string> } = {}) =>
  addLogin({ harness, label, ...extra, processEnv: env });

const mode = async (file: string) => (await fs.stat(file)).mode & 0o777;

test("with no accounts.json every harness has just its Default login, the CLI's own home", async () => {
  const logins = await listLogins(undefined, { ...env, CODEX_HOME: "/somewhere/codex" });
  expect(logins.map((a) => a.harness)).toEqual(BUILTIN_HARNESSES.map((h) => h.id));
  expect(logins.every((a) => a.label === "default" && a.isDefault)).toBe(true);
  expect(logins.slice(0, 2).map((a) => [a.harness, a.home])).toEqual([
    ["claude", path.join(env.HOME!, ".claude")],
    ["codex", "/somewhere/codex"],
  ]);
});

test("an added login gets a 0700 home under OFFRUN_HOME and is listed after the Default one", async () => {
  const login = await add("codex", "work");
  expect(login.home).toBe(path.join(dir, "oh", "accounts", "codex", "work"));
  expect(await mode(login.home)).toBe(0o700);
  expect(await mode(loginsFile)).toBe(0o600);
  const labels = (await listLogins("codex", env)).map((a) => a.label);
  expect(labels).toEqual(["default", "work"]);
  expect((await findLogin("codex", "work", env)).adopted).toBe(false);
});

test("labels: 'default', capitals, a leading dash or dot and more than 32 characters are refused", async () => {
  for (const label of ["default", "Work", "-x", ".x", "a b", "x".repeat(33), ""]) {
    const error = await failure(add("claude", label));
    expect(isOffrunError(error, "invalid_input")).toBe(true);
  }
  await add("claude", "x".repeat(32));
  await add("claude", "_a-1");
  expect((await listLogins("claude", env)).length).toBe(3);
});

test("a second login with the same label is refused with how to remove the first", async () => {
  await add("claude", "work");
  const error = await failure(add("claude", "work"));
  expect(isOffrunError(error, "conflict")).toBe(true);
  expect(error.message).toContain("offrun logins rm claude work");
  // The same label on another harness is a different login.
  await add("codex", "work");
});

test("adopting needs an existing folder that no other login uses", async () => {
  const missing = await failure(add("claude", "mine", { home: path.join(dir, "nope") }));
  expect(isOffrunError(missing, "not_found")).toBe(true);
  const mine = path.join(dir, "mine");
  await fs.mkdir(mine);
  const login = await add("claude", "mine", { home: mine });
  expect(login).toMatchObject({ home: mine, adopted: true, isDefault: false });
  const shared = await failure(add("claude", "again", { home: mine }));
  expect(shared.message).toContain("cannot share a home");
  await fs.mkdir(path.join(env.HOME!, ".claude"), { recursive: true });
  const defaultHome = await failure(add("claude", "dflt", { home: path.join(env.HOME!, ".claude") }));
  expect(defaultHome.message).toContain("Default login");
});

test("rm forgets the login and keeps its home; --purge deletes only a home Offrun made", async () => {
  const made = await add("claude", "made");
  await fs.writeFile(path.join(made.home, ".claude.json"), "{}");
  const kept = await removeLogin({ harness: "claude", label: "made", processEnv: env });
  expect(kept).toMatchObject({ deletedHome: false, keptBecause: "not-purged" });
  expect(await fs.stat(made.home)).toBeTruthy();

  // Adding it back takes up the kept home.
  await add("claude", "made");
  const purged = await removeLogin({ harness: "claude", label: "made", purge: true, processEnv: env });
  expect(purged.deletedHome).toBe(true);
  await expect(fs.stat(made.home)).rejects.toThrow();

  const mine = path.join(dir, "mine");
  await fs.mkdir(mine);
  await add("claude", "mine", { home: mine });
  const adopted = await removeLogin({ harness: "claude", label: "mine", purge: true, processEnv: env });
  expect(adopted).toMatchObject({ deletedHome: false, keptBecause: "adopted" });
  expect((await fs.stat(mine)).isDirectory()).toBe(true);
  expect((await listLogins("claude", env)).map((a) => a.label)).toEqual(["default"]);
});

test("the Default login cannot be removed, and an unknown one is not_found with the labels that exist", async () => {
  const dflt = await failure(removeLogin({ harness: "claude", label: "default", processEnv: env }));
  expect(isOffrunError(dflt, "invalid_input")).toBe(true);
  await add("claude", "work");
  const unknown = await failure(removeLogin({ harness: "claude", label: "play", processEnv: env }));
  expect(isOffrunError(unknown, "not_found")).toBe(true);
  expect(unknown.message).toContain("default, work");
  const find = await failure(findLogin("claude", "play", env));
  expect(find.message).toContain("default, work");
});

test("an accounts.json readable by others is put back to 0600 when read", async () => {
  await add("codex", "work");
  await fs.chmod(loginsFile, 0o644);
  await listLogins(undefined, env);
  expect(await mode(loginsFile)).toBe(0o600);
});

test("an invalid accounts.json is reported with the file, the field and the fix; defaults go on; a change refuses", async () => {
  // Broke: every start failed on it, the Default logins' too.
  await fs.mkdir(path.dirname(loginsFile), { recursive: true });
  const bad = JSON.stringify({ version: 1, accounts: [{ harness: "claude", label: "w", home: 3, createdAt: "x" }] });
  await fs.writeFile(loginsFile, bad);
  const listed = await listLogins(undefined, env);
  expect(listed.length).toBeGreaterThan(0);
  expect(listed.every((login) => login.isDefault)).toBe(true);
  const problem = stateProblems().find((p) => p.file === loginsFile);
  expect(problem?.message).toContain("accounts.0.home");
  expect(problem?.message).toContain("offrun logins add");
  expect(problem?.message).toContain("only each CLI's default login");
  // A change on top of it would drop the logins it holds: refused, and the file left as it was.
  const error = await failure(add("codex", "work"));
  expect(isOffrunError(error, "invalid_file")).toBe(true);
  expect(await fs.readFile(loginsFile, "utf8")).toBe(bad);
  await fs.writeFile(loginsFile, "{ not json");
  await listLogins(undefined, env);
  expect(stateProblems().find((p) => p.file === loginsFile)?.message).toContain("not valid JSON");
});

test("extra env: kept for the login, but never the home variable or anything that looks like a secret", async () => {
  const login = await add("claude", "gw", { env: { ANTHROPIC_BASE_URL: "http://gw" } });
  const claude = await findHarness("claude");
  expect(loginProcessEnv(login, claude)).toEqual({
    CLAUDE_CONFIG_DIR: login.home,
    ANTHROPIC_BASE_URL: "http://gw",
  });
  for (const name of ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "DB_PASSWORD", "CLAUDE_CONFIG_DIR", "1X"]) {
    const error = await failure(add("claude", "bad", { env: { [name]: "v" } }));
    expect(isOffrunError(error, "invalid_input")).toBe(true);
  }
  const dflt = (await listLogins("claude", env))[0]!;
  expect(loginProcessEnv(dflt, claude)).toEqual({});
});

test("the login command is the CLI's own sign-in with the login's home set", async () => {
  const login = await add("codex", "work");
  expect(loginCommand(login, await findHarness("codex"), "/bin/codex")).toEqual({
    file: "/bin/codex",
    args: ["login"],
    env: { CODEX_HOME: login.home },
  });
  const claude = await add("claude", "work");
  expect(loginCommand(claude, await findHarness("claude"), "claude").args).toEqual(["auth", "login"]);
});

test("Claude's project folder: every character but an ASCII letter or digit becomes '-', long names get a hash", () => {
  // Recorded from a real 2.1.332 run in these folders.
  expect(claudeProjectFolder("/tmp/probe/my.proj_x/sub dir+é@~")).toBe("-tmp-probe-my-proj-x-sub-dir----");
  const long = `/tmp/probe/${"a".repeat(120)}/${"b".repeat(120)}`;
  expect(claudeProjectFolder(long)).toBe(`${long.replace(/[^a-zA-Z0-9]/g, "-").slice(0, 200)}-yfy453`);
});

test("codex login status texts of 0.171.0 map to signed in or not, without any part of a key", () => {
  const warning = 'WARNING: proceeding, even though we could not create PATH aliases: Refusing ... "/tmp"';
  expect(parseCodexLoginStatus(0, `${warning}\nLogged in using ChatGPT\n`)).toEqual({
    signedIn: true,
    detail: "ChatGPT",
  });
  const apiKey = parseCodexLoginStatus(0, "API key configured - sk-test-***bcdef\nAuthentication is checked later.\n");
  expect(apiKey).toEqual({ signedIn: true, detail: "API key" });
  expect(parseCodexLoginStatus(1, `${warning}\nNot logged in\n`)).toEqual({ signedIn: false });
  expect(parseCodexLoginStatus(1, "Error loading configuration: boom").signedIn).toBeUndefined();
});

test("copySession puts a session at the same relative path in the other home, and says when it is missing", async () => {
  const from = path.join(dir, "a");
  const to = path.join(dir, "b");
  const cwd = path.join(dir, "repo.x");
  await fs.mkdir(cwd);
  const claudeFile = path.join(from, "projects", claudeProjectFolder(cwd), "s1.jsonl");
  await fs.mkdir(path.join(path.dirname(claudeFile), "s1", "subagents"), { recursive: true });
  await fs.writeFile(claudeFile, '{"type":"user"}\n');
  await fs.writeFile(path.join(path.dirname(claudeFile), "s1", "subagents", "agent-1.jsonl"), "{}\n");
  await (await findHarness("claude")).copySession({ fromHome: from, toHome: to, sessionId: "s1", cwd });
  const copied = path.join(to, "projects", claudeProjectFolder(cwd));
  // Each copied line is marked, so quota readers do not count the first login's usage as the new one's.
  expect(await fs.readFile(path.join(copied, "s1.jsonl"), "utf8")).toBe('{"offrunCopied":true,"type":"user"}\n');
  expect(await fs.readdir(path.join(copied, "s1", "subagents"))).toEqual(["agent-1.jsonl"]);

  const rollout = path.join(from, "sessions", "2026", "11", "30", "rollout-2026-11-30T01-02-03-t-1.jsonl");
  await fs.mkdir(path.dirname(rollout), { recursive: true });
  await fs.writeFile(rollout, "{}\n");
  await (await findHarness("codex")).copySession({ fromHome: from, toHome: to, sessionId: "t-1", cwd });
  expect(await fs.readFile(path.join(to, path.relative(from, rollout)), "utf8")).toBe('{"offrunCopied":true}\n');

  for (const id of ["claude", "codex"]) {
    const error = await failure(
      (await findHarness(id)).copySession({ fromHome: from, toHome: to, sessionId: "nope", cwd }),
    );
    expect(isOffrunError(error, "not_found")).toBe(true);
  }
});
