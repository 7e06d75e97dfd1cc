import path from "node:path";
import {
  hostRefused,
  hostsInEnvironment,
  reachesLoopback,
  runtimeSettings,
  type SandboxScope,
} from "../../../../src/core/sandbox/policy.js";
import { sandboxEnvironment } from "../../../../src/core/sandbox/environment.js";

const home = "/home/ada";
const common = "/work/app/.git";
const scope: SandboxScope = {
  userHome: home,
  offrunHome: `${home}/.offrun`,
  worktree: "/work/app/.worktrees/parser",
  git: {
    commonDir: common,
    gitDir: `${common}/worktrees/parser`,
    branchRef: `${common}/refs/heads/offrun/parser`,
    otherRefs: [`${common}/refs/heads/offrun/lexer`, `${common}/logs/refs/heads/offrun/lexer`],
  },
  memoryDir: "/work/app/.offrun/memory/parser",
  loginState: [`${home}/.offrun/accounts/claude/work`],
  loginExecutable: [`${home}/.offrun/accounts/claude/work/settings.json`],
  tmpDir: `${home}/.offrun/sandbox/app-1/parser/tmp`,
  otherHomes: [`${home}/.claude`, `${home}/.codex`, `${home}/.offrun/accounts/claude/personal`],
  otherProjects: ["/work/other", "/work/app"],
  hosts: [
    { host: "api.anthropic.com", setting: "Claude Code's own hosts" },
    { host: "127.0.0.1:4000", setting: "/home/ada/.claude/settings.json env.ANTHROPIC_BASE_URL", own: true },
  ],
  extraWrites: [`${home}/.npm`],
};

test("writes go to the worktree, the branch's part of the git folder, memory, the login's state, its temp and what the project adds", () => {
  const { filesystem } = runtimeSettings(scope).settings;
  expect(filesystem.allowWrite).toEqual([
    scope.worktree,
    `${common}/refs/heads/offrun`,
    `${common}/logs/refs/heads/offrun`,
    `${common}/worktrees/parser`,
    scope.memoryDir,
    ...scope.loginState,
    scope.tmpDir,
    `${home}/.npm`,
  ]);
  // Not the git folder as a whole: its config, hooks, info/, modules/, packed-refs and other refs stay out,
  // and so does the shared object store (new objects go to the worktree's quarantine, git/quarantine.ts).
  expect(filesystem.allowWrite).not.toContain(common);
  expect(filesystem.allowWrite.filter((entry) => entry.startsWith(`${common}/objects`))).toEqual([]);
});

test("inside what is writable, the git links, other branches and the CLI's executable configuration stay read-only", () => {
  const { filesystem } = runtimeSettings(scope).settings;
  expect(filesystem.denyWrite).toEqual([
    `${home}/.offrun/accounts/claude/work/settings.json`,
    `${scope.worktree}/.git`,
    `${common}/worktrees/parser/commondir`,
    `${common}/worktrees/parser/gitdir`,
    `${common}/worktrees/parser/config.worktree`,
    `${common}/refs/heads/offrun/lexer`,
    `${common}/logs/refs/heads/offrun/lexer`,
  ]);
});

test("a Planner's worktree and git folder are read-only; its memory is not", () => {
  const { filesystem } = runtimeSettings({ ...scope, readOnlyWorktree: true }).settings;
  expect(filesystem.allowWrite).not.toContain(scope.worktree);
  expect(filesystem.allowWrite.filter((entry) => entry.startsWith(common))).toEqual([]);
  expect(filesystem.allowWrite).toContain(scope.memoryDir);
});

