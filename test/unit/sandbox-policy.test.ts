import path from "node:path";
import {
  hostsInEnvironment,
  reachesLoopback,
  runtimeSettings,
  type SandboxScope,
} from "../../src/core/sandbox/policy.js";

const home = "/home/ada";
const scope: SandboxScope = {
  userHome: home,
  offrunHome: `${home}/.offrun`,
  worktree: "/work/app/.worktrees/parser",
  gitCommonDir: "/work/app/.git",
  memoryDir: "/work/app/.offrun/memory/parser",
  loginWrites: [`${home}/.offrun/accounts/claude/work`],
  tmpDir: `${home}/.offrun/sandbox/app-1/parser/tmp`,
  otherHomes: [`${home}/.claude`, `${home}/.codex`, `${home}/.offrun/accounts/claude/personal`],
  otherProjects: ["/work/other", "/work/app"],
  hosts: ["api.anthropic.com", "127.0.0.1:4000"],
  extraWrites: [`${home}/.npm`],
};

test("writes go to the worktree, memory, git folder, the login's home, its temp and what the project adds, never git's hooks or config", () => {
  const { filesystem } = runtimeSettings(scope);
  expect(filesystem.allowWrite).toEqual([
    scope.worktree,
    scope.gitCommonDir,
    scope.memoryDir,
    ...scope.loginWrites,
    scope.tmpDir,
    `${home}/.npm`,
  ]);
  expect(filesystem.denyWrite).toEqual(["/work/app/.git/hooks", "/work/app/.git/config"]);
});

test("a Planner's worktree and git folder are read-only; its memory is not", () => {
  const { filesystem } = runtimeSettings({ ...scope, readOnlyWorktree: true });
  expect(filesystem.allowWrite).not.toContain(scope.worktree);
  expect(filesystem.allowWrite).not.toContain(scope.gitCommonDir);
  expect(filesystem.allowWrite).toContain(scope.memoryDir);
});

test("reads are closed to the user's secrets, Offrun's folder, other logins and other projects, but not to this login", () => {
  const { filesystem } = runtimeSettings(scope);
  for (const secret of [".ssh", ".aws", ".gnupg", ".config/gh"])
    expect(filesystem.denyRead).toContain(path.join(home, secret));
  expect(filesystem.denyRead).toEqual(expect.arrayContaining([`${home}/.offrun`, `${home}/.claude`, `${home}/.codex`]));
  expect(filesystem.denyRead).toContain(`${home}/.offrun/accounts/claude/personal`);
  expect(filesystem.denyRead).toContain("/work/other");
  // The project's own root holds the worktree: it stays readable.
  expect(filesystem.denyRead).not.toContain("/work/app");
  expect(filesystem.allowRead).toEqual([...scope.loginWrites, scope.tmpDir]);
});

test("a custom agent whose home is the user's home does not close the user's home to itself", () => {
  const { filesystem } = runtimeSettings({ ...scope, otherHomes: [home] });
  expect(filesystem.denyRead).not.toContain(home);
});

test("hosts are allowed by name, and a loopback gateway by its literal address and port", () => {
  const { network } = runtimeSettings(scope);
  expect(network.allowedDomains).toEqual(["api.anthropic.com", "127.0.0.1:4000", "localhost:4000"]);
  expect(reachesLoopback(scope.hosts)).toBe(true);
  expect(reachesLoopback(["api.openai.com"])).toBe(false);
});

test("base URLs in the login's environment name the hosts it talks to", () => {
  expect(
    hostsInEnvironment({
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9999",
      OPENAI_BASE_URL: "https://gateway.example.com/v1",
      PATH: "/usr/bin",
      SOME_ENDPOINT: "not a url",
    }).sort(),
  ).toEqual(["127.0.0.1:9999", "gateway.example.com"]);
});