test("no write opens the user's home, anything above it, Offrun's folder, a secret or another login", () => {
  const wide = [home, "/", "/home", `${home}/.offrun`, `${home}/.offrun/agents`, `${home}/.config`, `${home}/.codex`];
  const { settings, refusedWrites } = runtimeSettings({ ...scope, extraWrites: wide, loginState: [home] });
  for (const entry of wide) expect(settings.filesystem.allowWrite).not.toContain(entry);
  expect(refusedWrites.map((refused) => refused.path).sort()).toEqual([...wide].sort());
  expect(refusedWrites.find((refused) => refused.path === home)?.why).toMatch(/user's home/);
  expect(refusedWrites.find((refused) => refused.path === `${home}/.config`)?.why).toMatch(/\.config\/gh/);
});

test("reads are closed to the user's secrets, Offrun's folder, other logins and other projects, but not to this login", () => {
  const { filesystem } = runtimeSettings(scope).settings;
  for (const secret of [".ssh", ".aws", ".gnupg", ".config/gh"])
    expect(filesystem.denyRead).toContain(path.join(home, secret));
  expect(filesystem.denyRead).toEqual(expect.arrayContaining([`${home}/.offrun`, `${home}/.claude`, `${home}/.codex`]));
  expect(filesystem.denyRead).toContain(`${home}/.offrun/accounts/claude/personal`);
  expect(filesystem.denyRead).toContain("/work/other");
  // The project's own root holds the worktree: it stays readable.
  expect(filesystem.denyRead).not.toContain("/work/app");
  expect(filesystem.allowRead).toEqual([...scope.loginState, scope.tmpDir]);
});

test("a login whose home is the user's home writes only its CLI's state folder, and other logins stay closed", () => {
  // Gemini CLI's Default login: its home is $HOME, its state ~/.gemini.
  const gemini = { ...scope, loginState: [`${home}/.gemini`], otherHomes: [`${home}/.codex`, `${home}/.claude`] };
  const { filesystem } = runtimeSettings(gemini).settings;
  expect(filesystem.allowWrite).toContain(`${home}/.gemini`);
  expect(filesystem.allowWrite).not.toContain(home);
  expect(filesystem.denyRead).toEqual(expect.arrayContaining([`${home}/.codex`, `${home}/.claude`]));
});

test("hosts are allowed by name, and a loopback gateway by its literal address and port", () => {
  const { network } = runtimeSettings(scope).settings;
  expect(network.allowedDomains).toEqual(["api.anthropic.com", "127.0.0.1:4000", "localhost:4000"]);
  expect(reachesLoopback(scope.hosts)).toBe(true);
  expect(reachesLoopback([{ host: "api.openai.com", setting: "x" }])).toBe(false);
});

test("a refused connection is matched to the entry of the list it was meant for", () => {
  expect(hostRefused(scope.hosts, "127.0.0.1:4000")?.setting).toBe(
    "/home/ada/.claude/settings.json env.ANTHROPIC_BASE_URL",
  );
  expect(hostRefused(scope.hosts, "localhost:4000")?.own).toBe(true);
  expect(hostRefused(scope.hosts, "127.0.0.1:4001")).toBeUndefined();
  expect(hostRefused(scope.hosts, "evil.example.com:443")).toBeUndefined();
});

test("base URLs in the login's environment name the hosts it talks to", () => {
  expect(
    hostsInEnvironment({
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9999",
      OPENAI_BASE_URL: "https://gateway.example.com/v1",
      PATH: "/usr/bin",
      SOME_ENDPOINT: "not a url",
    })
      .map(({ host, setting }) => `${host} ${setting}`)
      .sort(),
  ).toEqual([
    "127.0.0.1:9999 the login's environment ANTHROPIC_BASE_URL",
    "gateway.example.com the login's environment OPENAI_BASE_URL",
  ]);
});

test("only the common variables and the ones named enter the sandbox", () => {
  const env = sandboxEnvironment(
    {
      PATH: "/usr/bin",
      HOME: home,
      LC_ALL: "C",
      ANTHROPIC_API_KEY: "k",
      MY_GATEWAY_KEY: "g",
      GITHUB_TOKEN: "secret",
      AWS_SECRET_ACCESS_KEY: "secret",
      SSH_AUTH_SOCK: "/tmp/agent.sock",
    },
    ["ANTHROPIC_*", "MY_GATEWAY_KEY"],
  );
  expect(Object.keys(env).sort()).toEqual(["ANTHROPIC_API_KEY", "HOME", "LC_ALL", "MY_GATEWAY_KEY", "PATH"]);
});
